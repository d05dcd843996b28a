"""Provides `sniff otel`: a local OTLP/HTTP receiver that keeps what agents send, for every
command to read (the receiver itself is `sniff.otel_receiver`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from sniff.cli.errors import one_line_errors
from sniff.errors import UserError

MAX_BYTES = 16 * 1024 * 1024


@one_line_errors
def otel(
    port: Annotated[
        int, typer.Option("--port", help="The port to listen on (0: any free port).", metavar="N")
    ] = 4318,
    host: Annotated[
        str,
        typer.Option(
            "--host", help="The address to listen on: only this machine by default.", metavar="HOST"
        ),
    ] = "127.0.0.1",
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="The folder of the daily files (default: otel/ in sniff's data folder, which "
            "every command reads).",
            metavar="DIR",
            show_default=False,
        ),
    ] = None,
    max_bytes: Annotated[
        int,
        typer.Option(
            "--max-bytes", help="The largest body accepted, as sent and inflated.", metavar="N"
        ),
    ] = MAX_BYTES,
) -> None:
    """Receive OpenTelemetry from Claude Code, Codex or Gemini CLI (OTLP/HTTP, JSON or protobuf)
    and append it to daily files, one per signal: logs, traces, metrics. Runs until Ctrl-C."""
    if not 0 <= port <= 65535:
        raise UserError(f"--port must be between 0 and 65535, not {port}")
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
