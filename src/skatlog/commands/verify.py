"""``skatlog verify``: replay every archived game through the rules engine and compare."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from .archive import ARCHIVE_HELP, _existing_archive, _fail

SHOWN_PROBLEMS = 50
BATCH = 20_000  # games per batch handed to a worker process


def register(app: typer.Typer) -> None:
    app.command("verify")(verify)


def verify(
    archive: Annotated[Path | None, typer.Option("--archive", help=ARCHIVE_HELP)] = None,
    workers: Annotated[int | None, typer.Option(
        "--workers", min=1, help="Processes replaying games (default: all cores).")] = None,
    as_json: Annotated[bool, typer.Option(
        "--json", help="Print one JSON object: checked, problems, games_with_problems, ok, "
                       "seconds, examples.")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Replay every stored game (logged or simulated) through the engine's validated path
    and compare its stored rows (games result columns, tricks, auction) with the engine's.
    Exit 0 when all agree, 1 when anything differs, 2 on usage errors or an unreadable
    archive."""
    import duckdb
    import pyarrow as pa

    from skatlog.ingest.archive import MANIFEST, ArchiveError
    from skatlog.ingest.verify import stored_games, verify_archive

    root = _existing_archive(archive)
    if not (root / MANIFEST).is_file():
        raise _fail(f"no archive at {root}: it has no {MANIFEST} (pass --archive DIR)")
    console = Console(stderr=True)
    start = time.perf_counter()
    try:
        total = stored_games(root)
        procs = max(1, min(workers or len(os.sched_getaffinity(0)), -(-total // BATCH)))
        with Progress(TextColumn("[bold]verify"), BarColumn(), TaskProgressColumn(),
                      TextColumn("{task.completed:,}/{task.total:,} games"),
                      TimeElapsedColumn(), TimeRemainingColumn(), console=console,
                      disable=quiet or as_json) as progress:
            task = progress.add_task("verify", total=total)
            report = verify_archive(root, workers=procs, batch_size=BATCH,
                                    max_problems=SHOWN_PROBLEMS,
                                    on_progress=lambda n: progress.advance(task, n))
    except (ArchiveError, OSError, pa.ArrowException, duckdb.Error) as err:
        raise _fail(f"cannot read the archive {root}: {err}") from None
    seconds = time.perf_counter() - start
    if as_json:
        typer.echo(json.dumps({"archive": str(root), "checked": report.checked,
                               "problems": report.problem_count,
                               "games_with_problems": report.bad_games, "ok": report.ok,
                               "seconds": round(seconds, 3), "examples": report.problems}))
    else:
        out = Console(soft_wrap=True, highlight=False)
        for line in report.problems:
            out.print(f"{root}: game {line}", markup=False)
        if report.problem_count > len(report.problems):
            out.print(f"... and {report.problem_count - len(report.problems):,} more",
                      markup=False)
        rate = report.checked / seconds if seconds > 0 else 0.0
        out.print(f"verified {report.checked:,} games in {seconds:.1f} s ({rate:,.0f}/s, "
                  f"{procs} processes): {report.problem_count:,} problems in "
                  f"{report.bad_games:,} games", markup=False)
    if not report.ok:
        raise typer.Exit(1)
