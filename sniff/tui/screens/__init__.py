"""Provides the browser's screens, one per module: overview, project, session, request,
findings, latency and help."""
