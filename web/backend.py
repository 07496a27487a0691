"""The web app's only door to the rest of skatlog: validation, the archive, analytics, reports.

Every call the web layer makes into ingest/analytics/reports goes through this module, so the
routes stay free of archive details and a club's calls only ever get that club's archive
directory.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
from collections.abc import Iterable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skatlog.ingest.model import LogGame

from .errors import UploadRejected

if TYPE_CHECKING:
    from skatlog.ingest.pipeline import IngestSummary


def read_games(path: Path) -> Iterator[LogGame]:
    """Validated games of one plain log file, streamed (ISS or skatlog JSONL, sniffed)."""
    from skatlog.ingest.sources import SourceError
    from skatlog.ingest.validate import iter_log_games

    try:
        yield from iter_log_games([path], fmt="auto")
    except SourceError as exc:  # e.g. text that is neither ISS nor skatlog JSONL
        raise UploadRejected(422, "unsupported_format", f"{path.name}: {exc}") from None


def game_entry(game: LogGame, source: str) -> dict[str, Any]:
    """The ``skatlog validate --json`` object of a game, with the upload's name as source and
    each error's line and rule added (the page shows line, move, rule and message)."""
    from skatlog.ingest.validate import game_json

    entry = dict(game_json(game))
    entry["source"] = source
    errors = entry.get("errors") or []
    for data, error in zip(errors, game.errors, strict=False):
        if isinstance(data, dict):
            data.setdefault("line", error.line)
            data.setdefault("rule", error.rule)
    entry["players"] = list(game.meta.players)
    return jsonable(entry)


def store_games(club_archive: Path, games: Iterable[LogGame],
                upload: tuple[str, Path]) -> IngestSummary:
    """Store validated games in the club's archive as one atomic, deduplicating ingest run
    (valid games to ``games``, invalid ones to ``rejects``); ``upload`` is the (display name,
    received file) pair recorded in the run's ``ingests`` row."""
    from skatlog.ingest.pipeline import file_digest, ingest_games

    name, received = upload
    _, digest, size = file_digest(received)
    return ingest_games(games, club_archive, files=[(name, digest, size)], progress=False,
                        kind="ingest")


def has_games(club_archive: Path) -> bool:
    """Whether the club's archive has committed games (its manifest lists game rows)."""
    from skatlog.ingest.archive import read_manifest

    return read_manifest(club_archive).rows("games") > 0


def archive_version(club_archive: Path) -> str:
    """A token that changes with every commit to the club's archive (its manifest text)."""
    manifest = club_archive / "manifest.json"
    try:
        return hashlib.sha256(manifest.read_bytes()).hexdigest()
    except FileNotFoundError:
        return "empty"


def jsonable(value: Any) -> Any:
    """``value`` with dates, decimals and NaN turned into what JSON can carry."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value


def list_games(archives: dict[str, Path], limit: int, offset: int
               ) -> tuple[list[dict[str, Any]], int]:
    """One page of games over the given clubs' archives (in club order), and their total.

    Each row is the archive's ``games`` row without the bit-mask columns, plus ``club``;
    ``game_id`` is a string (64-bit ids do not survive JavaScript numbers); times are in UTC
    (``+00:00``), whatever the server's time zone.
    """
    rows: list[dict[str, Any]] = []
    total = 0
    for club, archive in archives.items():
        if not has_games(archive):
            continue
        con = _connect(archive)
        try:
            count = con.execute("SELECT count(*) FROM games").fetchone()[0]  # type: ignore[index]
            start = max(0, offset - total)
            want = limit - len(rows)
            if want > 0 and start < count:
                rows += _game_rows(con, club, want, start)
            total += count
        finally:
            con.close()
    return rows, total


_HIDDEN = ("forehand_cards", "middlehand_cards", "rearhand_cards", "skat_cards", "extra")


def _game_rows(con: Any, club: str, limit: int, offset: int) -> list[dict[str, Any]]:
    from skatlog.analytics.connect import columns

    names = [c for c in columns(con, "games") if c not in _HIDDEN]
    order = [c for c in ("played_at", "source", "source_line", "game_id") if c in names]
    select = ", ".join(f'"{c}"' for c in names)
    cursor = con.execute(
        f"SELECT {select} FROM games ORDER BY {', '.join(order) or 'ALL'} LIMIT ? OFFSET ?",
        [limit, offset])
    fetched = cursor.fetchall()
    solved = _analysis_of(con, [dict(zip(names, v, strict=True)).get("game_id")
                                for v in fetched])
    rows = []
    for values in fetched:
        row = dict(zip(names, values, strict=True))
        if row.get("game_id") in solved:
            row["could_it_have_been_won"] = solved[row["game_id"]] | {
                "line": _could_win_line(row, solved[row["game_id"]])}
        if "game_id" in row and row["game_id"] is not None:
            row["game_id"] = str(row["game_id"])
        row["club"] = club
        for key, value in row.items():
            if isinstance(value, dt.datetime) and value.tzinfo is not None:
                row[key] = value.astimezone(dt.UTC)
        rows.append(jsonable(row))
    return rows


def _analysis_of(con: Any, ids: list[Any]) -> dict[int, dict[str, Any]]:
    """``skatlog analyze``'s verdict on the games ``ids`` that it solved (none when the
    club's archive has no ``analysis`` table): best-play result and the deciding card."""
    from skatlog.analytics.connect import has_table
    from skatlog.engine.cards import Card

    wanted = [int(i) for i in ids if i is not None]
    if not wanted or not has_table(con, "analysis"):
        return {}
    cursor = con.execute(
        "SELECT game_id, dd_won, dd_declarer_points, dd_declarer_tricks, first_change_trick,"
        " first_change_seat, first_change_card, first_change_keep FROM analysis"
        " WHERE game_id IN (SELECT unnest(?))", [wanted])
    out: dict[int, dict[str, Any]] = {}
    for gid, won, points, tricks, trick, seat, card, keep in cursor.fetchall():
        first = None if trick is None else {
            "trick": trick, "seat": seat, "card": str(Card(card)) if card is not None else None,
            "keep": str(Card(keep)) if keep is not None else None}
        out[gid] = {"dd_won": won, "dd_declarer_points": points,
                    "dd_declarer_tricks": tricks, "first_change": first}
    return out


