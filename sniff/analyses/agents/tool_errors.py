"""Provides the taxonomy of failed tool calls: `ERROR_CLASSES`, `classify` and `exit_code`.

Why: a transcript marks a failed tool call only with `"is_error": true` on its `tool_result` (a
Codex rollout only by a non-zero exit code or one of Codex's own messages, see
`ingest.formats.codex.activity`); what went wrong is free text, written either by the harness
itself (a refused permission, an Edit whose `old_string` is not in the file, a file written
before it was read) or by the tool (a shell command's stderr). Counting failures is only useful
once they are sorted into causes that point at a habit: an agent that keeps writing files it has
not read, guessing paths, or running commands the user declines. This module names those causes
and sorts a failure's text into one of them, from patterns taken from real transcripts
(`../shared/samples/`) and the messages Claude Code is known to write
(`../shared/docs/log-formats.md` §1.9).

How a text is sorted: `RULES` is an ordered list of (class, pattern); the first pattern found
in the text decides. Claude Code's own messages come first, anchored at the start of the text,
because they quote the agent's input (an Edit's `old_string`, the user's feedback) and that
quote may contain anything; then the causes a tool's output states (a timeout, a missing file,
a refused permission), most specific first; then a non-zero exit code. A failed shell command
whose text names none of these is `command_failed` all the same: Claude Code marks a shell
call as failed when its command exits non-zero, and old versions (1.0.x) wrote only the
command's output, with no "Exit code N". Anything else is `other`.

One class is an outcome but no failure: `cancelled_sibling`, a parallel call Claude Code did
not run because another call of the same response failed ("Sibling tool call errored"). It is
listed with the failures but not counted among them (`NOT_FAILURES`): the call itself never ran.

API errors are no tool result: Claude Code writes them as an assistant line with
`isApiErrorMessage: true` and model `<synthetic>`. The caller classifies such a line as
`API_ERROR` itself; `classify` also returns it for an "API Error: ..." text (a subagent's
failure reported back through its Task result).

Only ever call `classify` on a result marked `is_error`: a successful `cat` of a log may well
print "Permission denied" without anything having failed.
"""

from __future__ import annotations

import re
from typing import Final

CANCELLED_SIBLING: Final = "cancelled_sibling"
USER_REJECTED: Final = "user_rejected"
USER_INTERRUPTED: Final = "user_interrupted"
COMMAND_FAILED: Final = "command_failed"
TIMEOUT: Final = "timeout"
FILE_NOT_FOUND: Final = "file_not_found"
FILE_NOT_READ: Final = "file_not_read"
EDIT_TARGET_NOT_FOUND: Final = "edit_target_not_found"
PERMISSION_DENIED: Final = "permission_denied"
API_ERROR: Final = "api_error"
OTHER: Final = "other"

ERROR_CLASSES: Final[dict[str, str]] = {
    USER_REJECTED: (
        "The user declined the tool use at the permission prompt (\"The user doesn't want to"
        ' proceed with this tool use", or "... to take this action right now" when the prompt'
        ' was dismissed; Codex: "exec command rejected by user", "patch rejected by user"),'
        " with or without feedback."
    ),
    USER_INTERRUPTED: (
        "The user pressed Esc or otherwise interrupted while the tool ran"
        ' ("[Request interrupted by user for tool use]"; Codex: "aborted").'
    ),
    CANCELLED_SIBLING: (
        "Not a failure of the call: it was one of several parallel calls, and Claude Code"
        ' cancelled it because another of them failed ("Sibling tool call errored").'
    ),
    COMMAND_FAILED: (
        'A shell command exited non-zero ("Exit code N", "exited with code N"), or a failed'
        " shell call whose output names no more specific cause below."
    ),
    TIMEOUT: (
        'The command or request ran out of time ("Command timed out after 2m 0s", "timed'
        ' out", "TimeoutError: locator.click: Timeout 5000ms exceeded").'
    ),
    FILE_NOT_FOUND: (
        'A path the agent used does not exist ("File does not exist.", "No such file or'
        ' directory", "ENOENT", "Path does not exist").'
    ),
    FILE_NOT_READ: (
        "The agent wrote or edited a file it had not read, or had read before the file changed"
        ' ("File has not been read yet. Read it first before writing to it.", "File has been'
        ' modified since read ... Read it again").'
    ),
    EDIT_TARGET_NOT_FOUND: (
        "An Edit's old_string does not pick one place in the file: not found (\"String to"
        ' replace not found in file.") or found several times while replace_all is false'
        ' ("Found 2 matches of the string to replace"); a Codex patch whose context lines are'
        ' not in the file ("Failed to find expected lines").'
    ),
    PERMISSION_DENIED: (
        "A permission was missing: Claude Code's settings refused the tool (\"Claude requested"
        ' permissions to write to ..., but you haven\'t granted it yet", "Permission to use'
        ' Bash has been denied"), or the system refused the operation ("Permission denied",'
        ' "EACCES", "EPERM", "Operation not permitted").'
    ),
    API_ERROR: (
        "The model's API failed: an assistant line with isApiErrorMessage (model <synthetic>,"
        ' "API Error: 529 ... overloaded_error", rate and usage limits), classified by the'
        " caller, or such a text returned by a tool."
    ),
    OTHER: (
        "Anything else, such as a tool input the tool rejects (InputValidationError) or a"
        " directory read as a file (EISDIR)."
    ),
}
"""Every class a failed tool call can get, with what it means, in the order to show them."""

