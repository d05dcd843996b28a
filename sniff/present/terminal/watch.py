"""Provides the live view of `sniff watch`: today's cost, the active block, the live sessions,
the running list of events and the lines skipped (rich)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime, tzinfo

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from sniff.analyses.live.events import Event, Glance
from sniff.numbers import plural

SHOWN_EVENTS = 15


def _usd(value: float | None) -> str:
    return "unpriced" if value is None else f"${value:,.2f}"


def _rate(value: float | None) -> str:
    return "–" if value is None else f"{value:.0%}"


SESSION_KINDS = ("session_started", "session_resumed", "session_ended")


def view(
    glance: Glance,
    events: Sequence[Event],
    zone: tzinfo,
    now: datetime,
    ended: Collection[str] = (),
) -> RenderableType:
    """The whole live view at `now`; `ended` are the sessions reported ended (idle)."""
    today = glance.today
    head = Table.grid(padding=(0, 2))
    head.add_row(
        Text.assemble(("today", "bold"), f" {_usd(today.cost if today.requests else 0.0)}"),
        f"{today.requests} requests",
        f"hit {_rate(today.hit_rate)}",
    )
    block = glance.block
    if block is not None:
        left = block.end - now
        minutes = int(left.total_seconds() // 60)
        head.add_row(
            Text.assemble(
                ("block", "bold"),
                f" {block.start.astimezone(zone):%H:%M}–{block.end.astimezone(zone):%H:%M}",
            ),
            f"{_usd(block.totals.cost)}, {block.totals.requests} requests",
            f"{minutes // 60}h{minutes % 60:02d}m left",
        )
    else:
        head.add_row(Text.assemble(("block", "bold"), " none active"), "", "")
    sessions = Table(title="live sessions", title_justify="left", expand=False)
    for column in ("session", "project", "requests", "cost", "hit", "state"):
        numeric = column in ("requests", "cost", "hit")
        # the layout rule (`layout`): numbers and ids whole, only the project's path folds
        sessions.add_column(
            column, justify="right" if numeric else "left", no_wrap=column != "project"
        )
    for session_id, project, totals in glance.sessions:
        sessions.add_row(
            session_id[:8], project, str(totals.requests), _usd(totals.cost),
            _rate(totals.hit_rate), Text("ended (idle)", "dim") if session_id in ended else "live",
        )  # fmt: skip
    return Group(head, sessions, events_table(events, zone), *skipped_footer(events))


def events_table(events: Sequence[Event], zone: tzinfo) -> Table:
    """The latest events, newest last."""
    table = Table(title="events", title_justify="left")
    for column in ("time", "event", "session", "what", "$"):
        # only the sentence gives way (it folds); a time, an id or an amount is never cut
        table.add_column(
            column, justify="right" if column == "$" else "left", no_wrap=column != "what"
        )
    shown = [event for event in events if event.kind != "line_skipped"]  # the footer's
    for event in shown[-SHOWN_EVENTS:]:
        table.add_row(
            f"{event.at.astimezone(zone):%H:%M:%S}",
            _styled(event.kind),
            event.session_id[:8],
            _what(event),
            "" if event.kind in (*SESSION_KINDS, "tool_failed") else _usd(event.cost_usd),
        )
    return table


def skipped_footer(events: Sequence[Event]) -> list[Text]:
    """One line saying how many lines were skipped and which was the latest, as a scan says
    it; none when none was (a burst of bad lines does not push the events off the screen)."""
    skipped = [event for event in events if event.kind == "line_skipped"]
    if not skipped:
        return []
    latest = skipped[-1]
    return [
        Text.assemble(
            (f"{plural(len(skipped), 'line')} skipped", "yellow"),
            " (unreadable or implausible), the latest ",
            f"{latest.file}:{latest.line}: {latest.reason}",  # a Text's, never read as markup
            "; --json lists them.",
        )
    ]


def _styled(kind: str) -> Text:
    style = {
        "cache_break": "bold red", "tool_failed": "yellow", "compaction": "magenta",
        "session_ended": "dim",
    }  # fmt: skip
    return Text(kind, style.get(kind, ""))


def _what(event: Event) -> str:
    tokens = event.tokens or {}
    if event.kind == "cache_break":
        return f"{event.cause}: {tokens.get('rebuilt', 0):,} tokens rebuilt"
    if event.kind == "tool_failed":
        return f"{event.cause}: {event.detail[:60]}"
    if event.kind == "session_ended":
        return f"{event.project}: {event.detail}"
    if event.kind in SESSION_KINDS:
        return event.project
    total = sum(tokens.values())
    timed = f", TTFT {event.ttft_s:.2f} s" if event.ttft_s is not None and event.exact else ""
    return f"{event.model} {total:,} tokens{timed}"
