"""`sniff agents` and the report's agent sections; `sniff report --redact` leaks no text."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.analyses.tool_errors import ERROR_CLASSES
from sniff.cli import app

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("SNIFF_SHARED_SAMPLES") or REPO.parent / "shared" / "samples")
SNIFFLY = SHARED / "sniffly"
needs_shared = pytest.mark.skipif(not SNIFFLY.is_dir(), reason=f"no shared samples at {SHARED}")


def run(*args: str) -> str:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.stdout


def private_strings(folder: Path) -> set[str]:
    """What the logs' users typed and their tools printed, and where they worked."""
    found: set[str] = set()
    for path in folder.rglob("*.jsonl"):
        for raw in path.read_text().splitlines():
            line = json.loads(raw)
            if line.get("cwd"):
                found.add(line["cwd"])
            if line.get("type") != "user":
                continue
            content = (line.get("message") or {}).get("content")
            texts: list[Any] = [content] if isinstance(content, str) else []
            for block in content if isinstance(content, list) else []:
                inner = block.get("content") if block.get("type") == "tool_result" else None
                texts.append(block.get("text") or inner)
            for text in texts:
                if isinstance(text, list):
                    text = " ".join(str(part.get("text", "")) for part in text)
                for piece in str(text or "").splitlines():
                    if len(piece.strip()) >= 16 and not piece.strip().startswith("<"):
                        found.add(piece.strip()[:60])
    return found


@needs_shared
@pytest.mark.parametrize("output_format", ["json", "md", "html"])
def test_a_redacted_report_says_no_private_text(tmp_path: Path, output_format: str) -> None:
    # Claude Code's own fixed messages that sniff's taxonomy quotes are not the user's text
    taxonomy = " ".join(ERROR_CLASSES.values())
    secrets = {text for text in private_strings(SNIFFLY) if text not in taxonomy}
    assert len(secrets) > 20  # the search has something to find
    plain = tmp_path / f"plain.{output_format}"
    redacted = tmp_path / f"redacted.{output_format}"
    run("report", "-f", output_format, str(SNIFFLY), "-o", str(plain), "--by", "project")
    run("report", "-f", output_format, str(SNIFFLY), "-o", str(redacted), "--by", "project",
        "--redact")  # fmt: skip
    shown = plain.read_text()
    assert any(secret in shown for secret in secrets)  # unredacted, some do show
    text = redacted.read_text()
    leaked = sorted(secret for secret in secrets if secret in text)
    assert leaked == []
    assert "ai-music" not in text


@needs_shared
def test_a_redacted_report_keeps_every_number() -> None:
    plain = json.loads(run("report", "-f", "json", str(SNIFFLY), "--by", "project"))
    redacted = json.loads(run("report", "-f", "json", str(SNIFFLY), "--by", "project", "--redact"))
    assert redacted["totals"] == plain["totals"]
    assert [g["cost_usd"] for g in redacted["groups"]] == [g["cost_usd"] for g in plain["groups"]]
    assert redacted["groups"][0]["project"].startswith("project-")
    assert redacted["agents"]["tools"] == {
        **plain["agents"]["tools"],
        "by_project": {
            name: calls
            for name, calls in zip(
                redacted["agents"]["tools"]["by_project"],
                plain["agents"]["tools"]["by_project"].values(),
                strict=True,
            )
        },
    }
    for key in ("tool_results", "failures", "interruptions"):
        assert redacted["agents"]["errors"][key] == plain["agents"]["errors"][key]
    plain_rows, redacted_rows = plain["agents"]["commands"], redacted["agents"]["commands"]
    assert redacted_rows["count"] == plain_rows["count"]
    assert redacted_rows["cost_usd"] == plain_rows["cost_usd"]
    assert {row["text"] for row in redacted_rows["rows"]} == {"[redacted]"}


@needs_shared
def test_agents_json_has_tools_errors_and_commands() -> None:
    report = json.loads(run("agents", "--json", str(SNIFFLY)))
    assert set(report) == {"tools", "errors", "commands"}
    commands = report["commands"]
    assert commands["count"] == len(commands["rows"]) == 13
    assert sum(row["model_calls"] for row in commands["rows"]) <= 90
    assert any(row["command"] == "/init" for row in commands["rows"])
    assert report["errors"]["interruptions"] == sum(r["interrupted"] for r in commands["rows"])


def test_agents_on_logs_without_activity_says_so_plainly(tmp_path: Path, cc) -> None:
    # a transcript holding only its title: a log, with no activity (an empty file is no log)
    cc.write(tmp_path / "quiet.jsonl", [{"type": "summary", "summary": "x", "leafUuid": "u0"}])
    report = json.loads(run("agents", "--json", str(tmp_path)))
    assert report["tools"]["calls"] == 0 and report["commands"]["count"] == 0
