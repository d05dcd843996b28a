"""The machine-readable form of every command's results: stable keys, for scripts and golden
tests; every string passes through `sniff.shown` (`common.dumps`).
"""
