"""`sniff lint` on the command line: --explain, JSON and SARIF output, exit codes, rule
selection, `[tool.sniff.lint]`, --fix, and one-line user errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from sniff.lint.rules import RULES
from tests.conftest import SHARED_SAMPLES, needs_shared

ROOT = Path(__file__).resolve().parents[2]
PROMPTS = ROOT / "sample_logs" / "prompts"
BAD, GOOD = PROMPTS / "bad", PROMPTS / "good"
ALL_BAD = ("--prompts", BAD, BAD)
"""The bad samples: their prompt files, and the logs in their folder (SN012)."""
ALL_GOOD = ("--prompts", GOOD, GOOD)
FINDING_KEYS = {
    "rule",
    "name",
    "severity",
    "message",
    "file",
    "line",
    "column",
    "request",
    "block",
    "evidence",
    "fix",
    "saving",
}


def run(*args: str | Path) -> Any:
    return CliRunner().invoke(app, ["lint", *map(str, args)])


def lint_json(*args: str | Path) -> dict[str, Any]:
    result = run("--output-format", "json", *args)
    assert result.exit_code in (0, 1), result.output
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def flat(text: str) -> str:
    """Terminal output without the line wrapping of an 80-column console."""
    return " ".join(text.split())


def one_line_error(result: Any) -> str:
    """The user error's line, after checking it is the only output and no traceback."""
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("sniff: error: ")
    assert "Traceback" not in result.output and result.stdout == ""
    line: str = lines[0]
    return line


# --- --explain ----------------------------------------------------------------------------------


@pytest.mark.parametrize("rule", sorted(RULES))
def test_explain_names_the_rule_why_and_the_fix(rule: str) -> None:
    result = run("--explain", rule.lower())
    assert result.exit_code == 0, result.output
    found = RULES[rule]
    text = flat(result.stdout)
    assert text.startswith(f"{rule} {found.name} ({found.severity.label}): {found.summary}")
    assert found.explanation in text and len(found.explanation) > 100
    assert f"Fix: {found.fix}" in text


def test_explain_an_unknown_rule_is_a_user_error() -> None:
    line = one_line_error(run("--explain", "SN999"))
    assert "SN999" in line and "SN001" in line


# --- JSON and SARIF ----------------------------------------------------------------------------


def test_json_has_the_documented_shape() -> None:
    report = lint_json(*ALL_BAD)
    assert set(report) == {"files", "fail_on", "failed", "findings"}
    assert (report["files"], report["fail_on"], report["failed"]) == (15, "error", True)
    assert {item["rule"] for item in report["findings"]} == set(RULES)
    for item in report["findings"]:
        assert set(item) == FINDING_KEYS
        assert item["name"] == RULES[item["rule"]].name
        assert item["severity"] == RULES[item["rule"]].severity.label
        assert item["file"].startswith(str(BAD)) and item["line"] >= 1
    priced = [item["saving"] for item in report["findings"] if item["saving"]]
    assert priced and all(saving["cached_tokens"] > 0 for saving in priced)


def test_sarif_loads_back_with_every_finding_at_its_place() -> None:
    findings = lint_json(*ALL_BAD)["findings"]
    result = run("-f", "sarif", *ALL_BAD)
    assert result.exit_code == 1, result.output
    sarif = json.loads(result.stdout)
    assert sarif["version"] == "2.1.0"
    assert sarif["$schema"].endswith("sarif-2.1.0.json")
    [sarif_run] = sarif["runs"]
    driver = sarif_run["tool"]["driver"]
    assert driver["name"] == "sniff"
    rules = driver["rules"]
    assert {rule["id"] for rule in rules} == set(RULES)
    results = sarif_run["results"]
    assert len(results) == len(findings)
    levels = {"error": "error", "warning": "warning", "info": "note"}
    for result_, item in zip(results, findings, strict=True):
        assert result_["ruleId"] == item["rule"]
        assert rules[result_["ruleIndex"]]["id"] == item["rule"]
        assert result_.get("level", "warning") == levels[item["severity"]]  # SARIF's default
        assert result_["message"]["text"].startswith(item["message"])
        [location] = result_["locations"]
        physical = location["physicalLocation"]
        assert physical["artifactLocation"]["uri"] == item["file"]
        assert physical["region"]["startLine"] == item["line"]
        assert physical["region"].get("startColumn", 0) == item["column"]


