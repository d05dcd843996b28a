"""Provides `analyze_commits`: what each commit made inside a session cost, and each pull
request those commits went into.

The rules, from what the logs hold (a shell call's command and the start of its output,
`ToolCall.detail` and `ToolResult.head`):
- A commit is a shell call whose command runs `git commit` (`--amend` too) and whose output
  prints a commit line, `[<branch> <hash>] <message>`. A call that failed, or printed no such
  line (nothing to commit, a hook refused), made no commit.
- Its requests are the session's (every agent's: subagents and compactions too) after the
  previous commit's request, up to and including the request that asked for the commit, in
  time order. The requests after a session's last commit belong to no commit.
- A pull request is the URL a `gh pr create` call printed (`.../pull/<n>`). Its branch is the
  command's `--head`, else the branch of the session's last commit before it. The session's
  commits on that branch before it was created are its; so are later ones on that branch that a
  successful `git push` after them sent (a push naming the branch, or naming none: the current
  branch, the one the last commit was on).
Only commits made inside a session are counted: a commit made in a terminal is in no log.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from sniff.ingest.tool_detail import SHELL_TOOLS
from sniff.model import Activity, Request, ToolCall, ToolResult
from sniff.redact_secrets import redact_secrets

MESSAGE = 72
"""Characters shown of a commit message (its first line)."""
GIT = r"\bgit(?:\s+-[cC]\s+\S+|\s+--[\w-]+(?:=\S+)?)*\s+"
COMMIT_COMMAND = re.compile(GIT + r"commit\b")
PUSH_COMMAND = re.compile(GIT + r"push\b(?P<args>[^;&|\n]*)")
PR_COMMAND = re.compile(r"\bgh\s+pr\s+create\b(?P<args>[^;&|\n]*)")
COMMIT_LINE = re.compile(
    r"^\[(?P<branch>[^\]\n]+?)(?: \(root-commit\))? (?P<hash>[0-9a-f]{7,40})\] ?(?P<message>.*)$",
    re.MULTILINE,
)
PR_URL = re.compile(r"https?://\S+?/pull/\d+")
HEAD_OPTION = re.compile(r"(?:--head|-H)(?:=|\s+)(?P<branch>[^\s'\"]+)")


@dataclass(frozen=True, slots=True)
class Spent:
    """What a group of requests used: how many, their tokens and cost."""

    requests: int = 0
    tokens: int = 0
    cost_usd: float | None = None
    """None when none of them is priced."""
    unpriced: int = 0

    def plus(self, other: Spent) -> Spent:
        """Both groups together."""
        if other.cost_usd is None or self.cost_usd is None:
            cost = self.cost_usd if other.cost_usd is None else other.cost_usd
        else:
            cost = self.cost_usd + other.cost_usd
        return Spent(
            self.requests + other.requests, self.tokens + other.tokens, cost,
            self.unpriced + other.unpriced,
        )  # fmt: skip


def spent(requests: Sequence[Request]) -> Spent:
    """The requests' count, tokens and cost (priced ones only; None when none is)."""
    priced = [r.cost.total_usd for r in requests if r.cost is not None]
    return Spent(
        len(requests), sum(r.usage.total_tokens for r in requests),
        sum(priced) if priced else None, len(requests) - len(priced),
    )  # fmt: skip


@dataclass(frozen=True, slots=True)
class CommitRow:
    """One commit made in a session, and the requests that led to it."""

    hash: str
    branch: str
    message: str
    """Its first line, redacted and cut to `MESSAGE`."""
    session_id: str
    project: str
    at: datetime | None
    """When the call that made it was logged."""
    amend: bool
    spent: Spent
    request_keys: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PullRow:
    """A pull request created in a session, and the session's commits that went into it."""

    url: str
    branch: str
    session_id: str
    commits: tuple[str, ...]
    """The hashes of its commits, in order."""
    spent: Spent


@dataclass(frozen=True, slots=True)
class CommitReport:
    """`sniff commits`."""

    commits: list[CommitRow]
    pulls: list[PullRow]
    sessions: int
    """Sessions with at least one commit."""
    after_last: Spent
    """The requests of those sessions after their last commit: in no commit."""


@dataclass(frozen=True, slots=True)
class _Shell:
    """A shell call of a session with its result, in time order."""

    call: ToolCall
    result: ToolResult | None
    order: float


