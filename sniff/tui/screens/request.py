"""Provides the request screen: usage and cost, the break, and the prompt's blocks as cached."""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.widgets import Header, Static

from sniff.analyses.browse import Archive, TimelineEntry
from sniff.analyses.cache.prompt_view import BlockRow, CacheState, PromptView, prompt_view
from sniff.analyses.latency.timing import end_to_end
from sniff.model import Request
from sniff.numbers import duration, money, tokens
from sniff.present.causes import explain
from sniff.tui.palette import Palette
from sniff.tui.screens.base import ArchiveScreen
from sniff.tui.widgets.cells import figure
from sniff.tui.widgets.footer import keys_footer
from sniff.tui.widgets.shown import ShownStatic
from sniff.tui.widgets.table import BrowseTable, Column, Row

COLUMNS = [
    Column("#"),
    Column("role", numeric=False),
    Column("kind", numeric=False),
    Column("tokens"),
    Column("at", numeric=False, narrow=False),
    Column("cache", numeric=False),
    Column("change", numeric=False),
]

NO_PROMPT_IN_TRANSCRIPT = (
    "Claude Code's transcript does not keep the prompt sent to the API. A claude-trace log "
    "(npx @mariozechner/claude-trace) holds it, or a request log from your own proxy."
)
"""Where a Claude Code request's prompt can be found: "the log does not hold it" left a
newcomer with nowhere to go."""


class RequestScreen(ArchiveScreen):
    """One request: what it cost, whether it broke the cache and why, and its prompt's blocks."""

    def __init__(self, key: str) -> None:
        super().__init__()
        self.key = key
        self.counted: tuple[Request, Request | None] | None = None
        """The request and its predecessor with blocks counted by the tokenizer, once read."""
        self.pointed = False
        """Whether the cursor was put on the first changed block (once: then it is the user's)."""

    def compose(self) -> ComposeResult:
        yield Header()
        yield ShownStatic(id="usage")
        yield ShownStatic(id="break")
        yield ShownStatic(id="compare")
        yield BrowseTable(COLUMNS, sort_column=-1, id="blocks")
        yield keys_footer()

    def show(self, archive: Archive) -> None:
        entry = archive.entry(self.key)
        if entry is None:
            self.query_one("#usage", Static).update(
                "This request is not in the archive (any more)."
            )
            return
        self.sub_title = request_label(entry.request, archive)
        colours = self.colours
        self.query_one("#usage", Static).update(_usage_text(entry.request, archive, colours))
        self.query_one("#break", Static).update(_break_text(entry, colours))
        request, previous = entry.request, entry.previous
        if self.counted is not None and self.counted[0].key == self.key:
            request, previous = self.counted
        elif request.blocks:
            self._count_tokens(request, previous)
        view = prompt_view(request, previous)
        self._show_prompt(view, counted=self.counted is not None, source=request.source)

    def _show_prompt(self, view: PromptView, counted: bool, source: str) -> None:
        note = Text(view.comparison, style="bold" if view.first_changed else "")
        if not view.rows and source == "claude-code":  # say where the prompt can be found
            note = Text(NO_PROMPT_IN_TRANSCRIPT)
        if view.rows and not counted:
            note.append("  (token counts estimated; counting…)", style="italic")
        self.query_one("#compare", Static).update(note)
        table = self.query_one(BrowseTable)
        table.display = bool(view.rows)
        table.set_rows([_block_row(row, self.colours) for row in view.rows])
        if view.first_changed is not None and not self.pointed:
            table.move_to(str(view.first_changed))  # by key: the rows may be sorted or filtered
            self.pointed = True

    @work(thread=True, exclusive=True, group="count", exit_on_error=False)
    def _count_tokens(self, request: Request, previous: Request | None) -> None:
        """Read the prompt again with the tokenizer, off the UI thread, and show exact counts."""
        from sniff.workspace import Workspace

        try:
            pair = Workspace.recount([request] if previous is None else [request, previous])
            counted = (pair[0], pair[1] if previous is not None else None)
        except Exception as error:  # counting is a refinement: keep the estimates on failure
            self.app.call_from_thread(
                self.notify, f"could not count tokens: {error}", severity="warning"
            )
            return
        self.app.call_from_thread(self._counted, counted)

    def _counted(self, counted: tuple[Request, Request | None]) -> None:
        self.counted = counted
        self._show_prompt(prompt_view(*counted), counted=True, source=counted[0].source)


def request_label(request: Request, archive: Archive) -> str:
    """A request named as a person finds it: its agent, its place in its session, and when.

    Why: a key is an identity, not a name; most agents' (Codex's `codex:<session>:<totals>…`)
    are sniff's own composites that say nothing to a reader.
    """
    keys = [entry.request.key for entry in archive.timeline(request.session_id)]
    place = f"request {keys.index(request.key) + 1} of {len(keys)}" if request.key in keys else ""
    when = request.when.astimezone(archive.zone).strftime("%Y-%m-%d %H:%M:%S")
    return f"{request.harness} {place or 'request'} in session {request.session_id[:8]}, {when}"


