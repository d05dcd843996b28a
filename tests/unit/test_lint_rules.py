"""The lint rules: each one fires on its bad sample at the right place and stays silent on the
good twin; the volatile-content detectors find what changes per request and nothing else.

The samples are `sample_logs/prompts/{bad,good}/` (their README says which file shows which
rule). Edge cases are built here as request bodies and logged requests.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from sniff.findings import Finding, Severity
from sniff.ingest.record import Prompts
from sniff.lint import LintConfig, check, lint
from sniff.lint.fix import fixed_body, fixed_text, is_fixable
from sniff.lint.inputs import body_prompt, load_prompts, prompt_files, text_prompt
from sniff.lint.prompts import LintPrompt
from sniff.lint.rules import RULES
from sniff.lint.volatile import find_placeholders, find_volatile, line_and_column
from sniff.logs import load
from sniff.model import Dataset
from sniff.pricing import PriceBook

ROOT = Path(__file__).resolve().parents[2]
PROMPTS = ROOT / "sample_logs" / "prompts"
BAD, GOOD = PROMPTS / "bad", PROMPTS / "good"
EVERYTHING = LintConfig(fail_on=Severity.INFO)

# rule, sample, the block and request the finding names, and the text at its file:line:col
# (None: a request of a log, located by its line and id)
CASES = [
    ("SN001", "SN001-volatile-system.md", "paragraph 3", None, "2026-11-12 18:42:09"),
    ("SN001", "SN001-volatile-system.json", "messages[0]", None, "November 12, 2026"),
    ("SN002", "SN002-system-changed.json", "instructions", "#2", "edit. You may edit files"),
    ("SN003", "SN003-tools-changed.json", "tools[2]", "#2", "{"),  # the added tool
    ("SN004", "SN004-unstable-tool-schema.json", "tools[2]", "#2", "{"),
    ("SN005", "SN005-history-rewritten.json", "messages[3]", "#2", "[tool output trimmed"),
    ("SN006", "SN006-breakpoint-on-volatile-block.json", "messages[0].content[0]", None, "2026-"),
    ("SN007", "SN007-too-many-breakpoints.json", "messages[4].content[0]", None, "80302, and"),
    ("SN008", "SN008-below-minimum.json", "system[0]", None, "Classify the support email"),
    ("SN009", "SN009-setting-changed.json", None, "#2", "claude-sonnet-4-5-20250929"),
    ("SN010", "SN010-one-hour-ttl-on-tail.json", "messages[4].content[0]", None, "80302, and"),
    ("SN011", "SN011-per-request-cache-key.json", None, None, "2026-11-12T18:42:09Z"),
    ("SN012", "logs/SN012-ttl-gaps.jsonl", None, "msg_01WdE6rJ2tQy9UxK5cMb8NpF", None),
    ("SN013", "SN013-ttl-order.json", "system[0]", None, "You are Juniper"),
    ("SN014", "SN014-dynamic-before-static.md", "paragraph 2", None, "{{ customer.first_name }}"),
]
IDS = [f"{rule}-{Path(name).suffix[1:]}" for rule, name, *_ in CASES]


def findings(path: Path, config: LintConfig = EVERYTHING) -> list[Finding]:
    return lint([path], config, load=load).findings


def run(prompts: list[LintPrompt], *rules: str) -> list[Finding]:
    """The findings of `rules` (default: all) on prompts already read."""
    config = LintConfig(select=rules, fail_on=Severity.INFO)
    return check(prompts, [], config, PriceBook()).findings


def logged(body: dict[str, Any], number: int, **extra: Any) -> LintPrompt:
    """A request of a logged session (`session`, `started` as given)."""
    extra.setdefault("session", "s-1")
    return body_prompt("calls.jsonl", body, request=f"req_{number}", line=number, **extra)


def rules_of(found: list[Finding]) -> set[str]:
    return {item.rule for item in found}


# --- every rule: a bad sample that triggers it, a good twin that does not ----------------------


def test_every_rule_has_a_bad_sample_and_a_good_twin() -> None:
    assert {rule for rule, *_ in CASES} == set(RULES)
    for _rule, name, *_ in CASES:
        assert (BAD / name).is_file() and (GOOD / name).is_file(), name


@pytest.mark.parametrize(("rule", "name", "block", "call", "text"), CASES, ids=IDS)
def test_bad_sample_triggers_its_rule_at_its_place(
    rule: str, name: str, block: str | None, call: str | None, text: str | None
) -> None:
    found = [item for item in findings(BAD / name) if item.rule == rule]
    assert found, f"{name} does not trigger {rule}"
    first = found[0]
    assert first.file == str(BAD / name)
    assert (first.block_path, first.request) == (block, call)
    assert first.severity == RULES[rule].severity
    assert first.fix == RULES[rule].fix
    lines = (BAD / name).read_text(encoding="utf-8").splitlines()
    assert 1 <= first.line <= len(lines)
    if text is not None:  # file:line:col is where the problem is written
        assert first.column >= 1
        assert lines[first.line - 1][first.column - 1 :].startswith(text)
    if call is not None and name.endswith(".jsonl"):  # the log's line of that request
        assert call in lines[first.line - 1]


@pytest.mark.parametrize(("rule", "name"), [case[:2] for case in CASES], ids=IDS)
def test_good_twin_has_nothing_at_warning_or_above(rule: str, name: str) -> None:
    loud = [item for item in findings(GOOD / name) if item.severity >= Severity.WARNING]
    assert loud == [], [f"{item.rule} {item.where}: {item.message}" for item in loud]


def test_the_bad_folder_shows_every_rule_and_the_good_folder_none() -> None:
    for folder, expected in ((BAD, set(RULES)), (GOOD, set())):
        everything = [*prompt_files([folder]), folder]  # prompts, logs
        found = lint(everything, EVERYTHING, load=load).findings
        assert rules_of(found) == expected


@pytest.mark.parametrize(("rule", "name"), [case[:2] for case in CASES], ids=IDS)
def test_bad_and_good_differ_in_one_place(rule: str, name: str) -> None:
    """Near-identical twins: the fix is small (a few lines, or one key of a JSON body)."""
    bad = (BAD / name).read_text(encoding="utf-8").splitlines()
    good = (GOOD / name).read_text(encoding="utf-8").splitlines()
    assert len(set(bad) ^ set(good)) <= 12


def test_samples_name_no_path_of_a_machine() -> None:
    for file in PROMPTS.rglob("*"):
        if file.is_file():
            text = file.read_text(encoding="utf-8")
            for home in ("/home/", "/Users/", "/root/", "/work/"):
                assert home not in text, f"{file.name} names {home}"


def test_evidence_marks_the_changing_text_and_the_engine_prices_it() -> None:
    [found] = [item for item in findings(BAD / "SN006-breakpoint-on-volatile-block.json")]
    assert "»2026-11-12T18:42:09Z«" in found.evidence
    assert found.saving is not None and found.saving.cached_tokens > 0
    assert found.saving.usd is not None and found.saving.usd > 0
    assert "per 1,000 calls" in found.saving.basis


# --- volatile content: what changes per request, and nothing else ------------------------------


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("Started 2026-03-05T09:14:07Z.", "timestamp", "2026-03-05T09:14:07Z"),
        ("at 2026-03-05 09:14:07.512+01:00 local", "timestamp", "2026-03-05 09:14:07.512+01:00"),
        ("Today is 2026-03-05.", "date", "2026-03-05"),
        ("Today is Thursday, March 5, 2026.", "date", "March 5, 2026"),
        ("Today is 5 March 2026.", "date", "5 March 2026"),
        ("It is 09:14:07 now.", "clock time", "09:14:07"),
        (
            "session 5f0c9a2e-3b1d-4c8e-9f6a-2d7e1b4c8a90",
            "uuid",
            "5f0c9a2e-3b1d-4c8e-9f6a-2d7e1b4c8a90",
        ),
        ("request req_011CUhX2kK9aBcDeFgH2", "request id", "req_011CUhX2kK9aBcDeFgH2"),
        ("reply to chatcmpl-9xAbCdEfGhIjKl", "request id", "chatcmpl-9xAbCdEfGhIjKl"),
        ("trace_7f3a9c2e1b4d5a6f attached", "request id", "trace_7f3a9c2e1b4d5a6f"),
        ("sent at 1772701201.12 epoch", "epoch time", "1772701201.12"),
        ("files in /tmp/tmpk2j4l5m6/out.json", "temporary path", "/tmp/tmpk2j4l5m6/out.json"),
        ("in /tmp/pytest-of-dana/pytest-12/x", "temporary path", "/tmp/pytest-of-dana/pytest-12/x"),
        ("in /var/folders/7x/k2_1q/T/a.txt", "temporary path", "/var/folders/7x/k2_1q/T/a.txt"),
        ("Use seed: 48213 for sampling.", "random seed", "seed: 48213"),
        ("nonce=889123", "random seed", "nonce=889123"),
        ("This is request #42 of the batch.", "counter", "request #42"),
        ("Attempt no. 3: be brief.", "counter", "Attempt no. 3"),
    ],
)
def test_volatile_content_is_found(text: str, kind: str, value: str) -> None:
    [found] = find_volatile(text)
    assert (found.kind, found.text) == (kind, value)
    assert text[found.start : found.end] == value


@pytest.mark.parametrize(
    "text",
    [
        "Use semantic versions like v1.2.3 or 2.10.0-beta.1; Python 3.11.4 is required.",
        "Follow these 2 steps, then step 3 of 5.",
        "Order numbers look like LO-482913; call 1-800-555-0123.",
        "Listen on 127.0.0.1:8080; HTTP 404 means not found; timeout=300.",
        "The meeting is at 10:30; stores open 9:00 to 17:00.",
        "Refunds over 1,500.00 dollars need approval; max_tokens 4096.",
        "commit 7c9e6679f, sha256:3f2a9c1d4e, colour #ff8800",
        "The 2024 season ran from May to September. See ISO 8601 and RFC 3339.",
        "Turn 3 of the wizard asks for the address.",
        "Write charts to /tmp/charts/ and link them.",
        "Format dates as YYYY-MM-DD, e.g. 2024-01-31.",
        "Dates look like 2024-01-31T10:00:00Z in the API.",
        "Write times with seconds, e.g. 2024-01-31 10:00:00.",
        "```python\nfor attempt in range(3):\n    time.sleep(2 ** attempt)\n```",
        '```json\n{"created_at": "2024-01-31T10:00:00Z",\n'
        ' "id": "123e4567-e89b-12d3-a456-426614174000"}\n```',
        "Call `lookup_order` with the order id; tool call ids are opaque.",
        "Use {{ customer.name }} as the greeting.",
    ],
)
def test_stable_content_is_not_volatile(text: str) -> None:
    assert find_volatile(text) == []


def test_overlapping_detections_are_one() -> None:
    """A timestamp holds a date and a clock time: it is one finding, not three."""
    found = find_volatile("run 2026-03-05T09:14:07Z and 2026-03-06")
    assert [(v.kind, v.text) for v in found] == [
        ("timestamp", "2026-03-05T09:14:07Z"),
        ("date", "2026-03-06"),
    ]


def test_line_and_column_are_one_based() -> None:
    assert line_and_column("ab\ncd", 0) == (1, 1)
    assert line_and_column("ab\ncd", 4) == (2, 2)


# --- SN001 and SN006: where volatile content may sit -------------------------------------------


SYSTEM = "You are a support assistant. Look orders up before discussing them."


def chat(*messages: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"model": "gpt-4.1", "messages": list(messages), **extra}


def test_volatile_content_in_the_latest_user_turn_is_fine() -> None:
    body = chat(
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "It is 2026-03-05T09:14:07Z. Where is my order?"},
    )
    assert run([body_prompt("a.json", body)]) == []


def test_volatile_content_after_the_last_breakpoint_is_fine() -> None:
    body = {
        "model": "claude-sonnet-4-5",
        "system": [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}],
        "messages": [{"role": "user", "content": "Sent 2026-03-05T09:14:07Z: where is it?"}],
    }
    assert rules_of(run([body_prompt("a.json", body)])) <= {"SN008"}  # a short prompt


def test_openai_chat_tool_calls_and_results_are_history_not_volatile() -> None:
    """Tool-call ids and tool outputs (a log with timestamps) are written once and repeated."""
    call = {"id": "call_Qm3rT8vNw2KpX7sLd9YhB4cE", "type": "function"}
    call["function"] = {"name": "run_command", "arguments": '{"command": "pytest"}'}
    body = chat(
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "Why did the build fail?"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": call["id"], "content": "2026-03-05T03:14:07Z FAILED"},
        {"role": "assistant", "content": "A test failed."},
        {"role": "user", "content": "Which one?"},
    )
    prompt = body_prompt("a.json", body)
    assert [b.kind for b in prompt.blocks] == [
        "text",
        "text",
        "tool_use",
        "tool_result",
        "text",
        "text",
    ]
    assert run([prompt]) == []


def test_a_prompt_file_may_end_with_its_changing_part() -> None:
    """Trailing dynamic paragraphs are the per-request tail (--fix and SN014 put them there)."""
    ending = text_prompt("p.md", f"{SYSTEM}\n\nStyle: brief.\n\nToday is 2026-03-05.\n")
    leading = text_prompt("p.md", f"Today is 2026-03-05.\n\n{SYSTEM}\n")
    alone = text_prompt("p.md", f"{SYSTEM} Today is 2026-03-05.\n")
    assert run([ending]) == []
    assert rules_of(run([leading])) == {"SN001"}
    assert rules_of(run([alone])) == {"SN001"}  # no static part to keep apart


def test_a_volatile_tool_definition_is_flagged() -> None:
    tool = {"name": "search", "description": "Search the index built 2026-03-05T02:00:00Z."}
    body = chat({"role": "user", "content": "Find the manual."}, tools=[tool])
    [found] = run([body_prompt("a.json", body)])
    assert (found.rule, found.block_path) == ("SN001", "tools[0]")
    assert "a tool definition" in found.message


def test_a_breakpoint_on_a_changing_system_block_of_a_session_is_sn006() -> None:
    def body(note: str) -> dict[str, Any]:
        system = [
            {"type": "text", "text": f"{SYSTEM} {note}", "cache_control": {"type": "ephemeral"}}
        ]
        return {
            "model": "claude-sonnet-4-5",
            "system": system,
            "messages": [{"role": "user", "content": "Hi"}],
        }

    chain = [logged(body("Be brief."), 1), logged(body("Be thorough."), 2)]
    found = [item for item in run(chain, "SN006") if item.rule == "SN006"]
    assert [(item.request, item.block_path) for item in found] == [("req_2", "system[0]")]


def test_a_tool_result_under_the_rolling_breakpoint_is_no_sn006() -> None:
    body = {
        "model": "claude-sonnet-4-5",
        "system": SYSTEM,
        "messages": [
            {"role": "user", "content": "Run the tests."},
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_01HbX4Qe7sVw2mKpR9tYcLnA",
                        "content": "2026-03-05T09:14:07Z 3 passed",
                        "cache_control": {"type": "ephemeral"},
                    }
                ],
            },
        ],
    }
    assert "SN006" not in rules_of(run([body_prompt("a.json", body)]))


# --- the breakpoint rules: SN007, SN008, SN010, SN013 -------------------------------------------


def marked_body(*marks: str | None, model: str = "claude-sonnet-4-5") -> dict[str, Any]:
    """A body whose system blocks carry `marks` (`5m`, `1h` or None), then one user turn."""
    controls = {"5m": {"type": "ephemeral"}, "1h": {"type": "ephemeral", "ttl": "1h"}}
    system = []
    for index, mark in enumerate(marks):
        block: dict[str, Any] = {"type": "text", "text": f"Part {index + 1}. {SYSTEM}"}
        if mark:
            block["cache_control"] = controls[mark]
        system.append(block)
    return {"model": model, "system": system, "messages": [{"role": "user", "content": "Hi"}]}


def test_four_breakpoints_are_allowed_and_five_are_not() -> None:
    assert "SN007" not in rules_of(run([body_prompt("a.json", marked_body(*["5m"] * 4))]))
    [found] = run([body_prompt("a.json", marked_body(*["5m"] * 5))], "SN007")
    assert found.block_path == "system[4]"


def test_ttl_order_one_hour_first_is_fine() -> None:
    assert run([body_prompt("a.json", marked_body("1h", "1h", "5m"))], "SN013") == []
    [found] = run([body_prompt("a.json", marked_body("1h", "5m", "1h"))], "SN013")
    assert found.block_path == "system[2]"


def test_a_one_hour_ttl_on_the_stable_prefix_is_not_the_tail() -> None:
    assert run([body_prompt("a.json", marked_body(None, "1h"))], "SN010") == []


def test_below_minimum_depends_on_the_model() -> None:
    """The same 40-token prefix: below every model's minimum; none without a breakpoint."""
    [found] = run([body_prompt("a.json", marked_body("5m", model="claude-haiku-4-5"))], "SN008")
    assert "caches from 4,096" in found.message
    assert run([body_prompt("a.json", marked_body(None))], "SN008") == []


