"""Planted keys: no credential from a prompt, a tool result or a header reaches sniff's output.

Keys of every shape sniff redacts are planted in a claude-trace log (the system prompt, a user
message, the request headers, an error response) and in a Claude Code transcript (a user
request, a failed tool's output). Each command's output, in each format, is searched for any
ten characters in a row of a key's secret part, so a key cut by an excerpt counts too; the
placeholder must be there instead, and the totals stay those of the logs. The keys are made up
here, at random, never written down.
"""

from __future__ import annotations

import json
import random
import string
from collections.abc import Iterator
from datetime import UTC
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from sniff.analyses.agents.activity import analyze_agents
from sniff.cli import app
from sniff.ingest.activity import EXCERPT
from sniff.tui import make_app
from sniff.tui.screens.behaviour import BehaviourScreen, CommandScreen
from sniff.tui.screens.findings import FindingsScreen
from sniff.tui.screens.request import RequestScreen
from sniff.workspace import Workspace
from tests.tui.conftest import screen_text, settle
from tests.unit.test_codex_activity import SESSION, Rollout, header

RNG = random.Random(18)
TOKEN_CHARS = string.ascii_letters + string.digits


def _random(length: int, alphabet: str = TOKEN_CHARS) -> str:
    return "".join(RNG.choice(alphabet) for _ in range(length))


def _keys() -> dict[str, tuple[str, str]]:
    """Shape → (the key as written, its secret part: what must never be shown)."""
    url_safe = TOKEN_CHARS + "-_"
    parts = {
        "anthropic": ("sk-ant-", "api03-" + _random(93, url_safe) + "AA"),
        "anthropic_admin": ("sk-ant-", "admin01-" + _random(93, url_safe) + "AA"),
        "openai_project": ("sk-proj-", _random(74, url_safe) + "T3BlbkFJ" + _random(74, url_safe)),
        "openai_service": ("sk-svcacct-", _random(64, url_safe) + "T3BlbkFJ" + _random(64)),
        "openai_legacy": ("sk-", _random(20) + "T3BlbkFJ" + _random(20)),
        "aws": ("AKIA", _random(16, string.ascii_uppercase + string.digits)),
        "github": ("ghp_", _random(36)),
        "github_pat": ("github_pat_", _random(22) + "_" + _random(59)),
        "google": ("AIza", "Sy" + _random(33, url_safe)),
        "bearer": ("Authorization: Bearer ", _random(40, url_safe + ".")),
        "assignment": ("DEPLOY_TOKEN=", _random(32)),
    }
    return {shape: (prefix + secret, secret) for shape, (prefix, secret) in parts.items()}


KEYS = _keys()
HEADER_KEY = "sk-ant-api03-" + _random(93) + "AA"
"""Only in the request headers (`x-api-key`, `authorization`), which sniff never reads."""
REFUSED_KEY = "sk-proj-" + _random(40)
"""Quoted by a proxy's error response."""
PLACEHOLDER = "…[redacted]"
"""What stands for a key's secret part (its vendor's prefix before it: `sk-ant-…[redacted]`)."""
SONNET = "claude-sonnet-4-20250514"
MARK = {"type": "ephemeral"}


def leaks(output: str) -> list[str]:
    """The shapes of which ten characters in a row of the secret are in `output`."""
    secrets = {shape: secret for shape, (_, secret) in KEYS.items()}
    secrets |= {"header": HEADER_KEY[13:], "refused": REFUSED_KEY[8:]}
    return [
        shape
        for shape, secret in secrets.items()
        if any(secret[i : i + 10] in output for i in range(len(secret) - 9))
    ]


def _planted(at: str) -> list[dict[str, Any]]:
    """One text block per key, the key beside a timestamp (an excerpt of which cuts the key)."""
    return [{"type": "text", "text": f"{key} now {at}"} for key, _ in KEYS.values()]


