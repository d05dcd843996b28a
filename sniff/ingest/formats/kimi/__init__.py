"""Kimi CLI's context and wire files: the wire schema and the reader."""
