"""The taxonomy of failed tool calls, on texts taken from real transcripts.

Most texts are shortened copies of `is_error` tool results in `../shared/samples/` (sniffly,
claude-code-viewer, agtrace); the others are the messages Claude Code writes for causes those
samples lack (a timeout, "Exit code N", "File does not exist."). Every class has examples that
must get it and near-misses, texts that look like it but belong to another class.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sniff.analyses.agents.tool_errors import (
    ERROR_CLASSES,
    FILE_NOT_FOUND,
    FILE_NOT_READ,
    OTHER,
    RULES,
    USER_INTERRUPTED,
    USER_REJECTED,
    classify,
    exit_code,
)
from tests.conftest import SHARED_SAMPLES as SHARED
from tests.conftest import needs_shared

REJECTED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it"
    " was a file edit, the new_string was NOT written to the file). STOP what you are doing and"
    " wait for the user to tell you how to proceed."
)
NOT_READ = (
    "<tool_use_error>File has not been read yet. Read it first before writing to it."
    "</tool_use_error>"
)

CASES = [
    # user_rejected
    pytest.param(REJECTED, "Bash", "user_rejected", id="rejected"),
    pytest.param(
        "The user doesn't want to take this action right now. STOP what you are doing and wait"
        " for the user to tell you how to proceed.",
        "Bash",
        "user_rejected",
        id="rejected-dismissed",
    ),
    pytest.param(
        REJECTED.replace("STOP what", "To tell you how to proceed, the user said:\nno, run")
        + " the tests first, make says Permission denied",
        "Edit",
        "user_rejected",
        id="rejected-with-feedback-that-quotes-another-cause",
    ),
    pytest.param(
        "String to replace not found in file.\nString: msg = \"The user doesn't want to proceed"
        ' with this tool use"',
        "Edit",
        "edit_target_not_found",
        id="near-miss-rejected-quoted-in-an-edit",
    ),
    pytest.param(
        "exec command rejected by user", "exec_command", "user_rejected", id="codex-rejected"
    ),
    pytest.param(
        "patch rejected by user", "apply_patch", "user_rejected", id="codex-patch-rejected"
    ),
    # user_interrupted
    pytest.param(
        "[Request interrupted by user for tool use]", "Bash", "user_interrupted", id="interrupted"
    ),
    pytest.param(
        "[Request interrupted by user for tool use]",
        "mcp__playwright__browser_click",
        "user_interrupted",
        id="interrupted-mcp",
    ),
    pytest.param(
        "Exit code 137\n[Request interrupted by user for tool use]",
        "Bash",
        "user_interrupted",
        id="interrupted-after-the-command-was-killed",
    ),
    pytest.param(
        "Exit code 130\n^CTraceback (most recent call last):\nKeyboardInterrupt",
        "Bash",
        "command_failed",
        id="near-miss-interrupted-inside-the-command",
    ),
    pytest.param("aborted", "exec_command", "user_interrupted", id="codex-aborted"),
    pytest.param(
        "Exit code 1\nmake: *** [build] aborted",
        "exec_command",
        "command_failed",
        id="near-miss-codex-aborted-in-the-output",
    ),  # fmt: skip
    # cancelled_sibling
    pytest.param(
        "<tool_use_error>Sibling tool call errored</tool_use_error>",
        "Bash",
        "cancelled_sibling",
        id="sibling",
    ),
    pytest.param("Sibling tool call errored", "Read", "cancelled_sibling", id="sibling-untagged"),
    pytest.param(
        "Exit code 1\nassert 'Sibling tool call errored' in shown",
        "Bash",
        "command_failed",
        id="near-miss-sibling-in-a-command-output",
    ),
    # command_failed
    pytest.param(
        "Exit code 2\nerror[E0425]: cannot find value `cache` in this scope",
        "exec_command",
        "command_failed",
        id="codex-exit-code",
    ),
    pytest.param(
        "Exit code 1\nFAILED tests/test_cart.py::test_total - AssertionError: 0 != 5",
        "Bash",
        "command_failed",
        id="exit-code",
    ),
    pytest.param(
        'Traceback (most recent call last):\n  File "/Users/chip/dev/ai-music/model_comparison'
        '.py", line 9, in <module>\n    import torch\n'
        "ModuleNotFoundError: No module named 'torch'",
        "Bash",
        "command_failed",
        id="shell-output-without-exit-code",
    ),
    pytest.param("Error", "Bash", "command_failed", id="bare-error-from-bash"),
    pytest.param(
        "error: target shim binary not found", "Bash", "command_failed", id="not-found-no-path"
    ),
    pytest.param(
        "Error: Command failed: make lint exited with code 2",
        None,
        "command_failed",
        id="exited-with",
    ),
    pytest.param(
        "build finished with exit code 0, 3 warnings treated as errors",
        None,
        "other",
        id="near-miss-exit-code-0",
    ),
    pytest.param("Error", None, "other", id="near-miss-bare-error-from-unknown-tool"),
    # timeout
    pytest.param("Command timed out after 2m 0.0s", "Bash", "timeout", id="timeout"),
    pytest.param(
        "Exit code 143\nCommand timed out after 2m 0s", "Bash", "timeout", id="timeout-exit-code"
    ),
    pytest.param(
        "MCP error -32001: Request timed out",
        "mcp__github__list_prs",
        "timeout",
        id="timeout-mcp",
    ),
    pytest.param(
        "### Result\nTimeoutError: locator.click: Timeout 5000ms exceeded.\nCall log:\n  - waiting"
        " for locator('aria-ref=e34')",
        "mcp__playwright__browser_click",
        "timeout",
        id="timeout-playwright",
    ),
    pytest.param(
        "Exit code 1\nFAILED tests/test_http.py::test_timeout_is_respected",
        "Bash",
        "command_failed",
        id="near-miss-timeout-in-a-test-name",
    ),
    # file_not_found
    pytest.param(
        "<tool_use_error>File does not exist.</tool_use_error>", "Read", "file_not_found", id="read"
    ),
    pytest.param(
        "ls: cannot access 'types/': No such file or directory", "Bash", "file_not_found", id="ls"
    ),
    pytest.param(
        "(eval):1: no such file or directory: types/README.md", "Bash", "file_not_found", id="zsh"
    ),
    pytest.param(
        "Exit code 2\nError: ENOENT: no such file or directory, open 'fixtures/cart.json'",
        "Bash",
        "file_not_found",
        id="enoent",
    ),
    pytest.param(
        "<tool_use_error>Path does not exist: /home/dana/src/agent-habits/docs</tool_use_error>",
        "Grep",
        "file_not_found",
        id="path",
    ),
    pytest.param(
        "String to replace not found in file.\nString: open('cart.json')  # No such file",
        "Edit",
        "edit_target_not_found",
        id="near-miss-file-not-found-quoted-in-an-edit",
    ),
    # file_not_read
    pytest.param(NOT_READ, "Edit", "file_not_read", id="edit-unread"),
    pytest.param(NOT_READ, "Write", "file_not_read", id="write-unread"),
    pytest.param(
        "<tool_use_error>File has been modified since read, either by the user or by a linter."
        " Read it again before attempting to write it.</tool_use_error>",
        "Edit",
        "file_not_read",
        id="stale-read",
    ),
    pytest.param(
        "EISDIR: illegal operation on a directory, read",
        "Read",
        "other",
        id="near-miss-read-of-a-directory",
    ),
    # edit_target_not_found
    pytest.param(
        'String to replace not found in file.\nString: def main():\n    """Test diverse musical'
        ' generation."""',
        "Edit",
        "edit_target_not_found",
        id="edit-not-found",
    ),
    pytest.param(
        "<tool_use_error>Found 2 matches of the string to replace, but replace_all is false. To"
        " replace all occurrences, set replace_all to true. To replace only one occurrence,"
        " please provide more context to uniquely identify the instance.\nString:     return"
        " total</tool_use_error>",
        "Edit",
        "edit_target_not_found",
        id="edit-ambiguous",
    ),
    pytest.param(
        "Exit code 1\nsed: can't read src/cart.py.bak: No such file or directory",
        "Bash",
        "file_not_found",
        id="near-miss-edit-by-shell",
    ),
    pytest.param(
        "apply_patch verification failed: Failed to find expected lines in src/cache.rs:\n"
        "    fn get_or_render(",
        "apply_patch",
        "edit_target_not_found",
        id="codex-patch-context-not-found",
    ),
    # permission_denied
    pytest.param(
        "Claude requested permissions to write to /path/to/Demo/CLAUDE.md, but you haven't"
        " granted it yet.",
        "Write",
        "permission_denied",
        id="not-granted",
    ),
    pytest.param(
        "Permission to use Bash with command rm -rf build has been denied.",
        "Bash",
        "permission_denied",
        id="denied-by-settings",
    ),
    pytest.param(
        "Exit code 126\n/bin/bash: line 1: ./scripts/deploy.sh: Permission denied",
        "Bash",
        "permission_denied",
        id="os-permission-denied",
    ),
    pytest.param(
        "Error: EACCES: permission denied, open '/etc/hosts'",
        "Write",
        "permission_denied",
        id="eacces",
    ),
    pytest.param(REJECTED, "Write", "user_rejected", id="near-miss-declined-is-not-denied"),
    # api_error
    pytest.param(
        'API Error: 529 {"type":"error","error":{"type":"overloaded_error",'
        '"message":"Overloaded"}}',
        "Task",
        "api_error",
        id="overloaded",
    ),
    pytest.param(
        "Please run /login · API Error: 401 OAuth token has expired.",
        "Task",
        "api_error",
        id="login",
    ),
    pytest.param(
        "Exit code 22\ncurl: (22) The requested URL returned error: 529",
        "Bash",
        "command_failed",
        id="near-miss-http-error-of-a-command",
    ),
    # other
    pytest.param(
        "<tool_use_error>InputValidationError: Task failed due to the following issue:\nThe"
        " required parameter `prompt` is missing</tool_use_error>",
        "Task",
        "other",
        id="input-validation",
    ),
    pytest.param(
        "MCP error -32603: Validation Failed: title is too long (maximum is 256 characters)",
        "mcp__github__create_issue",
        "other",
        id="mcp-validation",
    ),
]


