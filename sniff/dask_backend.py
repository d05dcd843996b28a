"""Provides sniff on a Dask cluster: ingest on the workers, per-unit analyses where the data is.

Why Dask: logs that outgrow one machine need a scheduler that moves work to data, retries
what a dying worker lost, and scales from a laptop's cores to a cluster. sniff adds no
scheduler of its own; it cuts its work into tasks that are pure functions of their inputs
(reading files, analysing a unit), so a retried task gives the same answer.

The plan of a run:

1. **Ingest**: the log files are cut into size-balanced batches, one task each; every worker
   parses its batch and keeps the records.
2. **Units**: each batch sends back only the links of its files (session ids and call keys);
   the client groups files that share one into units (`ingest.index.units`). No call, session or
   chain crosses a unit, so each unit is analysed alone, exactly.
3. **Analysis**: units are packed into tasks that run on the workers holding their records
   (Dask moves records between workers when a unit spans batches). Each task returns its
   units' parts: summary cells and cache breaks (`analyses.cost.scan_parts`, `breaks.break_part`).
   Breaks travel without prompt blocks.
4. **Join** on the client: the same result as a local run, to the token and the cent.

What cannot be split is named: the cache simulation (`sniff cache` without `--breaks`, the
what-ifs of `sniff report`) replays every request of a cache namespace (provider, model, and
the prefix tree they share) in time order, so its partitioning key is the namespace; those
commands run the ingest on the cluster and the simulation on the client, and records with
their prompt blocks travel to it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import tzinfo
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sniff.ingest.files.discover import SourceFile, expand, root_name, roots_for
from sniff.ingest.parallel import balanced_batches
from sniff.ingest.record import FileResult, Prompts

if TYPE_CHECKING:
    from distributed import Client, Future

    from sniff.analyses.cache.breaks import Break, BreakPart, BreakReport
    from sniff.analyses.cost.scan_parts import ScanPart
    from sniff.analyses.filters import Filters
    from sniff.model import Dataset
    from sniff.workspace.scan import ScanNumbers

BATCHES_PER_WORKER = 4
"""Ingest batches per worker: enough to balance uneven files, few enough to keep tasks big."""
UNIT_TASKS_PER_WORKER = 4


@dataclass(frozen=True, slots=True)
class Ingested:
    """The files of a run, parsed on the cluster: one future per batch of files."""

    files: list[SourceFile]
    batches: list[list[int]]
    """File indexes of each batch."""
    futures: list[Future[list[FileResult]]]
    """Each batch's list of `FileResult`, kept on the workers."""

    def per_file(
        self, client: Client, of_batch: Callable[[list[FileResult]], list[Any]] | None = None
    ) -> list[Any]:
        """What `of_batch` makes of each batch, worked out where it is kept, as one item per
        file in file order (each file's `FileResult` itself when None)."""
        futures = self.futures
        if of_batch is not None:
            futures = [client.submit(of_batch, future) for future in futures]
        by_file: dict[int, Any] = {}
        for batch, answer in zip(self.batches, client.gather(futures), strict=True):
            by_file.update(zip(batch, answer, strict=True))
        return [by_file[index] for index in range(len(self.files))]

    def where(self) -> dict[int, tuple[int, int]]:
        """File index → (batch, position in the batch)."""
        return {
            file: (batch, position)
            for batch, members in enumerate(self.batches)
            for position, file in enumerate(members)
        }


def ingest(
    client: Client,
    paths: list[Path] | None,
    *,
    log_format: str | None = None,
    with_prompts: Prompts = Prompts.NONE,
) -> tuple[Ingested, tuple[str, ...], bool]:
    """Parse the logs under `paths` on the workers; returns the batches, roots and sample flag."""
    roots, sample = roots_for(paths)
    files = expand(roots)
    workers = max(1, len(client.scheduler_info().get("workers", {})))
    batches = balanced_batches([file.size for file in files], workers * BATCHES_PER_WORKER)
    parse = partial(parse_batch, log_format=log_format, with_prompts=with_prompts)
    futures = [
        client.submit(parse, [files[index] for index in batch], pure=False) for batch in batches
    ]
    return Ingested(files, batches, futures), tuple(root_name(root) for root in roots), sample


def parse_batch(
    files: list[SourceFile], log_format: str | None, with_prompts: Prompts
) -> list[FileResult]:
    """What each file yields (a task: reads files, writes nothing, so retrying it is safe)."""
    from sniff.ingest.files.log_formats import parse_source

    return [parse_source(file, log_format, with_prompts) for file in files]


def load(
    client: Client,
    paths: list[Path] | None,
    pricing: Path | None,
    *,
    log_format: str | None = None,
    with_prompts: Prompts = Prompts.NONE,
) -> Dataset:
    """The whole dataset on the client, ingested on the cluster (for analyses that need all)."""
    from sniff.ingest.reading import assemble

    ingested, roots, sample = ingest(
        client, paths, log_format=log_format, with_prompts=with_prompts
    )
    ordered = ingested.per_file(client)
    return assemble(ingested.files, ordered, _prices(pricing).cost, roots=roots, sample=sample)


