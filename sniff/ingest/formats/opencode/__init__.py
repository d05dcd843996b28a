"""OpenCode's storage (JSON files or its SQLite database): the wire schema, the reader and the
tool calls.
"""
