"""The browser's analyses: the archive's indexes, a prompt's cache states, the findings list."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from sniff.analyses.browse import build_archive
from sniff.analyses.cache.prompt_view import CacheState, prompt_view
from sniff.analyses.cost.summary import Totals
from sniff.analyses.findings import collect_findings
from sniff.findings import Finding, Saving, Severity
from sniff.logs import load
from sniff.model import Agent, Block, Dataset, Request, Usage
from sniff.pricing import PriceBook
from tests.conftest import SAMPLE_LOGS

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def request(
    key: str,
    minutes: float,
    usage: Usage,
    blocks: tuple[Block, ...] = (),
    *,
    session: str = "s1",
    line: int = 1,
) -> Request:
    when = START + timedelta(minutes=minutes)
    return Request(
        source="request-log",
        key=key,
        project="/home/dana/src/webshop",
        session_id=session,
        agent=Agent.MAIN,
        agent_id="main",
        model="claude-sonnet-4-5-20250929",
        provider="anthropic",
        ended_at=when + timedelta(seconds=3),
        started_at=when,
        usage=usage,
        file="requests.jsonl",
        line=line,
        blocks=blocks,
    )


def block(name: str, tokens: int) -> Block:
    return Block(kind="text", role="system", content_hash=name, tokens=tokens)


@pytest.fixture(scope="module")
def sample_archive() -> object:
    return build_archive(load([SAMPLE_LOGS / "claude-code"]), PriceBook(), UTC)


def test_projects_and_sessions_add_up_to_the_archive(sample_archive: object) -> None:
    archive = sample_archive
    whole = Totals()
    for project in archive.projects:  # type: ignore[attr-defined]
        whole.merge(project.totals)
        sessions = archive.sessions(project.project)  # type: ignore[attr-defined]
        assert len(sessions) == project.sessions
        assert sum(view.row.totals.requests for view in sessions) == project.totals.requests
        assert sum(view.breaks.count for view in sessions) == project.breaks.count
    assert whole.requests == archive.totals.requests  # type: ignore[attr-defined]
    assert whole.cache_read_tokens == archive.totals.cache_read_tokens  # type: ignore[attr-defined]
    faults = archive.fault_breaks  # type: ignore[attr-defined]
    assert faults.count == sum(p.breaks.count for p in archive.projects)  # type: ignore[attr-defined]


def test_a_project_is_looked_up_by_name_with_its_sessions_totals_and_breaks(
    sample_archive: object,
) -> None:
    archive = sample_archive
    for row in archive.projects:  # type: ignore[attr-defined]
        assert archive.project(row.project) is row  # type: ignore[attr-defined]
        whole = Totals()
        for view in archive.sessions(row.project):  # type: ignore[attr-defined]
            whole.merge(view.row.totals)
        assert whole.requests == row.totals.requests
        assert whole.cost_usd == pytest.approx(row.totals.cost_usd)
    assert archive.project("/no/such/project") is None  # type: ignore[attr-defined]


def test_every_request_is_on_its_session_timeline_in_time_order(sample_archive: object) -> None:
    archive = sample_archive
    for request_ in archive.dataset.requests:  # type: ignore[attr-defined]
        timeline = archive.timeline(request_.session_id)  # type: ignore[attr-defined]
        assert request_ in [entry.request for entry in timeline]
        times = [entry.request.when for entry in timeline]
        assert times == sorted(times)


def test_a_gap_longer_than_the_ttl_is_idle_and_a_short_one_is_not() -> None:
    wrote = Usage(input_tokens=10, cache_write_5m_tokens=4000, output_tokens=50)
    read = Usage(input_tokens=10, cache_read_tokens=4000, output_tokens=50)
    requests = (
        request("a", 0, wrote),
        request("b", 4, read),  # 4 minutes: within the 5-minute TTL
        request("c", 20, wrote),  # 16 minutes later: the cache had expired
    )
    archive = build_archive(Dataset(requests=requests), PriceBook(), UTC)
    entries = archive.timeline("s1")
    assert [entry.idle for entry in entries] == [False, False, True]
    assert entries[2].previous == requests[1]
    assert entries[2].gap_seconds == 16 * 60
    assert entries[2].found is not None and entries[2].found.cause == "ttl_expired"


def test_blocks_are_read_then_written_then_uncached_along_the_prompt() -> None:
    blocks = (block("tools", 1000), block("system", 1000), block("turn", 1000), block("new", 1000))
    usage = Usage(input_tokens=1000, cache_read_tokens=2000, cache_write_5m_tokens=1000)
    view = prompt_view(request("b", 1, usage, blocks), None)
    assert [row.state for row in view.rows] == [
        CacheState.READ,
        CacheState.READ,
        CacheState.WRITTEN,
        CacheState.UNCACHED,
    ]
    assert [row.start for row in view.rows] == [0, 1000, 2000, 3000]


def test_block_sizes_are_scaled_to_the_reported_prompt() -> None:
    blocks = (block("tools", 10), block("system", 30))  # estimates: a quarter of the real size
    usage = Usage(cache_read_tokens=40, input_tokens=120)
    view = prompt_view(request("b", 1, usage, blocks), None)
    assert [row.state for row in view.rows] == [CacheState.READ, CacheState.UNCACHED]
    assert view.rows[1].start == 40


def test_the_first_block_that_differs_from_the_previous_prompt_is_named() -> None:
    usage = Usage(input_tokens=100)
    before = request("a", 0, usage, (block("tools", 50), block("system", 50)))
    edited = request("b", 1, usage, (block("tools", 50), block("system-v2", 50)))
    view = prompt_view(edited, before)
    assert view.first_changed == 2 and [row.changed for row in view.rows] == [False, True]
    assert view.comparison.startswith("block 2 differs from the previous request")
    grown = request("c", 2, usage, (*before.blocks, block("turn", 10)))
    assert prompt_view(grown, before).first_changed is None
    assert "1 block(s) appended" in prompt_view(grown, before).comparison
    assert "removed" in prompt_view(request("d", 3, usage, before.blocks[:1]), before).comparison
    assert prompt_view(request("e", 4, usage), before).rows == []


def test_findings_rank_breaks_and_lint_by_dollars_and_find_the_request() -> None:
    wrote = Usage(input_tokens=10, cache_write_5m_tokens=40_000, output_tokens=50)
    requests = (
        request("a", 0, wrote, line=1),
        request("b", 30, wrote, line=2),  # expired: a ttl_expired break
    )
    archive = build_archive(Dataset(requests=requests), PriceBook(), UTC)
    lint = [
        Finding(
            "SN001",
            Severity.ERROR,
            "a date in the system prompt",
            "requests.jsonl",
            2,
            request="b",
            saving=Saving(1000, 1000.0, "these 2 requests"),
        ),
        Finding("SN007", Severity.WARNING, "5 breakpoints", "other.md", 3),
    ]
    found = collect_findings(archive, lint)
    assert [(item.kind, item.code) for item in found] == [
        ("lint", "SN001"),
        ("break", "ttl_expired"),
        ("lint", "SN007"),
    ]
    assert found[0].request_key == "b" and found[1].request_key == "b"
    assert found[2].request_key is None and found[2].usd is None


def test_the_timeline_gap_is_the_one_the_break_was_judged_by() -> None:
    """Without a logged start, a request starts at its first token, as for break detection."""
    wrote = Usage(input_tokens=10, cache_write_5m_tokens=4000, output_tokens=50)
    first = request("a", 0, wrote)
    later = request("b", 10, wrote)
    unstarted = Request(
        **{
            **{name: getattr(later, name) for name in later.__struct_fields__},
            "started_at": None,
            "first_token_at": later.started_at + timedelta(seconds=2),
            "ended_at": later.started_at + timedelta(minutes=3),
        }
    )
    archive = build_archive(Dataset(requests=(first, unstarted)), PriceBook(), UTC)
    entry = archive.timeline("s1")[1]
    assert entry.found is not None and entry.found.gap_seconds == 10 * 60 + 2
    assert entry.gap_seconds == entry.found.gap_seconds