def _call(
    message_id: str,
    at: float,
    system: list[dict[str, Any]],
    messages: list[dict[str, Any]],
    status: int = 200,
) -> dict[str, Any]:
    """A claude-trace line: the request (its headers holding credentials), the response."""
    usage = {"input_tokens": 4, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 900}
    answer: dict[str, Any] = {"id": message_id, "model": SONNET, "usage": usage, "content": []}
    if status >= 400:
        refused = f"invalid x-api-key: {REFUSED_KEY}"
        answer = {"error": {"type": "authentication_error", "message": refused}}
    body = {
        "model": SONNET,
        "max_tokens": 32000,
        "system": system,
        "tools": [{"name": "Read", "description": "Read a file", "input_schema": {}}],
        "messages": messages,
    }
    headers = {"x-api-key": HEADER_KEY, "authorization": f"Bearer {HEADER_KEY}"}
    return {
        "request": {"timestamp": at, "method": "POST", "url": "https://api.anthropic.com/v1/messages",
                    "headers": headers, "body": body},
        "response": {"timestamp": at + 2, "status_code": status,
                     "headers": {"request-id": f"req_{message_id}"}, "body": answer},
        "logged_at": "2025-05-29T21:38:30.000Z",
    }  # fmt: skip


def trace_log(folder: Path) -> Path:
    """Three calls of one conversation: the keys in the system prompt and in the first user
    message (before a cache breakpoint), a timestamp beside each that changes every call (so
    lint quotes them), the first message edited in the second call; the third refused."""
    system = [{"type": "text", "text": "You are a coding agent."}]
    first = [*system, *_planted("2025-05-29T21:38:30Z")]
    second = [*system, *_planted("2025-05-29T21:40:30Z")]
    asked = {"role": "user", "content": _planted("2025-05-29T21:38:00Z")}
    edited = {"role": "user", "content": _planted("2025-05-29T21:39:00Z")}
    answer = {"role": "assistant", "content": [{"type": "text", "text": "Configured."}]}
    more = {"role": "user", "content": [{"type": "text", "text": "Thanks.", "cache_control": MARK}]}
    calls = [
        _call("msg_01" + "A" * 22, 1748554710.0, first, [asked, answer, more]),
        _call("msg_01" + "B" * 22, 1748554830.0, second, [edited, answer, more]),
        _call("msg_01" + "C" * 22, 1748554950.0, second, [edited, answer, more], status=401),
    ]
    path = folder / "trace" / "log-2025-05-29-21-38-30.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(call) + "\n" for call in calls))
    return path


def transcript(folder: Path, cc: Any) -> Path:
    """A Claude Code session: a user request pasting each key, then one whose shell calls fail
    printing keys; the first failure is cut (as transcripts' excerpts are) inside its key."""
    lines: list[dict[str, Any]] = []
    parent = None
    for index, (key, _) in enumerate(KEYS.values()):
        at = f"2025-05-29T10:{index:02d}:00.000Z"
        lines.append(cc.user(f"u{index}", parent, at, f"Deploy with {key} please."))
        lines.append(
            cc.assistant(f"msg_{index}", f"a{index}", f"u{index}", at[:-5] + "3.000Z",
                         cc.usage(4, 0, 1000, 10))
        )  # fmt: skip
        parent = f"a{index}"
    cut = "Exit code 1\n" + "." * (EXCERPT - 12 - 20) + KEYS["anthropic"][0]
    printed = [cut] + [f"Exit code 1\n{shape}={key}" for shape, (key, _) in KEYS.items()]
    lines.append(cc.user("ask", parent, "2025-05-29T11:00:00.000Z", "Run env."))
    parent = "ask"
    for index, text in enumerate(printed):
        tool = {"type": "tool_use", "id": f"toolu_{index}", "name": "Bash", "input": {}}
        result = [{"tool_use_id": f"toolu_{index}", "type": "tool_result", "content": text,
                   "is_error": True}]  # fmt: skip
        at = f"2025-05-29T11:{index + 1:02d}:00.000Z"
        lines += [
            cc.assistant(f"msg_t{index}", f"t{index}", parent, at, cc.usage(4, 1000, 100, 5),
                         block=tool),
            cc.user(f"r{index}", f"t{index}", at[:-5] + "5.000Z", result),  # type: ignore[arg-type]
        ]  # fmt: skip
        parent = f"r{index}"
    path = folder / "projects" / "-home-dana-src-webshop" / f"{cc.SESSION}.jsonl"
    return cc.write(path, lines)


