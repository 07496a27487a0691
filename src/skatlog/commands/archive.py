"""``skatlog ingest``, ``skatlog query`` and ``skatlog export``: the Parquet archive from the shell.

Thin wrappers: :func:`skatlog.ingest.pipeline.ingest_paths`,
:func:`skatlog.analytics.views.open_archive` and :func:`skatlog.ingest.export.export_archive`
do the work. User mistakes (a missing path, bad SQL, an unknown format) print one clear line
on stderr and exit with code 2, never a traceback.
"""

from __future__ import annotations

import csv
import datetime as dt
import decimal
import json
import math
import sys
import uuid
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ._rules_option import RULES_HELP, parse_rules

ARCHIVE_HELP = "Archive directory (default: $SKATLOG_ARCHIVE, else data/archive)."
TABLE_ROWS = 1000  # rows shown by --format table; csv/json print everything


class LogFormat(StrEnum):
    auto = "auto"
    iss = "iss"
    jsonl = "jsonl"


class OutputFormat(StrEnum):
    table = "table"
    csv = "csv"
    json = "json"


class ExportFormat(StrEnum):
    iss = "iss"
    jsonl = "jsonl"


class ResultChoice(StrEnum):
    recorded = "recorded"
    computed = "computed"
    auto = "auto"
    none = "none"


def register(app: typer.Typer) -> None:
    app.command("ingest")(ingest)
    app.command("query")(query)
    app.command("export")(export)


def _fail(message: str, code: int = 2) -> typer.Exit:
    Console(stderr=True, soft_wrap=True).print(f"[bold red]error:[/] {escape(message)}",
                                               highlight=False)
    return typer.Exit(code)


def ingest(
    paths: Annotated[list[Path], typer.Argument(
        help="Log files or directories (plain, .gz, .bz2 or .zst).")],
    archive: Annotated[Path | None, typer.Option("--archive", help=ARCHIVE_HELP)] = None,
    fmt: Annotated[LogFormat, typer.Option("--format", help="Log format of the inputs.")
                   ] = LogFormat.auto,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    fast: Annotated[bool | None, typer.Option(
        "--fast/--no-fast",
        help="Compiled ISS path (same rows); default: on for inputs of 32 MB or more.")
    ] = None,
    batch_size: Annotated[int, typer.Option("--batch-size", hidden=True, min=1)] = 20_000,
    scheduler: Annotated[str | None, typer.Option(
        "--scheduler", help="Dask scheduler address: validate the files on its workers "
        "(one task per file), then commit them into the archive at once.")] = None,
    staging: Annotated[str | None, typer.Option(
        "--staging", help="With --scheduler: shared path or fsspec URL the workers write "
        "to (default: inside the archive).")] = None,
    wait: Annotated[float | None, typer.Option(
        "--wait", metavar="SECONDS", min=0, help=WAIT_HELP)] = None,
    rules_text: Annotated[str | None, typer.Option(
        "--rules", metavar="NAME[+OPTION]", help=RULES_HELP)] = None,
) -> None:
    """Validate log files and store their games in the Parquet archive (atomic, deduplicated).

    A file named on the command line that is not a log (binary, empty, another kind of
    file, no game in it) is refused (exit 2, nothing stored); files in a folder that are not
    logs are skipped and named in the summary.
    """
    from skatlog.ingest.archive import ArchiveError, UnusableArchive, archive_path, lock_wait
    from skatlog.ingest.pipeline import ingest_paths
    from skatlog.ingest.sources import SourceError

    rules = parse_rules(rules_text)
    if staging is not None and scheduler is None:
        raise _fail("--staging is where --scheduler's workers write; give --scheduler too")
    if scheduler is not None and rules is not None:
        raise _fail("--rules is not passed to a --scheduler's workers yet: ingest without "
                    "--scheduler, or leave --rules out (each format's own rule set)")
    if scheduler is not None:
        _ingest_on_cluster(paths, archive, fmt.value, scheduler, staging)
        return
    try:
        with lock_wait(wait, announce_wait):
            summary = ingest_paths(paths, archive, fmt.value, progress=not quiet,
                                   batch_size=batch_size, fast=fast, rules=rules)
    except SourceError as err:
        raise _fail(str(err)) from None
    except KeyboardInterrupt as err:  # Ctrl-C: one line, what is stored, exit 130
        Console(stderr=True, soft_wrap=True).print(interrupted_line(err), highlight=False,
                                                   markup=False)
        raise typer.Exit(130) from None
    except ArchiveError as err:  # an unusable path like a missing file (2); busy, ... (1)
        raise _fail(str(err), 2 if isinstance(err, UnusableArchive) else 1) from None
    except OSError as err:  # a full or read-only disk: the run is abandoned, nothing kept
        raise _fail(write_failed(err, archive_path(archive))) from None
    console = Console(soft_wrap=True)
    for line in summary.lines():
        console.print(line, highlight=False, markup=False)


