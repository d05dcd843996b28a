"""The blocks table at 80 columns: the dearest, busiest block still shows every column whole,
and counts keep to 4 characters."""

from __future__ import annotations

from io import StringIO
from zoneinfo import ZoneInfo

import pytest
from msgspec.structs import replace
from rich.console import Console

from sniff.analyses.cache.break_report import Break
from sniff.analyses.cost.blocks import build_blocks
from sniff.model import Agent, Usage
from sniff.numbers import short_count
from sniff.present.terminal.blocks import HEADERS, blocks_table, short_model
from tests.unit.test_blocks import at, req


@pytest.mark.parametrize(
    ("value", "shown"),
    [(0, "0"), (999, "999"), (1000, "1.0k"), (9_949, "9.9k"), (9_950, "10k"), (999_499, "999k"),
     (999_500, "1.0M"), (9_950_000, "10M"), (123_456_789, "123M"), (999_500_000, "1.0B"),
     (12_345_678_901, "12B")],
)  # fmt: skip
def test_short_counts_keep_to_four_characters(value: int, shown: str) -> None:
    assert short_count(value) == shown


def test_a_model_reads_without_its_date_and_vendor() -> None:
    assert short_model("claude-sonnet-4-20250514") == "sonnet-4"
    assert short_model("claude-opus-4-5-20251101") == "opus-4-5"
    assert short_model("gpt-5-codex") == "gpt-5-codex"


def test_the_widest_block_fits_80_columns_whole() -> None:
    usage = Usage(input_tokens=1_000, output_tokens=50_000, cache_write_5m_tokens=80_000,
                  cache_read_tokens=800_000)  # fmt: skip
    requests = [
        replace(
            req(f"r{number}", "2026-01-05T10:05", usd=1_234.0 / 12_000, model=model), usage=usage
        )  # fmt: skip
        for number, model in enumerate(
            ["claude-opus-4-5-20251101", "claude-sonnet-4-5-20250929", "claude-3-5-haiku-20241022"]
            * 4_000,
            start=1,
        )
    ]
    requests.append(req("r99999", "2026-01-05T11:00", usd=4.0, agent=Agent.SUBAGENT))
    breaks = [Break(requests[0], None, "ttl_expired", 400.0, 100, 100, 0, 123.45)]
    blocks = build_blocks(requests, breaks)
    console = Console(file=StringIO(), width=80)
    console.print(blocks_table(blocks, ZoneInfo("America/St_Johns"), at("2026-01-05T12:00")))
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert "…" not in text and max(map(len, text.splitlines())) <= 80
    header = next(line for line in text.splitlines() if "reqs" in line)
    assert header.split() == list(HEADERS)
    row = next(line for line in text.splitlines() if "2026-01-05 06:30*" in line)
    assert row.split() == ["2026-01-05", "06:30*", "07:30", "12,001", "12M", "600M", "960M", "9.6B",
                           "90.8%", "$1,238", "1", "$123", "0.3%"]  # fmt: skip
    models = [line.strip() for line in text.splitlines()[5:8]]
    assert models == ["opus-4-5", "sonnet-4-5", "3-5-haiku"]
