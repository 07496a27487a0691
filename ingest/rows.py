"""Row builders: validated games become ``games``/``tricks``/``auction`` rows, invalid
records ``rejects`` rows, and every run one ``ingests`` row.

:class:`GameRowsBuilder` turns :class:`~skatlog.ingest.model.LogGame` values
(:meth:`~GameRowsBuilder.add_log_game`) or engine :class:`~skatlog.engine.GameRecord` values
(:meth:`~GameRowsBuilder.add_simulated` with a :class:`SimulatedMeta`: seed, bots, players,
session) into the three tables of :mod:`.schema` (:meth:`~GameRowsBuilder.tables`);
:class:`RejectRowsBuilder` makes ``rejects``; :func:`ingest_table` makes the one ``ingests``
row; :func:`trick_winners` is the vectorised trick rule the tricks rows are built with.
Append the tables with :func:`skatlog.ingest.pipeline.append_batches` (atomic,
deduplicated by ``game_id``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from skatlog.engine import (
    CARD_POINTS,
    Bid,
    Card,
    Contract,
    Discard,
    GameRecord,
    Gucki,
    Hold,
    Move,
    Pass,
    PickUp,
    Play,
    Turn,
    core,
)

from .ids import game_id_of, reject_id_of
from .model import RECORDED_STRUCT_FIELDS, GameError, LogGame, RecordedResult
from .moves_codec import encode_move
from .schema import (
    CALL_KINDS,
    GAMES_SCHEMA,
    REJECTS_SCHEMA,
    SCHEMA_VERSION,
    empty_table,
    table_from_columns,
)


@dataclass(frozen=True, slots=True)
class SimulatedMeta:
    """What the simulator knows about a simulated hand beyond its record."""

    seed: int | None = None
    bots: str = ""
    players: tuple[str, str, str] = ("", "", "")
    session_id: str = ""
    hand_no: int | None = None
    dealer: int | None = None
    played_at: datetime | None = None
    source: str = "simulated"


_INT32 = (-(2**31), 2**31 - 1)


def _recorded_dict(recorded: RecordedResult | None) -> dict[str, Any] | None:
    """The recorded result as a struct value; numbers beyond int32 become null (raw keeps
    them)."""
    if recorded is None:
        return None
    out = {key: getattr(recorded, key) for key in RECORDED_STRUCT_FIELDS}
    for key, value in out.items():
        if type(value) is int and not _INT32[0] <= value <= _INT32[1]:
            out[key] = None
    return out


_PLAY_TOKENS = tuple(tuple(encode_move(Play(seat, card)) for card in Card) for seat in range(3))
_CALL_CODES = {"bid": 0, "hold": 1, "pass": 2}


@dataclass(slots=True)
class ScannedMoves:
    """One pass over a game's moves: the compact text and what the rows need from them."""

    text: str
    play_cards: list[int]
    play_seats: list[int]
    call_seats: list[int]
    call_kinds: list[int]  # 0 bid, 1 hold, 2 pass (CALL_KINDS)
    call_values: list[int | None]
    skat_taken: bool
    discard: tuple[int, int] | None


def scan_moves(moves: Sequence[Move]) -> ScannedMoves:
    """Encode ``moves`` (:func:`encode_moves`) and collect plays and calls in one pass."""
    tokens: list[str] = []
    cards: list[int] = []
    seats: list[int] = []
    call_seats: list[int] = []
    call_kinds: list[int] = []
    call_values: list[int | None] = []
    current = 0
    skat_taken = False
    discard = None
    for move in moves:
        kind = type(move)
        if kind is Play:
            seat = move.seat
            card = move.card  # type: ignore[union-attr]
            tokens.append(_PLAY_TOKENS[seat][card])
            cards.append(card)
            seats.append(seat)
        elif kind is Bid:
            current = move.value  # type: ignore[union-attr]
            tokens.append(f"{move.seat}{current}")
            call_seats.append(move.seat)
            call_kinds.append(0)
            call_values.append(current)
        elif kind is Hold:
            tokens.append(f"{move.seat}y")
            call_seats.append(move.seat)
            call_kinds.append(1)
            call_values.append(current)
        elif kind is Pass:
            tokens.append(f"{move.seat}p")
            call_seats.append(move.seat)
            call_kinds.append(2)
            call_values.append(None)
        else:
            tokens.append(encode_move(move))
            if kind is PickUp or kind is Turn or kind is Gucki:  # Foster's too (F5)
                skat_taken = True
            elif kind is Discard:
                discard = move.cards  # type: ignore[union-attr]
    return ScannedMoves(" ".join(tokens), cards, seats, call_seats, call_kinds, call_values,
                        skat_taken, discard)


