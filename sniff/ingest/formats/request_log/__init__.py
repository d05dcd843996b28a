"""The generic request log: one API request and response per line, as a proxy or a client's own
logging writes them.
"""
