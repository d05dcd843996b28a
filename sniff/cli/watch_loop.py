"""Provides `Watch`: the loop of `sniff watch`, from file changes to events, JSON lines, the
live view and notifications."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from itertools import chain
from typing import TYPE_CHECKING, TextIO

from sniff.errors import UserError

if TYPE_CHECKING:
    from sniff.analyses.live.breaks import LiveBreaks
    from sniff.analyses.live.events import Event
    from sniff.workspace import Workspace

Alert = Callable[[str, str], None]
"""(title, message) → a desktop notification."""
Clock = Callable[[], datetime]
"""The watch loop's clock: now, aware (a test passes a fake one)."""


def utc_now() -> datetime:
    """The machine's clock, in UTC."""
    return datetime.now(UTC)


def notifier() -> Alert:
    """A desktop notifier (`desktop-notifier`, the `notify` extra).

    Raises:
        UserError: the library is not installed.
    """
    try:
        from desktop_notifier import DesktopNotifierSync
    except ImportError:
        raise UserError(
            "--notify needs the desktop-notifier library: pip install 'sniff[notify]'"
        ) from None
    sender = DesktopNotifierSync(app_name="sniff")

    def alert(title: str, message: str) -> None:
        try:
            sender.send(title=title, message=message)
        except Exception as error:  # noqa: BLE001 - no notification service must not stop watching
            import sys

            sys.stderr.write(f"sniff: notification failed: {error}\n")

    return alert


class Watch:
    """Logs followed through one Workspace's paths, filters, prices and zone."""

    def __init__(
        self,
        workspace: Workspace,
        *,
        alert: Alert | None = None,
        min_usd: float = 0.0,
        most: int | None = None,
        idle_minutes: float | None = None,
        clock: Clock = utc_now,
    ) -> None:
        from sniff.analyses.live.idle import IDLE_MINUTES, Idleness
        from sniff.ingest.files.discover import roots_for
        from sniff.ingest.files.follow import Follower
        from sniff.ingest.files.remote import url_of

        self.workspace = workspace
        self.roots = roots_for(workspace.paths)[0]
        for root in self.roots:
            if (url := url_of(root)) is not None:
                raise UserError(f"watch follows logs on this machine, not {url}")
            if not root.exists():
                raise UserError(f"{root}: no such file or folder")
        self.follower = Follower(self.roots, workspace.prices.cost, workspace.log_format)
        self.alert = alert
        self.min_usd = min_usd
        self.most = most
        self.sessions: set[str] = set()
        self.events: list[Event] = []
        self.count = 0
        self.clock = clock
        minutes = IDLE_MINUTES if idle_minutes is None else idle_minutes
        self.idleness = Idleness(timedelta(minutes=minutes))
        self.live: LiveBreaks | None = None
        """What each session's requests keep for judging the next ones' breaks (`start`)."""

    def start(self) -> None:
        """Read what the logs hold now: no event for it, only the state, but for the lines
        it skipped (`line_skipped`, as a scan lists them)."""
        from sniff.analyses.live.breaks import LiveBreaks
        from sniff.analyses.live.events import skipped_events

        growth = self.follower.step()
        self.live = LiveBreaks(self.workspace.prices)
        self.live.start(growth.requests)
        kept = [r for r in growth.requests if self.workspace.filters.keep(r)]
        self.sessions.update(r.session_id for r in kept)
        now = self.clock()
        self.idleness.start(kept, now)
        skipped = skipped_events(growth.skipped, now)
        self.events.extend(skipped)
        self.count += len(skipped)

    def step(self) -> list[Event]:
        """The events of what was appended since the last step, then of the lines it skipped,
        then of the sessions that went idle by the clock (a step with no growth still ends
        them)."""
        from sniff.analyses.live.events import KINDS, events_of, skipped_events

        growth = self.follower.step()
        keep = self.workspace.filters.keep
        found = events_of(
            growth, self.follower.by_session, self.workspace.prices,
            known_sessions=self.sessions, keep=keep, live=self.live,
        )  # fmt: skip
        now = self.clock()
        found += self.idleness.saw([r for r in growth.requests if keep(r)], now)
        found.sort(key=lambda event: (event.at, KINDS.index(event.kind)))
        found += skipped_events(growth.skipped, now)
        found += self.idleness.due(now)
        for event in found:
            if self.alert is not None and _alerting(event, self.min_usd):
                self.alert("sniff: cache break", _alert_text(event))
        self.events.extend(found)
        self.count += len(found)
        return found

    def done(self) -> bool:
        """Whether the hidden `--events N` count is reached."""
        return self.most is not None and self.count >= self.most

    def follow_json(self, out: TextIO, beats: Iterator[None]) -> None:
        """One JSON object per event, each line flushed at once: first those of `start` (the
        lines it skipped), then a step's on every beat (`ingest.index.changes.ticks`)."""
        from sniff.present.json.common import dumps
        from sniff.present.json.watch import event_json

        for found in chain([self.events[:]], (self.step() for _ in beats)):
            for event in found:
                out.write(dumps(event_json(event), compact=True) + "\n")
                out.flush()
            if self.done():
                return

    def follow_live(self, beats: Iterator[None]) -> None:
        """The live view, redrawn on every beat: a change, or the refresh interval."""
        from rich.live import Live

        from sniff.analyses.live.events import glance
        from sniff.present.terminal.safe_console import SafeConsole
        from sniff.present.terminal.watch import view

        zone = self.workspace.zone

        def drawn() -> object:
            now = self.clock()
            requests = self.workspace.filters.apply(self.follower.requests.values())
            return view(glance(requests, zone, now), self.events, zone, now, self.idleness.ended)

        with Live(drawn(), console=SafeConsole(), auto_refresh=False) as live:  # type: ignore[arg-type]
            for _ in beats:
                self.step()
                live.update(drawn(), refresh=True)  # type: ignore[arg-type]
                if self.done():
                    return


def _alerting(event: Event, min_usd: float) -> bool:
    """Whether `event` is a priced cache break of at least `min_usd`."""
    cost = event.cost_usd
    return event.kind == "cache_break" and cost is not None and cost >= min_usd


def _alert_text(event: Event) -> str:
    cost = f"${event.cost_usd:.2f}" if event.cost_usd is not None else "unpriced"
    rebuilt = (event.tokens or {}).get("rebuilt", 0)
    return f"{event.cause}: {rebuilt:,} tokens rebuilt ({cost}) in {event.project}"
