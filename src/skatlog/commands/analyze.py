"""``skatlog analyze``: best play with every card known for every played game, into the
archive's ``analysis`` table (:mod:`skatlog.analytics.analysis`). Games already analysed
are skipped; a crash or kill leaves the archive as of its last commit (every 10 s); a
Ctrl-C commits what is finished (exit 130). User mistakes are one line, exit 2."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn

from .archive import ARCHIVE_HELP, _existing_archive, _fail


def register(app: typer.Typer) -> None:
    app.command("analyze")(analyze)


def analyze(
    archive: Annotated[Path | None, typer.Option("--archive", help=ARCHIVE_HELP)] = None,
    where: Annotated[str | None, typer.Option(
        "--where", help="SQL condition on the games view choosing the games.")] = None,
    workers: Annotated[int | None, typer.Option(
        "--workers", min=1, help="Local processes solving games (default: all cores).")
    ] = None,
    scheduler: Annotated[str | None, typer.Option(
        "--scheduler", help="A Dask scheduler (tcp://host:8786) whose workers solve.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Solve every chosen played game with every card known: its best-play result after
    the discard, and the first card that changed it (table ``analysis``)."""
    import duckdb

    from skatlog.analytics.analysis import analyse_archive
    from skatlog.analytics.connect import AnalyticsError
    from skatlog.ingest.archive import MANIFEST, ArchiveError

    root = _existing_archive(archive)
    if not (root / MANIFEST).is_file():
        raise _fail(f"no archive at {root}: it has no {MANIFEST} (pass --archive DIR)")
    procs = workers or len(os.sched_getaffinity(0))
    console = Console(stderr=True)
    try:
        chosen = analyse_archive(root, where=where, select_only=True)
        with Progress(TextColumn("[bold]analyze"), BarColumn(), TaskProgressColumn(),
                      TextColumn("{task.completed:,}/{task.total:,} games"),
                      TimeElapsedColumn(), console=console, disable=quiet) as progress:
            task = progress.add_task("analyze", total=chosen.selected)
            summary = analyse_archive(root, where=where, workers=procs, scheduler=scheduler,
                                      on_progress=lambda n: progress.advance(task, n))
    except AnalyticsError as err:
        raise _fail(str(err)) from None
    except KeyboardInterrupt:
        console.print("interrupted: the games analysed so far are stored; run again to "
                      "analyse the rest", highlight=False, markup=False)
        raise typer.Exit(130) from None
    except (ArchiveError, OSError, duckdb.Error) as err:
        raise _fail(f"cannot analyse the archive {root}: {err}") from None
    Console(soft_wrap=True).print(summary.line(), highlight=False, markup=False)