def test_sarif_of_clean_prompts_has_no_results() -> None:
    result = run("-f", "sarif", *ALL_GOOD)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["runs"][0].get("results", []) == []


def test_text_output_groups_by_file_and_counts() -> None:
    result = run(BAD / "SN006-breakpoint-on-volatile-block.json")
    assert result.exit_code == 1
    text = flat(result.stdout)
    assert "error SN006 111:34 messages[0].content[0]" in text
    assert "»2026-11-12T18:42:09Z«" in text
    assert f"fix: {RULES['SN006'].fix}" in text
    assert "more cached tokens" in text and "per 1,000 calls at 1 call/min (estimate)" in text
    assert text.endswith("1 file checked: 1 error, 0 warnings, 0 info.")


# --- exit codes and the choice of rules ------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "fail_on", "code"),
    [
        ("SN001-volatile-system.md", None, 1),  # an error, failing at error (the default)
        ("SN008-below-minimum.json", None, 0),  # a warning, below the default
        ("SN008-below-minimum.json", "warning", 1),
        ("SN008-below-minimum.json", "info", 1),
        ("SN010-one-hour-ttl-on-tail.json", "error", 0),
        ("SN013-ttl-order.json", "warning", 1),
    ],
)
def test_exit_1_at_or_above_fail_on_and_0_below(name: str, fail_on: str | None, code: int) -> None:
    args = ["--fail-on", fail_on] if fail_on else []
    result = run(*args, BAD / name)
    assert result.exit_code == code, result.output


def test_clean_prompts_exit_0_even_failing_on_info() -> None:
    result = run("--fail-on", "info", *ALL_GOOD)
    assert result.exit_code == 0, result.output
    assert "0 errors, 0 warnings, 0 info" in flat(result.stdout)


def test_select_runs_only_the_named_rules() -> None:
    report = lint_json("--select", "SN008", "--select", "SN010", *ALL_BAD)
    assert {item["rule"] for item in report["findings"]} == {"SN008", "SN010"}
    assert report["failed"] is False  # two warnings


def test_ignore_skips_the_named_rules() -> None:
    report = lint_json("--ignore", "SN001", "--ignore", "SN006", *ALL_BAD)
    assert {item["rule"] for item in report["findings"]} == set(RULES) - {"SN001", "SN006"}


def test_select_an_unknown_rule_is_a_user_error() -> None:
    assert "SN077" in one_line_error(run("--select", "SN077", BAD))


def copy_samples(folder: Path, *names: str) -> Path:
    """Copies of bad samples in `folder`/prompts (the tests never touch the originals)."""
    target = folder / "prompts"
    for name in names:
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(BAD / name, target / name)
    return target


def test_pyproject_table_chooses_rules_and_fail_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prompts = copy_samples(tmp_path, "SN008-below-minimum.json", "SN010-one-hour-ttl-on-tail.json")
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "support-bot"\n\n'
        '[tool.sniff.lint]\nignore = ["SN008"]\nfail-on = "warning"\ncalls-per-minute = 5\n'
    )
    monkeypatch.chdir(tmp_path)
    result = run("-f", "json", "--prompts", "prompts")
    assert result.exit_code == 1, result.output  # the SN010 warning fails at "warning"
    report = json.loads(result.stdout)
    assert report["fail_on"] == "warning"
    assert {item["rule"] for item in report["findings"]} == {"SN010"}
    # flags win over the table
    assert run("--fail-on", "error", "--prompts", prompts).exit_code == 0


def test_pyproject_calls_per_minute_states_the_rate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy_samples(tmp_path, "SN006-breakpoint-on-volatile-block.json")
    (tmp_path / "pyproject.toml").write_text("[tool.sniff.lint]\ncalls-per-minute = 5\n")
    monkeypatch.chdir(tmp_path)
    [item] = lint_json("--prompts", "prompts")["findings"]
    assert item["saving"]["basis"] == "per 1,000 calls at 5 calls/min (estimate)"


