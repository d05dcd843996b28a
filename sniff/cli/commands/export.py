"""Provides `sniff export`: the normalized tables as Parquet, for pandas, DuckDB or Spark; with
`--team`, this machine's share of a folder several machines export to."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from sniff.cli import options as o
from sniff.cli.errors import one_line_errors
from sniff.cli.progress import shown, wanted

if TYPE_CHECKING:
    from sniff.export import ExportResult
    from sniff.model import Request
    from sniff.pricing import PriceBook


@one_line_errors
@o.shared(omit=("tz",))
def export(
    output: Annotated[
        Path,
        typer.Option(
            "--output",
            "-o",
            "--to",
            help="Directory to write (or merge into), or a store's URL (s3://bucket/team: a "
            "team export).",
            metavar="DIR",
        ),
    ] = Path("sniff-export"),
    team: Annotated[
        bool,
        typer.Option(
            "--team",
            help="Write this machine's export under DIR/machines/NAME/, beside other "
            "machines' (implied when DIR holds machines/).",
        ),
    ] = False,
    machine: Annotated[
        str | None,
        typer.Option(
            help="The machine's name in a team folder (default: its kept random id).",
            metavar="NAME",
        ),
    ] = None,
    user: Annotated[
        str | None,
        typer.Option(help="The user's name in a team folder (default: the login).", metavar="NAME"),
    ] = None,
    redact: Annotated[
        bool,
        typer.Option(
            "--redact",
            help="Pseudonymise user, project, branch, repository and paths with the team salt.",
        ),
    ] = False,
    salt_file: Annotated[
        Path | None,
        typer.Option(
            help="File holding the team salt for --redact (else $SNIFF_TEAM_SALT).", metavar="PATH"
        ),
    ] = None,
    **options: Any,
) -> None:
    """Parquet tables requests, sessions, breaks and blocks, by day; merges into an export.

    Rows keep the provider's request ids, so exporting other logs into the same directory adds
    what is new and never counts a request twice. `--since last` reads only what changed since
    this machine's last export into DIR (from an hour before it).
    """
    from sniff.ingest.files.remote import url_of

    destination: Path | str = url_of(output) or output
    write = _writer(destination, team, machine, user, redact, salt_file)  # checked before reads
    if options.get("since") == "last":
        options["since"] = _since_last(destination, team, machine, user)
    workspace = o.workspace(options, tz="UTC")
    with shown(wanted(json=options["json"], no_progress=options["no_progress"])):
        dataset = workspace.dataset("counted")
        requests = list(workspace.filters.apply(dataset.requests))
        result = write(destination, requests, workspace.prices)
    o.report_issues(dataset, options["verbose"])
    _show(result, options["json"])


OVERLAP = timedelta(hours=1)
"""How far before the last export `--since last` reads: a call in flight then ends after it
(rows are merged by key, so reading one twice adds nothing)."""


def _since_last(
    output: Path | str, team: bool, machine: str | None, user: str | None
) -> str | None:
    """`--since last`: an hour before this machine's last export into `output` (its
    `machine.json` in a team folder, the manifest's time in a plain one); None, no bound, when
    it never exported there."""
    from sniff.export.team import exporter, last_export, last_export_in
    from sniff.ingest.export_folders import MACHINES, MANIFEST

    last: datetime | None = None
    if isinstance(output, str):
        from sniff.export.stored import last_export as stored_record

        record = stored_record(output, exporter(machine, user).machine)
        last = None if record is None else last_export_in(record)
    elif team or (output / MACHINES).is_dir():
        last = last_export(output, exporter(machine, user).machine)
    elif (output / MANIFEST).is_file():
        last = datetime.fromtimestamp((output / MANIFEST).stat().st_mtime, UTC)
    return None if last is None else (last - OVERLAP).isoformat()


def _show(result: ExportResult, as_json: bool) -> None:
    """What was written: the rows per table, the requests new to the folder and kept."""
    if as_json:
        written = {"output": result.destination, "rows": result.rows}
        o.print_json({**written, "added": result.added, "kept": result.kept})
        return
    from sniff.numbers import plural

    tables = ", ".join(f"{name} {rows:,}" for name, rows in result.rows.items())
    typer.echo(
        f"{result.destination}: {tables} rows ({plural(result.added, 'new request')}, "
        f"{result.kept:,} already exported)"
    )


def _writer(
    output: Path | str,
    team: bool,
    machine: str | None,
    user: str | None,
    redact: bool,
    salt_file: Path | None,
) -> Any:
    """What writes the export: to a team folder (`--team`, `output` is one, or a store's URL) as
    this machine and user, or a plain export; with `--redact`, of the requests pseudonymised.

    Raises:
        UserError: a name is not safe, `--machine` or `--user` without a team folder, or
            `--redact` without a salt.
    """
    from sniff.errors import UserError
    from sniff.export import export as plain
    from sniff.export.pseudonyms import team_salt
    from sniff.ingest.export_folders import MACHINES

    team = team or isinstance(output, str) or (output / MACHINES).is_dir()
    if not team and (machine is not None or user is not None):
        raise UserError("--machine and --user name who exports to a team folder: add --team")

    if salt_file is not None and not redact:
        raise UserError("--salt-file is the salt of --redact: add --redact")
    pseudonyms = team_salt(salt_file) if redact else None
    if team:
        from sniff.export.team import export_team, exporter

        who = exporter(machine, user)

        def to_team(output: Path | str, requests: list[Request], prices: PriceBook) -> ExportResult:
            return export_team(output, requests, prices, who, pseudonyms)

        return to_team

    def to_folder(output: Path, requests: list[Request], prices: PriceBook) -> ExportResult:
        if pseudonyms is not None:
            requests = [pseudonyms.request(request) for request in requests]
        return plain(output, requests, prices)

    return to_folder