# Trick tables as arrays (from the engine's R8 tables) for the vectorised trick winners.
_POINTS = np.array(CARD_POINTS, dtype=np.uint8)
#: ``games.contract`` of a Ramsch hand (R20), the core's game kind ``RAMSCH``.
RAMSCH_LABEL = "ramsch"
_CONTRACT_CODE = {c.label: int(c) for c in Contract} | {RAMSCH_LABEL: core.RAMSCH} | {
    name: kind for name, kind in zip(core.FOSTER_NAMES, core.FOSTER_PLAY_KINDS, strict=True)
} | {f"passt_mir_nicht_{name.rsplit('_', 1)[1]}": core.FOSTER_PLAY_KINDS[i]  # F5
     for i, name in enumerate(core.FOSTER_NAMES[:core.F_TURNED_GRAND + 1])}


def trick_winners(cards: np.ndarray, contracts: np.ndarray) -> np.ndarray:
    """Index (0..2, play order) of the winning card of each trick (R8), by the rules core's
    compiled :func:`~skatlog.engine.core.trick_winners`.

    ``cards`` is (n, 3) card indices, ``contracts`` (n,) contract numbers.
    """
    return core.trick_winners(np.ascontiguousarray(cards, dtype=np.int64),
                              np.ascontiguousarray(contracts, dtype=np.int64))


