"""Provides `sniff otel`'s receiver: a local OTLP/HTTP endpoint that appends what it accepts to
daily JSON-lines files, one per signal (logs, traces, metrics) and UTC day.

`bodies` decodes and checks a request's body and turns it into one OTLP/JSON line, `files`
appends those lines whole, `server` answers HTTP. The package imports opentelemetry-proto and
protobuf at import time: only `sniff otel` imports it, and only when it runs.
"""
