"""Provides the report's opening: what a budget owner asks first, as cards, sentences and tables.

What it answers, in order: what was spent and the month so far against the month before; where
the month is heading, with its range; what caching saved, said as what the same work would have
cost without it; which sessions, projects and models cost most; whether the subscription pays;
what wasted money and how to stop it. Every figure is one `sniff scan --json` (or `monthly`,
`blocks --plan`, `cache --breaks`) gives for the same logs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from sniff.analyses.cost.outlook import RANGE, Outlook
from sniff.analyses.cost.plans import SUBSCRIPTION_HARNESS, MonthValue
from sniff.analyses.cost.summary import SessionRow
from sniff.analyses.report import Report
from sniff.numbers import compact, money, percent, plural
from sniff.present.causes import fix
from sniff.present.report.agents import Row
from sniff.present.report.table import Table
from sniff.present.terminal.console import TOTALS_ONLY

TOP_SESSIONS = 10
TOP_GROUPS = 10
PLAN_MONTHS = 3
"""The latest months the plans table compares."""
LEVEL = f"{round((RANGE[1] - RANGE[0]) * 100)} %"


@dataclass(frozen=True, slots=True)
class Card:
    """One figure at the top of the report: what it is, the amount, and what it is against."""

    label: str
    value: str
    note: str = ""


def cards(report: Report) -> list[Card]:
    """The figures a reader sees first."""
    t = report.totals
    found = [Card("Spend", money(t.cost), f"{plural(t.requests, 'request')}, {_span(report)}")]
    found += _outlook_cards(report.outlook)
    uncached = t.uncached_usd if t.cost is not None else None
    found.append(Card("Without caching", money(uncached), f"caching saved {money(t.savings)}"))
    found.append(Card("Cache hit rate", percent(t.hit_rate), "of prompt tokens read from cache"))
    faults = report.breaks.faults
    found.append(
        Card(
            "Lost to cache faults",
            money(report.breaks.fault_cost_usd),
            f"{plural(len(faults), 'fault')}: see how to stop them",
        )  # fmt: skip
    )
    return found


def _outlook_cards(outlook: Outlook | None) -> list[Card]:
    if outlook is None:
        return []
    before = _month_before(outlook.month)
    so_far = Card(
        "Month to date",
        money(outlook.month_to_date),
        f"{outlook.month}-01 to {outlook.as_of:%Y-%m-%d}; {before} by the same day: "
        f"{money(outlook.same_point_last_month)}",
    )
    if outlook.complete:
        return [so_far, Card("Projection", money(outlook.projected), f"{outlook.month}: complete")]
    ahead = Card(
        "Projection",
        money(outlook.projected),
        f"{outlook.month} in all, likely {money(outlook.low)} to {money(outlook.high)} "
        f"({LEVEL} range)",
    )
    return [so_far, ahead]


def sentences(report: Report) -> list[str]:
    """The cards said in plain words, with what each rests on."""
    t = report.totals
    said = [f"These logs hold {plural(t.requests, 'request')} ({_span(report)}), which cost "
            f"{money(t.cost)}."]  # fmt: skip
    if t.priced_requests and t.savings is not None:
        said.append(
            f"Without prompt caching the same requests would have cost "
            f"{money(t.cost_usd + t.savings)}: caching saved {money(t.savings)}."
        )
    if t.unpriced_requests:
        said.append(
            f"{plural(t.unpriced_requests, 'request')} of models without a published price "
            "are counted in no dollar amount."
        )
    said += _outlook_sentences(report.outlook)
    return said


def _outlook_sentences(outlook: Outlook | None) -> list[str]:
    if outlook is None:
        return []
    before = _month_before(outlook.month)
    said = [
        f"{outlook.month} to {outlook.as_of:%Y-%m-%d %H:%M} (the last logged request) cost "
        f"{money(outlook.month_to_date)}, against {money(outlook.same_point_last_month)} by "
        f"the same point of {before} ({money(outlook.previous_month)} for the whole month)."
    ]
    if not outlook.complete:
        said.append(
            f"Projection: at the daily spend of the last {plural(outlook.sampled_days, 'day')}, "
            f"{outlook.month} ends near {money(outlook.projected)}; {LEVEL} of resampled "
            f"months end between {money(outlook.low)} and {money(outlook.high)}."
        )
    return said


def _span(report: Report) -> str:
    first, last = report.totals.first, report.totals.last
    if first is None or last is None:
        return "no requests"
    return f"{first.astimezone(report.zone):%Y-%m-%d} to {last.astimezone(report.zone):%Y-%m-%d}"


def _month_before(month: str) -> str:
    return f"{date.fromisoformat(month + '-01') - timedelta(days=1):%Y-%m}"


def top_sessions(report: Report) -> Table:
    """The `TOP_SESSIONS` most expensive sessions."""
    ordered = sorted(report.summary.sessions, key=_session_cost)[:TOP_SESSIONS]
    rows: list[Row] = [_session_row(row, report) for row in ordered]
    headers = ["session", "project", "harness", "started", "requests", "cost", "hit rate"]
    count = len(report.summary.sessions)
    note = f"{plural(count, 'session')} in all; `sniff sessions` lists every one."
    if any(row.totals.rollups and not row.totals.requests for row in ordered):
        note += f' "{TOTALS_ONLY}": a session its agent logged only as totals, with no request.'
    return Table("top-sessions", "Top sessions", headers, rows, 4, note)


def _session_cost(row: SessionRow) -> tuple[float, str]:
    return -(row.totals.cost_usd), row.session_id


def _session_row(row: SessionRow, report: Report) -> Row:
    t = row.totals
    started = row.start.astimezone(report.zone)
    return [
        (row.session_id[:8], None),
        (row.project, None),
        (row.harness, None),
        (f"{started:%Y-%m-%d %H:%M}", None),
        (f"{t.requests:,}" if t.requests or not t.rollups else TOTALS_ONLY, t.requests),
        (money(t.cost), t.cost_usd),
        (percent(t.hit_rate), t.hit_rate or 0),
    ]


def top_groups(report: Report, by: str, rows: Sequence[Row], count: int) -> Table:
    """The `TOP_GROUPS` most expensive projects (or models), and how many more there are."""
    headers = [by, "requests", "cost", "hit rate", "saved", "tokens"]
    more = count - TOP_GROUPS
    note = f"{plural(more, 'more ' + by)} in `sniff scan --json`." if more > 0 else ""
    return Table(f"cost-by-{by}", f"Top {by}s", headers, list(rows[:TOP_GROUPS]), note=note)


def plans(report: Report) -> Table | None:
    """The latest months' API-equivalent cost of the subscription's requests, as a multiple
    of each plan's price (`sniff blocks --plan`'s figures); None without such requests."""
    if not report.plans or not report.plans[0]:
        return None
    months = report.plans[0][-PLAN_MONTHS:][::-1]
    heads = [f"{values[0].plan.name} ({money(values[0].plan.usd_per_month)})"
             for values in report.plans if values]  # fmt: skip
    rows: list[Row] = []
    for index, month in enumerate(months):
        row: Row = [(month.month, None), (f"{month.totals.requests:,}", month.totals.requests),
                    (money(month.totals.cost), month.totals.cost_usd)]  # fmt: skip
        for values in report.plans:
            shown = values[-PLAN_MONTHS:][::-1][index]
            row.append((_multiple(shown), shown.multiple or 0))
        rows.append(row)
    note = (
        f"What {SUBSCRIPTION_HARNESS}'s requests would have cost at API prices, as a multiple "
        "of each plan's monthly price: above 1× the plan costs less than the API would have."
    )
    title = "Subscription or API"
    return Table("plans", title, ["month", "requests", "at API prices", *heads], rows, 1, note)


def _multiple(month: MonthValue) -> str:
    return "–" if month.multiple is None else f"{month.multiple:.2f}×"


def wasted(report: Report) -> Table:
    """What each cause of faults cost and how to stop it; expected breaks in the note."""
    found = report.breaks
    rows: list[Row] = [
        [
            (row.key.replace("_", " "), None),
            (f"{row.faults:,}", row.faults),
            (compact(row.fault_rebuilt_tokens), row.fault_rebuilt_tokens),
            (money(row.fault_cost_usd), row.fault_cost_usd),
            (fix(row.key), None),
        ]
        for row in sorted(found.by_cause, key=lambda cause: -cause.fault_cost_usd)
        if row.faults
    ]
    totals = found.totals
    note = (
        f"Besides these, {plural(totals.expected, 'expected break')} (new conversations, "
        f"compactions, thinking dropped at a new turn) cost {money(totals.expected_cost_usd)}: "
        "how caching works, not waste."
    )
    hour = found.ttl_advice.of("anthropic")
    if hour is not None and hour.pays:
        note += (
            f" The 1-hour cache lifetime would have saved {money(hour.net_saving_usd)} net "
            "(`sniff cache --breaks`)."
        )
    if found.agreement:
        agreed = sum(row.requests for row in found.agreement if row.agrees)
        diagnosed = sum(row.requests for row in found.agreement)
        note += (
            f" The provider diagnosed the cache of {plural(diagnosed, 'request')} itself; its "
            f"reason is the cause where it gave one, and sniff's inference agreed on {agreed:,} "
            "(table below)."
        )
    headers = ["cause", "faults", "rebuilt tokens", "cost", "how to stop it"]
    title = "What wasted money, and how to stop it"
    return Table("breaks", title, headers, rows, 1, note, prose_columns=(4,))


def provider_word(report: Report) -> Table | None:
    """What the provider said of requests' caches beside sniff's inference; None where no
    log kept a provider's diagnosis."""
    found = report.breaks.agreement
    if not found:
        return None
    rows: list[Row] = [
        [(row.sniff.replace("_", " "), None), (row.provider.replace("_", " "), None),
         ("yes" if row.agrees else "no", None), (f"{row.requests:,}", row.requests),
         (compact(row.missed_tokens), row.missed_tokens)]
        for row in found
    ]  # fmt: skip
    note = (
        "Where a log keeps the provider's own diagnosis of a request's cache (Anthropic's "
        "cache-miss reason, OpenAI's prompt-cache diagnostics), beside the cause sniff infers "
        "from usage: 'no break' where sniff found none."
    )
    headers = ["sniff", "provider says", "agree", "requests", "missed tokens"]
    return Table("provider-word", "The provider's word", headers, rows, 3, note)