def _could_win_line(game: dict[str, Any], solved: dict[str, Any]) -> str:
    """The report's "Could it have been won?" in one sentence, for one game."""
    won, best = game.get("won"), solved["dd_won"]
    if won is None:
        verdict = "best play " + ("wins" if best else "loses") + " the game as declared"
    elif won:
        verdict = ("won; best defence would have beaten it" if not best
                   else "won; best defence could not have beaten it")
    else:
        verdict = ("lost; best play would have won it" if best
                   else "lost; it could not have been won")
    first = solved["first_change"]
    if first is not None:
        verdict += (f" (the deciding card: trick {first['trick']}, seat {first['seat']},"
                    f" {first['card']}")
        verdict += f"; {first['keep']} would have kept the result)" if first["keep"] else ")"
    return verdict


def contract_stats(archives: dict[str, Path]) -> list[dict[str, Any]]:
    """Declarer success by contract (game type) over the given clubs, with Wilson intervals.

    Per club this is :func:`skatlog.analytics.queries.success_by_contract`; over several
    clubs the counts are added and the rate and interval recomputed from the sums.
    """
    from skatlog.analytics.queries import success_by_contract
    from skatlog.analytics.stats import wilson_interval

    merged: dict[tuple[Any, ...], dict[str, Any]] = {}
    for archive in archives.values():
        if not has_games(archive):
            continue
        con = _connect(archive)
        try:
            frame = success_by_contract(con)
        finally:
            con.close()
        for row in frame.to_dicts():
            key = (row.get("contract_rank"), row.get("game"))
            entry = merged.setdefault(key, {k: row.get(k) for k in
                                            ("game", "contract", "hand", "announcement",
                                             "ouvert", "contract_rank")} | {
                "n": 0, "k": 0, "value_sum": 0.0})
            entry["n"] += int(row["n"])
            entry["k"] += int(row["k"])
            entry["value_sum"] += float(row.get("mean_value") or 0.0) * int(row["n"])
    out = []
    for key in sorted(merged, key=lambda k: (k[0] is None, k[0] or 0, str(k[1]))):
        entry = merged[key]
        n, k = entry["n"], entry["k"]
        lo, hi = wilson_interval(k, n)
        out.append(jsonable({
            **{f: entry[f] for f in ("game", "contract", "hand", "announcement", "ouvert")},
            "n": n, "k": k, "rate": k / n if n else None, "lo": lo, "hi": hi,
            "mean_value": entry["value_sum"] / n if n else None,
        }))
    return out


def _connect(archive: Path) -> Any:
    from skatlog.analytics.connect import connect

    return connect(archive)


def check_scoring(scoring: str) -> str:
    """``scoring`` if it names a scoring (``list``, ``seeger-fabian``), else ValueError."""
    from skatlog.analytics.scoring import parse_scoring

    return parse_scoring(scoring)


def build_reports(club_archive: Path, out: Path, club: str, scoring: str = "list") -> None:
    """Write the club's report pages (the ``skatlog report`` site, titled with the club's
    name, players and sessions totalled by ``scoring``) into ``out``."""
    from skatlog.analytics.scoring import parse_scoring
    from skatlog.reports.build import build_report

    build_report(club_archive, out, title=f"Club {club} report",
                 scoring=parse_scoring(scoring))
