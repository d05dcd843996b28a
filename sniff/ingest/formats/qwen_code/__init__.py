"""Qwen Code's chat recordings (a Gemini CLI fork: its usage is Gemini's,
`sniff.ingest.gemini_wire`).
"""
