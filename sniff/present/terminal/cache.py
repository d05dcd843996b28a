"""Provides the presentation of `sniff cache`: terminal tables and the JSON object."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from sniff.analyses.cache.simulation import CacheReport, Comparison, Measures
from sniff.numbers import compact, money, percent, plural, signed_money
from sniff.present.json.common import rounded
from sniff.present.terminal.console import measures_table, short_project

TOP_ROWS = 10


def print_cache(console: Console, report: CacheReport, rows: int | None = None) -> None:
    """Observed vs simulated, the error, the first `rows` projects and sessions (None:
    `TOP_ROWS`), the what-ifs and the shared prefixes."""
    error = report.error
    console.print(
        Text.assemble(
            ("Cache simulation", "bold"),
            f" · policy: {report.policy} · {plural(report.observed.requests, 'request')}",
        )
    )
    if error.bias is None:
        console.print("No reported cache reads to compare the simulation with.")
    else:
        worst = ""
        if error.worst_file is not None and error.worst_file_bias is not None:
            worst = f"; worst file {_signed(error.worst_file_bias)} ({error.worst_file})"
        console.print(
            f"Simulation error vs reported cache reads: totals {_signed(error.bias)}, "
            f"per request {percent(error.absolute)} (token-weighted){worst}",
            highlight=False,
        )
    console.print(_observed_vs_simulated(report))
    shown = rows or TOP_ROWS
    console.print(_comparisons("By project", "project", report.by_project[:shown]))
    console.print(_comparisons("By session", "session", report.by_session[:shown]))
    if report.what_if:
        console.print(_what_if(report))
    if report.shared_prefixes:
        console.print(_shared(report))
    for note in report.notes:
        console.print(note, style="dim")


def cache_json(report: CacheReport) -> dict[str, Any]:
    """`sniff cache --json`."""
    error = report.error
    return {
        "policy": report.policy,
        "observed": measures_json(report.observed),
        "simulated": measures_json(report.simulated),
        "error": {
            "read_tokens_bias": rounded(error.bias),
            "read_tokens_absolute": rounded(error.absolute),
            "worst_file": error.worst_file,
            "worst_file_bias": rounded(error.worst_file_bias),
        },
        "by_project": [_comparison_json("project", row) for row in report.by_project],
        "by_session": [_comparison_json("session", row) for row in report.by_session],
        "what_if": [
            {
                "policy": what.label,
                "description": what.description,
                **measures_json(what.measures),
                "delta_usd": rounded(what.delta_usd),
            }
            for what in report.what_if
        ],
        "shared_prefixes": [
            {
                "prefix": prefix.label,
                "model": prefix.model,
                "tokens": prefix.tokens,
                "requests": prefix.requests,
                "sessions": prefix.sessions,
                "value_usd": rounded(prefix.value_usd),
            }
            for prefix in report.shared_prefixes
        ],
        "notes": report.notes,
    }


def measures_json(measures: Measures) -> dict[str, Any]:
    """Token classes, hit rate and cost of a set of requests."""
    cost = measures.cost
    return {
        "requests": measures.requests,
        "prompt_tokens": measures.prompt_tokens,
        "input_tokens": measures.input_tokens,
        "cache_read_tokens": measures.cache_read_tokens,
        "cache_write_5m_tokens": measures.cache_write_5m_tokens,
        "cache_write_1h_tokens": measures.cache_write_1h_tokens,
        "hit_rate": rounded(measures.hit_rate),
        "cost_usd": rounded(cost),
    }


def _comparison_json(key: str, row: Comparison) -> dict[str, Any]:
    return {
        key: row.key,
        "observed": measures_json(row.observed),
        "simulated": measures_json(row.simulated),
    }


def _observed_vs_simulated(report: CacheReport) -> Table:
    rows = [
        ["observed", *_cells(report.observed)],
        [f"simulated ({report.policy})", *_cells(report.simulated)],
    ]
    return measures_table("Observed vs simulated", ["", *HEADERS], rows, text_columns=1)


HEADERS = ["reqs", "prompt", "read", "write", "uncached", "hit", "cost"]


def _cells(measures: Measures) -> list[str]:
    return [
        f"{measures.requests:,}",
        compact(measures.prompt_tokens),
        compact(measures.cache_read_tokens),
        compact(measures.cache_write_5m_tokens + measures.cache_write_1h_tokens),
        compact(measures.input_tokens),
        percent(measures.hit_rate),
        money(measures.cost),
    ]


def _comparisons(title: str, key: str, rows: list[Comparison]) -> Table:
    cells = [
        [
            row.key[:8] if key == "session" else short_project(row.key),
            f"{row.observed.requests:,}",
            percent(row.observed.hit_rate),
            percent(row.simulated.hit_rate),
            money(row.observed.cost),
            money(row.simulated.cost),
        ]
        for row in rows
    ]
    headers = [key, "reqs", "hit", "sim. hit", "cost", "sim. cost"]
    return measures_table(title, headers, cells, text_columns=1, shrinkable=0)


def _what_if(report: CacheReport) -> Table:
    cells = [
        [
            what.label,
            percent(what.measures.hit_rate),
            compact(what.measures.cache_read_tokens),
            money(what.measures.cost),
            "–" if what.delta_usd is None else signed_money(what.delta_usd),
        ]
        for what in report.what_if
    ]
    headers = ["policy", "hit", "read", "cost", "vs observed"]
    return measures_table("What if", headers, cells, text_columns=1)


def _shared(report: CacheReport) -> Table:
    cells = [
        [
            prefix.label,
            prefix.model,
            compact(prefix.tokens),
            f"{prefix.requests:,}",
            f"{prefix.sessions:,}",
            money(prefix.value_usd),
        ]
        for prefix in report.shared_prefixes
    ]
    headers = ["shared prefix", "model", "tokens", "reqs", "sessions", "worth"]
    return measures_table(
        "Shared prefixes worth caching",
        headers,
        cells,
        text_columns=2,
        shrinkable=(0, 1),
        dated=True,
    )


def _signed(value: float | None) -> str:
    return "–" if value is None else f"{value * 100:+.1f}%"
