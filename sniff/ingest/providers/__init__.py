"""The providers' request and response bodies (Anthropic's Messages API, OpenAI's Chat
Completions and Responses), shared by the readers of claude-trace, request logs and Codex.
"""
