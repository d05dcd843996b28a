"""Provides `sniff otel`: a local OTLP/HTTP receiver that keeps what agents send, for every
command to read (the receiver itself is `sniff.otel_receiver`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from sniff.cli import options as o
from sniff.cli.errors import one_line_errors
from sniff.errors import UserError

MAX_BYTES = 16 * 1024 * 1024


@one_line_errors
def otel(
    port: o.ListenPort = 4318,
    host: o.ListenHost = "127.0.0.1",
    out: o.DailyFolder = None,
    max_bytes: Annotated[
        int,
        typer.Option(
            "--max-bytes", help="The largest body accepted, as sent and inflated.", metavar="N"
        ),
    ] = MAX_BYTES,
) -> None:
    """Receive OpenTelemetry from Claude Code, Codex or Gemini CLI (OTLP/HTTP, JSON or protobuf)
    and append it to daily files, one per signal: logs, traces, metrics (in otel/ of sniff's
    data folder unless --out names another). Runs until Ctrl-C."""
    o.listen_port(port)
    if max_bytes <= 0:
        raise UserError(f"--max-bytes must be above 0, not {max_bytes}")
    # imported here: protobuf and opentelemetry-proto cost every other command's start-up
    from sniff.otel_receiver.files import DailyFiles
    from sniff.otel_receiver.server import bind, serve
    from sniff.paths import otel_folder

    files = DailyFiles.prepare(out if out is not None else otel_folder())
    receiver = bind(host, port, files, max_bytes)

    def ready() -> None:
        sys.stdout.write(banner(receiver.endpoint(), files.folder.absolute()))
        sys.stdout.flush()

    serve(receiver, ready)
    sys.stderr.write("sniff otel: stopped\n")


def banner(endpoint: str, folder: Path) -> str:
    """Where the receiver listens and writes, and what to set for Claude Code to send there."""
    variables = {
        "CLAUDE_CODE_ENABLE_TELEMETRY": "1",
        "OTEL_LOGS_EXPORTER": "otlp",
        "OTEL_TRACES_EXPORTER": "otlp",
        "OTEL_METRICS_EXPORTER": "otlp",
        "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
        "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint,
        # the spans that carry time to first token are behind this flag
        "CLAUDE_CODE_ENHANCED_TELEMETRY_BETA": "1",
    }
    exports = "".join(f"export {name}={value}\n" for name, value in variables.items())
    return (
        f"sniff otel: receiving OTLP/HTTP on {endpoint} (/v1/logs, /v1/traces, /v1/metrics)\n"
        f"writing to {folder} (logs-, traces-, metrics-YYYY-MM-DD.jsonl, one per UTC day)\n"
        "\n"
        "For Claude Code, set these in the shell that starts it:\n"
        f"{exports}"
        "\n"
        "Codex and Gemini CLI: see docs/otel.md. Ctrl-C to stop.\n"
    )
