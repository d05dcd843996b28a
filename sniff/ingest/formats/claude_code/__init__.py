"""Claude Code's transcripts (`~/.claude/projects/**/*.jsonl`): the wire schema, the reader, the
grouping of a response's lines, and the activity (tool calls, user requests).
"""