class GameRowsBuilder:
    """Accumulates ``games``, ``tricks`` and ``auction`` rows for a batch of games.

    Call :meth:`add_log_game` for validated log games, :meth:`add_simulated` for engine
    records, then :meth:`tables` for the three pyarrow tables and :meth:`clear` to reuse.
    Rows are kept as one tuple per game and flat lists of plays and calls; the tables are
    built column-wise (trick winners vectorised) when asked for.
    """

    def __init__(self, ingest_id: str | None = None) -> None:
        self.ingest_id = ingest_id
        self.clear()

    def clear(self) -> None:
        self._rows: list[tuple[Any, ...]] = []
        self._deals: list[bytes] = []
        self._results: list[tuple[Any, ...]] = []
        self._trick_counts: list[int] = []
        self._play_cards: list[int] = []
        self._play_seats: list[int] = []
        self._call_counts: list[int] = []
        self._call_seats: list[int] = []
        self._call_kinds: list[int] = []
        self._call_values: list[int | None] = []

    def __len__(self) -> int:
        return len(self._rows)

    # -- public adders
    def add_log_game(self, game: LogGame, game_id: int | None = None,
                     scanned: ScannedMoves | None = None) -> int:
        """Add a valid log game (``game.ok``); returns its game_id."""
        record = game.record
        if record is None or game.errors:
            raise ValueError("only valid games become games rows; invalid ones are rejects")
        if scanned is None:
            scanned = scan_moves(record.moves)
        meta = game.meta
        deal = bytes(record.deal.cards)
        if game_id is None:
            game_id = game_id_of(deal, scanned.text, meta.players, meta.played_at,
                                 meta.record_id, meta.session_id)
        rec = _recorded_dict(game.recorded)
        self._rows.append((
            game_id, "log", game.source, game.line, game.format,
            meta.record_id or None, meta.session_id or None, meta.hand_no, meta.played_at,
            meta.club or None, meta.table or None,
            meta.players[0] or None, meta.players[1] or None, meta.players[2] or None,
            meta.dealer,
            rec["value"] if rec is not None else None, game.value_check, rec,
            [w.code for w in game.warnings] or None,
            json.dumps(game.extra, sort_keys=True, default=str) if game.extra else None,
            None, None,
        ))
        self._add_record(game_id, deal, record, scanned, meta.players)
        return game_id

    def add_simulated(self, record: GameRecord, meta: SimulatedMeta = SimulatedMeta(),
                      game_id: int | None = None) -> int:
        """Add an engine-played hand; returns its game_id."""
        scanned = scan_moves(record.moves)
        deal = bytes(record.deal.cards)
        if game_id is None:
            game_id = game_id_of(deal, scanned.text, meta.players, meta.played_at, "",
                                 meta.session_id, meta.seed)
        self._rows.append((
            game_id, "simulated", meta.source, None, None,
            None, meta.session_id or None, meta.hand_no, meta.played_at, None, None,
            meta.players[0] or None, meta.players[1] or None, meta.players[2] or None,
            meta.dealer, None, "not_recorded", None, None, None, meta.seed, meta.bots or None,
        ))
        self._add_record(game_id, deal, record, scanned, meta.players)
        return game_id

    def _add_record(self, game_id: int, deal: bytes, record: GameRecord,
                    scanned: ScannedMoves, players: Sequence[str]) -> None:
        result = record.result
        decl = result.declaration
        score = result.score
        declarer = result.declarer
        if decl is not None and score is not None:
            played: tuple[Any, ...] = (
                decl.contract.label, decl.hand, decl.schneider_announced,
                decl.schwarz_announced, decl.ouvert, result.matadors, result.declarer_points,
                result.defender_points, result.declarer_tricks, result.defender_tricks,
                score.schneider, score.schwarz, score.won, score.overbid, score.game_value,
                score.multiplier, score.value,
            )
        elif result.foster is not None and score is not None:  # F5-F11: his game by name
            game = result.foster.game
            played = (
                result.contract_label, not game.uses_skat, result.foster.schneider_announced,
                result.foster.schwarz_announced, game.label.startswith("open_"),
                result.matadors, result.declarer_points, result.defender_points,
                result.declarer_tricks, result.defender_tricks, score.schneider, score.schwarz,
                score.won, score.overbid, score.game_value, score.multiplier, score.value,
            )
        elif result.ramsch is not None:  # R20, F12: no declarer, the game kind is named
            played = (RAMSCH_LABEL,) + (None,) * 15 + (0,)
        else:
            played = (None,) * 16 + (0,)
        self._results.append((
            result.outcome == "passed", result.outcome, result.ending.value, declarer,
            (players[declarer] or None) if declarer is not None else None,
            scanned.skat_taken if declarer is not None else None,
            list(scanned.discard) if scanned.discard is not None else None,
            result.bid, *played, scanned.text, str(record.rules), record.recorded,
            sorted(record.extra_bids) or None, *_house(record),
        ))
        self._deals.append(deal)
        n_tricks = len(scanned.play_cards) // 3 \
            if decl is not None or result.ramsch is not None or result.foster is not None \
            else 0
        self._trick_counts.append(n_tricks)
        if n_tricks:
            self._play_cards.extend(scanned.play_cards[:3 * n_tricks])
            self._play_seats.extend(scanned.play_seats[:3 * n_tricks])
        self._call_counts.append(len(scanned.call_seats))
        self._call_seats.extend(scanned.call_seats)
        self._call_kinds.extend(scanned.call_kinds)
        self._call_values.extend(scanned.call_values)

    # -- tables
    def tables(self, computed: bool = False) -> dict[str, pa.Table]:
        """The accumulated rows as ``{"games": ..., "tricks": ..., "auction": ...}``.

        With ``computed``, ``games`` and ``tricks`` also get the columns the views compute
        (:mod:`.computed`), here taken from what the engine played (the seats that played
        each card, the card points, the skat dealt), as the query schema has them: the
        values ``skatlog verify`` expects the views to show."""
        n = len(self._rows)
        ids = np.fromiter((row[0] for row in self._rows), np.int64, n)
        columns: dict[str, Any] = {}
        if n:
            for name, values in zip(_META_COLUMNS, zip(*self._rows, strict=True), strict=True):
                columns[name] = values
            for name, values in zip(_RESULT_COLUMNS, zip(*self._results, strict=True),
                                    strict=True):
                columns[name] = values
        deals = np.frombuffer(b"".join(self._deals), dtype=np.uint8).reshape(n, 32)
        columns["deal"] = deals
        bits = np.left_shift(np.uint32(1), deals.astype(np.uint32))
        for name, lo, hi in (("forehand_cards", 0, 10), ("middlehand_cards", 10, 20),
                             ("rearhand_cards", 20, 30)):
            columns[name] = np.bitwise_or.reduce(bits[:, lo:hi], axis=1)
        columns["ingest_id"] = pa.nulls(n, pa.string()) if self.ingest_id is None else \
            pa.array([self.ingest_id] * n, pa.string())
        games = table_from_columns("games", columns, n)
        tricks = self._tricks_table(ids, games)
        if computed:
            from .computed import insert_computed

            skat = np.bitwise_or.reduce(bits[:, 30:32], axis=1) if n else np.zeros(0, np.uint32)
            flags = {name: pc.fill_null(games.column(name), False)  # the views' fills
                     for name in ("kontra", "re", "bock")}
            games = insert_computed("games", games, {"skat_cards": skat, **flags})
            cards = np.array(self._play_cards, dtype=np.uint8).reshape(-1, 3)
            seats = np.array(self._play_seats, dtype=np.uint8).reshape(-1, 3)
            tricks = insert_computed("tricks", tricks, {
                "seat1": seats[:, 0], "seat2": seats[:, 1], "seat3": seats[:, 2],
                "points": _POINTS[cards].sum(axis=1, dtype=np.uint8)})
        return {"games": games, "tricks": tricks, "auction": self._auction_table(ids)}

    def _tricks_table(self, ids: np.ndarray, games: pa.Table) -> pa.Table:
        counts = np.array(self._trick_counts, dtype=np.int64)
        total = int(counts.sum())
        if total == 0:
            return empty_table("tricks")
        cards = np.array(self._play_cards, dtype=np.uint8).reshape(total, 3)
        seats = np.array(self._play_seats, dtype=np.uint8).reshape(total, 3)
        codes = np.array([_CONTRACT_CODE.get(c, 0) if c is not None else 0
                          for c in games.column("contract").to_pylist()], dtype=np.int64)
        contracts = np.repeat(codes, counts)
        winner_idx = trick_winners(cards, contracts)
        rows = np.arange(total)
        starts = np.repeat(np.cumsum(counts) - counts, counts)
        return table_from_columns("tricks", {
            "game_id": np.repeat(ids, counts),
            "trick_no": (rows - starts + 1).astype(np.uint8),
            "leader": seats[:, 0],
            "card1": cards[:, 0], "card2": cards[:, 1], "card3": cards[:, 2],
            "winner": seats[rows, winner_idx],
        }, total)

    def _auction_table(self, ids: np.ndarray) -> pa.Table:
        counts = np.array(self._call_counts, dtype=np.int64)
        total = int(counts.sum())
        if total == 0:
            return empty_table("auction")
        rows = np.arange(total)
        starts = np.repeat(np.cumsum(counts) - counts, counts)
        kinds = pa.DictionaryArray.from_arrays(
            pa.array(np.array(self._call_kinds, dtype=np.int32)), pa.array(CALL_KINDS))
        return table_from_columns("auction", {
            "game_id": np.repeat(ids, counts),
            "call_no": (rows - starts + 1).astype(np.uint8),
            "seat": np.array(self._call_seats, dtype=np.uint8),
            "kind": kinds,
            "value": pa.array(self._call_values, pa.int16()),
        }, total)


