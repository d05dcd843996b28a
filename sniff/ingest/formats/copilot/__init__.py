"""GitHub Copilot CLI's session events: the wire schema, the reader and the activity."""
