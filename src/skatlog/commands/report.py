"""``skatlog report``: write the HTML report (Plotly charts, offline) for an archive."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from skatlog.commands._scoring_option import SCORING_HELP, parse_scoring_option
from skatlog.commands.archive import _fail, one_line
from skatlog.reports.output import DEFAULT_OUT, OutputError

# The report's own modules (DuckDB, polars, Plotly, the simulator behind the strategy pages)
# are imported when the command runs: every other command starts faster without them.


def register(app: typer.Typer) -> None:
    app.command("report")(report)


def _bar(console: Console) -> Progress:
    return Progress(TextColumn("[bold]report"), BarColumn(), MofNCompleteColumn(),
                    TextColumn("{task.description}"), TimeElapsedColumn(), console=console,
                    transient=True)


def report(
    archive: Annotated[Path | None, typer.Option(
        "--archive", help="Archive directory (default $SKATLOG_ARCHIVE or data/archive).")
    ] = None,
    out: Annotated[Path, typer.Option(
        "--out", help="Folder for the report; replaced whole when the report is complete "
        "(a folder of other files is refused).")] = DEFAULT_OUT,
    where: Annotated[str | None, typer.Option(
        "--where", help="SQL condition on the games table, e.g. \"origin = 'log'\".")] = None,
    inline_js: Annotated[bool, typer.Option(
        "--inline-js/--shared-js", help="Inline Plotly's JavaScript in every page (each page "
        "then stands alone, about 4.8 MB each), or write one shared plotly.min.js at the "
        "report's root (default).")] = False,
    progress: Annotated[bool, typer.Option(
        "--progress/--no-progress", help="Show a progress bar (on stderr).")] = True,
    scoring: Annotated[str, typer.Option("--scoring", help=SCORING_HELP)] = "list",
) -> None:
    """Write the HTML report and print where the index is: per origin, bot line-up and rule
    set, pages on contracts, bidding, bid levels, seats, matadors, players, tricks and, for
    simulated games, the strategy advice."""
    import duckdb

    from skatlog.analytics.connect import AnalyticsError
    from skatlog.ingest.archive import archive_path
    from skatlog.reports.build import build_report
    from skatlog.reports.html import plural

    chosen = parse_scoring_option(scoring)
    console = Console(stderr=True)
    bar = _bar(console) if progress else None
    task = bar.add_task("", total=None) if bar is not None else None

    def advance(done: int, total: int, what: str) -> None:
        if bar is not None and task is not None:
            bar.update(task, completed=done, total=total, description=escape(what))

    try:
        if bar is not None:
            bar.start()
        result = build_report(archive_path(archive), out, where, inline_js=inline_js,
                              progress=advance, scoring=chosen)
    except AnalyticsError as err:
        raise _fail(str(err)) from None
    except duckdb.Error as err:  # a partition missing or damaged since it was committed
        raise _fail(f"the archive could not be read: {one_line(err)}") from None
    except OutputError as err:
        raise _fail(f"cannot write the report: {err}") from None
    except OSError as err:
        if _reading(err, archive_path(archive)):  # pyarrow or polars reading a partition
            raise _fail(f"the archive could not be read: {one_line(err)}") from None
        raise _fail(f"{out}: cannot write the report: {err.strerror or err}") from None
    except KeyboardInterrupt:
        raise _fail(f"interrupted: {out} is as it was before", 130) from None
    finally:
        if bar is not None:
            bar.stop()
    Console(soft_wrap=True).print(
        f"Report of {plural(result.overview['hands'], 'hand')} "
        f"({plural(len(result.parts), 'line-up')}, {plural(len(result.pages), 'page')}, "
        f"{result.bytes / 1e6:,.1f} MB) built in {result.seconds:.1f} s", highlight=False)
    Console(soft_wrap=True).print(f"Open {result.index.resolve()}", highlight=False)


def _reading(err: OSError, root: Path) -> bool:
    """Whether ``err`` came from reading the archive (a partition missing or damaged since
    it was committed), not from writing the report: pyarrow's I/O errors are raised only by
    reads here (the report is written with plain file calls), and an error naming a file
    inside the archive is a read."""
    import pyarrow as pa

    if isinstance(err, pa.ArrowException):
        return True
    names = [err.filename] if isinstance(err.filename, str) else []
    # pyarrow raises a plain FileNotFoundError for a vanished partition, with no filename
    # but the path quoted in its text ("Failed to open local file '<path>'")
    names += re.findall(r"'([^']+)'", str(err))
    try:
        base = root.resolve()
        return any(Path(name).resolve().is_relative_to(base) for name in names if name)
    except (OSError, ValueError):
        return False