@pytest.mark.parametrize(
    ("table", "named"),
    [('select = ["SN404"]', "SN404"), ('fail-on = "fatal"', "fatal")],
    ids=["rule", "severity"],
)
def test_a_bad_pyproject_table_is_a_user_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, table: str, named: str
) -> None:
    copy_samples(tmp_path, "SN008-below-minimum.json")
    (tmp_path / "pyproject.toml").write_text(f"[tool.sniff.lint]\n{table}\n")
    monkeypatch.chdir(tmp_path)
    assert named in one_line_error(run("--prompts", "prompts"))


# --- --fix ---------------------------------------------------------------------------------------

# the rules --fix claims to fix, each with its sample; priced: the engine shows the gain
FIXED = [
    ("SN001", "SN001-volatile-system.md", False),  # too short to cache: nothing to gain
    ("SN001", "SN001-volatile-system.json", True),
    ("SN004", "SN004-unstable-tool-schema.json", False),
    ("SN006", "SN006-breakpoint-on-volatile-block.json", True),
    ("SN007", "SN007-too-many-breakpoints.json", False),
    ("SN010", "SN010-one-hour-ttl-on-tail.json", False),
    ("SN013", "SN013-ttl-order.json", False),
    ("SN014", "SN014-dynamic-before-static.md", False),
]


@pytest.mark.parametrize(
    ("rule", "name", "priced"), FIXED, ids=[f"{r}-{Path(n).suffix[1:]}" for r, n, _ in FIXED]
)
def test_fix_rewrites_a_copy_shows_the_diff_and_relints_clean(
    tmp_path: Path, rule: str, name: str, priced: bool
) -> None:
    prompts = copy_samples(tmp_path, name)
    copy = prompts / name
    before = copy.read_text(encoding="utf-8")
    result = run("--fix", "--output-format", "json", copy)
    assert result.exit_code == 0, result.output
    fixed = copy.read_text(encoding="utf-8")
    assert fixed != before
    assert (BAD / name).read_text(encoding="utf-8") == before  # the sample is untouched
    # the diff and the summary go to stderr; stdout stays the report of the fixed file
    assert f"{copy} (before)" in result.stderr and f"{copy} (fixed)" in result.stderr
    summary = flat(result.stderr)
    assert "--fix rewrote 1 file:" in summary and "0 after" in summary
    assert ("more cached tokens" in summary) is priced
    assert [item["rule"] for item in json.loads(result.stdout)["findings"]] == []
    again = lint_json("--fail-on", "info", copy)
    assert [item["rule"] for item in again["findings"] if item["rule"] == rule] == []
    assert again["findings"] == []


def test_fix_priced_gain_matches_the_findings(tmp_path: Path) -> None:
    name = "SN006-breakpoint-on-volatile-block.json"
    [before] = lint_json(BAD / name)["findings"]
    copy = copy_samples(tmp_path, name) / name
    summary = flat(run("--fix", copy).stderr)
    gained = before["saving"]["cached_tokens"]
    assert f"worth {gained / 1e6:.2f}M more cached tokens" in summary


def test_fixed_json_keeps_what_the_request_says(tmp_path: Path) -> None:
    """--fix moves things; it never loses a message, a tool or the text the model reads."""
    name = "SN001-volatile-system.json"
    copy = copy_samples(tmp_path, name) / name
    run("--fix", copy)
    bad, fixed = json.loads((BAD / name).read_text()), json.loads(copy.read_text())
    assert len(fixed["messages"]) == len(bad["messages"])
    stamp = "Today is Thursday, November 12, 2026; the time is 18:42:09 UTC."
    assert stamp in bad["messages"][0]["content"] and stamp not in fixed["messages"][0]["content"]
    assert fixed["messages"][-1]["content"].endswith(stamp)


