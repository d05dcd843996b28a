"""Codex's rollouts (`~/.codex/sessions/**/*.jsonl`): the reader and the activity."""
