"""What each command prints on a terminal, with rich: one module per command's view, the tables'
shared layout (`console`), and `SafeConsole`, which shows text from logs and never obeys it.
"""
