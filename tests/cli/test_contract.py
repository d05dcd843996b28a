"""The command line keeps its word: one name per option, mistyped commands and options
named as such, and the deprecated `--format` spelling still understood where it is clear."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.core import TyperOption
from typer.testing import CliRunner

from sniff.cli import COMMANDS, app, main
from sniff.cli.group import mistyped, respelled
from tests.conftest import SAMPLE_LOGS

CLAUDE_CODE = SAMPLE_LOGS / "claude-code"
READING = (
    "scan", "sessions", "cache", "agents", "lint", "latency", "context", "export", "report",
)  # fmt: skip
"""The commands that read logs and print or write results."""


def run(*args: str | Path) -> Any:
    return CliRunner().invoke(app, [str(arg) for arg in args])


def console(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    """The console script's exit code, stdout and stderr."""
    with pytest.raises(SystemExit) as ended:
        main([str(arg) for arg in args])
    out, err = capsys.readouterr()
    code = ended.value.code
    return (code if isinstance(code, int) else 0), out, err


def _commands() -> dict[str, Any]:
    group = typer.main.get_command(app)
    return dict(group.commands)  # type: ignore[attr-defined]


# --- one name, one meaning --------------------------------------------------------------------


@pytest.mark.parametrize("name", COMMANDS)
def test_no_option_name_is_declared_twice_by_a_command(name: str) -> None:
    command = _commands()[name]
    spellings = Counter(["--help", "-h"])  # the help option every command gets
    for param in command.params:
        if isinstance(param, TyperOption):
            spellings.update([*param.opts, *param.secondary_opts])
    assert [spelling for spelling, count in spellings.items() if count > 1] == []


@pytest.mark.parametrize("name", [*READING, "tui"])
def test_every_command_reading_logs_names_their_format_log_format(name: str) -> None:
    declared = {
        spelling
        for param in _commands()[name].params
        if isinstance(param, TyperOption)
        for spelling in param.opts
    }
    if name != "lint":  # lint reads logs by detection only
        assert "--log-format" in declared
    assert "--format" not in declared


def test_report_format_md_reaches_the_output_format() -> None:
    result = run("report", SAMPLE_LOGS, "--format", "md")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("# LLM cost report")
    assert "--format is deprecated here; use -f/--output-format" in result.stderr
    for spelling in ("-f", "--output-format"):
        plain = run("report", SAMPLE_LOGS, spelling, "md")
        assert plain.stdout == result.stdout and "deprecated" not in plain.stderr


def test_report_takes_the_log_format_by_its_own_name() -> None:
    trace = SAMPLE_LOGS / "claude-trace"
    result = run("report", trace, "-f", "json", "--log-format", "claude-trace")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["source"]["formats"] == {"claude-trace": 1}


def test_format_elsewhere_is_the_log_format_with_a_note() -> None:
    old = run("scan", CLAUDE_CODE, "--json", "--format", "claude-code")
    new = run("scan", CLAUDE_CODE, "--json", "--log-format", "claude-code")
    assert old.exit_code == new.exit_code == 0, old.output
    assert json.loads(old.stdout) == json.loads(new.stdout)
    assert "--format is deprecated here; use --log-format" in old.stderr
    assert "deprecated" not in new.stderr


def test_lint_format_is_the_output_format_with_a_note() -> None:
    result = run("lint", SAMPLE_LOGS / "prompts" / "good", "--format=json")
    assert result.exit_code == 0, result.output
    assert "findings" in json.loads(result.stdout)
    assert "use -f/--output-format" in result.stderr


def test_only_the_old_spelling_is_respelled_never_an_option_value() -> None:
    command = _commands()["scan"]
    args = ["--project", "--format", "--format=codex", "-v", "--", "--format"]
    assert respelled(command, args) == [
        "--project", "--format", "--log-format=codex", "-v", "--", "--format",
    ]  # fmt: skip


# --- mistyped commands and options ------------------------------------------------------------


