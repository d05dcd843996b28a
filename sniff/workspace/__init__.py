"""Provides `Workspace`: the one path from log folders and options to data, answers and frames.

A Workspace is the logs under some paths, read with the options every command shares (a time
window, project, model and agent filters, a time zone, a log format, price overrides, the
on-disk index, a Dask cluster). The command line builds one per run; a notebook keeps one:

    import sniff
    ws = sniff.Workspace("~/.claude/projects", since="2026-01-01", tz="Europe/Paris")
    ws.summary()["totals"]["cost_usd"]        # the object `sniff scan --json` prints
    ws.requests().groupby("model", observed=True)["cost_usd"].sum()

Options are checked when it is made; logs are read when an answer first needs them, and what
was read and worked out is kept, so asking again costs nothing. A new Workspace sees the logs
as they are then (through the index, only the files that changed are parsed again).

The frames (`requests`, `sessions`, `breaks`, `tools`) are the Arrow tables of `export.tables`
turned into pandas, so their columns are those of `sniff export` by construction: label columns
(`frames.CATEGORIES`) are categories, and times are tz-aware, in the Workspace's zone. pandas and
pyarrow are imported only when a frame is asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from datetime import tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sniff.errors import UserError
from sniff.workspace.choices import PathArgument, check_choices, given_paths, resolve_zone
from sniff.workspace.frames import Frames

if TYPE_CHECKING:
    from sniff.analyses.agents.activity import AgentReport
    from sniff.analyses.cache.breaks import BreakReport
    from sniff.analyses.cache.context_growth import ContextReport
    from sniff.analyses.cache.simulation import CacheReport
    from sniff.analyses.cost.branches import Attributed
    from sniff.analyses.cost.commits import CommitReport
    from sniff.analyses.cost.plans import Plan
    from sniff.analyses.drift.report import DriftReport
    from sniff.analyses.report import Report
    from sniff.ingest.files.discover import SourceFile
    from sniff.ingest.record import Prompts
    from sniff.model import Activity, Dataset, Request
    from sniff.pricing import PriceBook
    from sniff.workspace.batches import Progress
    from sniff.workspace.scan import ScanNumbers


class Workspace(Frames):
    """The logs under some paths, read with one set of options (see the module docstring)."""

    def __init__(
        self,
        paths: PathArgument | Sequence[PathArgument] | None = None,
        *,
        since: str | None = None,
        until: str | None = None,
        project: str | None = None,
        model: str | None = None,
        agent: str | None = None,
        harness: str | None = None,
        tz: str | None = None,
        log_format: str | None = None,
        pricing: PathArgument | None = None,
        use_index: bool = True,
        dask: str | None = None,
    ) -> None:
        """The options are those of the command line, by the same names.

        Args:
            paths: log files or folders (`~` is expanded); None: every agent's usual log
                folders (`ingest.files.locations`), or the bundled sample logs when those hold none.
            since: only requests from this date (in `tz`) or ISO time on.
            until: only requests up to this date (inclusive) or before this ISO time.
            project: only projects whose path contains this text (any case).
            model: only models whose name contains this text (any case).
            agent: only requests of this agent: main, subagent, compaction or other.
            harness: only requests of this agent's logs: claude-code, codex, gemini-cli, ...
            tz: the zone of days and times, e.g. "Europe/Paris" (default: the machine's).
            log_format: read every file as this format (default: detect each file's).
            pricing: a TOML or JSON file of prices per model, overriding the bundled ones.
            use_index: keep what each file yielded in the on-disk index and parse only files
                that changed (False: read every file whole, touching no index).
            dask: run on a Dask cluster: its scheduler's address, or local[:N].

        Raises:
            UserError: an option is invalid.
        """
        from sniff.analyses.filters import Filters, parse_bound
        from sniff.pricing import PriceBook, load_overrides

        self.zone: tzinfo = resolve_zone(tz)
        check_choices(agent=agent, harness=harness, log_format=log_format)
        self.filters = Filters(
            since=parse_bound(since, self.zone, end=False) if since else None,
            until=parse_bound(until, self.zone, end=True) if until else None,
            project=project,
            model=model,
            agent=agent,
            harness=harness,
        )
        if self.filters.since and self.filters.until and self.filters.since >= self.filters.until:
            raise UserError(f"--since {since} is not before --until {until}: no request can match")
        self.pricing = None if pricing is None else Path(pricing).expanduser()
        self.prices: PriceBook = PriceBook(load_overrides(self.pricing) if self.pricing else None)
        self.paths = given_paths(paths)
        self.log_format = log_format
        self.use_index = use_index
        self.dask = dask
        self._datasets: dict[Prompts, Dataset] = {}
        self._scan: ScanNumbers | None = None
        self._account: Dataset | None = None
        self._breaks: dict[Path | None, BreakReport] = {}
        self._caches: dict[tuple[object, ...], CacheReport] = {}

    def dataset(
        self, prompts: Prompts | str = "none", *, while_waiting: Callable[[], object] | None = None
    ) -> Dataset:
        """Every request read and priced (the filters not applied), with the activity and an
        account of what could not be read.

        Args:
            prompts: also read prompts into blocks where logs hold them (a `Prompts`, or its
                name): "counted" counts each block's tokens, "sized" estimates them from its
                size (what breaks are judged from), "text" keeps their text too (what lint
                reads). A dataset read with prompts serves a later call without.
            while_waiting: the caller's own slow set-up, run while files are parsed.

        Raises:
            UserError: a path does not exist, or the paths named hold no log.
        """
        from sniff.ingest.record import Prompts

        prompts = Prompts(prompts)
        held = self._datasets.get(prompts)
        if held is None and prompts is Prompts.NONE and self._datasets:
            held = next(iter(self._datasets.values()))
        if held is None:
            held = self._datasets[prompts] = self._read(prompts, while_waiting)
        return held

    def _read(self, prompts: Prompts, while_waiting: Callable[[], object] | None) -> Dataset:
        from sniff.logs import require_logs

        if self.dask:
            from sniff import dask_backend
            from sniff.dask_cluster import cluster

            if while_waiting is not None:
                while_waiting()
            with cluster(self.dask) as client:
                dataset = dask_backend.load(
                    client, self.paths, self.pricing, log_format=self.log_format,
                    with_prompts=prompts,
                )  # fmt: skip
        else:
            from sniff.logs import load

            since, until = self.filters.since, self.filters.until
            dataset = load(
                self.paths, self.prices, log_format=self.log_format, with_prompts=prompts,
                while_waiting=while_waiting, use_index=self.use_index,
                window=(since.timestamp() if since else None, until.timestamp() if until else None),
            )  # fmt: skip
        require_logs(dataset, self.paths)
        return dataset

    def batches(self) -> Iterator[Progress]:
        """The dataset `dataset("sized")` reads, in growing parts, for a browser to show some
        at once: the newest files first, a small batch then large ones, each part all the
        files read so far (in their listed order, so the last does not depend on batching).
        Each call reads the logs as they are then: through the index, only files that changed
        since it saw them are parsed (`Progress.changed`); without it, every file, in one
        batch (a later batch would parse the earlier ones again). Read here, not on a cluster.

        Raises:
            UserError: a path does not exist (on the call, before any reading).
        """
        return self._batches(self._files())

    def listing(self) -> tuple[tuple[str, tuple[int, ...]], ...]:
        """The log files under the paths and their identities (size, times, inode, tail
        checksum), as listed now: what a live reader compares to know whether to read again.

        Raises:
            UserError: a path does not exist.
        """
        return tuple((file.path, file.identity) for file in self._files())

    def _files(self) -> list[SourceFile]:
        from sniff.ingest.files.discover import expand, roots_for

        return expand(roots_for(self.paths)[0])

    def _batches(self, files: list[SourceFile]) -> Iterator[Progress]:
        from sniff.ingest import progress
        from sniff.ingest.record import Prompts
        from sniff.logs import load
        from sniff.workspace.batches import Progress, batch_ends

        newest = sorted(files, key=lambda file: -file.mtime_ns)
        ends = batch_ends(newest) if self.use_index else [len(files)]
        changed, total = 0, sum(file.size for file in files)
        for end in ends:
            chosen = {file.path for file in newest[:end]}
            with progress.watched() as reading:
                dataset = load(
                    self.paths, self.prices, log_format=self.log_format, with_prompts=Prompts.SIZED,
                    use_index=self.use_index, listed=files,
                    only=None if end == len(files) else chosen,
                )  # fmt: skip
            changed += reading().planned_files
            read = sum(file.size for file in newest[:end])
            yield Progress(dataset, end, len(files), read, total, changed)

    def scan(self) -> ScanNumbers:
        """`sniff scan`'s numbers: unit by unit from the index when there is one (only units
        whose files changed are analysed again), on the cluster with `dask`, else from every
        file.

        The files read are those the running command's kept answer was keyed by, if any:
        listed once.

        Raises:
            UserError: as `dataset`.
        """
        if self._scan is None:
            from sniff.workspace.answers import listed

            self._scan = self._scanned(listed())
        return self._scan

    def _scanned(self, files: list[SourceFile] | None) -> ScanNumbers:
        from sniff.logs import require_logs
        from sniff.workspace.parts import index_for, workspace_scope
        from sniff.workspace.scan import ScanNumbers, scan_units

        filters, zone = self.filters, self.zone
        if self.dask:
            from sniff import dask_backend
            from sniff.dask_cluster import cluster

            with cluster(self.dask) as client:
                numbers = dask_backend.scan(
                    client, self.paths, self.pricing, filters, zone, log_format=self.log_format
                )
            require_logs(numbers.dataset, self.paths)
            return numbers
        with index_for(self) as store:
            if store is not None:
                # the prompts (where logs hold them) let breaks be told apart as `breaks()` does
                numbers = scan_units(
                    self.paths, store, self.prices, filters, zone, log_format=self.log_format,
                    files=files, scope=workspace_scope("scan", self),
                )  # fmt: skip
                require_logs(numbers.dataset, self.paths)
                return numbers
        from sniff.analyses.cost.scan_parts import digest
        from sniff.analyses.cost.summary import summarize

        dataset = self.dataset("sized")  # checked as it is read
        found = self.break_report().breaks
        return ScanNumbers(summarize(filters.apply(dataset.requests), zone), digest(found), dataset)

    def summary(self) -> dict[str, Any]:
        """The object `sniff scan --json` prints: `totals`, `by_model`, `by_project`, `by_day`,
        `by_agent`, `sessions`, `warnings`, `source` and `breaks` (docs/commands/scan.md)."""
        from sniff.present.json.breaks import top_breaks_json
        from sniff.present.json.common import summary_json

        numbers = self.scan()
        report = summary_json(numbers.summary, numbers.dataset, self.prices.source())
        report["breaks"] = top_breaks_json(numbers.breaks)
        return report

    def break_report(self, policy_file: Path | None = None) -> BreakReport:
        """`sniff cache --breaks`'s report (`policy_file`: its `--policy-file`).

        Raises:
            UserError: as `dataset`, or the policy file is invalid.
        """
        if policy_file not in self._breaks and self.dask:
            from sniff import dask_backend
            from sniff.dask_cluster import cluster
            from sniff.ingest.record import Prompts
            from sniff.logs import require_logs

            with cluster(self.dask) as client:
                report, dataset = dask_backend.breaks(
                    client, self.paths, self.pricing, self.filters, self.zone,
                    log_format=self.log_format, policy_file=policy_file,
                )  # fmt: skip
            require_logs(dataset, self.paths)
            self._breaks[policy_file], self._datasets[Prompts.SIZED] = report, dataset
        if policy_file not in self._breaks:
            from sniff.analyses.cache.breaks import CacheRules, find_breaks

            requests = self.dataset("sized").requests  # as scan reads them: the same breaks
            self._breaks[policy_file] = find_breaks(
                requests, self.prices, CacheRules(policy_file), zone=self.zone,
                keep=self.filters.keep,
            )  # fmt: skip
        return self._breaks[policy_file]

    def cache_report(
        self,
        *,
        policy: str | None = None,
        ttl: str | None = None,
        min_tokens: int | None = None,
        kv_tokens: int | None = None,
        policy_file: Path | None = None,
    ) -> CacheReport:
        """`sniff cache`'s report: the requests the filters keep, observed and simulated,
        the simulation's error, what-ifs and shared prefixes. The options are the command's,
        by the same names (`engine.simulation`).

        Raises:
            UserError: as `dataset`, or an option is invalid (before any log is read).
        """
        key = (policy, ttl, min_tokens, kv_tokens, policy_file)
        if key not in self._caches:
            from sniff.analyses.cache.simulation import analyze_cache
            from sniff.engine import simulation

            chosen = simulation(
                policy_file, policy=policy, ttl=ttl, min_tokens=min_tokens, kv_tokens=kv_tokens
            )
            self._caches[key] = analyze_cache(
                self.dataset("counted").requests, self.prices, chosen.policies,
                chosen=chosen.chosen,
                what_ifs=chosen.what_ifs, keep=self.filters.keep,
            )  # fmt: skip
        return self._caches[key]

    def activity(self) -> Activity:
        """The tool calls, tool results and user requests the filters keep (`sniff agents`)."""
        from sniff.analyses.filters import keep_activity

        dataset = self.dataset()
        return keep_activity(dataset.activity, self.filters, dataset.requests)

    def attribution(self, by: str) -> list[Attributed]:
        """`sniff sessions --by`'s rows: the requests the filters keep, per git branch
        (`by="branch"`) or repository (`"repo"`), each request booked to its own."""
        from sniff.analyses.cost.branches import attribute

        return attribute(self._chosen(), by)

    def agents_report(self) -> AgentReport:
        """`sniff agents`' report: tool use, failures by class, what each user request led to."""
        from sniff.analyses.agents.activity import analyze_agents

        return analyze_agents(self._chosen(), self.activity(), self.zone)

    def context_report(
        self, base_tokens: int | None = None, min_saving_usd: float = 0.0
    ) -> ContextReport:
        """`sniff context`'s report: each session's prompt sizes, and where a fresh session
        would have been cheaper (`analyses.cache.context_growth`; `base_tokens`: its `--base`;
        `min_saving_usd`: its `--min-saving`)."""
        from sniff.analyses.cache.context_growth import context_growth

        return context_growth(self._chosen(), self.prices, base_tokens, min_saving_usd)

    def commits_report(self) -> CommitReport:
        """`sniff commits`' report: each commit made in a session, its requests and cost."""
        from sniff.analyses.cost.commits import analyze_commits

        return analyze_commits(self._chosen(), self.activity())

    def drift_report(self, by: str = "day") -> DriftReport:
        """`sniff drift`'s report: the series `by` day or week, their change points, and the
        events they make, read with the prompts' sizes (system-prompt changes) and the breaks.

        Raises:
            UserError: as `dataset`, or `by` is neither day nor week (before any log is read).
        """
        from sniff.analyses.drift.report import analyze_drift, drift_of
        from sniff.analyses.drift.series import BY
        from sniff.workspace.drift_units import drift_from_index

        if by not in BY:
            raise UserError(f"--by must be one of {', '.join(BY)}, not {by!r}")
        found = drift_from_index(self, by)
        if found is None:
            requests = self.filters.apply(self.dataset("sized").requests)
            breaks = self.break_report().breaks
            return analyze_drift(requests, self.activity(), breaks, self.zone, by=by)
        from sniff.logs import require_logs

        part, self._account = found
        require_logs(self._account, self.paths)
        return drift_of(part, self.zone)

    def account(self) -> Dataset:
        """An account of the files read (which, their formats, what could not be read): that
        of the last answer read unit by unit from the index, else the dataset's."""
        if self._account is not None:
            return self._account
        if self._scan is not None:
            return self._scan.dataset
        return self.dataset("sized")

    def report(
        self, by: str = "day", *, redact: bool = False, plans: Sequence[Plan] | None = None
    ) -> Report:
        """`sniff report`'s report, grouped `by` (`analyses.report.GROUPINGS`), its text parts
        redacted when asked, with what `sniff lint` finds in the prompts of the logs its
        requests came from (idle gaps are the breaks' part), and the subscription's value
        against `plans` (the bundled plans when None).

        Raises:
            UserError: as `dataset`, or `by` names no grouping (before any log is read).
        """
        from sniff.workspace.reporting import workspace_report

        return workspace_report(self, by, redact=redact, plans=plans)

    @staticmethod
    def recount(requests: list[Request]) -> list[Request]:
        """The same requests with their prompts' blocks counted exactly by the tokenizer (an
        archive is read with sizes estimated: `dataset("sized")`); their files are read again.
        """
        from sniff.ingest.reading import recounted

        return recounted(requests)

    def _chosen(self) -> list[Request]:
        return self.filters.apply(self.dataset().requests)
