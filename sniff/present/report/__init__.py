"""The cost report: its data and tables (shared by Markdown, CSV and JSON), the self-contained
HTML page and its charts, and the agents' sections.
"""