def test_a_mistyped_command_is_named_with_the_one_meant(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = console(capsys, "sesions")
    assert code == 2 and out == ""
    assert err.splitlines() == [
        "sniff: error: No such command 'sesions'. Did you mean 'sessions'? (see 'sniff --help')"
    ]
    assert run("sesions").exit_code == 2


@pytest.mark.parametrize("word", ["sesions", "lantency", "reprot", "scna", "agnets"])
def test_slips_for_commands_are_recognised(word: str) -> None:
    assert mistyped(word, COMMANDS)


@pytest.mark.parametrize("word", ["logs", "./sesions", "sesions.jsonl", "a/sesions", "--json"])
def test_paths_and_unrelated_words_are_not_slips(word: str) -> None:
    assert mistyped(word, COMMANDS) == []


def test_a_path_is_scanned_even_when_it_reads_like_a_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "sesions"
    folder.mkdir()
    source = next(CLAUDE_CODE.rglob("*.jsonl"))
    (folder / source.name).write_bytes(source.read_bytes())
    monkeypatch.chdir(tmp_path)
    result = run("sesions", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["source"]["files"] == 1


def test_a_word_like_no_command_is_still_a_missing_path(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = console(capsys, "nothing-here")
    assert code == 2
    assert err == "sniff: error: no such file or directory: nothing-here\n"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["lint", "--since", "2026-01-01", "x"], "'sniff lint' takes no option --since; scan,"),
        (["--breaks"], "'sniff scan' takes no option --breaks; cache does"),
        (["sessions", "--policy", "openai"], "'sniff sessions' takes no option --policy; cache"),
    ],
)
def test_an_option_of_another_command_is_named_as_such(
    capsys: pytest.CaptureFixture[str], args: list[str], said: str
) -> None:
    code, out, err = console(capsys, *args)
    assert code == 2 and out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"sniff: error: {said}"), err