def scan(
    client: Client,
    paths: list[Path] | None,
    pricing: Path | None,
    filters: Filters,
    zone: tzinfo,
    *,
    log_format: str | None = None,
) -> ScanNumbers:
    """`sniff scan`'s numbers, analysed unit by unit on the cluster."""
    from sniff.analyses.cost.scan_parts import join
    from sniff.workspace.scan import ScanNumbers

    ingested, roots, sample = ingest(
        client, paths, log_format=log_format, with_prompts=Prompts.SIZED
    )
    analyse = partial(_scan_part, filters=filters, zone=zone)
    parts = _on_units(client, ingested, partial(_per_unit, pricing=pricing, analyse=analyse))
    summary, breaks = join(parts)
    return ScanNumbers(summary, breaks, _account(client, ingested, roots, sample))


def breaks(
    client: Client,
    paths: list[Path] | None,
    pricing: Path | None,
    filters: Filters,
    zone: tzinfo,
    *,
    log_format: str | None = None,
    policy_file: Path | None = None,
) -> tuple[BreakReport, Dataset]:
    """`sniff cache --breaks`'s report, analysed unit by unit on the cluster."""
    from sniff.analyses.cache.breaks import break_report

    ingested, roots, sample = ingest(
        client, paths, log_format=log_format, with_prompts=Prompts.SIZED
    )
    analyse = partial(_break_part, filters=filters)
    task = partial(_per_unit, pricing=pricing, analyse=analyse, policy_file=policy_file)
    parts = _on_units(client, ingested, task)
    return break_report(parts, _prices(pricing), zone), _account(client, ingested, roots, sample)


def _on_units(client: Client, ingested: Ingested, analyse: Callable[..., list[Any]]) -> list[Any]:
    """Group files into units by their links, then analyse units on the cluster."""
    from sniff.ingest.index.units import units

    where = ingested.where()
    groups = units(ingested.per_file(client, _links))
    workers = max(1, len(client.scheduler_info().get("workers", {})))
    sizes = [sum(ingested.files[index].size for index in group) for group in groups]
    tasks = []
    for packed in balanced_batches(sizes, workers * UNIT_TASKS_PER_WORKER):
        unit_groups = [groups[index] for index in packed]
        needed = sorted({where[file][0] for group in unit_groups for file in group})
        spec = [[(needed.index(where[f][0]), where[f][1]) for f in group] for group in unit_groups]
        tasks.append(client.submit(analyse, spec, *[ingested.futures[b] for b in needed]))
    return [part for answer in client.gather(tasks) for part in answer]


def _links(results: list[FileResult]) -> list[list[str]]:
    from sniff.ingest.index.rows import links_of

    return [links_of(result) for result in results]


def _unit_requests(
    spec: Sequence[Sequence[tuple[int, int]]], batches: Sequence[list[FileResult]], cost: Any
) -> Iterator[list[Any]]:
    from sniff.ingest.merge import merge

    for group in spec:
        responses = [r for batch, at in group for r in batches[batch][at].responses]
        yield merge(responses, cost)


def _per_unit(
    spec: list[list[tuple[int, int]]],
    *batches: list[FileResult],
    pricing: Path | None,
    analyse: Callable[[list[Any], Any, Any], Any],
    policy_file: Path | None = None,
) -> list[Any]:
    """A task: `analyse(requests, prices, rules)` for some units (idempotent: it reads only
    its inputs), each unit's requests merged and priced here, where its records are."""
    from sniff.analyses.cache.breaks import CacheRules

    prices = _prices(pricing)
    rules = CacheRules(policy_file)
    return [
        analyse(requests, prices, rules) for requests in _unit_requests(spec, batches, prices.cost)
    ]


def _scan_part(
    requests: list[Any], prices: Any, rules: Any, filters: Filters, zone: tzinfo
) -> ScanPart:
    """A unit's scan part, its breaks without prompt blocks."""
    from sniff.analyses.cost.scan_parts import ScanPart, scan_part

    part = scan_part(requests, prices, zone, filters.keep, rules)
    return ScanPart(part.cells, replace(part.breaks, top=tuple(map(_light, part.breaks.top))))


def _break_part(requests: list[Any], prices: Any, rules: Any, filters: Filters) -> BreakPart:
    """A unit's break part, without prompt blocks."""
    from sniff.analyses.cache.breaks import break_part

    part = break_part(requests, prices, rules, filters.keep)
    return replace(
        part,
        breaks=[_light(found) for found in part.breaks],
        tolerated=[replace(t, request=_strip(t.request)) for t in part.tolerated],
        ttl=replace(part.ttl, spared=[_light(found) for found in part.ttl.spared]),
    )


def _prices(pricing: Path | None) -> Any:
    from sniff.pricing import PriceBook, load_overrides

    prices = PriceBook(load_overrides(pricing) if pricing else None)
    prices.prepare()
    return prices


def _light(found: Break) -> Break:
    """A break without prompt blocks: what travels back is numbers, not prompts."""
    previous = _strip(found.previous) if found.previous is not None else None
    return replace(found, request=_strip(found.request), previous=previous)


def _strip(request: Any) -> Any:
    import msgspec

    return msgspec.structs.replace(request, blocks=()) if request.blocks else request


def _account(client: Client, ingested: Ingested, roots: tuple[str, ...], sample: bool) -> Dataset:
    """The dataset's account of files, formats and issues, from small per-batch summaries."""
    from sniff.ingest.reading import account

    ordered = ingested.per_file(client, _summarise)
    return account(ingested.files, ordered, roots=roots, sample=sample)


def _summarise(results: list[FileResult]) -> list[tuple[str | None, int, list[Any]]]:
    return [(result.log_format, result.synthetic, result.issues) for result in results]