def _usage_text(request: Request, archive: Archive, colours: Palette) -> Text:
    usage, cost = request.usage, request.cost
    when = request.when.astimezone(archive.zone).strftime("%Y-%m-%d %H:%M:%S")
    text = Text()
    text.append(f"{request.model}", style="bold")
    text.append(f"  ·  {request.agent.value}  ·  {when}  ·  {request.project}\n")
    for label, value, price, colour in (
        ("uncached", usage.input_tokens, cost.input_usd if cost else None, colours.uncached),
        ("read", usage.cache_read_tokens, cost.cache_read_usd if cost else None, colours.read),
        (
            "written 5m",
            usage.cache_write_5m_tokens,
            cost.cache_write_5m_usd if cost else None,
            colours.written,
        ),
        (
            "written 1h",
            usage.cache_write_1h_tokens,
            cost.cache_write_1h_usd if cost else None,
            colours.written,
        ),
        ("output", usage.output_tokens, cost.output_usd if cost else None, ""),
    ):
        text.append(f"{label} ")
        text.append(tokens(value), style=colour)
        text.append(f" ({money(price)})  ")
    text.append("\ncost ")
    text.append(money(cost.total_usd if cost else None), style="bold")
    if cost:
        text.append(f"  ·  without caching {money(cost.uncached_usd)}")
    seconds = end_to_end(request)
    if seconds is not None:
        text.append(f"  ·  latency {seconds:.1f}s")
    if request.error:
        text.append(f"  ·  failed: {request.error}", style="italic")
    where = f"\n{request.file}:{request.line}"
    if ":" not in request.key:  # the API's own id (msg_…, chatcmpl-…), not a sniff composite
        where += f"  ·  {request.key}"
    text.append(where, style=colours.muted)
    return text


def _break_text(entry: TimelineEntry, colours: Palette) -> Text:
    found = entry.found
    if found is None:
        return _no_break_text(entry, colours)
    if found.fault:
        text = Text(f"Cache break: {found.cause}", style=f"bold {colours.uncached}")
    else:
        text = Text(f"Expected cache write: {found.cause}", style="bold")
    again = "written again" if found.previous is not None else "written"
    text.append(f"  ·  {tokens(found.rebuilt_tokens)} tokens {again}, ")
    text.append(f"{money(found.cost_usd)} more than reading them")
    if found.gap_seconds is not None:
        text.append(f"  ·  {duration(found.gap_seconds)} after the previous request")
    text.append(f"\n{explain(found.cause)}")
    if found.detail:
        text.append(f"\nEvidence: {found.detail}", style="bold")
    return text


def _no_break_text(entry: TimelineEntry, colours: Palette) -> Text:
    """Why a request is not a break, as its reads and its predecessor's show."""
    previous, request = entry.previous, entry.request
    if previous is None:
        return Text("First request of its chain: nothing was cached for it before.")
    if entry.idle:
        return Text(f"Idle {duration(entry.gap_seconds or 0)} before it, longer than the TTL.")
    read = request.usage.cache_read_tokens
    shared = min(entry.shared_tokens or 0, request.usage.prompt_tokens)
    if shared <= 0:
        return Text(
            "No cache break: its prompt shares no cached prefix with its predecessor's, "
            "so there was nothing to read back."
        )
    if read >= shared:
        return Text(
            f"No cache break: it read the {tokens(shared)} tokens it shares with its predecessor.",
            style=colours.read,
        )
    if read > previous.usage.cache_read_tokens:
        return Text(
            f"No cache break: it read {tokens(read)} of the {tokens(shared)} tokens it shares "
            "with its predecessor, more than its predecessor read."
        )
    if entry.tolerated is not None:
        return Text(
            f"Not a break: it read {tokens(entry.tolerated.drop)} tokens less than it shares "
            "with its predecessor, within the tolerance for the uncached tail."
        )
    return Text(
        f"Not a break: it read {tokens(shared - read)} tokens less than it shares with its "
        "predecessor, but wrote none of them again."
    )


def _block_row(row: BlockRow, colours: Palette) -> Row:
    colour = {
        CacheState.READ: colours.read,
        CacheState.WRITTEN: colours.written,
        CacheState.UNCACHED: colours.uncached,
    }[row.state]
    block = row.block
    change = Text("◀ first change", style=f"bold {colours.uncached}") if row.changed else ""
    mark = f" [{block.cache_control}]" if block.cache_control else ""
    return Row.of(
        str(row.index),
        [
            (figure(str(row.index)), row.index),
            (block.role, block.role),
            (block.kind + mark, block.kind),
            (figure(tokens(block.tokens)), block.tokens),
            (figure(tokens(row.start)), row.start),
            (Text(f"■ {row.state.value}", style=colour), row.state.value),
            (change, ""),
        ],
    )
