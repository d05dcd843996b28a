"""Provides `python -m sniff`."""

from sniff.cli import main

main()