_META_COLUMNS = (
    "game_id", "origin", "source", "source_line", "source_format", "record_id", "session_id",
    "hand_no", "played_at", "club", "table", "forehand", "middlehand", "rearhand", "dealer",
    "recorded_value", "value_check", "recorded_result", "warnings", "extra", "seed", "bots",
)
_RESULT_COLUMNS = (
    "passed", "outcome", "ending", "declarer", "declarer_name", "skat_taken", "discard", "bid",
    "contract", "hand", "schneider_announced", "schwarz_announced", "ouvert", "matadors",
    "declarer_points", "defender_points", "declarer_tricks", "defender_tricks", "schneider",
    "schwarz", "won", "overbid", "game_value", "multiplier", "value", "moves", "rules",
    "recorded_rules", "extra_bids", "kontra", "re", "bock", "ramsch_points", "ramsch_values",
)


def _house(record: GameRecord) -> tuple[Any, ...]:
    """The house options' columns (R19-R21): kontra, re, bock, Ramsch points and values;
    null under a rule set without the option, as the compiled builders leave them (the
    views read a null flag as false)."""
    result = record.result
    ramsch = result.ramsch
    rules = record.rules
    return (result.kontra is not None if rules.kontra_re else None,
            result.re if rules.kontra_re else None, record.bock if rules.bock else None,
            list(ramsch.points) if ramsch is not None else None,
            list(ramsch.values) if ramsch is not None else None)
