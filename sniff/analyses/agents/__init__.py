"""How the agent works: tool use and failures (their classes), user requests and what each led
to, and the cost by subagent type, skill and MCP server.
"""
