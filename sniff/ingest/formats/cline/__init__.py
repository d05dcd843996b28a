"""Cline's task folders and its UI messages: the wire schema, the readers and the activity."""
