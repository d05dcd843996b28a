"""OpenTelemetry exports as they land on disk (OTLP/JSON): Claude Code's own signals and other
agents' (the GenAI semantic conventions)."""