# --- the chain rules: SN002 to SN005, SN009, SN011, SN012 ---------------------------------------


def conversation(*turns: str, system: str = SYSTEM, **extra: Any) -> dict[str, Any]:
    roles = ["user", "assistant"]
    messages = [{"role": roles[i % 2], "content": turn} for i, turn in enumerate(turns)]
    return chat({"role": "system", "content": system}, *messages, **extra)


def test_an_append_only_session_is_clean() -> None:
    chain = [
        logged(conversation("Hi"), 1),
        logged(conversation("Hi", "Hello!", "Where is my order?"), 2),
        logged(conversation("Hi", "Hello!", "Where is my order?", "Shipped.", "Thanks"), 3),
    ]
    assert run(chain) == []


def test_an_edited_earlier_turn_is_sn005_and_a_new_conversation_is_not() -> None:
    edited = [
        logged(conversation("Hi", "Hello!", "Where is my order LO-482913?"), 1),
        logged(conversation("Hi", "Hello there!", "Where is my order LO-482913?", "Shipped."), 2),
    ]
    [found] = run(edited, "SN005")
    assert (found.request, found.block_path) == ("req_2", "messages[2]")
    fresh = [logged(conversation("Hi", "Hello!", "Bye"), 1), logged(conversation("New topic"), 2)]
    assert run(fresh, "SN005") == []


