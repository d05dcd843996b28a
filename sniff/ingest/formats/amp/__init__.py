"""Amp's thread files: the wire schema and the reader."""
