"""``skatlog report``: write the HTML report (Plotly charts, offline) for an archive."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from skatlog.analytics.connect import AnalyticsError
from skatlog.commands.archive import _fail, one_line
from skatlog.ingest.archive import archive_path
from skatlog.reports.build import DEFAULT_OUT, build_report


def register(app: typer.Typer) -> None:
    app.command("report")(report)


def report(
    archive: Annotated[Path | None, typer.Option(
        "--archive", help="Archive directory (default $SKATLOG_ARCHIVE or data/archive).")
    ] = None,
    out: Annotated[Path, typer.Option(
        "--out", help="Directory for the report pages.")] = DEFAULT_OUT,
    where: Annotated[str | None, typer.Option(
        "--where", help="SQL condition on the games table, e.g. \"origin = 'log'\".")] = None,
    inline_js: Annotated[bool, typer.Option(
        "--inline-js/--shared-js", help="Inline Plotly's JavaScript in every page, so each "
        "page stands alone offline (default), or write one shared plotly.min.js beside them.")
    ] = True,
) -> None:
    """Write the HTML report (index, contracts, bidding, seats, matadors, players, tricks and,
    for simulated games, the strategy advice) and print where the index is."""
    import duckdb

    try:
        result = build_report(archive_path(archive), out, where, inline_js=inline_js)
    except AnalyticsError as err:
        raise _fail(str(err)) from None
    except duckdb.Error as err:  # a partition missing or damaged since it was committed
        raise _fail(f"the archive could not be read: {one_line(err)}") from None
    except OSError as err:
        raise _fail(f"{out}: cannot write the report: {err.strerror or err}") from None
    console = Console(soft_wrap=True)
    console.print(f"Report of {result.overview['hands']} hands ({len(result.pages)} pages) "
                  f"built in {result.seconds:.1f} s")
    console.print(f"Open {result.index.resolve()}")
