"""sniff's version, in one place below every layer: reading it imports nothing above."""

__version__ = "0.1.0"
