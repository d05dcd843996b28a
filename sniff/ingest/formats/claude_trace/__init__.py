"""claude-trace's captures (`.claude-trace/log-*.jsonl`): whole requests and responses."""
