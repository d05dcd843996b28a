"""Provides `Frames`: the Workspace's pandas frames (`requests`, `sessions`, `breaks`, `tools`).

They are the Arrow tables of `export.tables` turned into pandas, so their columns are those of
`sniff export` by construction: label columns (`CATEGORIES`) are categories, and times are
tz-aware, in the Workspace's zone. pandas and pyarrow are imported only when a frame is asked
for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from datetime import tzinfo
    from pathlib import Path

    import pandas as pd
    import pyarrow as pa

    from sniff.analyses.cache.breaks import BreakReport
    from sniff.model import Activity, Dataset, Request
    from sniff.workspace.scan import ScanNumbers

__all__ = ["CATEGORIES", "Frames"]

CATEGORIES = frozenset(
    {"source", "provider", "model", "project", "agent", "cause", "tool", "server", "outcome",
     "error_class", "machine", "user"}
)  # fmt: skip
"""The frames' label columns, made pandas categories: few values, many rows."""


class Frames:
    """The frames of a `Workspace` (a base of it: each reads the Workspace's answers)."""

    zone: tzinfo
    if TYPE_CHECKING:  # the answers the frames are made of, as `Workspace` gives them

        def scan(self) -> ScanNumbers: ...
        def break_report(self, policy_file: Path | None = None) -> BreakReport: ...
        def activity(self) -> Activity: ...
        def _chosen(self) -> list[Request]: ...
        def dataset(self) -> Dataset: ...

    def requests(self) -> pd.DataFrame:
        """One row per API call the filters keep, by end time: the export's `requests`, with
        the `machine` and `user` a team export credits each with (null for logs read here)."""
        from sniff.export.tables import requests_table
        from sniff.ingest.parquet_in import owners

        chosen = sorted(self._chosen(), key=lambda request: (request.ended_at, request.key))
        table = requests_table(chosen)
        credited = owners(self.dataset().files)
        if credited:
            table = _credited(table, chosen, credited)
        return self._frame(table)

    def sessions(self) -> pd.DataFrame:
        """One row per session, by start: the export's `sessions` (`sniff sessions`)."""
        from sniff.export.tables import sessions_table

        return self._frame(sessions_table(self.scan().summary.sessions))

    def breaks(self) -> pd.DataFrame:
        """One row per cache break, cold starts included, by time: the export's `breaks`
        (`sniff cache --breaks`)."""
        from sniff.export.tables import breaks_table

        return self._frame(breaks_table(self.break_report().breaks))

    def tools(self) -> pd.DataFrame:
        """One row per tool call, by time, with its outcome and what its results added to the
        context: the rows `sniff agents` sums per tool (docs/python-api.md)."""
        from sniff.analyses.agents.activity import tool_uses
        from sniff.export.tables import tools_table

        return self._frame(tools_table(tool_uses(self._chosen(), self.activity())))

    def _frame(self, table: pa.Table) -> pd.DataFrame:
        """`table` in pandas: labels as categories, times in the Workspace's zone."""
        import pandas as pd

        frame = table.to_pandas()
        for name in frame.columns:
            if name in CATEGORIES:
                frame[name] = frame[name].astype("category")
            elif isinstance(frame[name].dtype, pd.DatetimeTZDtype):
                frame[name] = frame[name].dt.tz_convert(self.zone)
        return frame


def _credited(
    table: pa.Table, requests: list[Request], owners: dict[str, tuple[str, str | None]]
) -> pa.Table:
    """`table` (one row per request, in order) with the machine and user `owners` credit each
    request with."""
    import pyarrow as pa

    for position, name in enumerate(("machine", "user")):
        values = [owners[r.key][position] if r.key in owners else None for r in requests]
        column = pa.array(values, pa.string())
        table = table.set_column(table.schema.get_field_index(name), name, column)
    return table
