"""Provides `sniff export`'s tables and writer: Parquet by day, mergeable across machines."""

from sniff.export.writer import ExportResult, export, read_export

__all__ = ["ExportResult", "export", "read_export"]
