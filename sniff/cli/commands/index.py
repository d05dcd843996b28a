"""Provides `sniff index`: where the on-disk index is, what it holds, and emptying it."""

from __future__ import annotations

from typing import Annotated

import typer

from sniff.cli.errors import one_line_errors
from sniff.errors import UserError


@one_line_errors
def index(
    clear: Annotated[
        bool,
        typer.Option(
            "--clear", help="Delete the index and the cached answers; the next run reads all."
        ),
    ] = False,
) -> None:
    """The on-disk index that spares re-reading unchanged logs: where it is, what it holds."""
    import shutil

    from sniff.ingest.index.indexed import holdings
    from sniff.ingest.index.store import INDEX_FILE
    from sniff.ingest.index.store import clear as clear_index
    from sniff.numbers import plural
    from sniff.paths import cache_folder
    from sniff.workspace.answers import answers_folder

    folder = cache_folder()
    if folder is None:
        typer.echo("The index is off (SNIFF_CACHE_DIR is set empty).")
        return
    if clear:
        try:
            existed = clear_index(folder)
            answers = answers_folder()
            if answers is not None and answers.exists():
                shutil.rmtree(answers)
        except OSError as error:
            where = error.filename or folder
            raise UserError(f"--clear failed: cannot delete {where}: {error.strerror}") from error
        typer.echo(
            f"Emptied the index at {folder / INDEX_FILE}" if existed else "No index to empty."
        )
        return
    path = folder / INDEX_FILE
    if not path.exists():
        typer.echo(f"No index yet; the next sniff run creates it at {path}.")
        return
    held = holdings()
    if held is None:
        typer.echo(f"The index at {path} cannot be opened; sniff reads every file whole.")
        return
    size = path.stat().st_size
    readings = (
        f" ({plural(held.readings, 'reading')}: a file is kept once for each way commands read it)"
        if held.readings != held.files
        else ""
    )
    typer.echo(
        f"{path}: {plural(held.files, 'file')}, {held.size / 1e6:,.1f} MB of logs indexed "
        f"in {size / 1e6:,.1f} MB{readings}. `sniff index --clear` empties it."
    )
