"""Per harness, how many requests a latency measure rests on, and why the others could not be
measured: every request of the selection is accounted for once."""

from __future__ import annotations

from datetime import UTC

import pytest

from sniff.analyses.latency.measures import METRICS, analyze_latency
from sniff.logs import load
from tests.conftest import SAMPLE_LOGS


@pytest.mark.parametrize("metric", METRICS)
def test_every_request_is_measured_or_given_one_reason_per_harness(metric: str) -> None:
    requests = load([SAMPLE_LOGS], use_index=False).requests
    report = analyze_latency(requests, metric, zone=UTC)
    rows = {row.harness: row for row in report.coverage}
    assert sum(row.requests for row in rows.values()) == len(requests)
    for row in rows.values():
        assert row.measured + sum(row.reasons().values()) == row.requests
    assert sum(row.measured for row in rows.values()) == report.count
    assert rows["droid"].totals_only == rows["droid"].requests  # session totals: no call's times


def test_time_per_token_is_measured_only_where_the_log_times_the_stream() -> None:
    requests = load([SAMPLE_LOGS], use_index=False).requests
    report = analyze_latency(requests, "tpot", zone=UTC)
    measured = {row.harness for row in report.coverage if row.measured}
    assert measured <= {"api", "claude-code"}  # claude-trace and request logs: exact streams
    assert {row.harness: row.not_measurable for row in report.coverage}["codex"] > 0
