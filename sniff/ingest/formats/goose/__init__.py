"""Goose's sessions database: the reader of its session totals."""