def test_a_changed_system_prompt_is_sn002_with_the_diff() -> None:
    chain = [
        logged(conversation("Hi", system=SYSTEM), 1),
        logged(conversation("Hi", "Hello!", "More", system=SYSTEM + " Be brief."), 2),
    ]
    [found] = run(chain, "SN002")
    assert found.block_path == "messages[0]"
    assert "+" in found.evidence and "Be brief." in found.evidence


def test_requests_of_different_sessions_are_not_compared() -> None:
    chain = [
        logged(conversation("Hi", system=SYSTEM), 1, session="a"),
        logged(conversation("Hi", system=SYSTEM + " Be brief."), 2, session="b"),
    ]
    assert run(chain) == []


def test_reordered_tools_are_sn003_and_reordered_keys_sn004() -> None:
    first = {"type": "function", "function": {"name": "a", "parameters": {"type": "object"}}}
    second = {"type": "function", "function": {"name": "b", "description": "B"}}
    flipped = {"function": {"parameters": {"type": "object"}, "name": "a"}, "type": "function"}
    reordered = [
        logged(conversation("Hi", tools=[first, second]), 1),
        logged(conversation("Hi", "Hello!", "More", tools=[second, first]), 2),
    ]
    [found] = run(reordered, "SN003", "SN004")
    assert (found.rule, found.message) == ("SN003", "tools reordered")
    rekeyed = [
        logged(conversation("Hi", tools=[first, second]), 1),
        logged(conversation("Hi", "Hello!", "More", tools=[flipped, second]), 2),
    ]
    [found] = run(rekeyed, "SN003", "SN004")
    assert (found.rule, found.block_path) == ("SN004", "tools[0]")


