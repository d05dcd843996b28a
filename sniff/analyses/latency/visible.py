"""Provides time to first visible token beside time to first token, per model: the medians and
the peaks of both distributions, and how far apart they are; and, where the log holds the
generated text (claude-trace), the share of output tokens that were thinking.

Why beside TTFT: for a thinking model the first token streamed is thinking, which the user does
not see. Claude Code writes a response's thinking, text and tool-use blocks as separate lines,
each when its block is complete, so TTFT ends at the first line and the first visible token at
the first text line (else the first tool call). Both are upper bounds. Their difference is not
thinking time: it also holds the text block's own streaming (its line is written when the text
is complete), and any block that came before it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sniff.analyses.latency.timing import Timing, median
from sniff.model import Request

if TYPE_CHECKING:  # scipy loads with the peaks only when an analysis runs
    from sniff.analyses.latency.peaks import PeakReport

ALL_MODELS = "all models"
DIFFERENCE = (
    "the time from the first token to the first visible one is not thinking time: it also holds "
    "the text block's own streaming (a transcript line is written when its block is complete)"
)
"""The footnote every presentation of the two measures side by side carries."""


@dataclass(frozen=True, slots=True)
class Beside:
    """One model's time to first visible token beside its time to first token."""

    model: str
    requests: int
    """Requests timed by both measures."""
    ttft_median: float
    visible_median: float
    difference_median: float | None
    """Over the `later` requests, the median of (first visible token − first token), in
    seconds (None when none was later): not thinking time (`DIFFERENCE`)."""
    later: int
    """Requests whose first visible token came after their first token: something the user
    does not see (thinking, mostly) was written first."""
    ttft_peaks: PeakReport
    visible_peaks: PeakReport


def beside_ttft(measured: Sequence[Timing]) -> list[Beside]:
    """All models together, then each model by requests, most first."""
    pairs: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for item in measured:
        if item.ttft is not None and item.visible is not None:
            pairs[item.request.model].append((item.ttft, item.visible))
    if not pairs:
        return []
    everything = [pair for rows in pairs.values() for pair in rows]
    groups = [(ALL_MODELS, everything)] if len(pairs) > 1 else []
    groups += sorted(pairs.items(), key=lambda group: (-len(group[1]), group[0]))
    return [_beside(model, rows) for model, rows in groups]


def _beside(model: str, rows: list[tuple[float, float]]) -> Beside:
    from sniff.analyses.latency.peaks import find_peaks

    ttfts = [ttft for ttft, _ in rows]
    visibles = [visible for _, visible in rows]
    gaps = [visible - ttft for ttft, visible in rows if visible > ttft]
    return Beside(
        model=model,
        requests=len(rows),
        ttft_median=median(ttfts),
        visible_median=median(visibles),
        difference_median=median(gaps) if gaps else None,
        later=len(gaps),
        ttft_peaks=find_peaks(ttfts),
        visible_peaks=find_peaks(visibles),
    )


@dataclass(frozen=True, slots=True)
class ThinkingShare:
    """How much of a model's output was thinking, where the log holds the generated text."""

    model: str
    responses: int
    """Responses with thinking whose text gave an estimate (`Request.thinking_share`)."""
    output_tokens: int
    share: float
    """Of their output tokens, the share that was thinking: each response's estimate weighted
    by its reported output tokens."""


def thinking_shares(requests: Sequence[Request]) -> list[ThinkingShare]:
    """All models together (where there are several), then each model by responses."""
    found: dict[str, list[tuple[float, int]]] = defaultdict(list)
    for request in requests:
        if request.thinking_share is not None and not request.rollup:
            found[request.model].append((request.thinking_share, request.usage.output_tokens))
    everything = [pair for rows in found.values() for pair in rows]
    groups = [(ALL_MODELS, everything)] if len(found) > 1 else []
    groups += sorted(found.items(), key=lambda group: (-len(group[1]), group[0]))
    return [_share(model, rows) for model, rows in groups]


def _share(model: str, rows: list[tuple[float, int]]) -> ThinkingShare:
    output = sum(tokens for _, tokens in rows)
    if output:
        share = sum(part * tokens for part, tokens in rows) / output
    else:  # no output reported: each response counts alike
        share = sum(part for part, _ in rows) / len(rows)
    return ThinkingShare(model, len(rows), output, share)
