"""`sniff statusline` shows what Claude Code tells it (issue 34): its own usage limits, its
prompt cache's countdown, last-minute warning and cold state, and its own session cost beside
sniff's; it keeps the limit readings in sniff's history, once each; and a field of any odd
type or value changes nothing else on the line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff import limits_history
from sniff.cli import app
from sniff.model import Harness
from sniff.price_table import Rates
from sniff.statusline.line import compose
from sniff.statusline.prices import CachedPrices
from sniff.statusline.session import SessionNumbers
from sniff.statusline.stdin import parse
from sniff.statusline.usage import PARTS
from tests.cli.test_statusline import HEAVY, ROOT, status, transcript

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
T = NOW.timestamp()
MODEL = "claude-sonnet-4-20250514"
"""The fixture transcript's model: priced once a scan of it has kept its prices."""
TOLD_PARTS = ["model", "session", "limits", "cache"]


def told(now: float = T, **changes: Any) -> dict[str, Any]:
    """A status-line object as Claude Code 2.1.25x gives it, read at `now`; `changes` replace
    or (None) remove top-level fields."""
    data: dict[str, Any] = {
        "session_id": "s-1",
        "model": {"id": MODEL, "display_name": "Sonnet 4"},
        "cost": {"total_cost_usd": 4.2},
        "rate_limits": {
            "five_hour": {"used_percentage": 42.4, "resets_at": now + 72 * 60},
            "seven_day": {"used_percentage": 18, "resets_at": now + 3 * 86400},
        },
        "prompt_cache": {
            "warm": True, "caching_observed": True, "ttl": "5m", "expires_at": now + 192,
            "requests": 12, "misses": 1, "expected_rebuilds": 0, "hit_ratio": 0.92,
            "cache_write_tokens": 184_000, "miss_recache_tokens": 150_000,
            "last_miss_at": now - 900, "last_miss_cause": {"causes": ["ttl_expired_5m"]},
            "recache_tokens_if_cold": 184_000,
        },
        "context_window": {"total_input_tokens": 184_000, "context_window_size": 200_000},
    }  # fmt: skip
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    return data


def line_of(data: dict[str, Any] | bytes, parts: list[str] | None = None, **numbers: Any) -> str:
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    given = parse(raw)
    assert given is not None
    session = SessionNumbers(**numbers) if numbers else None
    return compose(parts or list(PARTS), given, session, colour=False, now=NOW)


def cache_at(left: float, **fields: Any) -> dict[str, Any]:
    data = told()
    data["prompt_cache"] = {**data["prompt_cache"], "expires_at": T + left, **fields}
    return data


@pytest.fixture(autouse=True)
def data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "data"
    monkeypatch.setenv("SNIFF_DATA_DIR", str(folder))
    return folder


def test_official_limits_and_a_warm_cache_are_shown_with_the_default_parts(monkeypatch, capsys):
    monkeypatch.setattr("subprocess.Popen", lambda command, **_: None)  # no archive refresh
    now = time.time()
    code, out = status(json.dumps(told(now)).encode(), "--plain", monkeypatch=monkeypatch,
                       capsys=capsys)  # fmt: skip
    assert code == 0
    assert out.startswith("Sonnet 4 · session $4.20 (Claude Code) · cache 3m")
    assert out.endswith("s · CC 5h 42% (resets 1h11m), 7d 18%\n")  # 7d is far from its limit


def test_the_limits_and_the_cache_at_a_fixed_moment():
    assert line_of(told()) == (
        "Sonnet 4 · session $4.20 (Claude Code) · cache 3m12s · CC 5h 42% (resets 1h12m), 7d 18%"
    )
    near = told()
    near["rate_limits"]["seven_day"]["used_percentage"] = 91.7
    near["rate_limits"]["spend_limit"] = {"used_percentage": 99.9, "resets_at": T + 86400 * 9}
    assert line_of(near, ["limits"]) == (
        "CC 5h 42% (resets 1h12m), 7d 91% (resets 3d), spend 99% (resets 9d)"
    )
    assert line_of(cache_at(3 * 3600), ["cache"]) == "cache 3h00m"


def test_the_last_minute_warns_of_the_cold_cost_in_tokens_where_unpriced():
    assert line_of(cache_at(42.5), ["cache"]) == "⚠ cache 42s: re-sending cold ≈ 184k tokens"
    assert line_of(cache_at(42.5, recache_tokens_if_cold=0), ["cache"]) == "⚠ cache 42s"
    unknown = cache_at(42.5)
    unknown["model"] = {"id": "claude-unheard-of-9", "display_name": "X"}
    assert line_of(unknown, ["cache"]).endswith("≈ 184k tokens")