def _ingest_on_cluster(paths: list[Path], archive: Path | None, fmt: str, scheduler: str,
                       staging: str | None) -> None:
    """``skatlog ingest --scheduler``: the same files, validated on a Dask cluster."""
    from skatlog.ingest.archive import ArchiveError, UnusableArchive
    from skatlog.ingest.sources import SourceError
    from skatlog.simulation.cluster import ClusterError, ingest_files_on_cluster

    try:
        counts = ingest_files_on_cluster(scheduler, paths, archive, fmt, staging=staging)
    except SourceError as err:
        raise _fail(str(err)) from None
    except KeyboardInterrupt as err:  # Ctrl-C: one line, exit 130 (nothing was committed)
        Console(stderr=True, soft_wrap=True).print(interrupted_line(err, True),
                                                   highlight=False, markup=False)
        raise typer.Exit(130) from None
    except (ClusterError, ArchiveError) as err:
        raise _fail(str(err), 2 if isinstance(err, UnusableArchive) else 1) from None
    console = Console(soft_wrap=True)
    for line in counts.get("skipped", []):  # files of a folder that are not logs
        console.print(line, highlight=False, markup=False)
    for key in ("seen", "stored", "duplicates", "rejected"):
        console.print(f"{key:<11} {counts.get(key, 0)}", highlight=False, markup=False)
    for code, count in sorted(counts.get("rejected_by_code", {}).items()):
        console.print(f"  {code:<20} {count}", highlight=False, markup=False)
    console.print(f"time        {counts.get('seconds', 0.0):.2f} s", highlight=False,
                  markup=False)


WAIT_HELP = ("When another ingest or simulation holds the archive's lock, wait at most this "
             "long, then exit 1 (default: wait until it is free).")


def announce_wait(root: Path, timeout: float | None) -> None:
    """Say on stderr that the run waits for another one's lock (and for how long)."""
    limit = "until it has finished" if timeout is None else f"at most {timeout:g} s (--wait)"
    Console(stderr=True, soft_wrap=True).print(
        f"waiting for another ingest or simulation to release {root / '.lock'}: {limit}; "
        "Ctrl-C stops without storing anything", highlight=False, markup=False)


def interrupted_line(err: KeyboardInterrupt, all_or_nothing: bool = False) -> str:
    """The one line for a Ctrl-C: what the run committed (a
    :class:`~skatlog.ingest.interrupt.RunInterrupted` says it), else that the archive keeps
    the run's last commit, if any; ``all_or_nothing``: a run that stores nothing before it
    completes (``simulate --out``, ``--scheduler``)."""
    from skatlog.ingest.interrupt import RunInterrupted

    if isinstance(err, RunInterrupted):
        return err.message
    if all_or_nothing:
        return "interrupted: nothing of this run was stored; run the command again"
    return ("interrupted: the archive keeps what this run committed before (if anything); "
            "the same command again resumes from there")


def write_failed(err: OSError, root: Path) -> str:
    """The one line for a write that failed mid-run (a full disk, a read-only file system).
    Runs commit as they go, so the archive is as the run's last commit left it (or as it was
    before the run, when it had not committed yet), and a rerun resumes from there."""
    what = err.strerror or str(err)
    where = f"{err.filename}: " if err.filename else ""
    return (f"{where}{what}; the run was stopped and nothing after its last commit was "
            f"stored (the archive {root} is consistent; the same command again resumes)")


