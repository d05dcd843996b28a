"""A watch judges each new request's cache break against what the requests before it keep,
and finds the breaks that judging the whole session finds."""

from __future__ import annotations

from collections import Counter

import pytest

from sniff.analyses.cache.breaks import find_breaks
from sniff.analyses.live.breaks import LiveBreaks
from sniff.model import Request
from sniff.pricing import PriceBook
from sniff.workspace import Workspace
from tests.conftest import SAMPLE_LOGS


def sessions() -> dict[str, list[Request]]:
    requests = Workspace(SAMPLE_LOGS / "claude-code", tz="UTC", use_index=False)
    found: dict[str, list[Request]] = {}
    for request in requests.dataset("counted").requests:
        found.setdefault(request.session_id, []).append(request)
    return {session: held for session, held in found.items() if len(held) >= 6}


def judged(breaks: list) -> dict[str, tuple[str, float | None]]:
    return {found.request.key: (found.cause, found.cost_usd) for found in breaks}


@pytest.mark.parametrize("session", sorted(sessions()))
def test_each_new_requests_break_is_the_whole_sessions(
    session: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = sorted(sessions()[session], key=lambda r: (r.ended_at, r.file, r.line))
    prices = PriceBook()
    live = LiveBreaks(prices)
    wholes = Counter[str]()
    real = LiveBreaks._whole

    def counted(self: LiveBreaks, name: str, requests: list[Request]) -> list:
        wholes[name] += 1
        return real(self, name, requests)

    monkeypatch.setattr(LiveBreaks, "_whole", counted)
    live.start(held[:3])
    for end in range(4, len(held) + 1):
        new = held[end - 1]
        found = judged(live.step(session, [new], lambda end=end: held[:end]))
        expected = judged(find_breaks(held[:end], prices).breaks)
        assert found.get(new.key) == expected.get(new.key), new.key
    assert wholes[session] < len(held) - 3  # the frontier judged most of them alone
