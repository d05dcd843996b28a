"""Provides the browser's screens, one per module: overview, project, session, request,
findings, latency, agents (`behaviour.py`, with the model calls of a user request) and help."""