def one_line(err: Exception) -> str:
    """An error's message on one line (DuckDB's span several, with a ``LINE 1:`` caret)."""
    return " ".join(line.strip() for line in str(err).strip().splitlines())


def _existing_archive(archive: Path | None) -> Path:
    from skatlog.ingest.archive import MANIFEST, archive_path

    root = archive_path(archive)
    if not (root / MANIFEST).is_file():
        raise _fail(f"no archive at {root}: no {MANIFEST} there (ingest some logs first, "
                    "or pass --archive DIR)")
    return root


def _jsonable(value: Any) -> Any:
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, float) and not math.isfinite(value):
        return None  # JSON has no NaN or Infinity
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def query(
    sql: Annotated[str, typer.Argument(
        help="SQL over the views games, tricks, auction, sessions, rejects, ingests.")],
    archive: Annotated[Path | None, typer.Option("--archive", help=ARCHIVE_HELP)] = None,
    fmt: Annotated[OutputFormat, typer.Option("--format", help="Output format.")
                   ] = OutputFormat.table,
    scoring: Annotated[str, typer.Option("--scoring", help="How the sessions view totals "
                                         "its players: list (default) or seeger-fabian.")
                       ] = "list",
) -> None:
    """Run SQL (DuckDB) over the archive and print the result."""
    import duckdb

    from skatlog.analytics.views import open_archive
    from skatlog.commands._scoring_option import parse_scoring_option
    from skatlog.ingest.archive import ArchiveError

    chosen = parse_scoring_option(scoring)
    root = _existing_archive(archive)
    try:
        con = open_archive(root, scoring=chosen)
    except (ArchiveError, duckdb.Error) as err:
        raise _fail(f"cannot open the archive: {err}") from None
    if not sql.strip(" \t\r\n;"):
        con.close()
        raise _fail("bad query: the SQL is empty")
    try:
        cursor = con.execute(sql)
        names = [d[0] for d in cursor.description] if cursor.description else []
        if not names:  # a statement without a result (SET, CREATE VIEW, ...)
            return
        if fmt is OutputFormat.table:
            rows = cursor.fetchmany(TABLE_ROWS + 1)
            _print_table(names, rows)
        elif fmt is OutputFormat.csv:
            writer = csv.writer(sys.stdout, lineterminator="\n")
            writer.writerow(names)
            while batch := cursor.fetchmany(10_000):
                writer.writerows([_jsonable(v) for v in row] for row in batch)
        else:
            sys.stdout.write("[")
            first = True
            while batch := cursor.fetchmany(10_000):
                for row in batch:
                    obj = {n: _jsonable(v) for n, v in zip(names, row, strict=True)}
                    sys.stdout.write(("\n" if first else ",\n")
                                     + json.dumps(obj, ensure_ascii=False))
                    first = False
            sys.stdout.write("\n]\n")
    except duckdb.Error as err:
        raise _fail("bad query: " + one_line(err)) from None
    finally:
        con.close()


def refuse_to_replace(out: Path, force: bool, archive: Path | None = None) -> None:
    """Exit 2 when writing ``out`` would destroy something: a file inside ``archive``
    (always), or any existing file unless ``force``."""
    target = out.resolve()
    if archive is not None and target.is_relative_to(archive.resolve()):
        raise _fail(f"{out}: is inside the archive {archive}; write the file elsewhere")
    if out.is_dir():  # before any work: the rename at the end would fail
        raise _fail(f"{out}: is a directory")
    if out.exists() and not force:
        raise _fail(f"{out}: exists; pass --force to replace it")


#: Rows shown one block each when a table is too wide for the terminal.
VERTICAL_ROWS = 50
#: Narrowest a column may be squeezed to before the table is shown vertically instead.
MIN_COLUMN = 8


def _cell(value: Any) -> str:
    return "NULL" if value is None else str(_jsonable(value))