def test_toggled_thinking_is_sn009() -> None:
    on = {"type": "enabled", "budget_tokens": 4000}
    chain = [
        logged({**marked_body(None), "thinking": on}, 1),
        logged(marked_body(None), 2),
    ]
    [found] = run(chain, "SN009")
    assert found.message == "thinking changed"


def test_another_model_for_another_conversation_is_no_switch() -> None:
    """A subagent or a background call on a cheaper model starts its own conversation."""
    tool = {"type": "function", "function": {"name": "read_file"}}
    main = conversation("Fix the bug.", tools=[tool])
    helper = {**conversation("Find the config files.", tools=[tool]), "model": "gpt-4.1-mini"}
    later = conversation("Fix the bug.", "On it.", "Thanks", tools=[tool])
    assert run([logged(main, 1), logged(helper, 2), logged(later, 3)], "SN009") == []
    switched = {**later, "model": "gpt-4.1-mini"}
    [found] = run([logged(main, 1), logged(switched, 2)], "SN009")
    assert found.message == "model changed from gpt-4.1 to gpt-4.1-mini"


def test_a_new_cache_key_per_request_is_sn011_and_one_key_is_not() -> None:
    keys = ["user-1-a81f", "user-1-b03c", "user-1-c7d2"]
    turns = [("Hi",), ("Hi", "Hello!", "More"), ("Hi", "Hello!", "More", "Sure.", "Bye")]
    chain = [
        logged(conversation(*turn, prompt_cache_key=key), n)
        for n, (turn, key) in enumerate(zip(turns, keys, strict=True), start=1)
    ]
    [found] = run(chain, "SN011")
    assert "3 different keys" in found.message
    same = [
        logged(conversation(*turn, prompt_cache_key="support"), n)
        for n, turn in enumerate(turns, start=1)
    ]
    assert run(same, "SN011") == []


