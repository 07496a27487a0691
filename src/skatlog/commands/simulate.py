"""``skatlog simulate``: play millions of full-rules hands with bots into the archive or a log."""

from __future__ import annotations

import contextlib
import shutil
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

from skatlog.commands._rules_option import parse_rules
from skatlog.commands.archive import (
    WAIT_HELP,
    announce_wait,
    interrupted_line,
    refuse_to_replace,
    write_failed,
)
from skatlog.engine.rules import ISKO

#: Disk a simulated hand takes in the archive (Parquet), in bytes: 47 measured on a
#: 20,000-hand run and 46 on 200,000 (seed 1, rules bots), 53 on the README's
#: 100,000,000-hand archive; the largest is used (tests/test_cli_simulate_space.py
#: measures it again).
ARCHIVE_BYTES_PER_HAND = 53
#: Disk a hand takes in a ``--out`` log file, by its format (measured on 2,000 hands of
#: the rules bots: ISS 438, skatlog JSON Lines 1,006), with a margin of about 5 %.
FILE_BYTES_PER_HAND = {"sgf": 460, "jsonl": 1060}
#: Kept free beyond the estimate: manifests, footers, the next writer's temporary files.
SPACE_RESERVE = 64 << 20


def _free_bytes(path: Path) -> int:
    """Free space on the file system that holds ``path`` (or would: its nearest existing
    parent)."""
    probe = path.absolute()
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    return shutil.disk_usage(probe).free


def _size(n: float) -> str:
    for unit in ("bytes", "KB", "MB", "GB", "TB", "PB"):
        if n < 1000 or unit == "PB":
            return f"{n:,.0f} {unit}" if unit == "bytes" else f"{n:,.1f} {unit}"
        n /= 1000
    return f"{n:,.1f} PB"


def space_problem(hands: int, out: Path | None, archive: Path | None,
                  out_format: str | None) -> str:
    """'' when ``hands`` simulated hands fit on the disk they go to, else the one-line
    refusal with the figures (an estimate: hands an archive already holds are not stored
    again, so a rerun needs less)."""
    from skatlog.ingest.archive import archive_path

    if out is not None:
        per_hand = FILE_BYTES_PER_HAND.get(out_format or "", max(FILE_BYTES_PER_HAND.values()))
        where, target = f"the disk of {out}", out
    else:
        per_hand = ARCHIVE_BYTES_PER_HAND
        target = archive_path(archive)
        where = f"the archive {target}"
    need = hands * per_hand
    try:
        free = _free_bytes(target)
    except OSError:
        return ""  # the run itself reports a path it cannot use
    if need + SPACE_RESERVE <= free:
        return ""
    return (f"--hands {hands:,} needs about {_size(need)} ({per_hand} bytes a hand), but "
            f"{where} has {_size(free)} free; simulate fewer hands (at most about "
            f"{max(0, free - SPACE_RESERVE) // per_hand:,}) or free some space")


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
        "--bots", help="Bots at table positions 1-3 (random, rules, rules:SETTING+..., "
                       "pimc[:k=N]), comma-separated; one "
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
    wait: Annotated[float | None, typer.Option(
        "--wait", metavar="SECONDS", min=0, help=WAIT_HELP)] = None,
    rules_text: Annotated[str | None, typer.Option(
        "--rules", metavar="NAME[+OPTION]",
        help="Rule set the bots play (docs/rules.md, 'Rule sets'): isko, skatlog's own "
             "games (the default), with the house options kontra_re, ramsch, bock if "
             "wanted (isko+kontra_re+ramsch+bock, bock with --sessions), or foster, R. F. "
             "Foster's 1890s game at a table of three; other than isko into an archive."
        )] = None,
) -> None:
    """Simulate hands with bots under the full rules, into the archive or a log file."""
    from skatlog.ingest.archive import ArchiveError, UnusableArchive, archive_path, lock_wait
    from skatlog.simulation import (
        SimulationError,
        SimulationOptions,
        file_format,
        parse_bots,
        set_workers,
        simulate_to_archive,
        simulate_to_file,
    )

    rules = parse_rules(rules_text) or ISKO
    if rules != ISKO and out is not None:
        raise typer.BadParameter(
            f"--out writes {ISKO} hands only; simulate {rules} into an archive (--archive), "
            "and skatlog export writes them as skatlog/1 records", param_hint="--out")
    console = Console(stderr=True, soft_wrap=True)  # an error is one line, however long
    stack = contextlib.ExitStack()
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
                                    sessions=sessions, rules=rules)
        threads = set_workers(workers)
        if out is not None:
            file_format(out)
    except SimulationError as err:
        raise typer.BadParameter(str(err)) from None
    if out is not None:
        refuse_to_replace(out, force)
    problem = space_problem(hands, out, archive, file_format(out) if out is not None else None)
    if problem:
        console.print(f"[red]error:[/red] {escape(problem)}")
        raise typer.Exit(2)
    bar = _progress(console) if progress else None
    task = bar.add_task("simulate", total=hands) if bar is not None else None

    def advance(count: int) -> None:
        if bar is not None and task is not None:
            bar.update(task, advance=count)

    try:
        stack.enter_context(lock_wait(wait, announce_wait))
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
    except KeyboardInterrupt as err:  # Ctrl-C: one line, what is stored, exit 130
        if bar is not None:
            bar.stop()
        console.print(interrupted_line(err, out is not None or scheduler is not None),
                      highlight=False, markup=False)
        raise typer.Exit(130) from None
    except ArchiveError as err:  # an unusable path like a usage error (2); busy, ... (1)
        console.print(f"[red]error:[/red] {escape(str(err))}")
        raise typer.Exit(2 if isinstance(err, UnusableArchive) else 1) from None
    except OSError as err:  # a full or read-only disk: the run is abandoned, nothing kept
        console.print(f"[red]error:[/red] {escape(write_failed(err, archive_path(archive)))}")
        raise typer.Exit(2) from None
    finally:
        stack.close()
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
