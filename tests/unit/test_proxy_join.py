"""What `sniff proxy` records, read back: a call also in a Claude Code transcript counts once,
joined on its response id, with the proxy's exact times and the whole prompt; a call in the
proxy's record alone is its client's (by User-Agent), timed exactly; a cancelled or broken
stream is a failed call; an index extending a growing record gives the whole scan."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from sniff.ingest.record import Prompts
from sniff.logs import load
from tests.conftest import Lines

runner = CliRunner()
T0 = 1_775_000_000.0
ISO = "2026-03-31T23:33:20.000Z"  # T0


def recorded(key: str, at: float, **extra: Any) -> dict[str, Any]:
    """One line as `sniff proxy` writes it: a Claude Code call, its times measured."""
    usage = {
        "input_tokens": 10,
        "cache_read_input_tokens": 5000,
        "cache_creation_input_tokens": 300,
        "output_tokens": 50,
        "cache_creation": {"ephemeral_5m_input_tokens": 300, "ephemeral_1h_input_tokens": 0},
    }
    request = {
        "model": Lines.SONNET_4,
        "max_tokens": 1024,
        "system": [
            {"type": "text", "text": "You are Claude Code.", "cache_control": {"type": "ephemeral"}}
        ],
        "messages": [{"role": "user", "content": "Run the tests."}],
    }
    return {"request": request,
            "response": {"id": key, "type": "message", "model": Lines.SONNET_4, "usage": usage},
            "status": 200, "api": "anthropic-messages", "provider": "anthropic", "id": key,
            "started_at": at, "first_byte_at": at + 0.4, "first_token_at": at + 1.1,
            "first_visible_at": at + 1.6, "ended_at": at + 2.5, "outcome": "complete",
            "session": Lines.SESSION, "client": "claude-cli/2.1.30 (external, cli)",
            "proxy": {"path": "/v1/messages", "upstream": "https://api.anthropic.com",
                      "diagnose": False}, **extra}  # fmt: skip


def write(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def transcript(folder: Path, cc: type[Lines]) -> None:
    usage = cc.usage(input=10, read=5000, write=300, output=50, split=(300, 0))
    cc.write(folder / "projects" / "webshop" / f"{cc.SESSION}.jsonl", [
        cc.user("u1", None, ISO),
        cc.assistant("msg_1", "a1", "u1", "2026-03-31T23:33:23.000Z", usage),
    ])  # fmt: skip


def scan(folder: Path, *extra: str) -> dict[str, Any]:
    result = runner.invoke(app, ["scan", "--json", *extra, str(folder)])
    assert result.exit_code == 0, result.output
    found: dict[str, Any] = json.loads(result.stdout)
    return found


def test_a_proxied_call_in_a_transcript_counts_once_with_the_proxys_times(
    tmp_path: Path, cc: type[Lines]
) -> None:
    transcript(tmp_path, cc)
    write(tmp_path / "proxy" / "calls-2026-03-31.jsonl", [recorded("msg_1", T0 + 0.05)])
    report = scan(tmp_path)
    assert report["totals"]["requests"] == 1
    assert report["source"]["proxy"] == {"joined_to_transcripts": 1, "proxy_only": 0}
    (request,) = load([tmp_path], with_prompts=Prompts.TEXT, use_index=False).requests
    assert request.source == "claude-code" and request.project == cc.CWD  # the transcript's
    assert request.first_hand is not None and request.first_hand.ttft
    assert request.started_at is not None and request.first_token_at is not None
    assert (request.first_token_at - request.started_at).total_seconds() == pytest.approx(1.1)
    assert [block.role for block in request.blocks] == ["system", "user"]  # the proxy's prompt
    timed = json.loads(runner.invoke(app, ["latency", "--json", str(tmp_path)]).stdout)
    assert (timed["count"], timed["exact"]) == (1, 1)
    assert timed["percentiles"]["p50"] == pytest.approx(1.1)


def test_a_call_in_the_record_alone_is_its_clients_timed_exactly(tmp_path: Path) -> None:
    write(tmp_path / "calls.jsonl", [recorded("msg_9", T0)])
    report = scan(tmp_path)
    assert report["source"]["proxy"] == {"joined_to_transcripts": 0, "proxy_only": 1}
    assert [row["harness"] for row in report["by_harness"]] == ["claude-code"]
    timed = json.loads(runner.invoke(app, ["latency", "--json", "--metric", "visible",
                                           str(tmp_path)]).stdout)  # fmt: skip
    assert timed["percentiles"]["p50"] == pytest.approx(1.6)


@pytest.mark.parametrize("outcome", ["cancelled", "broken"])
def test_a_stream_that_did_not_complete_is_a_failed_call(tmp_path: Path, outcome: str) -> None:
    write(tmp_path / "calls.jsonl", [recorded("msg_9", T0, outcome=outcome)])
    assert scan(tmp_path)["warnings"]["failed_requests"] == 1


def test_an_index_extending_a_growing_record_gives_the_whole_scan(
    tmp_path: Path, cc: type[Lines]
) -> None:
    transcript(tmp_path, cc)
    record = write(tmp_path / "proxy" / "calls.jsonl", [recorded("msg_0", T0 - 600)])
    scan(tmp_path)
    with record.open("a") as handle:  # the transcript's call, recorded after
        handle.write(json.dumps(recorded("msg_1", T0 + 0.05)) + "\n")
    assert scan(tmp_path) == scan(tmp_path, "--no-index")
    assert scan(tmp_path)["source"]["proxy"] == {"joined_to_transcripts": 1, "proxy_only": 1}


def test_watch_shows_a_proxied_call_as_it_completes_with_its_exact_timing(tmp_path: Path) -> None:
    from sniff.analyses.live.events import events_of
    from sniff.ingest.files.follow import Follower
    from sniff.present.json.watch import event_json
    from sniff.pricing import PriceBook

    record = write(tmp_path / "proxy" / "calls.jsonl", [recorded("msg_0", T0)])
    prices = PriceBook()
    follower = Follower([tmp_path], prices.cost)
    follower.step()
    with record.open("a") as handle:
        handle.write(json.dumps(recorded("msg_1", T0 + 60)) + "\n")
    events = events_of(follower.step(), follower.by_session, prices, known_sessions=set())
    (response,) = [event_json(event) for event in events if event.kind == "response"]
    assert response["exact_timing"] is True
    assert response["ttft_s"] == pytest.approx(1.1)
    assert response["tpot_s"] == pytest.approx((2.5 - 1.1) / 49)
