"""One package per input format: its wire schema, its reader and its activity. A format package
may use what every reader shares (`sniff.ingest` and its `files` and `providers`), never another
format's package (an import-linter independence contract). To add an agent: a folder here and
one line in `sniff.ingest.files.log_formats`.
"""