def test_fix_drops_a_lone_one_hour_ttl_on_the_tail(tmp_path: Path) -> None:
    """A 1-hour TTL on the latest turn is the tail even as the request's only breakpoint."""
    question = {"type": "text", "text": "Why did the nightly export fail?"}
    question["cache_control"] = {"type": "ephemeral", "ttl": "1h"}
    body = {"model": "claude-sonnet-4-5", "max_tokens": 1024, "system": "You are on call."}
    body["messages"] = [{"role": "user", "content": [question]}]
    path = tmp_path / "tail.json"
    path.write_text(json.dumps(body, indent=2), encoding="utf-8")
    assert "SN010" in {item["rule"] for item in lint_json(path)["findings"]}
    result = run("--fix", path)
    assert "--fix rewrote 1 file:" in flat(result.stderr)
    assert "SN010" not in {item["rule"] for item in lint_json(path)["findings"]}
    fixed = json.loads(path.read_text())["messages"][0]["content"][0]
    assert fixed["cache_control"] == {"type": "ephemeral"}


def test_fix_keeps_a_list_of_one_body_a_list(tmp_path: Path) -> None:
    body = {"model": "gpt-4.1", "messages": [{"role": "system", "content": "Today is 2026-03-05."}]}
    body["messages"].append({"role": "user", "content": "Where is my order?"})
    path = tmp_path / "bodies.json"
    path.write_text(json.dumps([body], indent=2), encoding="utf-8")
    result = run("--fix", path)
    assert result.exit_code == 0, result.output
    fixed = json.loads(path.read_text())
    assert isinstance(fixed, list) and len(fixed) == 1
    assert "2026-03-05" in fixed[0]["messages"][-1]["content"]


def test_a_list_of_bodies_is_located_in_the_body_the_finding_is_about() -> None:
    path = BAD / "SN003-tools-changed.json"
    [found] = lint_json(path)["findings"]
    assert (found["request"], found["block"]) == ("#2", "tools[2]")
    lines = path.read_text().splitlines()
    assert lines[found["line"] - 1][found["column"] - 1 :] == "{"  # the added tool
    assert '"name": "github_create_issue"' in lines[found["line"] + 2]
    second = lines.index("  {", 2) + 1  # the second body's first line
    assert found["line"] > second
    text = flat(run(path).stdout)
    assert f"error SN003 {found['line']}:{found['column']} request #2 tools[2]" in text


def test_fix_leaves_logs_alone(tmp_path: Path) -> None:
    name = "logs/SN012-ttl-gaps.jsonl"
    copy = copy_samples(tmp_path, name) / name
    before = copy.read_bytes()
    result = run("--fix", copy)
    assert "nothing to rewrite" in flat(result.stderr)
    assert copy.read_bytes() == before
    assert "SN012" in result.stdout


def test_fix_of_chain_rules_rewrites_nothing_it_cannot_fix(tmp_path: Path) -> None:
    """A changed system prompt is a change in the application, not in the file: it stays."""
    name = "SN002-system-changed.json"
    copy = copy_samples(tmp_path, name) / name
    result = run("--fix", copy)
    assert result.exit_code == 1
    assert copy.read_text() == (BAD / name).read_text()
    assert "SN002" in result.stdout


# --- user errors ---------------------------------------------------------------------------------


