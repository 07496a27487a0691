"""``skatlog simulate``: play millions of full-rules hands with bots into the archive or a log."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from skatlog.commands.archive import refuse_to_replace


def register(app: typer.Typer) -> None:
    app.command("simulate")(simulate)


class HandsPerSecond(ProgressColumn):
    """Hands simulated per second so far."""

    def render(self, task: Task) -> Text:
        elapsed = task.finished_time if task.finished else task.elapsed
        rate = task.completed / elapsed if elapsed else 0.0
        return Text(f"{rate:,.0f} hands/s", style="progress.data.speed")


def _progress(console: Console) -> Progress:
    return Progress(
        TextColumn("[bold]simulate"), BarColumn(), TextColumn("{task.completed:,}/{task.total:,}"),
        HandsPerSecond(), TimeElapsedColumn(), TimeRemainingColumn(), console=console,
    )


def simulate(
    hands: Annotated[int, typer.Option("--hands", help="Number of hands to play.")],
    seed: Annotated[int, typer.Option(
        "--seed", help="Seed: the same seed and options give identical output.")] = 1,
    bots: Annotated[str, typer.Option(
        "--bots", help="Bots at table positions 1-3 (random, rules), comma-separated; one "
                       "name seats it three times.")] = "rules,rules,rules",
    sessions: Annotated[bool, typer.Option(
        "--sessions", help="Group hands into 12-hand sessions (R2).")] = False,
    workers: Annotated[int | None, typer.Option(
        "--workers", help="Threads (default: all cores).")] = None,
    archive: Annotated[Path | None, typer.Option(
        "--archive", help="Archive directory (default data/archive or $SKATLOG_ARCHIVE)."
    )] = None,
    out: Annotated[Path | None, typer.Option(
        "--out", help="Write a log file instead: FILE.sgf (ISS) or FILE.jsonl.")] = None,
    scheduler: Annotated[str | None, typer.Option(
        "--scheduler", help="Dask scheduler address: shard the run over its workers.")] = None,
    staging: Annotated[str | None, typer.Option(
        "--staging", help="With --scheduler: shared path or URL the workers write to "
                          "(default: inside the archive).")] = None,
    progress: Annotated[bool, typer.Option(
        "--progress/--no-progress", help="Show a progress bar.")] = True,
    force: Annotated[bool, typer.Option(
        "--force", help="Replace --out when it exists (by default an existing file is kept "
        "and the run refused).")] = False,
) -> None:
    """Simulate hands with bots under the full rules, into the archive or a log file."""
    from skatlog.ingest.archive import ArchiveError, UnusableArchive
    from skatlog.simulation import (
        SimulationError,
        SimulationOptions,
        file_format,
        parse_bots,
        set_workers,
        simulate_to_archive,
        simulate_to_file,
    )

    console = Console(stderr=True)
    if archive is not None and out is not None:
        raise typer.BadParameter("give either --archive or --out, not both", param_hint="--out")
    if out is not None and scheduler is not None:
        raise typer.BadParameter("--scheduler writes into an archive, not to --out",
                                 param_hint="--scheduler")
    if staging is not None and scheduler is None:
        raise typer.BadParameter("--staging is where --scheduler's workers write; give "
                                 "--scheduler too", param_hint="--staging")
    try:
        options = SimulationOptions(hands=hands, seed=seed, bots=parse_bots(bots),
                                    sessions=sessions)
        threads = set_workers(workers)
        if out is not None:
            file_format(out)
    except SimulationError as err:
        raise typer.BadParameter(str(err)) from None
    if out is not None:
        refuse_to_replace(out, force)
    bar = _progress(console) if progress else None
    task = bar.add_task("simulate", total=hands) if bar is not None else None

    def advance(count: int) -> None:
        if bar is not None and task is not None:
            bar.update(task, advance=count)

    try:
        if bar is not None:
            bar.start()
        if scheduler is not None:
            from skatlog.simulation.cluster import ClusterError, simulate_on_cluster

            try:
                summary = simulate_on_cluster(scheduler, archive, options, staging=staging,
                                              on_progress=advance)
            except ClusterError as err:
                console.print(f"[red]error:[/red] {escape(str(err))}")
                raise typer.Exit(1) from None
        elif out is not None:
            summary = simulate_to_file(out, options, on_progress=advance)
        else:
            summary = simulate_to_archive(archive, options, on_progress=advance)
    except SimulationError as err:
        console.print(f"[red]error:[/red] {escape(str(err))}")
        raise typer.Exit(2) from None
    except ArchiveError as err:  # an unusable path like a usage error (2); busy, ... (1)
        console.print(f"[red]error:[/red] {escape(str(err))}")
        raise typer.Exit(2 if isinstance(err, UnusableArchive) else 1) from None
    finally:
        if bar is not None:
            bar.stop()
    won = summary.declarer_won / summary.played if summary.played else 0.0
    where = f"archive {summary.target}" if out is None else f"file {summary.target}"
    typer.echo(f"{where}: {summary.stored:,} hands stored"
               + (f", {summary.duplicates:,} already there" if summary.duplicates else ""))
    typer.echo(f"bots {','.join(options.bots)}  seed {seed}  threads {threads}"
               + ("  sessions of 12" if sessions else ""))
    typer.echo(f"played {summary.played:,} games, declarer won {won:.1%}")
    skipped = summary.skipped_hands
    typer.echo(f"time {summary.seconds:.2f} s ({summary.hands_per_second:,.0f} hands/s"
               + (f"; {skipped:,} stored hands were not simulated again" if skipped else "")
               + ")")
