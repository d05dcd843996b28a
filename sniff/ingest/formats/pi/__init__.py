"""pi's and OpenClaw's session files: the wire schema and the reader."""