def kiosk_log(tmp_path: Path, pause_minutes: float) -> Path:
    """The SN012 sample with its customer back after `pause_minutes` instead of 15."""
    records = [
        json.loads(line) for line in (BAD / "logs/SN012-ttl-gaps.jsonl").read_text().splitlines()
    ]
    second = datetime.fromisoformat(records[1]["started_at"])
    back = second + timedelta(minutes=pause_minutes)
    records[2]["started_at"] = back.isoformat().replace("+00:00", "Z")
    records[2]["ended_at"] = (back + timedelta(seconds=4)).isoformat().replace("+00:00", "Z")
    path = tmp_path / f"kiosk-{pause_minutes:g}.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


@pytest.mark.parametrize(("pause", "fires"), [(15, True), (4, False), (90, False)])
def test_idle_gaps_fire_where_the_one_hour_ttl_would_have_paid(
    tmp_path: Path, pause: float, fires: bool
) -> None:
    """15 minutes: the rebuild costs more than 1-hour writes would have. 4 minutes: the cache
    had not expired. 90 minutes: longer than an hour, a 1-hour TTL would not have kept it."""
    found = [f for f in findings(kiosk_log(tmp_path, pause)) if f.rule == "SN012"]
    assert bool(found) is fires
    assert [f for f in findings(GOOD / "logs/SN012-ttl-gaps.jsonl") if f.rule == "SN012"] == []


def test_sn012_quotes_the_net_saving_cache_breaks_gives_for_the_session(tmp_path: Path) -> None:
    from sniff.analyses.cache.breaks import find_breaks

    path = kiosk_log(tmp_path, 15)
    [found] = [f for f in findings(path) if f.rule == "SN012"]
    requests = load([path], PriceBook(), with_prompts=Prompts.SIZED).requests
    [verdict] = find_breaks(requests, PriceBook()).ttl_advice.sessions
    assert found.saving is not None and found.saving.usd is not None
    assert found.saving.usd == verdict.net_saving_usd > 0
    assert found.saving.cached_tokens == verdict.avoided_tokens == 2_014
    assert "kiosk-bend-7c41" in found.message and "1-hour TTL" in found.message


# --- --fix: what each fix writes ----------------------------------------------------------------


def test_logged_prompts_are_the_records_the_caller_loads(tmp_path: Path) -> None:
    """lint reads no log itself: its logged prompts are what its caller's loader hands it."""
    log = tmp_path / "calls.jsonl"
    log.write_text(json.dumps({"id": "c1", "request": conversation("Hi")}) + "\n")
    asked: list[Prompts] = []

    def loading(paths: list[Path] | None, prices: Any, *, with_prompts: Prompts) -> Dataset:
        asked.append(with_prompts)
        return load(paths, prices, with_prompts=with_prompts)

    read = lint([log], EVERYTHING, load=loading)
    assert asked[0] == Prompts.TEXT
    assert [(p.request, p.line, p.api) for p in read.prompts] == [("c1", 1, "openai-chat")]
    unread = lint([log], EVERYTHING, load=lambda paths, prices, *, with_prompts: Dataset(()))
    assert (unread.prompts, unread.files) == ([], 1)


def sample_prompts(name: str) -> list[LintPrompt]:
    return lint([BAD / name], EVERYTHING, load=load).prompts


@pytest.mark.parametrize("name", ["SN001-volatile-system.md", "SN014-dynamic-before-static.md"])
def test_a_fixed_prompt_file_is_its_good_twin(name: str) -> None:
    [prompt] = sample_prompts(name)
    assert fixed_text(prompt) == (GOOD / name).read_text(encoding="utf-8")