@pytest.mark.parametrize(("text", "tool", "expected"), CASES)
def test_classify(text: str, tool: str | None, expected: str) -> None:
    assert classify(text, tool) == expected


def test_the_tool_use_result_string_gets_the_same_class() -> None:
    """`toolUseResult` repeats the content after "Error: "."""
    for text, expected in (
        (NOT_READ, FILE_NOT_READ),
        (REJECTED, USER_REJECTED),
        ("File does not exist.", FILE_NOT_FOUND),
        ("[Request interrupted by user]", USER_INTERRUPTED),
    ):
        assert classify(text) == expected
        assert classify("Error: " + text.removeprefix("<tool_use_error>")) == expected


def test_classes_are_the_documented_taxonomy_in_order() -> None:
    assert list(ERROR_CLASSES) == [
        "user_rejected",
        "user_interrupted",
        "cancelled_sibling",
        "command_failed",
        "timeout",
        "file_not_found",
        "file_not_read",
        "edit_target_not_found",
        "permission_denied",
        "api_error",
        "other",
    ]
    assert all(description.endswith(".") for description in ERROR_CLASSES.values())
    assert {error_class for error_class, _ in RULES} <= set(ERROR_CLASSES) - {OTHER}


def test_every_class_but_other_has_a_rule_and_a_case() -> None:
    expected = {case.values[2] for case in CASES}
    assert expected == set(ERROR_CLASSES)
    assert {error_class for error_class, _ in RULES} == set(ERROR_CLASSES) - {OTHER}


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Exit code 1\nFAILED tests/test_cart.py::test_total", 1),
        ("Exit code 143\nCommand timed out after 2m 0s", 143),
        ("Exit code 137\n[Request interrupted by user for tool use]", 137),
        ("Error: Command failed: make lint exited with code 2", 2),
        ("go: exit status 127", 127),
        ("build finished with exit code 0", 0),
        ("Traceback (most recent call last):\nModuleNotFoundError: No module named 'torch'", None),
        ("Command timed out after 2m 0.0s", None),
        ("", None),
    ],
)
def test_exit_code(text: str, code: int | None) -> None:
    assert exit_code(text) == code


