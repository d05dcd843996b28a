"""The on-disk index: what each log file held when it was last read, so a run reads only what
changed.

May use `sniff.ingest.files` and the records; knows no format.
"""
