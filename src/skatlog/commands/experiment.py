"""``skatlog experiment``: the same deals under two or more bot configurations, paired."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from skatlog.commands.archive import WAIT_HELP, announce_wait, interrupted_line


def register(app: typer.Typer) -> None:
    app.command("experiment")(experiment)


def experiment(
    deals: Annotated[int, typer.Option("--deals", help="Deals each arm plays (at every "
                                       "table position, so 3 hands a deal and arm).")],
    seed: Annotated[int, typer.Option("--seed", help="Seed of the deals.")] = 1,
    advice: Annotated[list[str] | None, typer.Option(
        "--advice", help="A piece of advice to test (arm 0 follows it, arm 1 does not); "
                         "repeat it, or 'all'.")] = None,
    arms: Annotated[str | None, typer.Option(
        "--arms", help="Instead of --advice: two or more bots, comma-separated, e.g. "
                       "rules,rules:no-trumps_first (arm 0 first).")] = None,
    opponents: Annotated[str, typer.Option(
        "--opponents", help="The bot in the two other seats.")] = "rules",
    archive: Annotated[Path | None, typer.Option(
        "--archive", help="Archive directory (default data/archive or $SKATLOG_ARCHIVE)."
    )] = None,
    workers: Annotated[int | None, typer.Option(
        "--workers", help="Threads (default: all cores).")] = None,
    scheduler: Annotated[str | None, typer.Option(
        "--scheduler", help="Dask scheduler address: shard every run over its workers.")
    ] = None,
    wait: Annotated[float | None, typer.Option(
        "--wait", metavar="SECONDS", min=0, help=WAIT_HELP)] = None,
) -> None:
    """Play paired experiments into the archive and print each one's paired effects:
    list points a hand against the table, Seeger-Fabian points a hand, declarer and
    defence success, arm 0 minus arm 1,
    with 95 % intervals. Seeded, reproducible and resumable like simulate."""
    from skatlog.ingest.archive import ArchiveError, UnusableArchive, archive_path, lock_wait
    from skatlog.simulation import SimulationError, set_workers
    from skatlog.simulation.experiment import (
        ExperimentOptions,
        advice_by_key,
        advice_experiment,
        write_manifest,
    )

    console = Console(stderr=True, soft_wrap=True)
    if (advice is None) == (arms is None):
        raise typer.BadParameter("give either --advice or --arms", param_hint="--advice")
    try:
        if arms is not None:
            experiments = [ExperimentOptions(deals, seed, tuple(
                a.strip() for a in arms.split(",") if a.strip()), opponents)]
        else:
            experiments = [advice_experiment(a, deals, seed, opponents)
                           for a in advice_by_key(advice or [])]
        set_workers(workers)
    except SimulationError as err:
        raise typer.BadParameter(str(err)) from None
    root = archive_path(archive)
    stack = contextlib.ExitStack()
    seconds = 0.0
    try:
        stack.enter_context(lock_wait(wait, announce_wait))
        done: set[tuple[str, ...]] = set()
        for options in experiments:
            for run in options.runs():
                if run.bots in done:
                    continue  # a line-up shared with an experiment before (stored once)
                done.add(run.bots)
                if scheduler is not None:
                    from skatlog.simulation.cluster import ClusterError, simulate_on_cluster

                    try:
                        summary = simulate_on_cluster(scheduler, root, run)
                    except ClusterError as err:
                        console.print(f"[red]error:[/red] {escape(str(err))}")
                        raise typer.Exit(1) from None
                else:
                    from skatlog.simulation import simulate_to_archive

                    summary = simulate_to_archive(root, run)
                seconds += summary.seconds
            write_manifest(root, options)
            typer.echo(f"{options.experiment_id} {options.label or 'arms'}: "
                       + " vs ".join(options.arms) + f", {deals:,} deals, seed {seed}")
    except SimulationError as err:
        console.print(f"[red]error:[/red] {escape(str(err))}")
        raise typer.Exit(2) from None
    except KeyboardInterrupt as err:
        console.print(interrupted_line(err, False), highlight=False, markup=False)
        raise typer.Exit(130) from None
    except ArchiveError as err:
        console.print(f"[red]error:[/red] {escape(str(err))}")
        raise typer.Exit(2 if isinstance(err, UnusableArchive) else 1) from None
    finally:
        stack.close()
    hands = len(done) * deals
    typer.echo(f"simulated {len(done)} line-ups, {hands:,} hands in {seconds:.1f} s"
               + (f" ({hands / seconds:,.0f} hands/s)" if seconds else ""))
    _print_results(root, {o.experiment_id for o in experiments})


def _print_results(root: Path, ids: set[str]) -> None:
    """The paired effects of the experiments ``ids``, one block each."""
    from skatlog.analytics.connect import connect
    from skatlog.analytics.experiments import experiment_results

    con = connect(root)
    for result in experiment_results(con, root):
        if result.experiment_id not in ids:
            continue
        typer.echo(f"{result.experiment_id} {result.label}: {result.verdict}")
        for e in (result.list_points, result.seeger_fabian, result.declarer_success,
                  result.defence_success):
            typer.echo(f"  {e.metric:<28} {e.effect:+8.3f}  [{e.low:+.3f}, {e.high:+.3f}]"
                       f"  n {e.n:,}")
        typer.echo(f"  {result.sentence()}")
