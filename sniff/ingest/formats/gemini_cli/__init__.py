"""Gemini CLI's chat recordings: the reader and the activity."""
