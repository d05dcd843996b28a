"""Provides the presenters: results in, terminal tables, JSON and report files out."""