def test_the_breakpoint_moves_to_the_last_stable_block() -> None:
    """Off the timestamped user turn onto the system prompt, not dropped: dropped, nothing
    would be cached at all."""
    [prompt] = sample_prompts("SN006-breakpoint-on-volatile-block.json")
    fixed = fixed_body(prompt.body, prompt.api)
    assert fixed["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert "cache_control" not in fixed["messages"][0]["content"][0]


def test_a_breakpoint_moves_onto_a_plain_string_system_prompt() -> None:
    body = {
        "model": "claude-sonnet-4-5",
        "system": SYSTEM,
        "messages": [
            {
                "role": "user",
                "content": [
                    {
                        "type": "text",
                        "text": "At 09:14:07 UTC:",
                        "cache_control": {"type": "ephemeral"},
                    }
                ],
            }
        ],
    }
    fixed = fixed_body(body, "anthropic-messages")
    assert fixed["system"] == [
        {"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}
    ]
    assert body["system"] == SYSTEM  # the original is not touched


def test_a_one_hour_ttl_on_the_system_prompt_survives_a_fix() -> None:
    body = marked_body("1h", "1h")
    body["system"][0]["text"] += "\nToday is 2026-03-05."  # something to fix: SN001
    fixed = fixed_body(body, "anthropic-messages")
    assert [part["cache_control"].get("ttl") for part in fixed["system"]] == ["1h", "1h"]
    assert "2026-03-05" in fixed["messages"][-1]["content"]


def test_a_list_of_bodies_is_a_prompt_file_to_fix_and_a_log_is_not(tmp_path: Path) -> None:
    bodies = sample_prompts("SN004-unstable-tool-schema.json")
    logged = sample_prompts("logs/SN012-ttl-gaps.jsonl")
    assert bodies and logged
    assert all(is_fixable(p) for p in bodies)
    assert not any(is_fixable(p) for p in logged)


# --- locations in JSON prompt files: where the offending text is written ------------------------


def place(path: Path, needle: str, start: int = 0) -> tuple[int, int]:
    """1-based line and column where `needle` first occurs in the file from `start`."""
    text = path.read_text(encoding="utf-8")
    return line_and_column(text, text.index(needle, start))


def write_json(path: Path, value: Any, **options: Any) -> Path:
    path.write_text(json.dumps(value, indent=2, **options) + "\n", encoding="utf-8")
    return path


def juniper() -> str:
    """The samples' long system prompt (about 1,200 tokens: above every minimum of Sonnet)."""
    body = json.loads((GOOD / "SN013-ttl-order.json").read_text(encoding="utf-8"))
    text: str = body["system"][0]["text"]
    return text


def test_a_structured_block_is_located_where_the_file_writes_it(tmp_path: Path) -> None:
    """The fifth breakpoint on a tool result: the linter's JSON of the block is not in the
    file, the block is (indented or on one line)."""
    result = {"type": "tool_result", "tool_use_id": "toolu_01TnB4cGx9WkQe2sJ6vYr8Ua"}
    result |= {"content": "3 passed", "cache_control": {"type": "ephemeral"}}
    body = marked_body(*["5m"] * 4)
    body["messages"] = [{"role": "user", "content": [result]}]
    for name, layout in (("indented.json", {}), ("compact.json", {"separators": (",", ":")})):
        path = write_json(tmp_path / name, body, **layout)
        [found] = run(load_prompts([path])[0], "SN007")
        assert found.block_path == "messages[0].content[0]"
        text = path.read_text()
        opening = text.rindex("{", 0, text.index("toolu_01TnB4"))  # of the tool result
        assert (found.line, found.column) == line_and_column(text, opening)


@pytest.mark.parametrize(
    ("old", "new", "block"),
    [
        (["a", "b"], ["a", "b", "c"], "tools[2]"),  # added: the new tool
        (["a", "b", "c"], ["a", "c"], "tools[1]"),  # removed: what now stands in its place
        (["a", "b"], ["b", "a"], "tools[0]"),  # reordered: the first moved
        (["a", "b", "c"], ["a", "b"], "tools[1]"),  # removed at the end: the last left
    ],
)
def test_changed_tools_are_located_on_the_tool_that_changed(
    old: list[str], new: list[str], block: str
) -> None:
    def tools(names: list[str]) -> list[dict[str, Any]]:
        return [{"type": "function", "function": {"name": name}} for name in names]

    chain = [
        logged(conversation("Hi", tools=tools(old)), 1),
        logged(conversation("Hi", "Hello!", "More", tools=tools(new)), 2),
    ]
    [found] = run(chain, "SN003")
    assert found.block_path == block


def test_a_volatile_cache_key_is_located_on_its_volatile_part(tmp_path: Path) -> None:
    body = {
        "model": "gpt-5-mini",
        "instructions": SYSTEM,
        "input": "Fix the failing test.",
        "prompt_cache_key": "tern-6f1c2a9e-4b7d-4e2a-9c3f-1d2e3f4a5b6c",
    }
    path = write_json(tmp_path / "key.json", body)
    [found] = lint([path], EVERYTHING, load=load).findings
    assert (found.rule, found.block_path) == ("SN011", None)
    assert (found.line, found.column) == place(path, "6f1c2a9e")


@pytest.mark.parametrize("ascii_only", [False, True], ids=["utf-8", "escaped"])
def test_volatile_text_next_to_non_ascii_characters_is_located(
    tmp_path: Path, ascii_only: bool
) -> None:
    """Written raw or as \\u escapes (before the text, they shift every column after them; an
    emoji takes two, a surrogate pair)."""
    text = f"{SYSTEM}\nZürich desk 🏔️ — current time: 2026-03-05T09:14:22Z — times are UTC."
    body = {"model": "gpt-4.1", "messages": [{"role": "system", "content": text}]}
    body["messages"].append({"role": "user", "content": "Hi"})
    path = write_json(tmp_path / "dash.json", body, ensure_ascii=ascii_only)
    [found] = run(load_prompts([path])[0], "SN001")
    assert (found.line, found.column) == place(path, "2026-03-05T09:14:22Z")


def test_volatile_text_in_a_tool_definition_is_located(tmp_path: Path) -> None:
    tool = {
        "name": "search_docs",
        "description": "Search the docs (index built 2026-03-05T02:00:00Z) by keyword.",
        "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}},
    }
    body = {"model": "claude-sonnet-4-5", "system": SYSTEM, "tools": [tool]}
    body["messages"] = [{"role": "user", "content": "Hi"}]
    path = write_json(tmp_path / "tool.json", body)
    [found] = run(load_prompts([path])[0], "SN001")
    assert found.block_path == "tools[0]"
    assert (found.line, found.column) == place(path, "2026-03-05T02:00:00Z")


def test_findings_in_a_list_of_bodies_are_located_in_their_body(tmp_path: Path) -> None:
    """The same text in both bodies: the finding on the second body points into the second."""
    dated = f"{SYSTEM}\nToday's date: 2026-03-05"
    bodies = [
        conversation("Hi", system=dated),
        conversation("Hi", "Hello!", "More", system=dated + "\nBe brief."),
    ]
    path = write_json(tmp_path / "bodies.json", bodies)
    found = {item.rule: item for item in lint([path], EVERYTHING, load=load).findings}
    assert (found["SN001"].line, found["SN001"].column) == place(path, "2026-03-05")
    second = path.read_text().index('"model"', 10)  # where the second body starts
    assert (found["SN002"].request, found["SN002"].block_path) == ("#2", "messages[0]")
    assert (found["SN002"].line, found["SN002"].column) == place(path, "\\nBe brief.", second)


# --- SN014 and the placeholders: filled per request, priced -------------------------------------


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Hello {{ customer.name }}, {% if vip %}welcome back{% endif %}.", 3),
        ("Today is ${date}; the user is ${user_name}.", 2),
        ('Shell: always quote expansions, as in "${HOME}/.config".', 0),
        ("Default: ${XDG_CONFIG_HOME:-~/.config}; ${PATH} is searched.", 0),
        ("In JavaScript write `${user.name}`, not string concatenation.", 0),
        ('```sh\nfor f in *.log; do gzip "${f}"; done\n```', 0),
    ],
)
def test_placeholders_are_template_syntax_not_shell_or_javascript(text: str, found: int) -> None:
    assert len(find_placeholders(text)) == found