def _fits(names: list[str], rows: list[tuple[Any, ...]], width: int) -> bool:
    """Whether a boxed table of these columns fits ``width`` characters with every header
    whole and no column squeezed below :data:`MIN_COLUMN` (else rich draws empty boxes)."""
    need = 1
    for i, name in enumerate(names):
        longest = max((len(_cell(row[i])) for row in rows[:100]), default=0)
        need += max(len(name), min(longest, MIN_COLUMN)) + 3  # padding and a border
    return need <= width


def _print_table(names: list[str], rows: list[tuple[Any, ...]]) -> None:
    console = Console()
    shown = min(len(rows), TABLE_ROWS)
    if not _fits(names, rows, console.width):
        _print_vertical(console, names, rows)
        return
    table = Table(show_lines=False)
    for name in names:
        table.add_column(name, overflow="fold")
    for row in rows[:TABLE_ROWS]:
        table.add_row(*[_cell(v) for v in row])
    console.print(table)
    more = " (more rows not shown: use --format csv or json)" if len(rows) > TABLE_ROWS else ""
    console.print(f"{shown} row{'s' if shown != 1 else ''}{more}", highlight=False)


def _print_vertical(console: Console, names: list[str], rows: list[tuple[Any, ...]]) -> None:
    """One block per record, ``column | value`` lines: for results wider than the terminal
    (``SELECT * FROM games``), where a table would have no room for its headers."""
    pad = max(len(name) for name in names)
    for number, row in enumerate(rows[:VERTICAL_ROWS], 1):
        console.print(f"-[ record {number} ]" + "-" * max(0, min(console.width, 60) - 14),
                      highlight=False, markup=False)
        for name, value in zip(names, row, strict=True):
            console.print(f"{name:<{pad}} | {_cell(value)}", highlight=False, markup=False,
                          soft_wrap=True)
    shown = min(len(rows), VERTICAL_ROWS)
    more = (" (more rows not shown: add LIMIT, or use --format csv or json)"
            if len(rows) > VERTICAL_ROWS else "")
    console.print(f"{shown} row{'s' if shown != 1 else ''}, {len(names)} columns: too wide "
                  f"for {console.width} characters, shown one record per block{more}",
                  highlight=False, markup=False)


def export(
    out: Annotated[Path, typer.Option(
        "--out", help="Output file: .sgf (ISS) or .jsonl (skatlog JSON Lines), optionally "
        ".gz/.bz2/.zst (compressed).")],
    fmt: Annotated[ExportFormat | None, typer.Option(
        "--format", help="iss or jsonl (default: from --out's name; must agree with it).")
    ] = None,
    archive: Annotated[Path | None, typer.Option("--archive", help=ARCHIVE_HELP)] = None,
    result: Annotated[ResultChoice, typer.Option(
        "--result",
        help="Result to write: as recorded in the log (lossless), computed, auto, none.")
    ] = ResultChoice.recorded,
    force: Annotated[bool, typer.Option(
        "--force", help="Replace --out when it exists (by default an existing file is kept "
        "and the export refused).")] = False,
) -> None:
    """Write every archived game to an ISS or skatlog JSON Lines file."""
    from skatlog.engine import RuleError
    from skatlog.ingest.archive import ArchiveError
    from skatlog.ingest.export import ExportError, StoredGameError, export_archive, export_format

    try:
        chosen = export_format(out, fmt.value if fmt is not None else None)
    except ExportError as err:
        raise _fail(str(err)) from None
    root = _existing_archive(archive)
    refuse_to_replace(out, force, root)
    try:
        count = export_archive(root, out, chosen, result=result.value)
    except ExportError as err:
        raise _fail(str(err)) from None
    except (StoredGameError, RuleError) as err:  # the content: like verify, exit 1
        raise _fail(f"the archive could not be exported: {err}", 1) from None
    except ArchiveError as err:  # unreadable: like a missing archive, exit 2
        raise _fail(f"the archive could not be exported: {err}") from None
    Console(stderr=True, soft_wrap=True).print(f"exported {count:,} games to {out}",
                                               highlight=False)