assert set(_META_COLUMNS) | set(_RESULT_COLUMNS) | {
    "deal", "forehand_cards", "middlehand_cards", "rearhand_cards", "ingest_id",
} == set(GAMES_SCHEMA.names)


def _utf8_ok(text: str) -> bool:
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def unstorable_text(game: LogGame) -> str:
    """Why a game's names or ids cannot be stored as UTF-8 (a lone surrogate from a JSON
    ``\\ud800`` escape), or ``""`` when they can."""
    meta = game.meta
    for what, text in (("a player name", meta.players[0]), ("a player name", meta.players[1]),
                       ("a player name", meta.players[2]), ("the record id", meta.record_id),
                       ("the session id", meta.session_id), ("the club", meta.club),
                       ("the table", meta.table), ("the source name", game.source)):
        if not _utf8_ok(text):
            return f"{what} {text!r} is not valid Unicode text (a lone surrogate)"
    return ""


def _clean(text: str | None) -> str | None:
    """Text made storable: lone surrogates become ``?`` (rejects only, for diagnostics)."""
    if text is None or _utf8_ok(text):
        return text
    return text.encode("utf-8", "replace").decode("utf-8")


class RejectRowsBuilder:
    """Accumulates ``rejects`` rows for invalid log games."""

    def __init__(self, ingest_id: str | None = None) -> None:
        self.ingest_id = ingest_id
        self.clear()

    def clear(self) -> None:
        self.columns: dict[str, list[Any]] = {f.name: [] for f in REJECTS_SCHEMA}

    def __len__(self) -> int:
        return len(self.columns["reject_id"])

    def add(self, game: LogGame, reject_id: int | None = None) -> int:
        """Add an invalid game; returns its reject_id."""
        if reject_id is None:
            reject_id = reject_id_of(game.raw)
        errors = game.errors or (GameError("syntax", "no record could be built", game.line),)
        first = errors[0]
        c = self.columns
        c["reject_id"].append(reject_id)
        c["source"].append(_clean(game.source))
        c["line"].append(game.line)
        c["source_format"].append(game.format)
        c["record_id"].append(_clean(game.meta.record_id) or None)
        c["code"].append(first.code)
        c["message"].append(_clean(first.message))
        c["move"].append(first.move)
        c["rule"].append(first.rule or None)
        c["errors"].append([{"code": e.code, "message": _clean(e.message), "line": e.line,
                             "move": e.move, "rule": e.rule or None} for e in errors])
        c["raw"].append(_clean(game.raw))
        c["ingest_id"].append(self.ingest_id)
        return reject_id

    def table(self) -> pa.Table:
        return table_from_columns("rejects", self.columns, len(self))


def ingest_table(
    *,
    ingest_id: str,
    kind: str,
    started_at: datetime,
    finished_at: datetime,
    fmt: str | None,
    files: Sequence[tuple[str, str, int]],
    seen: int,
    stored: int,
    duplicates: int,
    rejected: int,
    rejects_stored: int,
    rejected_by_code: Mapping[str, int],
    skatlog_version: str,
) -> pa.Table:
    """The one-row ``ingests`` table describing a run (files as (path, sha256, bytes))."""
    columns = {
        "ingest_id": [ingest_id],
        "kind": [kind],
        "started_at": [started_at],
        "finished_at": [finished_at],
        "seconds": [(finished_at - started_at).total_seconds()],
        "format": [fmt],
        "files": [[{"path": p, "sha256": h, "bytes": b} for p, h, b in files]],
        "seen": [seen],
        "stored": [stored],
        "duplicates": [duplicates],
        "rejected": [rejected],
        "rejects_stored": [rejects_stored],
        "rejected_by_code": [[{"code": k, "count": v}
                              for k, v in sorted(rejected_by_code.items())]],
        "skatlog_version": [skatlog_version],
        "schema_version": [SCHEMA_VERSION],
    }
    return table_from_columns("ingests", columns, 1)