def rollout(folder: Path) -> Path:
    """A Codex rollout: a user request pasting a key, a failed command printing one."""
    codex = Rollout()
    codex.user(f"Use {KEYS['openai_project'][0]} for the evals.")
    codex.call("call_env", output=header(1, f"OPENAI_API_KEY={KEYS['openai_legacy'][0]}"))
    codex.response()
    path = (
        folder / "sessions" / "2026" / "03" / "06" / f"rollout-2026-03-06T14-02-11-{SESSION}.jsonl"
    )
    path.parent.mkdir(parents=True)
    codex.read(path)
    return path


@pytest.fixture
def logs(tmp_path: Path, cc: Any) -> Path:
    trace_log(tmp_path / "logs")
    transcript(tmp_path / "logs", cc)
    rollout(tmp_path / "logs")
    return tmp_path / "logs"


def run(*args: str | Path) -> str:
    result = CliRunner().invoke(app, [str(arg) for arg in args], env={"COLUMNS": "300"})
    assert result.exit_code in (0, 1), result.output  # lint fails on its findings
    return result.output


LINT_FORMATS = ("text", "json", "sarif")


@pytest.mark.parametrize("output_format", LINT_FORMATS)
def test_lint_shows_no_key_of_a_prompt_in_any_format(logs: Path, output_format: str) -> None:
    output = run("lint", logs, "--output-format", output_format)
    if output_format != "text":  # SARIF writes `…` as `\u2026`
        output = json.dumps(json.loads(output), ensure_ascii=False)
    assert leaks(output) == []
    assert "sk-ant-…[redacted]" in output


def test_lint_evidence_still_points_at_the_volatile_part(logs: Path) -> None:
    findings = json.loads(run("lint", logs, "--json"))["findings"]
    quoted = [f for f in findings if f["rule"] == "SN001"]
    assert quoted and all("»2025-05-29T21:" in f["evidence"] for f in quoted)
    # the prefix of a key cut by the excerpt is gone with it; whole ones keep theirs
    assert {f["evidence"].split(" now ")[0][-len(PLACEHOLDER) :] for f in quoted} == {PLACEHOLDER}
    changed = next(f for f in findings if f["rule"] == "SN002")
    assert "sk-ant-…[redacted] now 2025-05-29T21:38:30Z" in changed["evidence"]


@pytest.mark.parametrize("output_format", ["json", "md", "html", "csv"])
def test_the_report_shows_no_key_in_its_lint_evidence_or_agent_excerpts(
    logs: Path, output_format: str, tmp_path: Path
) -> None:
    written = tmp_path / f"report.{output_format}"
    run("report", logs, "-f", output_format, "-o", written)
    text = written.read_text()
    assert leaks(text) == []
    if output_format == "json":
        report = json.loads(text)
        assert report["lint"] and all(PLACEHOLDER in f["evidence"] for f in report["lint"])
        # every call of both logs counted, the refused one too; their tokens exact
        assert report["totals"]["requests"] == 2 + 1 + len(KEYS) * 2 + 1 + 2
        assert report["totals"]["cache_write_5m_tokens"] == 2 * 900 + len(KEYS) * 1100 + 100


def test_agents_shows_no_key_of_a_user_request_or_a_tool_result(logs: Path) -> None:
    report = json.loads(run("agents", logs, "--json"))
    texts = [row["text"] for row in report["commands"]["rows"]]
    assert len(texts) == len(KEYS) + 2 and "Run env." in texts
    assert all(PLACEHOLDER in text for text in texts if text != "Run env.")
    assert texts[0] == "Deploy with sk-ant-…[redacted] please."
    assert texts[-1] == "Use sk-proj-…[redacted] for the evals."  # Codex's
    (failed,) = report["errors"]["by_class"]
    assert failed["count"] == len(KEYS) + 2
    # the first is cut inside its key: what is left of the key is redacted all the same
    cut, whole = (example["text"] for example in failed["examples"][:2])
    assert cut.endswith(".sk-ant-…[redacted]") and whole.endswith("anthropic=sk-ant-…[redacted]")
    for output in (json.dumps(report), run("agents", logs)):
        assert leaks(output) == []