def _failed_results(folder: Path) -> list[tuple[str, str | None]]:
    """(text, tool) of every `is_error` tool result in the transcripts under `folder`."""
    found: list[tuple[str, str | None]] = []
    for path in sorted(folder.rglob("*.jsonl")):
        tools: dict[str, str] = {}
        results = []
        for raw in path.read_text(encoding="utf-8").splitlines():
            line = json.loads(raw)
            content = (line.get("message") or {}).get("content")
            for block in content if isinstance(content, list) else []:
                if block.get("type") == "tool_use":
                    tools[block["id"]] = block["name"]
                elif block.get("type") == "tool_result" and block.get("is_error"):
                    results.append(block)
        for block in results:
            text = block["content"]
            if isinstance(text, list):
                text = "\n".join(part.get("text", "") for part in text)
            found.append((text, tools.get(block["tool_use_id"])))
    return found


@needs_shared
def test_every_failed_call_in_the_sniffly_samples_gets_a_documented_class() -> None:
    failed = _failed_results(SHARED / "sniffly")
    assert len(failed) == 6
    classes = sorted(classify(text, tool) for text, tool in failed)
    assert classes == ["command_failed"] * 3 + ["edit_target_not_found"] + ["user_rejected"] * 2


@needs_shared
def test_only_causes_without_a_class_are_other_in_the_viewer_samples() -> None:
    failed = _failed_results(SHARED / "claude-code-viewer")
    others = sorted(text[:40] for text, tool in failed if classify(text, tool) == OTHER)
    assert others == [
        "<tool_use_error>InputValidationError: Ta",
        "EISDIR: illegal operation on a directory",
    ]