def test_a_missing_path_is_one_line_and_exit_2(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-prompts"
    assert str(missing) in one_line_error(run(missing))


def test_an_unknown_format_is_one_line_and_exit_2() -> None:
    line = one_line_error(run("--output-format", "xml", GOOD))
    assert "'xml'" in line and "sarif" in line


def test_an_unknown_severity_is_one_line_and_exit_2() -> None:
    assert "loud" in one_line_error(run("--fail-on", "loud", GOOD))


def test_no_paths_is_one_line_and_exit_2() -> None:
    assert "name the prompt files" in one_line_error(run())


def test_invalid_json_names_the_place(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"model": "gpt-4.1",\n "messages": [}\n')
    assert f"{broken}:2:" in one_line_error(run(broken))


def test_a_prompts_folder_is_linted_without_its_documentation(tmp_path: Path) -> None:
    """A README beside the prompts is documentation: linted only when named."""
    (tmp_path / "README.md").write_text(
        "Fill `{{ customer }}` in first.\n\nGenerated 2026-01-31.\n"
    )
    (tmp_path / "system.md").write_text("You are a careful support agent.\n")
    report = lint_json("--prompts", tmp_path)
    assert (report["files"], report["findings"]) == (1, [])
    assert lint_json(tmp_path / "README.md")["findings"] != []
    assert lint_json("--prompts", tmp_path / "README.md")["findings"] != []


def log_folder(folder: Path) -> Path:
    """A folder of logs with notes beside them that would be findings if read as prompts."""
    logs = folder / "logs"
    logs.mkdir(parents=True)
    shutil.copy(BAD / "logs" / "SN012-ttl-gaps.jsonl", logs / "session.jsonl")
    shutil.copy(BAD / "SN001-volatile-system.md", logs / "NOTES.md")
    shutil.copy(BAD / "SN014-dynamic-before-static.md", logs / "todo.txt")
    shutil.copy(BAD / "SN006-breakpoint-on-volatile-block.json", logs / "body.json")
    return logs


def test_a_log_folder_lints_only_its_logs(tmp_path: Path) -> None:
    logs = log_folder(tmp_path)
    result = run("-f", "json", logs)
    assert result.exit_code == 0, result.output  # the log's own finding is a warning
    report = json.loads(result.stdout)
    assert report["files"] == 1
    assert {item["file"] for item in report["findings"]} == {str(logs / "session.jsonl")}
    assert run("--fail-on", "warning", logs).exit_code == 1
    # the notes are linted when asked for
    assert {Path(item["file"]).name for item in lint_json("--prompts", logs)["findings"]} == {
        "NOTES.md",
        "todo.txt",
        "body.json",
    }


SHARED = SHARED_SAMPLES.resolve()


@needs_shared
def test_the_shared_samples_lint_no_markdown_and_fail_on_their_logs_findings() -> None:
    from sniff.ingest.files.discover import expand

    result = run("-f", "json", SHARED)
    report = json.loads(result.stdout)
    logs = [file for file in expand([SHARED]) if file.path.endswith(".jsonl")]
    assert report["files"] == len(logs)  # every log, and nothing else (no JSON beside them)
    linted = {Path(item["file"]).suffix for item in report["findings"]}
    assert linted == {".jsonl"}
    assert result.exit_code == (
        1 if any(i["severity"] == "error" for i in report["findings"]) else 0
    )


def test_a_folder_without_logs_points_to_prompts(tmp_path: Path) -> None:
    prompts = copy_samples(tmp_path, "SN008-below-minimum.json")
    line = one_line_error(run(prompts))
    assert f"no logs (*.jsonl) under {prompts}" in line and f"--prompts {prompts}" in line
    (tmp_path / "empty").mkdir()
    assert "--prompts" not in one_line_error(run(tmp_path / "empty"))


def test_a_prompts_folder_without_prompts_is_one_line(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    shutil.copy(BAD / "logs" / "SN012-ttl-gaps.jsonl", logs / "session.jsonl")
    assert "no prompt files (.j2, .jinja, .json, " in one_line_error(run("--prompts", logs))


def test_an_unknown_rule_lists_the_rules_in_order() -> None:
    line = one_line_error(run("--explain", "SN999"))
    assert line.endswith("rules: " + ", ".join(f"SN{n:03d}" for n in range(1, 15)))


def test_an_export_is_linted_for_idle_gaps_as_its_logs_are(tmp_path: Path) -> None:
    """An export's requests name the logs they came from, not the export: still linted."""
    logs = ROOT / "sample_logs" / "claude-code"
    exported = CliRunner().invoke(app, ["export", str(logs), "-o", str(tmp_path / "export")])
    assert exported.exit_code == 0, exported.output
    gaps = lint_json("--select", "SN012", logs)["findings"]
    assert gaps and lint_json("--select", "SN012", tmp_path / "export")["findings"] == gaps
