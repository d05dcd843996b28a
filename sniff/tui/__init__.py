"""Provides `sniff tui`: a Textual browser from the archive's totals down to one request.

Importing this package imports Textual; the CLI imports it only when `sniff tui` runs.
"""

from sniff.tui.app import SniffApp, make_app

__all__ = ["SniffApp", "make_app"]
