"""Ingest: stream validated games into the archive in batches, atomically, with a summary.

:func:`ingest_paths` reads log files (via :func:`~.validate.iter_log_games`), turns valid
games into ``games``/``tricks``/``auction`` rows and invalid ones into ``rejects`` rows, and
commits the run with one ``ingests`` row. Memory stays bounded: rows are built and written
one batch at a time. :func:`ingest_games` does the same for any iterable of
:class:`~.model.LogGame`; :func:`append_batches` appends tables the caller built already
(the batch simulator) through the same atomic, deduplicating writer.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections import Counter
from collections.abc import Iterable, Mapping
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pyarrow as pa
from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    ProgressColumn,
    SpinnerColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

from skatlog import __version__
from skatlog.engine.rules import Rules

from .archive import ArchiveWriter, archive_path
from .ids import game_id_of
from .interrupt import RunInterrupted, commit_interval, graceful_stop, stop_requested
from .model import GameError, LogGame
from .rows import (
    GameRowsBuilder,
    RejectRowsBuilder,
    ScannedMoves,
    ingest_table,
    scan_moves,
    unstorable_text,
)
from .schema import SchemaError
from .simulated import claims_simulation, reproduce
from .sources import looks_like_game

#: Games per batch: large enough for fast columnar writes, small enough for bounded memory.
BATCH_SIZE = 20_000


@dataclass
class IngestSummary:
    """What an ingest (or append) run did."""

    ingest_id: str
    archive: Path
    files: int = 0
    seen: int = 0
    stored: int = 0
    duplicates: int = 0
    rejected: int = 0
    rejects_stored: int = 0
    reject_duplicates: int = 0
    rejected_by_code: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    #: Of ``seconds``, those spent loading the compiled code (numba's cache) before the
    #: first record: once per process, however many records follow.
    load_seconds: float = 0.0
    #: Files of the named folders that were not read, with the reason (not a log, ...).
    skipped: list[tuple[str, str]] = field(default_factory=list)
    #: Lines inside a log that are no record at all (prose, not ``(;...`` or ``{...``):
    #: reported here, never stored in ``rejects``.
    not_records: int = 0
    #: The first few rejected and non-record lines, ``file:line: move N: message [code]``.
    examples: list[str] = field(default_factory=list)
    not_record_examples: list[str] = field(default_factory=list)

    @property
    def games_per_second(self) -> float:
        return self.seen / self.seconds if self.seconds > 0 else 0.0

    def lines(self) -> list[str]:
        """The human summary the CLI prints."""
        out = [
            f"archive     {self.archive}",
            f"files       {self.files}",
            f"seen        {self.seen:,}",
            f"stored      {self.stored:,}",
            f"duplicates  {self.duplicates:,}",
            f"rejected    {self.rejected:,}"
            + (f" ({self.rejects_stored:,} new, {self.reject_duplicates:,} already quarantined)"
               if self.rejected else ""),
        ]
        out += [f"  {code:<20} {count:,}" for code, count in sorted(self.rejected_by_code.items())]
        out += [f"  {line}" for line in self.examples]
        if self.rejected > len(self.examples) and self.examples:
            out.append(f"  ... {self.rejected - len(self.examples):,} more: skatlog validate "
                       "shows every one")
        if self.not_records:
            out.append(f"not records {self.not_records:,} line"
                       + ("s" if self.not_records != 1 else "")
                       + " neither an ISS record nor a JSON line (not stored)")
            out += [f"  {line}" for line in self.not_record_examples]
        if self.skipped:
            out.append(f"skipped     {len(self.skipped):,} file"
                       + ("s" if len(self.skipped) != 1 else "") + " (not logs)")
            out += [f"  {path}: {reason}" for path, reason in self.skipped]
        out.append(f"time        {self.seconds:.2f} s ({self.games_per_second:,.0f} games/s"
                   + (f"; {self.load_seconds:.2f} s of it loading or compiling the kernels"
                      if self.load_seconds >= 0.005 else "") + ")")
        return out

    def not_a_record(self, game: LogGame) -> bool:
        """True for a line inside a log that is no record at all (prose between records,
        neither ``(;...`` nor ``{...``): counted and reported, never stored in ``rejects``
        and not counted as a game seen."""
        if game.ok or looks_like_game(game.format, game.raw):
            return False
        self.not_records += 1
        if len(self.not_record_examples) < EXAMPLES:
            self.not_record_examples.append(_example(game))
        return True

    def reject(self, game: LogGame) -> None:
        """Count a rejected record, keeping the first few for the summary."""
        self.rejected += 1
        if len(self.examples) < EXAMPLES:
            self.examples.append(_example(game))


def tally_reject(game: LogGame, summary: IngestSummary, by_code: Counter[str],
                 rows: RejectRowsBuilder) -> None:
    """One rejected record, in every ingest path alike: the summary's count and examples,
    the count of its error code (the first error's; ``syntax`` without one), and its row."""
    summary.reject(game)
    by_code[game.errors[0].code if game.errors else "syntax"] += 1
    rows.add(game)


#: Rejected records (and lines that are no record) an ingest summary prints in full.
EXAMPLES = 5


def _example(game: LogGame) -> str:
    """The first error of a game as ``validate`` prints it: ``file:line: move N: message
    [code]``."""
    if not game.errors:
        return f"{game.source}:{game.line}: rejected"
    error = game.errors[0]
    return error.format(game.source) + f" [{error.code}]"


class RateColumn(ProgressColumn):
    """Games per second so far."""

    def render(self, task: Task) -> Text:
        elapsed = task.finished_time if task.finished else task.elapsed
        rate = task.completed / elapsed if elapsed else 0.0
        return Text(f"{rate:,.0f} games/s", style="progress.data.speed")


def _progress(console: Console | None) -> Progress:
    return Progress(
        SpinnerColumn(),
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("{task.completed:,} games"),
        RateColumn(),
        TimeElapsedColumn(),
        console=console or Console(stderr=True),
        transient=False,
    )


def file_digest(path: Path) -> tuple[str, str, int]:
    """(path, sha256 of the bytes as stored, size in bytes) of one input file."""
    with open(path, "rb") as handle:
        digest = hashlib.file_digest(handle, "sha256").hexdigest()
    return (str(path), digest, path.stat().st_size)


class _Run:
    """One run's counters and batch buffers around an open :class:`ArchiveWriter`."""

    def __init__(self, writer: ArchiveWriter, summary: IngestSummary) -> None:
        self.writer = writer
        self.summary = summary
        self.rows = GameRowsBuilder(writer.ingest_id)
        self.rejects = RejectRowsBuilder(writer.ingest_id)
        self.by_code: Counter[str] = Counter()
        self.pending: list[tuple[LogGame, ScannedMoves, int]] = []
        self.claims: list[LogGame] = []  # records that claim to be simulated hands

    def __len__(self) -> int:
        """Records waiting for the next :meth:`flush`."""
        return len(self.pending) + len(self.claims) + len(self.rejects)

    def add(self, game: LogGame) -> None:
        if self.summary.not_a_record(game):
            return
        self.summary.seen += 1
        if game.ok:
            problem = unstorable_text(game)
            if problem:
                game = replace(game, errors=(GameError("syntax", problem, game.line),))
        if not game.ok:
            self._reject(game)
        elif claims_simulation(game):
            self.claims.append(game)
        else:
            self._pend(game)

    def _pend(self, game: LogGame) -> None:
        """Queue a valid logged game under its content id."""
        assert game.record is not None
        scanned = scan_moves(game.record.moves)
        meta = game.meta
        gid = game_id_of(bytes(game.record.deal.cards), scanned.text, meta.players,
                         meta.played_at, meta.record_id, meta.session_id)
        self.pending.append((game, scanned, gid))

    def _flush_claims(self) -> None:
        """Re-simulate the claimed simulated hands (:mod:`.simulated`): the ones that match
        are stored as the simulator's rows, the others join the logged games."""
        if not self.claims:
            return
        outcome = reproduce(self.claims, self.writer.ingest_id)
        self.claims.clear()
        for game in outcome.logged:
            self._pend(game)
        if outcome.tables is not None:
            counts = self.writer.append_games(outcome.tables)
            self.summary.stored += counts.stored
            self.summary.duplicates += counts.duplicates

    def _reject(self, game: LogGame) -> None:
        tally_reject(game, self.summary, self.by_code, self.rejects)

    def flush(self) -> None:
        self._flush_claims()
        if self.pending:
            ids = np.fromiter((gid for _, _, gid in self.pending), np.int64, len(self.pending))
            keep = self.writer.game_ids.new_mask(ids)
            new_games = [item for item, new in zip(self.pending, keep.tolist(), strict=True)
                         if new]
            self.summary.duplicates += len(self.pending) - len(new_games)
            for game, scanned, gid in new_games:
                self.rows.add_log_game(game, gid, scanned)
            try:
                tables = self.rows.tables() if new_games else {}
            except SchemaError:
                tables = self._one_by_one(new_games)
            self.summary.stored += tables["games"].num_rows if tables else 0
            for name, table in tables.items():
                self.writer.write(name, table)
            self.pending.clear()
            self.rows.clear()
        if len(self.rejects):
            counts = self.writer.append_rejects(self.rejects.table())
            self.summary.rejects_stored += counts.rejects_stored
            self.summary.reject_duplicates += counts.reject_duplicates
            self.rejects.clear()
        self.writer.batch_done()

    def _one_by_one(self, items: list[tuple[LogGame, ScannedMoves, int]]
                    ) -> dict[str, pa.Table]:
        """Rows game by game, quarantining any game whose values do not fit the schema."""
        parts: list[dict[str, pa.Table]] = []
        for game, scanned, gid in items:
            self.rows.clear()
            self.rows.add_log_game(game, gid, scanned)
            try:
                parts.append(self.rows.tables())
            except SchemaError as err:
                self._reject(replace(game, errors=(GameError(
                    "syntax", f"the game cannot be stored: {err}", game.line),)))
        if not parts:
            return {}
        return {name: pa.concat_tables([p[name] for p in parts]) for name in parts[0]}


def ingest_games(
    games: Iterable[LogGame],
    archive: str | os.PathLike[str] | None = None,
    *,
    files: Iterable[tuple[str, str, int]] = (),
    fmt: str | None = None,
    progress: bool = True,
    batch_size: int = BATCH_SIZE,
    console: Console | None = None,
    kind: str = "ingest",
) -> IngestSummary:
    """Store ``games`` (validated :class:`LogGame` values) in the archive as one atomic run.

    Valid games new to the archive are stored; games already stored, or seen earlier in the
    run, count as duplicates; invalid ones go to ``rejects`` with their raw text (once per
    distinct raw text). The run commits what it has written at a batch boundary every
    :func:`~.interrupt.commit_interval` seconds and at the end, so a kill loses at most
    that much; after a Ctrl-C it commits the games read so far and raises
    :class:`~.interrupt.RunInterrupted`. The run's one ``ingests`` row is replaced at each
    commit: it counts what is committed and lists the files read from so far.
    """
    files = list(files)
    started = datetime.now(UTC)
    clock = time.perf_counter()
    out = console or Console(stderr=True)

    def waiting() -> None:
        if progress:
            out.print(f"waiting for another ingest into {archive_path(archive)} to finish ...")

    with ArchiveWriter(archive, on_wait=waiting) as writer, graceful_stop():
        summary = IngestSummary(writer.ingest_id, writer.root, files=len(files))
        run = _Run(writer, summary)
        sources: set[str] = set()  # the files read from so far

        def row(final: bool) -> pa.Table:
            summary.rejected_by_code = dict(run.by_code)
            return ingest_table(
                ingest_id=writer.ingest_id, kind=kind, started_at=started,
                finished_at=datetime.now(UTC), fmt=fmt,
                files=files if final else [f for f in files if f[0] in sources],
                seen=summary.seen, stored=summary.stored, duplicates=summary.duplicates,
                rejected=summary.rejected, rejects_stored=summary.rejects_stored,
                rejected_by_code=summary.rejected_by_code, skatlog_version=__version__)

        interval = commit_interval()
        since = time.monotonic()
        stopped = False
        bar = _progress(out) if progress else None
        with bar if bar is not None else nullcontext():
            task = bar.add_task("ingest", total=None) if bar is not None else None
            source = None
            for game in games:
                run.add(game)
                if game.source != source:
                    source = game.source
                    sources.add(source)
                    if bar is not None and task is not None:
                        bar.update(task, description=Path(source).name or "ingest")
                if bar is not None and task is not None and summary.seen % 1000 == 0:
                    bar.update(task, completed=summary.seen)
                if len(run) >= batch_size:
                    run.flush()
                    if time.monotonic() - since >= interval:  # what a kill can lose
                        writer.checkpoint(row(final=False))
                        since = time.monotonic()
                if stop_requested():  # Ctrl-C: store what is read, then stop
                    stopped = True
                    break
            run.flush()
            if bar is not None and task is not None:
                bar.update(task, completed=summary.seen, total=summary.seen or 1,
                           description="ingest")
        summary.seconds = time.perf_counter() - clock
        writer.commit(row(final=not stopped))
        if stopped:
            raise RunInterrupted(interrupted_message(summary))
    summary.seconds = time.perf_counter() - clock
    return summary


def interrupted_message(summary: IngestSummary) -> str:
    """The one line of an ingest stopped by Ctrl-C: what its commits stored."""
    return (f"interrupted: {summary.stored:,} games stored in {summary.archive} "
            f"({summary.rejects_stored:,} rejects quarantined) from the {summary.seen:,} "
            f"records read; the same command again resumes (what is stored is skipped as "
            f"duplicates)")


def ingest_paths(
    paths: Iterable[str | os.PathLike[str]],
    archive: str | os.PathLike[str] | None = None,
    fmt: str = "auto",
    progress: bool = True,
    *,
    batch_size: int = BATCH_SIZE,
    console: Console | None = None,
    fast: bool | None = None,
    rules: Rules | None = None,
) -> IngestSummary:
    """Ingest log files or directories (plain, .gz, .bz2, .zst) into the archive.

    ``rules``: the rule set of records that do not name their own (None: each format's own,
    ISS ``isko+iss`` and skatlog/1 ``isko``; see :func:`~.validate.parse_raw`).

    ``fast``: ``None`` (default) uses the compiled ISS path (:mod:`.fast`, same rows and ids)
    for inputs of :data:`FAST_MIN_BYTES` or more when numba is installed, ``True`` always
    when it is installed, ``False`` never. Raises :class:`~.sources.SourceError` for a
    missing path or unknown format, and :class:`~.sniff.NotALog` for a named file that is
    not a log or a folder without one, before anything is written; the files of a folder
    that are not logs are skipped and listed in the summary (:func:`~.sniff.find_logs`).
    """
    from .sim_claims import iter_ingest_games  # the simulator's own lines matched in batches
    from .sniff import find_logs
    from .sources import SourceError

    inputs = find_logs(paths, fmt)
    expanded = inputs.files
    if use_fast_path(fast, fmt, expanded, rules):
        summary = _ingest_fast(expanded, archive, progress, console, rules)
    else:
        digests = []
        for path in expanded:
            try:
                digests.append(file_digest(path))
            except OSError as err:
                raise SourceError(f"{path}: cannot read: {err.strerror or err}") from err
        summary = ingest_games(iter_ingest_games(expanded, fmt, rules), archive, files=digests,
                               fmt=fmt, progress=progress, batch_size=batch_size,
                               console=console)
    summary.skipped = [(str(path), reason) for path, reason in inputs.skipped]
    return summary


#: Inputs at least this large go through the compiled path by default (its start-up,
#: numba's cache load and worker processes, costs about a second).
FAST_MIN_BYTES = 32 << 20


def use_fast_path(fast: bool | None, fmt: str, files: list[Path],
                  rules: Rules | None = None) -> bool:
    """Whether ISS input goes through the compiled path (:mod:`.fast`): ``fast`` forces it
    on or off; by default it is used when numba is installed and the inputs total
    ``FAST_MIN_BYTES`` or more. Both paths give the same verdicts and rows. Never under a
    default rule set with ``ramsch`` (R20) or ``foster``, which the compiled path does not
    play."""
    if fast is False or fmt == "jsonl" or not files or (
            rules is not None and (rules.ramsch or rules.foster)):
        return False
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    if fast is True:
        return True
    try:
        return sum(p.stat().st_size for p in files) >= FAST_MIN_BYTES
    except OSError:
        return False


def _ingest_fast(files: list[Path], archive: str | os.PathLike[str] | None, progress: bool,
                 console: Console | None, rules: Rules | None) -> IngestSummary:
    from .fast import ingest_iss_fast

    bar = _progress(console) if progress else None
    if bar is None:
        return ingest_iss_fast(files, archive, rules=rules)
    with bar:
        task = bar.add_task("ingest (compiled)", total=None)
        summary = ingest_iss_fast(files, archive, rules=rules,
                                  on_progress=lambda seen: bar.update(task, completed=seen))
        bar.update(task, completed=summary.seen, total=summary.seen or 1)
    return summary


def append_batches(
    batches: Iterable[Mapping[str, pa.Table]],
    archive: str | os.PathLike[str] | None = None,
    *,
    kind: str = "simulate",
    progress: bool = False,
    console: Console | None = None,
    description: str = "simulate",
) -> IngestSummary:
    """Append already-built table batches (e.g. from the simulator) as one atomic run.

    Each batch maps table names to pyarrow tables built with :mod:`.schema`
    (``games`` with its ``tricks`` and ``auction``, optionally ``rejects``). Games whose
    game_id is already stored are dropped with their tricks and auction rows.
    """
    started = datetime.now(UTC)
    clock = time.perf_counter()
    out = console or Console(stderr=True)
    by_code: Counter[str] = Counter()
    with ArchiveWriter(archive) as writer:
        summary = IngestSummary(writer.ingest_id, writer.root)
        bar = _progress(out) if progress else None
        with bar if bar is not None else nullcontext():
            task = bar.add_task(description, total=None) if bar is not None else None
            for batch in batches:
                games = batch.get("games")
                summary.seen += games.num_rows if games is not None else 0
                counts = writer.append_games(batch)
                summary.stored += counts.stored
                summary.duplicates += counts.duplicates
                rejects = batch.get("rejects")
                if rejects is not None:
                    summary.rejected += rejects.num_rows
                    for code in rejects.column("code").to_pylist():
                        by_code[code] += 1
                    rc = writer.append_rejects(rejects)
                    summary.rejects_stored += rc.rejects_stored
                    summary.reject_duplicates += rc.reject_duplicates
                if bar is not None and task is not None:
                    bar.update(task, completed=summary.seen)
        summary.seconds = time.perf_counter() - clock
        summary.rejected_by_code = dict(by_code)
        writer.commit(ingest_table(
            ingest_id=writer.ingest_id, kind=kind, started_at=started,
            finished_at=datetime.now(UTC), fmt=None, files=(), seen=summary.seen,
            stored=summary.stored, duplicates=summary.duplicates, rejected=summary.rejected,
            rejects_stored=summary.rejects_stored, rejected_by_code=dict(by_code),
            skatlog_version=__version__,
        ))
    return summary