def test_an_option_of_no_command_keeps_clicks_suggestion(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = console(capsys, "cache", "--break")
    assert code == 2
    assert "No such option: --break (Possible options: --breaks" in err


# --- nothing to report on is an error, not empty tables ---------------------------------------

LOG_COMMANDS = [
    ["scan"], ["sessions"], ["cache"], ["cache", "--breaks"], ["agents"], ["latency"],
    ["report", "-f", "md"], ["export"], ["context"],
]  # fmt: skip


def _refused(result: Any, *said: str) -> None:
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("sniff: error: "), result.stderr
    assert all(part in lines[0] for part in said), lines[0]


@pytest.mark.parametrize("command", LOG_COMMANDS, ids=" ".join)
def test_a_named_folder_without_logs_is_an_error(command: list[str], tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    (empty / "notes").mkdir(parents=True)
    (empty / "notes" / "README.md").write_text("# not a log\n")
    out = tmp_path / "out"
    result = run(*command, empty, *(["-o", out] if command[0] == "export" else []))
    _refused(result, "no log files (*.jsonl) found under", str(empty))
    assert not out.exists()


@pytest.mark.parametrize("command", LOG_COMMANDS, ids=" ".join)
def test_a_named_file_that_is_not_a_log_is_an_error(command: list[str], tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("# sniff\n\nNot a log.\n")
    _refused(run(*command, readme, CLAUDE_CODE), "not a log sniff reads:", str(readme))


@pytest.mark.parametrize("command", LOG_COMMANDS, ids=" ".join)
def test_since_after_until_is_an_error(command: list[str]) -> None:
    result = run(*command, CLAUDE_CODE, "--since", "2026-02-01", "--until", "2026-01-01")
    _refused(result, "--since 2026-02-01 is not before --until 2026-01-01")


def test_a_folder_of_jsonl_files_none_a_log_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "data.jsonl").write_text('{"a": 1}\n{"b": 2}\n')
    _refused(run("scan", tmp_path), "no log sniff reads among the 1 file under")


def test_one_day_is_a_window_since_and_until_the_same_date() -> None:
    day = run("scan", CLAUDE_CODE, "--json", "--since", "2026-01-05", "--until", "2026-01-05")
    assert day.exit_code == 0, day.output


def test_a_known_log_beside_an_unknown_file_in_a_folder_still_counts(tmp_path: Path) -> None:
    source = next(CLAUDE_CODE.rglob("*.jsonl"))
    (tmp_path / source.name).write_bytes(source.read_bytes())
    (tmp_path / "other.jsonl").write_text('{"a": 1}\n')
    result = run("scan", tmp_path, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["warnings"]["unknown_format_files"] == [
        str(tmp_path / "other.jsonl")
    ]


# --- --json everywhere results are printed ----------------------------------------------------


def test_lint_json_has_its_documented_keys() -> None:
    result = run("lint", "--json", "--prompts", SAMPLE_LOGS / "prompts" / "bad")
    assert result.exit_code == 1, result.output  # the bad prompts hold errors
    data = json.loads(result.stdout)
    assert set(data) == {"files", "fail_on", "failed", "findings"}
    assert data["failed"] is True and data["findings"]
    assert (
        run("lint", "-f", "json", "--prompts", SAMPLE_LOGS / "prompts" / "bad").stdout
        == result.stdout
    )


def test_lint_json_and_another_output_format_disagree() -> None:
    _refused(run("lint", "--json", "-f", "sarif", SAMPLE_LOGS / "prompts"), "--json", "sarif")


REPORT_KEYS = {
    "totals", "by_model", "by_project", "by_day", "by_agent", "by_harness", "sessions", "warnings",
    "source",
    "by", "groups", "breaks", "what_if", "lint", "latency", "agents", "assumptions", "by_branch",
    "drift", "commits", "outlook", "plans", "latency_by_model", "lint_by_rule",
}  # fmt: skip


def test_report_json_is_the_json_report_on_stdout(tmp_path: Path) -> None:
    result = run("report", CLAUDE_CODE, "--json", "--tz", "UTC")
    assert result.exit_code == 0, result.output
    assert set(json.loads(result.stdout)) == REPORT_KEYS
    assert run("report", CLAUDE_CODE, "-f", "json", "--tz", "UTC").stdout == result.stdout
    target = tmp_path / "r.json"
    written = run("report", CLAUDE_CODE, "--json", "--tz", "UTC", "-o", target)
    assert written.exit_code == 0 and written.stdout == ""
    assert target.read_text() == result.stdout


def test_report_json_and_another_output_format_disagree() -> None:
    _refused(run("report", CLAUDE_CODE, "--json", "-f", "md"), "--json", "-f md")


def test_export_json_counts_what_it_wrote(tmp_path: Path) -> None:
    out = tmp_path / "export"
    first = run("export", CLAUDE_CODE, "-o", out, "--json")
    assert first.exit_code == 0, first.output
    data = json.loads(first.stdout)
    assert set(data) == {"output", "rows", "added", "kept"}
    assert set(data["rows"]) == {"requests", "sessions", "breaks", "blocks"}
    assert data["added"] == data["rows"]["requests"] > 0 and data["kept"] == 0
    again = json.loads(run("export", CLAUDE_CODE, "-o", out, "--json").stdout)
    assert again["added"] == 0 and again["kept"] == data["added"]


@pytest.mark.parametrize("name", ["scan", "sessions", "cache", "agents", "latency", "lint",
                                  "report", "export"])  # fmt: skip
def test_every_command_printing_results_takes_json(name: str) -> None:
    assert "--json" in {
        spelling
        for param in _commands()[name].params
        if isinstance(param, TyperOption)
        for spelling in param.opts
    }


# --- a report never floods a terminal ---------------------------------------------------------


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Standard output is a terminal; the current folder is an empty one."""
    import sniff.cli.commands.report as report_command

    monkeypatch.setattr(report_command, "_on_terminal", lambda: True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_report_to_a_terminal_goes_to_a_default_file(terminal: Path) -> None:
    result = run("report", CLAUDE_CODE)
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    page = terminal / "sniff-report.html"
    assert result.stderr == (
        f"wrote sniff-report.html (html, {page.stat().st_size:,} bytes; "
        "-o FILE writes elsewhere, -o - to standard output)\n"
    )
    assert page.read_text().lower().startswith("<!doctype html>")
    assert [path.name for path in terminal.iterdir()] == ["sniff-report.html"]  # no temp left
    markdown = run("report", CLAUDE_CODE, "-f", "md")
    assert markdown.stdout == "" and (terminal / "sniff-report.md").exists()


def test_dash_means_standard_output_even_on_a_terminal(terminal: Path) -> None:
    result = run("report", CLAUDE_CODE, "-o", "-", "-f", "md")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("# LLM cost report")
    assert list(terminal.iterdir()) == []


def test_a_report_to_a_pipe_goes_to_standard_output(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = run("report", CLAUDE_CODE)  # CliRunner's stdout is no terminal
    assert result.exit_code == 0 and result.stdout.lower().startswith("<!doctype html>")
    assert list(tmp_path.iterdir()) == []


def test_a_report_that_cannot_be_written_is_one_line(tmp_path: Path) -> None:
    target = tmp_path / "no" / "such" / "folder" / "r.html"
    _refused(run("report", CLAUDE_CODE, "-o", target), "cannot write", str(target))