@pytest.mark.parametrize("ttl", ["5m", "1h"])
def test_the_last_minute_warns_of_the_cold_cost_in_dollars_at_the_kept_prices(tmp_path, cc, ttl):
    path = transcript(tmp_path, cc)
    CliRunner().invoke(app, ["scan", str(path), "--no-progress"])  # keeps the model's prices
    rates = CachedPrices().rates(MODEL, NOW, 184_000)
    assert rates is not None
    write = rates.cache_write_1h if ttl == "1h" else rates.cache_write_5m
    dollars = 184_000 * (write - rates.cache_read)
    assert dollars > 0.01
    shown = line_of(cache_at(42.5, ttl=ttl), ["cache"])
    assert shown == f"⚠ cache 42s: re-sending cold ≈ ${dollars:,.2f}"


@pytest.mark.parametrize(
    ("fields", "shown"),
    [({"warm": False}, "cache cold: ttl_expired_5m"),
     ({"expires_at": T - 1}, "cache cold: ttl_expired_5m"),  # still said warm, but expired
     ({"warm": False, "last_miss_cause": {"causes": ["ttl_expired_5m", "model_changed"]}},
      "cache cold: ttl_expired_5m+model_changed"),
     ({"warm": False, "last_miss_cause": None}, "cache cold"),
     ({"caching_observed": False, "warm": False}, ""),  # no caching seen yet: nothing to say
     ({"expires_at": None}, "cache warm")],
)  # fmt: skip
def test_a_cold_cache_says_so_and_why(fields, shown):
    data = told()
    data["prompt_cache"] = {**data["prompt_cache"], **fields}
    data["prompt_cache"] = {k: v for k, v in data["prompt_cache"].items() if v is not None}
    assert line_of(data, ["cache"]) == shown


def test_both_session_costs_when_they_differ_by_more_than_a_cent():
    numbers = {"cost_usd": 4.12, "unpriced_requests": 0, "requests": 9, "hit_rate": 0.9,
               "last_break": None}  # fmt: skip
    assert line_of(told(), ["session"], **numbers) == "session $4.12 (Claude Code $4.20)"
    same = told(cost={"total_cost_usd": 4.129})
    assert line_of(same, ["session"], **numbers) == "session $4.12"
    assert line_of(told(cost=None), ["session"], **numbers) == "session $4.12"
    unpriced = {**numbers, "unpriced_requests": 9}
    assert line_of(told(), ["session"], **unpriced) == "session unpriced (Claude Code $4.20)"


def test_both_session_costs_from_the_transcript(tmp_path, cc, monkeypatch, capsys):
    path = transcript(tmp_path, cc)
    scanned = CliRunner().invoke(app, ["scan", str(path), "--json", "--no-progress"])
    cost = json.loads(scanned.stdout)["sessions"][0]["cost_usd"]
    data = told(session_id=cc.SESSION, transcript_path=str(path), cost={"total_cost_usd": 9.99})
    code, out = status(json.dumps(data).encode(), "--plain", "--parts", "session",
                       monkeypatch=monkeypatch, capsys=capsys)  # fmt: skip
    assert (code, out) == (0, f"session ${cost:,.2f} (Claude Code $9.99)\n")


HOSTILE = ['"42"', "[42]", '{"a": 1}', "true", "null", "NaN", "-Infinity", "1e400", "-5",
           "1e308", "123456789012345678901234567890", '"\\u001b[2J"', '""']  # fmt: skip
FIELDS = [
    ("rate_limits",), ("rate_limits", "five_hour"), ("rate_limits", "five_hour", "used_percentage"),
    ("rate_limits", "five_hour", "resets_at"), ("rate_limits", "seven_day", "used_percentage"),
    ("prompt_cache",), ("prompt_cache", "warm"), ("prompt_cache", "caching_observed"),
    ("prompt_cache", "ttl"), ("prompt_cache", "expires_at"),
    ("prompt_cache", "recache_tokens_if_cold"), ("prompt_cache", "last_miss_cause"),
    ("prompt_cache", "last_miss_cause", "causes"), ("cost",), ("cost", "total_cost_usd"),
    ("model", "id"),
]  # fmt: skip


def _placed(data: dict[str, Any], field: tuple[str, ...], value: Any) -> dict[str, Any]:
    copy = json.loads(json.dumps(data))
    holder = copy
    for key in field[:-1]:
        holder = holder[key]
    if value is None:
        holder.pop(field[-1], None)
    else:
        holder[field[-1]] = value
    return copy