def test_shell_variables_in_a_coding_prompt_are_no_sn014() -> None:
    rule = '- Shell: always quote expansions, as in "${HOME}/.config".'
    text = f"{SYSTEM}\n\n{rule}\n\nBe brief.\n"
    assert run([text_prompt("agent.md", text)], "SN014") == []
    templated = text.replace("${HOME}", "${repo}")
    assert rules_of(run([text_prompt("agent.md", templated)], "SN014")) == {"SN014"}


def test_placeholders_first_in_a_cacheable_template_is_priced(tmp_path: Path) -> None:
    path = tmp_path / "agent.md"
    path.write_text("Repository: {{repo}}\n\n" + juniper() + "\n", encoding="utf-8")
    [found] = [item for item in findings(path) if item.rule == "SN014"]
    assert found.saving is not None and found.saving.cached_tokens > 999 * 1024
    assert found.saving.basis == "per 1,000 calls at 1 call/min (estimate)"
    path.write_text(juniper() + "\n\nRepository: {{repo}}\n", encoding="utf-8")
    assert findings(path) == []


# --- the chains: tools dropped, history edited or windowed --------------------------------------


def test_dropping_every_tool_mid_session_is_sn003() -> None:
    tool = {"type": "function", "function": {"name": "lookup_order"}}
    chain = [
        logged(conversation("Where is my order?", tools=[tool]), 1),
        logged(conversation("Where is my order?", "Shipped.", "Thanks"), 2),
    ]
    [found] = run(chain)
    assert (found.rule, found.request, found.block_path) == ("SN003", "req_2", None)
    assert found.message == "tools removed lookup_order"


def test_a_background_call_without_tools_is_no_sn003() -> None:
    """A call of its own (a title, a summary) on the agent's model is another chain."""
    tool = {"type": "function", "function": {"name": "lookup_order"}}
    chain = [
        logged(conversation("Where is my order?", tools=[tool]), 1),
        logged(conversation("Write a title for this chat."), 2),
        logged(conversation("Where is my order?", "Shipped.", "Thanks", tools=[tool]), 3),
    ]
    assert run(chain) == []