@pytest.mark.parametrize(
    "args",
    [
        ("scan",),
        ("scan", "--json", "--verbose"),
        ("sessions", "--json"),
        ("cache", "--json"),
        ("cache", "--breaks"),
        ("latency", "--json"),
    ],
)
def test_no_other_command_shows_a_key(logs: Path, args: tuple[str, ...]) -> None:
    assert leaks(run(args[0], logs, *args[1:])) == []


def test_an_error_reason_quoting_a_key_is_redacted_in_the_export(
    logs: Path, tmp_path: Path
) -> None:
    run("export", logs, "-o", tmp_path / "export")
    requests = pq.read_table(tmp_path / "export" / "requests").to_pylist()
    refused = [row["error"] for row in requests if row["error"]]
    assert refused == ["HTTP 401: authentication_error: invalid x-api-key: sk-proj-…[redacted]"]
    cells = [str(value) for row in requests for value in row.values()]
    assert leaks(" ".join(cells)) == []


def test_a_skipped_line_holding_a_key_is_named_not_quoted(logs: Path) -> None:
    trace = next(logs.rglob("log-*.jsonl"))
    with trace.open("a") as log:
        log.write(f'{{"request": "{KEYS["anthropic"][0]}\n{{}}\n')
    result = CliRunner().invoke(app, ["scan", str(logs), "--verbose"])
    assert result.exit_code == 0, result.output
    assert "invalid JSON" in result.stderr
    assert leaks(result.output) == []


def test_lint_fix_keeps_the_key_in_the_users_own_file(tmp_path: Path) -> None:
    key, secret = KEYS["anthropic"]
    prompt = tmp_path / "prompt.json"
    body = {
        "model": SONNET,
        "system": [
            {
                "type": "text",
                "text": f"Today is 2025-05-29T21:38:30Z. ANTHROPIC_API_KEY={key}",
                "cache_control": MARK,
            },
        ],  # fmt: skip
        "messages": [{"role": "user", "content": "Hello"}],
    }
    prompt.write_text(json.dumps(body, indent=2))
    result = CliRunner().invoke(app, ["lint", str(prompt), "--fix"])
    assert "--fix rewrote 1 file" in result.stderr, result.output
    assert key in prompt.read_text()  # the file as the user wrote it, key and all
    assert json.loads(prompt.read_text()) != body  # and it was rewritten
    assert leaks(result.output) == [] and "sk-ant-…[redacted]" in result.stderr


def _screens(browser: Any) -> Iterator[Any]:
    """The screens that show prompt or tool text: each logged call of the trace (its prompt's
    blocks, the refused one's reason), the findings, the behaviour and a user request."""
    requests = browser.archive.dataset.requests
    yield from (RequestScreen(r.key) for r in requests if r.source == "claude-trace")
    yield FindingsScreen()
    yield BehaviourScreen()
    report = analyze_agents(requests, browser.archive.dataset.activity, UTC)
    yield CommandScreen(report.commands[0])


async def test_the_browser_shows_no_key_on_any_screen(logs: Path) -> None:
    browser = make_app(Workspace(logs, tz="UTC"))
    async with browser.run_test(size=(250, 80)) as pilot:
        await settle(pilot)
        assert browser.archive is not None and browser.lint_findings
        shown = []
        for screen in _screens(browser):
            browser.push_screen(screen)
            await settle(pilot)
            shown.append(screen_text(browser.screen))
            shown.append(browser.export_screenshot())
            browser.pop_screen()
            await settle(pilot)
        everything = "\n".join(shown)
        assert leaks(everything) == []
        assert "sk-proj-…[redacted]" in everything  # the refused call's reason
        assert PLACEHOLDER in everything