NOT_FAILURES: Final = frozenset({CANCELLED_SIBLING})
"""Classes of calls that did not run: shown with the failures, not counted as failures."""

_HARNESS = r"^\s*(?:<tool_use_error>\s*)?(?:Error:\s*)?"
"""Where Claude Code's own messages start: the text's start, maybe inside its error tag."""


def _rule(error_class: str, pattern: str, anchored: bool = False) -> tuple[str, re.Pattern[str]]:
    return error_class, re.compile((_HARNESS if anchored else "") + pattern, re.IGNORECASE)


RULES: Final[tuple[tuple[str, re.Pattern[str]], ...]] = (
    # Claude Code's own messages, which may quote anything after them.
    _rule(CANCELLED_SIBLING, r"Sibling tool call errored", True),
    _rule(
        USER_REJECTED,
        r"The user doesn[’']t want to (?:proceed with this tool use|take this action)",
        True,
    ),
    _rule(USER_REJECTED, r"(?:exec command|patch) rejected by user", True),  # Codex's
    # The interrupt marker can follow a killed command's "Exit code 137".
    _rule(USER_INTERRUPTED, r"\[Request interrupted by user(?: for tool use)?\]"),
    _rule(USER_INTERRUPTED, r"aborted\s*$", True),  # Codex's output of an interrupted call
    _rule(PERMISSION_DENIED, r"Claude requested permissions? to ", True),
    _rule(PERMISSION_DENIED, r"Permission to use \S+.*? (?:has been|was) denied", True),
    _rule(FILE_NOT_READ, r"File has not been read yet", True),
    _rule(FILE_NOT_READ, r"File has been (?:modified since read|unexpectedly modified)", True),
    _rule(EDIT_TARGET_NOT_FOUND, r"String to replace not found", True),
    _rule(EDIT_TARGET_NOT_FOUND, r"Found \d+ matches of the string to replace", True),
    _rule(EDIT_TARGET_NOT_FOUND, r"old_string not found", True),
    _rule(EDIT_TARGET_NOT_FOUND, r"Failed to find expected lines"),  # Codex's apply_patch
    _rule(API_ERROR, r"(?:Please run /login · )?API Error: ", True),
    _rule(API_ERROR, r"Claude AI usage limit reached", True),
    # Causes a tool's output states, most specific first.
    _rule(TIMEOUT, r"\btimed out\b|\bETIMEDOUT\b|\bTimeout(?:Error|Expired)\b"),
    _rule(TIMEOUT, r"\btimeout (?:of )?\d+ ?m?s exceeded"),
    _rule(FILE_NOT_FOUND, r"No such file or directory|\bENOENT\b"),
    _rule(FILE_NOT_FOUND, r"\b(?:File|Path|Directory) does not exist\b"),
    _rule(PERMISSION_DENIED, r"Permission denied|\bEACCES\b|\bEPERM\b|Operation not permitted"),
    _rule(PERMISSION_DENIED, r"haven[’']t granted it yet"),
    _rule(API_ERROR, r"\b(?:overloaded_error|rate_limit_error)\b"),
    # A non-zero exit that the text states.
    _rule(COMMAND_FAILED, r"\b(?:exit (?:code|status)|exited with(?: code| status)?) 0*[1-9]\d*\b"),
    _rule(COMMAND_FAILED, r"returned non-zero exit status"),
)
"""The ordered (class, pattern) list `classify` reads: the first pattern found decides."""

SHELL_TOOLS: Final = frozenset(
    {"Bash", "exec_command", "write_stdin", "shell", "shell_command", "local_shell"}
)
"""Tools that run a shell command (Claude Code's, Codex's): their failures with no stated cause
are `command_failed`."""

_EXIT_CODE = re.compile(
    r"\b(?:exit (?:code|status)|exited with(?: code| status)?) (\d+)\b", re.IGNORECASE
)


def classify(text: str, tool: str | None = None) -> str:
    """The class (a key of `ERROR_CLASSES`) of one failed tool result's text.

    Args:
        text: the `tool_result` content (its text blocks joined), or its `toolUseResult`
            string, which is the same text after "Error: ".
        tool: the name of the tool that was called, when known: a failed shell call whose text
            states no cause is `command_failed`, while the same text from another tool is
            `other`.
    """
    for error_class, pattern in RULES:
        if pattern.search(text):
            return error_class
    if tool in SHELL_TOOLS:
        return COMMAND_FAILED
    return OTHER


def exit_code(text: str) -> int | None:
    """The exit code a failed command's text states ("Exit code 2" → 2), or None."""
    found = _EXIT_CODE.search(text)
    if found is None:
        return None
    return int(found.group(1))
