"""How durations read: in days past 48 hours, so a gap of months is not thousands of hours."""

from __future__ import annotations

import pytest

from sniff.numbers import duration


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [
        (42, "42s"),
        (843, "14m 03s"),
        (7_500, "2h 05m"),
        (48 * 3600, "48h 00m"),
        (48 * 3600 + 60, "2d 00h"),
        (2236 * 3600 + 51 * 60, "93d 04h"),
    ],
)
def test_a_duration_reads_in_the_largest_unit_that_keeps_it_short(seconds: int, shown: str) -> None:
    assert duration(seconds) == shown
