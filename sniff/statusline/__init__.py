"""Provides `sniff statusline`: one short line for Claude Code's status bar, started light.

Why its own package: a status line runs every few seconds, so its entry point is dispatched by
`sniff.cli.main` before typer is imported, and it imports neither typer, rich, pandas, textual,
scipy nor the price library (tests/cli/test_statusline.py checks it). It reads the JSON Claude
Code pipes on stdin, prices the session's own transcript through the index with the prices kept
by earlier runs, and never fails the status bar: bad input prints a short fallback line, exit 0.
"""
