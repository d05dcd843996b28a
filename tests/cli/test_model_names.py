"""A model reads one way in every table, whatever the width: by its family name, its dated id
only where two of a table's models would then read the same; JSON keeps the dated ids."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from sniff.model_names import table_names
from tests.conftest import SAMPLE_LOGS

runner = CliRunner()


def test_a_table_name_drops_the_date_unless_two_models_would_read_the_same() -> None:
    names = ["claude-sonnet-4-20250514", "claude-haiku-4-5-20251001", "claude-haiku-4-5",
             "gpt-5-2025-08-07", "claude-sonnet-4-20250514"]  # fmt: skip
    assert table_names(names) == ["claude-sonnet-4", "claude-haiku-4-5-20251001",
                                  "claude-haiku-4-5", "gpt-5", "claude-sonnet-4"]  # fmt: skip


@pytest.mark.parametrize("columns", ["80", "200"])
@pytest.mark.parametrize("command", [["scan"], ["daily", "-b"]])
def test_tables_name_models_by_family_at_every_width(command: list[str], columns: str) -> None:
    shown = runner.invoke(app, [*command, str(SAMPLE_LOGS)], env={"COLUMNS": columns}).stdout
    data = json.loads(runner.invoke(app, ["scan", str(SAMPLE_LOGS), "--json"]).stdout)
    dated = [row["model"] for row in data["by_model"]]
    assert "claude-sonnet-4-20250514" in dated  # JSON keeps the id the logs give
    assert "claude-sonnet-4-20250514" not in shown and "claude-sonnet-4 " in shown
    # two ids of one family keep their dates, so that the rows still tell them apart
    assert {"claude-haiku-4-5", "claude-haiku-4-5-20251001"} <= set(dated)
