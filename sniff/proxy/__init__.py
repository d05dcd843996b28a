"""Provides `sniff proxy`'s recording proxy: a local HTTP server that forwards agents' API
calls to Anthropic or OpenAI unchanged and appends one JSON line per call (request, response,
timing, outcome) to daily files every command reads.

`routes` picks the upstream and the headers that pass, `capture` keeps a bounded, decoded copy
of a body, `stream` times a server-sent event stream as it passes, `record` turns a call into
its line (secrets masked), `files` appends the lines from one writer, `diagnose` adds the cache
diagnosis fields when asked, `server` answers HTTP. The package imports aiohttp: only `sniff
proxy` imports it, and only when it runs.
"""
