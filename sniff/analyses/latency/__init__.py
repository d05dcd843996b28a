"""How fast the responses were: time to first token (and first visible token), time per output
token, end to end, goodput, and the peaks of the distribution.
"""