@pytest.mark.parametrize("field", FIELDS, ids=".".join)
@pytest.mark.parametrize("hostile", HOSTILE)
@pytest.mark.parametrize("left", [192.0, 42.5, -10.0])
def test_an_odd_field_changes_nothing_else(field, hostile, left, monkeypatch):
    """The field holding an odd value reads as the field absent, whatever the rest says."""
    if hostile == "true" and field[-1] in ("warm", "caching_observed"):
        pytest.skip("a valid value of its own field")
    rates = Rates(3e-6, 0.3e-6, 3.75e-6, 6e-6, 15e-6)  # priced: the warning shows dollars
    monkeypatch.setattr(
        CachedPrices, "rates", lambda _, model, *__: rates if model == MODEL else None
    )
    data = cache_at(left, last_miss_cause={"causes": ["ttl_expired_5m"]})
    data["prompt_cache"]["warm"] = left > 0
    without = line_of(_placed(data, field, None))
    raw = json.dumps(_placed(data, field, "@hostile@")).replace('"@hostile@"', hostile).encode()
    with_odd = line_of(raw)
    assert with_odd == without
    assert "\x1b" not in with_odd and "Sonnet 4" in with_odd
    if field[0] != "rate_limits":  # the other parts are all there
        assert "CC 5h 42% (resets 1h12m), 7d 18%" in with_odd
    if field[0] not in ("prompt_cache", "model"):  # the model prices the warning
        assert {192.0: "cache 3m12s", 42.5: "≈ $0.63", -10.0: "cold: ttl"}[left] in with_odd


def test_hostile_text_in_a_cause_stays_one_visible_line():
    data = told()
    data["prompt_cache"] |= {"warm": False, "last_miss_cause": {
        "causes": ["\x1b]0;pwned\x07\r\nx", 7, "ok", "y" * 500]}}  # fmt: skip
    shown = line_of(data, ["cache"])
    assert shown == "cache cold: ␛]0;pwned␇␍ x+ok+" + "y" * 40
    given = parse(json.dumps(data).encode())
    assert given is not None
    coloured = compose(["cache"], given, None, colour=True, now=NOW)
    assert coloured.count("\x1b") == 2  # its own colour and reset only


def test_readings_are_kept_once_each(data_folder, monkeypatch, capsys):
    def run(data: dict[str, Any]) -> None:
        status(json.dumps(data).encode(), "--plain", "--parts", "model", monkeypatch=monkeypatch,
               capsys=capsys)  # fmt: skip

    run(told())
    first = limits_history.recorded(data_folder, Harness.CLAUDE_CODE)
    assert [(r.window, r.used_percent, r.resets_at) for r in first] == [
        ("five_hour", 42.4, T + 72 * 60), ("seven_day", 18.0, T + 3 * 86400)]  # fmt: skip
    assert all(abs(reading.at - time.time()) < 60 for reading in first)
    handed: list[int] = []
    real = limits_history.record
    monkeypatch.setattr(limits_history, "record", lambda got: handed.append(1) or real(got))
    run(told())
    assert handed == [] and limits_history.recorded(data_folder) == first  # not even read
    grown = told()
    grown["rate_limits"]["five_hour"]["used_percentage"] = 45
    run(grown)
    after = limits_history.recorded(data_folder)
    assert handed == [1] and len(after) == 3 and after[-1].used_percent == 45
    limits_history.history_path(data_folder).unlink()  # gone: kept again, from the next run
    run(grown)
    assert len(limits_history.recorded(data_folder)) == 2


def test_no_rate_limits_no_history(data_folder, monkeypatch, capsys):
    status(json.dumps(told(rate_limits=[1, 2])).encode(), monkeypatch=monkeypatch, capsys=capsys)
    assert not limits_history.history_path(data_folder).exists()


def test_parts_can_be_chosen_and_default_to_all():
    assert {"limits", "cache"} <= set(PARTS)
    assert line_of(told(), ["cache", "limits"]) == (
        "cache 3m12s · CC 5h 42% (resets 1h12m), 7d 18%"
    )


def test_told_parts_import_nothing_heavy(tmp_path):
    """Even the last minute's warning, which loads the kept prices, stays light."""
    data = told(time.time())
    data["prompt_cache"]["expires_at"] = time.time() + 30
    probe = (
        "import io, json, sys\nimport sniff.cli\n"
        f"sys.stdin = io.TextIOWrapper(io.BytesIO({json.dumps(data).encode()!r}))\n"
        "try:\n    sniff.cli.main(['statusline', '--plain'])\nexcept SystemExit:\n    pass\n"
        "sys.stderr.write(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, cwd=ROOT,
        env={**os.environ, "SNIFF_CACHE_DIR": str(tmp_path / "cache"),
             "SNIFF_DATA_DIR": str(tmp_path / "data")},
    )  # fmt: skip
    assert "⚠ cache " in result.stdout and "CC 5h 42%" in result.stdout, result.stderr
    assert sorted(set(json.loads(result.stderr)) & set(HEAVY)) == []
    assert (tmp_path / "data" / limits_history.HISTORY_FILE).is_file()