def test_editing_the_latest_turn_once_the_conversation_goes_on_is_sn005() -> None:
    chain = [
        logged(conversation("Hi"), 1),
        logged(conversation("Hi", "Hello!", "Can I add a tent?"), 2),
        logged(conversation("Hi", "Hello!", "Can I add a [redacted]?", "Yes.", "Great."), 3),
    ]
    [found] = run(chain)
    assert (found.rule, found.request, found.block_path) == ("SN005", "req_3", "messages[3]")
    assert found.evidence == "-Can I add a tent?\n+Can I add a [redacted]?"


def test_retrying_the_latest_turn_or_answering_a_prefill_is_no_sn005() -> None:
    retried = [
        logged(conversation("Hi", "Hello!", "Can I add a tent?"), 1),
        logged(conversation("Hi", "Hello!", "Can I add a tent to order LO-482913?"), 2),
    ]
    assert run(retried, "SN005") == []
    prefilled = [
        logged(conversation("Return JSON.", "{"), 1),
        logged(conversation("Return JSON.", '{"ok": true}', "Thanks"), 2),
    ]
    assert run(prefilled, "SN005") == []


def test_an_edited_first_message_is_sn005_and_another_conversation_is_not() -> None:
    chain = [
        logged(conversation("Context: [3 articles]\n\nWhere is LO-482913?", "Shipped.", "Ok"), 1),
        logged(conversation("Where is LO-482913?", "Shipped.", "Ok", "Anything else?", "No"), 2),
    ]
    [found] = run(chain)
    assert (found.rule, found.block_path) == ("SN005", "messages[1]")
    assert found.message == "message block 1 changed"
    other = [
        logged(conversation("Where is LO-482913?", "Shipped.", "Ok"), 1),
        logged(conversation("Do you sell stoves?", "Yes.", "Ok"), 2),
    ]
    assert run(other) == []


def test_a_sliding_window_that_drops_the_oldest_turns_is_sn005() -> None:
    chain = [
        logged(conversation("Hi", "Hello!", "Where is my order?"), 1),
        logged(conversation("Where is my order?", "Shipped.", "Thanks"), 2),
    ]
    [found] = run(chain)
    assert (found.rule, found.request, found.block_path) == ("SN005", "req_2", "messages[1]")
    assert found.message == "the oldest 2 message block(s) were dropped (a sliding window)"
    assert found.evidence == "-Hi\n-Hello!"


# --- SN008 on logged requests: the usage decides --------------------------------------------------


def request_log(path: Path, usages: list[dict[str, int] | None | str]) -> Path:
    """A request log of one short marked prompt sent once per usage (None: the call failed;
    "absent": it succeeded, and the log kept no usage)."""
    lines = []
    for number, usage in enumerate(usages, start=1):
        body = marked_body("5m")
        body["messages"] = [{"role": "user", "content": "Hi"}] * (2 * number - 1)
        response: dict[str, Any] = {"type": "error", "error": {"type": "overloaded_error"}}
        if usage is not None:
            response = {"id": f"msg_{number:024d}", "type": "message"}
            response |= {} if usage == "absent" else {"usage": usage}
        status = 200 if usage is not None else 529
        record = {"request": body, "response": response, "status": status, "session": "s-1"}
        lines.append(json.dumps(record | {"started_at": 1772701200.0 + 30 * number}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("usages", "reported"),
    [
        ([{"input_tokens": 12, "cache_creation_input_tokens": 4800}], False),  # written
        ([{"input_tokens": 12, "cache_read_input_tokens": 4800}], False),  # read
        ([None, {"input_tokens": 12, "cache_read_input_tokens": 4800}], False),  # failed, then read
        ([{"input_tokens": 52, "cache_read_input_tokens": 0}], True),  # nothing cached
        (["absent"], False),  # no usage logged: no evidence either way
    ],
    ids=["written", "read", "failed-then-read", "not-cached", "no-usage-logged"],
)
def test_sn008_on_a_logged_request_follows_its_usage(
    tmp_path: Path, usages: list[dict[str, int] | None | str], reported: bool
) -> None:
    """The log's text is shortened (40 tokens); the usage says what the API cached."""
    log = request_log(tmp_path / "calls.jsonl", usages)
    found = [item for item in findings(log) if item.rule == "SN008"]
    assert bool(found) is reported


# --- --fix: a lone 1-hour TTL on the tail, a list of one body -------------------------------------


def test_fix_drops_a_lone_one_hour_ttl_on_the_tail() -> None:
    """The only breakpoint, on the latest turn, is the tail all the same."""
    question = {"type": "text", "text": "Hi", "cache_control": {"type": "ephemeral", "ttl": "1h"}}
    body = {"model": "claude-sonnet-4-5", "system": SYSTEM}
    body["messages"] = [{"role": "user", "content": [question]}]
    assert rules_of(run([body_prompt("a.json", body)], "SN010")) == {"SN010"}
    fixed = fixed_body(body, "anthropic-messages")
    assert fixed["messages"][0]["content"][0]["cache_control"] == {"type": "ephemeral"}
    assert run([body_prompt("a.json", fixed)], "SN010") == []
