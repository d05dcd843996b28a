"""Days, ISO weeks and months follow --tz in every command: across DST and far from UTC.

Each request is alone in its session, a minute from a local midnight, so a command that dates
it in UTC (or in the wrong offset of a DST day) puts it on the wrong day, week or month.
"""

from __future__ import annotations

import json
import os
import re
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from tests.conftest import Lines

runner = CliRunner()

PARIS = ("2026-03-28T22:59:00Z", "2026-03-28T23:01:00Z", "2026-03-29T21:59:00Z",
         "2026-03-29T22:01:00Z")  # fmt: skip
"""Around the 23-hour day of 2026-03-29 in Paris (CET to CEST at 01:00 UTC)."""
NEW_YORK = ("2026-11-01T03:59:00Z", "2026-11-01T04:01:00Z", "2026-11-02T04:59:00Z",
            "2026-11-02T05:01:00Z")  # fmt: skip
"""Around the 25-hour day of 2026-11-01 in New York (EDT to EST at 06:00 UTC), a month's end."""
FAR = ("2026-02-28T10:30:00Z", "2026-03-01T10:30:00Z")
"""Half past ten UTC: the next day at Kiritimati (+14), the day before at Pago Pago (-11)."""

CASES = {
    ("Europe/Paris", PARIS): (
        ["2026-03-28", "2026-03-29", "2026-03-29", "2026-03-30"],
        ["2026-W13", "2026-W13", "2026-W13", "2026-W14"],
        ["2026-03"] * 4,
    ),
    ("UTC", PARIS): (
        ["2026-03-28", "2026-03-28", "2026-03-29", "2026-03-29"],
        ["2026-W13"] * 4,
        ["2026-03"] * 4,
    ),
    ("America/New_York", NEW_YORK): (
        ["2026-10-31", "2026-11-01", "2026-11-01", "2026-11-02"],
        ["2026-W44", "2026-W44", "2026-W44", "2026-W45"],
        ["2026-10", "2026-11", "2026-11", "2026-11"],
    ),
    ("UTC", NEW_YORK): (
        ["2026-11-01", "2026-11-01", "2026-11-02", "2026-11-02"],
        ["2026-W44", "2026-W44", "2026-W45", "2026-W45"],
        ["2026-11"] * 4,
    ),
    ("Pacific/Kiritimati", FAR): (
        ["2026-03-01", "2026-03-02"], ["2026-W09", "2026-W10"], ["2026-03", "2026-03"]
    ),
    ("Pacific/Pago_Pago", FAR): (
        ["2026-02-27", "2026-02-28"], ["2026-W09", "2026-W09"], ["2026-02", "2026-02"]
    ),
    ("UTC", FAR): (["2026-02-28", "2026-03-01"], ["2026-W09", "2026-W09"], ["2026-02", "2026-03"]),
}  # fmt: skip
"""(zone, instants) → each request's local day, ISO week and month, worked out by hand."""


def write_requests(folder: Path, instants: tuple[str, ...]) -> Path:
    """One session per instant; its request's output tokens are 10^index, to tell them apart."""
    for index, instant in enumerate(instants):
        moment = datetime.fromisoformat(instant)
        asked = (moment - timedelta(seconds=10)).isoformat().replace("+00:00", "Z")
        session = f"00000000-0000-4000-8000-{index:012d}"
        Lines.write(
            folder / "projects" / "-home-dana-src-webshop" / f"{session}.jsonl",
            [
                Lines.user(f"u{index}", None, asked, session=session),
                Lines.assistant(
                    f"msg_{index}", f"a{index}", f"u{index}", instant,
                    Lines.usage(input=4, write=1000, output=10**index), session=session,
                ),
            ],
        )  # fmt: skip
    return folder


def json_of(*arguments: str) -> Any:
    result = runner.invoke(app, [*arguments, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def expected(keys: list[str]) -> dict[str, int]:
    """Period key → output tokens of the requests in it."""
    found: dict[str, int] = {}
    for index, key in enumerate(keys):
        found[key] = found.get(key, 0) + 10**index
    return found


@pytest.mark.parametrize(("zone", "instants"), list(CASES))
def test_every_command_puts_each_request_in_its_local_period(
    zone: str, instants: tuple[str, ...], tmp_path: Path
) -> None:
    logs = str(write_requests(tmp_path, instants))
    days, weeks, months = CASES[zone, instants]
    for command, by, keys in (("daily", "day", days), ("weekly", "week", weeks),
                              ("monthly", "month", months)):  # fmt: skip
        rows = json_of(command, logs, "--tz", zone)[command]
        assert {row[by]: row["output_tokens"] for row in rows} == expected(keys), command
        groups = json_of("report", logs, "--tz", zone, "--by", by)["groups"]
        assert {row[by]: row["output_tokens"] for row in groups} == expected(keys), by
    by_day = json_of("scan", logs, "--tz", zone)["by_day"]
    assert {row["day"]: row["output_tokens"] for row in by_day} == expected(days)
    table = runner.invoke(app, ["sessions", logs, "--tz", zone, "--sort", "start"]).stdout
    starts = re.findall(r"\d\d-\d\d-\d\d \d\d:\d\d", table)
    assert [f"20{start[:8]}" for start in starts] == days  # each session's local start day


@pytest.mark.parametrize(("zone", "instants"), list(CASES))
def test_since_and_until_are_local_days(
    zone: str, instants: tuple[str, ...], tmp_path: Path
) -> None:
    logs = str(write_requests(tmp_path, instants))
    days = CASES[zone, instants][0]
    last = days[-1]
    window = ("--tz", zone, "--since", last, "--until", last)
    rows = json_of("daily", logs, *window)["daily"]
    assert [(row["day"], row["output_tokens"]) for row in rows] == [(last, expected(days)[last])]
    assert json_of("scan", logs, *window)["totals"]["output_tokens"] == expected(days)[last]


def test_ccusage_dates_are_whole_local_days_too(tmp_path: Path) -> None:
    logs = str(write_requests(tmp_path, PARIS))
    window = ("--tz", "Europe/Paris", "--since", "20260329", "--until", "20260329")
    rows = json_of("daily", logs, *window)["daily"]
    assert [(row["day"], row["output_tokens"]) for row in rows] == [("2026-03-29", 10 + 100)]
    assert json_of("daily", logs, "--tz", "Europe/Paris", "--since", "2026-03-29",
                   "--until", "2026-03-29") == json_of("daily", logs, *window)  # fmt: skip


def test_the_default_zone_is_the_machines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    import tzlocal

    logs = str(write_requests(tmp_path, FAR))
    before = os.environ.get("TZ")
    monkeypatch.setenv("TZ", "Pacific/Kiritimati")
    time.tzset()
    tzlocal.reload_localzone()  # it keeps the zone it found first
    try:
        rows = json_of("daily", logs)
    finally:
        if before is None:
            monkeypatch.delenv("TZ")
        else:
            monkeypatch.setenv("TZ", before)
        time.tzset()
        tzlocal.reload_localzone()
    assert [row["day"] for row in rows["daily"]] == ["2026-03-01", "2026-03-02"]
