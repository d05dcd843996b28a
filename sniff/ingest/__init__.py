"""Reading logs: discovery, format detection, one parser per format, the index, the merge.

`sniff.ingest.reading.read` is the way in. This package's own module is kept empty so that
importing a light part (discovery) does not import every parser.
"""
