"""Finding and opening log files: discovery of the usual roots, format detection, reading lines,
refusing special files, SQLite, following growing files.

May use the records (`sniff.ingest.record`, `sniff.model`) and the shared helpers beside it; the
readers of each format are imported by name when a file of theirs is read (`log_formats`,
`streamed`).
"""
