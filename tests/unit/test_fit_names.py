"""Names cut to a table column: short enough, and still telling apart the names they stand for."""

from __future__ import annotations

import pytest

from sniff.present.terminal.console import fit_names, short_project

SONNETS = ["claude-sonnet-4-20250514", "claude-sonnet-4-5-20250929"]
"""The two Sonnet models of `sample_logs`: cut at their end, both read `claude-sonnet-4-…`."""


def test_names_that_fit_are_left_alone() -> None:
    assert fit_names([*SONNETS, "gpt-5"], 26, dated=True) == [*SONNETS, "gpt-5"]


def test_the_two_sonnets_at_80_columns_keep_what_tells_them_apart() -> None:
    # 18 characters: the model column of `sniff scan sample_logs` in an 80-column terminal
    assert fit_names(SONNETS, 18, dated=True) == ["claude-sonnet-4", "claude-sonnet-4-5"]


def test_every_date_goes_once_one_name_is_too_long() -> None:
    names = ["gpt-5-2025-08-07", "gpt-5-mini-2025-08-07", "claude-opus-4-6"]
    assert fit_names(names, 16, dated=True) == ["gpt-5", "gpt-5-mini", "claude-opus-4-6"]


def test_a_date_stays_where_it_is_what_differs() -> None:
    names = ["claude-sonnet-4-20250514", "claude-sonnet-4-20250601", "gpt-5-2025-08-07", "gpt-5"]
    fitted = fit_names(names, 18, dated=True)
    assert fitted[2:] == ["gpt-5-2025-08-07", "gpt-5"]  # gpt-5 is taken: the date tells
    assert all(len(name) <= 18 for name in fitted)
    assert len(set(fitted)) == 4
    assert fitted[0].endswith("514") and fitted[1].endswith("601")


def test_only_other_columns_keep_a_date_like_ending() -> None:
    assert fit_names(["backups/nightly-20250101"], 16) == ["backups/nightly…"]


@pytest.mark.parametrize("width", range(8, 17))
def test_names_cut_alike_lose_their_middle_instead(width: int) -> None:
    names = ["claude-sonnet-4-5", "claude-sonnet-4", "claude-opus-4-6", "claude-haiku-4-5"]
    fitted = fit_names(names, width, dated=True)
    assert all(len(name) <= width for name in fitted)
    assert len(set(fitted)) == len(names), fitted
    opus = "claude-opus-4-6"
    if width > len("claude-o"):  # its end cut reads like no other: it keeps its start
        assert fitted[2] == (opus if len(opus) <= width else opus[: width - 1] + "…")


def test_repeated_names_read_the_same_each_time() -> None:
    names = ["src/breaks-demo", "src/tilesrv", "src/breaks-demo", "src/breaks-demo2"]
    fitted = fit_names(names, 10)
    assert fitted[0] == fitted[2] != fitted[3]
    assert fitted[1] == "src/tiles…"


def test_a_project_reads_as_its_last_two_path_components() -> None:
    assert short_project("/redacted/path/59b923df4d") == "path/59b923df4d"
    assert short_project("C:\\Users\\dana\\src\\webshop") == "src/webshop"
    assert short_project("checkout-bot") == "checkout-bot"
