"""Provides the presenters: results in, terminal tables, JSON and report files out.

`terminal/` prints each command's view with rich (through `SafeConsole`), `json/` writes the
machine-readable form, `report/` the cost report (Markdown, CSV, JSON, HTML with its charts).
Every string read from a log leaves through `sniff.shown`. May use the analyses' results and
the records; never the front ends (`sniff.cli`, `sniff.tui`).
"""
