"""Provides the browser's widgets and cells: the browsing table, charts, totals, cache bars."""