def analyze_commits(requests: Sequence[Request], activity: Activity) -> CommitReport:
    """The commits made in the sessions of `requests`, with the requests and cost of each."""
    results = {result.tool_use_id: result for result in activity.results}
    by_session: dict[str, list[Request]] = {}
    for request in requests:
        by_session.setdefault(request.session_id, []).append(request)
    shells: dict[str, list[ToolCall]] = {}
    for call in activity.calls:
        if call.name in SHELL_TOOLS and call.detail and call.session_id in by_session:
            shells.setdefault(call.session_id, []).append(call)
    commits: list[CommitRow] = []
    pulls: list[PullRow] = []
    after_last = Spent()
    for session, calls in shells.items():
        timeline = sorted(by_session[session], key=lambda r: (r.when, r.key))
        ordered = _ordered(calls, results, timeline)
        made, rest = _session_commits(timeline, ordered)
        if made:
            commits.extend(row for row, _ in made)
            after_last = after_last.plus(spent(rest))
            pulls.extend(_pulls(made, ordered))
    commits.sort(key=lambda row: (row.at or datetime.min.replace(tzinfo=UTC), row.session_id))
    return CommitReport(commits, pulls, len({row.session_id for row in commits}), after_last)


def _ordered(
    calls: list[ToolCall], results: dict[str, ToolResult], timeline: list[Request]
) -> list[_Shell]:
    """The shell calls in time order: at their asking request's place, else at their time."""
    place = {request.key: index for index, request in enumerate(timeline)}
    times = [request.when.timestamp() for request in timeline]
    shells = []
    for call in calls:
        found = place.get(call.key)
        # a call whose request is not among those read sits at its own time
        order = float(found) if found is not None else _between(times, call.at)
        shells.append(_Shell(call, results.get(call.id), order))
    return sorted(shells, key=lambda shell: (shell.order, shell.call.at or 0.0))


def _between(times: list[float], at: float | None) -> float:
    """The place of a moment among requests' times: just after those at or before it."""
    return sum(1 for when in times if at is not None and when <= at) - 0.5


def _session_commits(
    timeline: list[Request], shells: list[_Shell]
) -> tuple[list[tuple[CommitRow, _Shell]], list[Request]]:
    """The session's commits with the shell call that made each, and the requests after the
    last one."""
    made: list[tuple[CommitRow, _Shell]] = []
    start = 0
    for shell in shells:
        for found in _commit_lines(shell):
            end = max(start, math.floor(shell.order) + 1)
            mine = timeline[start:end]
            start = end
            call = shell.call
            row = CommitRow(
                found.group("hash"), found.group("branch"), _message(found.group("message")),
                call.session_id, call.project, _moment(call.at),
                "--amend" in (call.detail or ""), spent(mine), tuple(r.key for r in mine),
            )  # fmt: skip
            made.append((row, shell))
    return made, timeline[start:]


def _commit_lines(shell: _Shell) -> list[re.Match[str]]:
    """The commit lines a successful `git commit` call printed (none for any other call)."""
    result = shell.result
    if result is None or result.error is not None or not result.head:
        return []
    if not COMMIT_COMMAND.search(shell.call.detail or ""):
        return []
    return list(COMMIT_LINE.finditer(result.head))


def _pulls(made: list[tuple[CommitRow, _Shell]], shells: list[_Shell]) -> list[PullRow]:
    """The pull requests created in the session, each with its commits."""
    pulls = []
    for shell in shells:
        found = PR_COMMAND.search(shell.call.detail or "")
        url = PR_URL.search(shell.result.head or "") if found and shell.result else None
        if found is None or url is None:
            continue
        before = [row for row, s in made if s.order <= shell.order]
        named = HEAD_OPTION.search(found.group("args"))
        branch = named.group("branch") if named else (before[-1].branch if before else "")
        mine = [row for row in before if row.branch == branch]
        mine += [row for row, s in made if s.order > shell.order and row.branch == branch
                 and _pushed(s, shells, made, branch)]  # fmt: skip
        total = Spent()
        for row in mine:
            total = total.plus(row.spent)
        pulls.append(PullRow(url.group(0), branch, shell.call.session_id,
                             tuple(row.hash for row in mine), total))  # fmt: skip
    return pulls


def _pushed(
    commit: _Shell, shells: list[_Shell], made: list[tuple[CommitRow, _Shell]], branch: str
) -> bool:
    """Whether a successful `git push` after `commit` sent `branch`: named (`origin main`,
    `HEAD:main`), or the current branch (no branch named, or `HEAD`), the one the last commit
    before the push was on."""
    for shell in shells:
        if shell.order < commit.order or shell is commit:
            continue
        found = PUSH_COMMAND.search(shell.call.detail or "")
        if found is None or shell.result is None or shell.result.error is not None:
            continue
        refs = [w for w in found.group("args").split() if not w.startswith("-")][1:]
        current = [row.branch for row, s in made if s.order <= shell.order][-1:]
        if not refs or "HEAD" in refs:
            refs += current
        if any(ref == branch or ref.endswith(":" + branch) for ref in refs):
            return True
    return False


def _message(text: str) -> str:
    """A commit message's first line as shown: redacted, then cut."""
    line = redact_secrets(text.strip())
    return line if len(line) <= MESSAGE else line[: MESSAGE - 1] + "…"


def _moment(at: float | None) -> datetime | None:
    return None if at is None else datetime.fromtimestamp(at, UTC)
