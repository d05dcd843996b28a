"""`record.epoch`: every timestamp form the logs use becomes the same epoch seconds."""

from __future__ import annotations

from typing import Any

import pytest

from sniff.ingest.record import epoch

MOMENT = 1_772_618_400.5  # 2026-03-04T10:00:00.500Z


@pytest.mark.parametrize(
    "written",
    [
        "2026-03-04T10:00:00.500Z",  # Claude Code
        "2026-03-04T10:00:00.500+00:00",
        "2026-03-04T11:00:00.500+01:00",
        "2026-03-04T10:00:00.500",  # no offset: UTC
        MOMENT,
        MOMENT * 1000,  # milliseconds
    ],
)
def test_every_form_of_one_moment_gives_its_epoch(written: Any) -> None:
    assert epoch(written) == pytest.approx(MOMENT, abs=1e-6)


@pytest.mark.parametrize("written", [None, "", "yesterday", True, False, [1], {"t": 1}])
def test_what_is_no_time_gives_none(written: Any) -> None:
    assert epoch(written) is None
