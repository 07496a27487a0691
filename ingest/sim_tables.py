"""The ``games``, ``tricks`` and ``auction`` tables of a batch of simulated hands.

:func:`batch_tables` wraps the arrays of the compiled row pass (:mod:`.sim_rows`) and the
batch's own result columns as Arrow columns of the archive's schema (:mod:`.schema`,
``origin = simulated``, ``seed`` and ``bots`` per game), without copying them. Both the
simulation runs (:mod:`skatlog.simulation`) and ingest's re-simulation of claimed hands
(:mod:`.simulated`) store exactly these rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa

from skatlog.engine.batch.games import BatchGames
from skatlog.engine.batch.tables import DECL_T
from skatlog.engine.contract import Contract
from skatlog.engine.session import HANDS_PER_SESSION

from .schema import table_from_columns
from .sim_ids import run_ids
from .sim_rows import TRICK_SMALL_COLUMNS, batch_rows, needs_moves_text

_OUTCOMES = pa.array(["played", "passed"])
_ENDINGS = pa.array(["all_passed", "ten_tricks", "null_trick"])
_CONTRACTS = pa.array([c.label for c in Contract])
_HOUSE_OUTCOMES = pa.array(["played", "passed", "ramsch"])
_HOUSE_CONTRACTS = pa.array([c.label for c in Contract] + ["ramsch"])
_KINDS = pa.array(["bid", "hold", "pass"])


def player_names(bots: Sequence[str]) -> tuple[str, str, str]:
    """Names of the three table positions of a run: ``P1:rules``, ``P2:rules``,
    ``P3:random``."""
    return (f"P1:{bots[0]}", f"P2:{bots[1]}", f"P3:{bots[2]}")


def _dict(indices: np.ndarray, dictionary: pa.Array | list[str],
          valid: pa.Buffer | None = None, nulls: int = 0) -> pa.DictionaryArray:
    """A dictionary column from int indices; ``valid`` is a validity bitmap (see
    :func:`_validity`) with ``nulls`` null rows, shared by the columns it applies to."""
    values = dictionary if isinstance(dictionary, pa.Array) else pa.array(dictionary)
    codes = indices.astype(np.int32, copy=False)
    return pa.DictionaryArray.from_arrays(_array(codes, pa.int32(), valid, nulls), values)


def _validity(passed: np.ndarray) -> tuple[pa.Buffer | None, int]:
    """The validity bitmap of the columns that are null in passed hands, and their count."""
    nulls = int(passed.sum())
    if nulls == 0:
        return None, 0
    return pa.py_buffer(np.packbits(~passed, bitorder="little")), nulls


def _array(values: np.ndarray, type_: pa.DataType, valid: pa.Buffer | None, nulls: int
           ) -> pa.Array:
    """``values`` as an Arrow array of ``type_`` with the given validity bitmap (no copy
    when ``values`` already is a contiguous array of that width)."""
    data = np.ascontiguousarray(values.astype(type_.to_pandas_dtype(), copy=False))
    return pa.Array.from_buffers(type_, len(values), [valid, pa.py_buffer(data)], nulls)


def _flag(values: np.ndarray, valid: pa.Buffer | None, nulls: int) -> pa.Array:
    bits = pa.py_buffer(np.packbits(values.astype(bool), bitorder="little"))
    return pa.Array.from_buffers(pa.bool_(), len(values), [valid, bits], nulls)


def _house_columns(batch: BatchGames, games: dict[str, object], passed: np.ndarray,
                   contract: np.ndarray, rows: Any, text_rows: np.ndarray) -> None:
    """The columns of a batch played under ``isko``'s house options (R19-R21), over the
    plain ones in ``games``: the rule set, ``kontra``/``re`` (null without ``kontra_re``,
    as a logged game's row has them), a Ramsch's outcome, contract, points and values by
    seat, ``bock``, and the move lists of the hands with Kontra (the rows rebuild none of
    it)."""
    assert batch.extra is not None
    n = len(batch)
    const = np.zeros(n, dtype=np.int32)
    rules = batch.rules
    ramsch = passed & (batch.column("n_cards") > 0)
    outcome = np.where(ramsch, 2, passed.astype(np.int32))
    games["passed"] = passed & ~ramsch
    games["outcome"] = _dict(outcome.astype(np.int32), _HOUSE_OUTCOMES)
    games["ending"] = _dict(np.where(ramsch, 1, np.where(passed, 0, np.where(
        (contract == Contract.NULL) & (batch.column("declarer_tricks") > 0), 2, 1))
        ).astype(np.int32), _ENDINGS)
    labelled = ~passed | ramsch
    games["contract"] = _dict(np.where(ramsch, len(_CONTRACTS), contract).astype(np.int32),
                              _HOUSE_CONTRACTS, *_validity(~labelled))
    games["rules"] = _dict(const, [str(rules)])
    if rules.kontra_re:
        games["kontra"] = batch.column("kontra_by") >= 0  # false where none was said
        games["re"] = batch.column("re") != 0
    if rules.bock:
        games["bock"] = batch.column("bock") != 0
    offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(ramsch * np.int32(3), out=offsets[1:])
    mask = pa.array(~ramsch)
    for name, first in (("ramsch_points", 2), ("ramsch_values", 5)):
        values = batch.extra[ramsch, first:first + 3].reshape(-1).astype(np.int16)
        games[name] = pa.ListArray.from_arrays(pa.array(offsets), pa.array(values),
                                               mask=mask)
    said: np.ndarray = np.flatnonzero(batch.column("kontra_by") >= 0) if rules.kontra_re \
        else np.zeros(0, dtype=np.int64)
    if len(said):  # the rows rebuild no Kontra or Re: such hands keep their move list
        texts = [None if not text_rows[i] else _text_of(rows, i) for i in range(n)]
        kontra_by = batch.column("kontra_by")
        declarer = batch.column("declarer")
        n_cards = batch.column("n_cards")
        re = batch.column("re")
        for i in said:  # the compiled text, with the calls after the declaration (R19)
            tokens = texts[i].split(" ")  # type: ignore[union-attr]
            calls = [f"{kontra_by[i]}K"] + ([f"{declarer[i]}R"] if re[i] else [])
            at = len(tokens) - int(n_cards[i])
            texts[i] = " ".join(tokens[:at] + calls + tokens[at:])
        games["moves"] = pa.array(texts, pa.string())


def _text_of(rows: Any, i: int) -> str:
    return bytes(rows.text[rows.offsets[i]:rows.offsets[i + 1]]).decode("ascii")


def batch_tables(batch: BatchGames, id_base: int, sessions: bool = False,
                 ingest_id: str | None = None) -> dict[str, pa.Table]:
    """The ``games``, ``tricks`` and ``auction`` tables of a simulated batch, whose run
    numbers its hands from ``id_base`` (:func:`.sim_ids.run_base`) and deals 12-hand
    sessions when ``sessions``.

    Every per-row array comes from a compiled pass over the batch (:mod:`.sim_rows`)
    or one numpy cast per column; pyarrow wraps the arrays without copying them. A batch
    of Foster hands gets its rows from :func:`.sim_foster.foster_batch_tables`.
    """
    if batch.rules.foster:
        from .sim_foster import foster_batch_tables

        return foster_batch_tables(batch, id_base, sessions, ingest_id)
    n = len(batch)
    ids = run_ids(id_base, batch.start, n)
    text_rows = needs_moves_text(batch)  # the rest rebuild from their rows exactly
    if batch.extra is not None and batch.rules.kontra_re:  # nor do Kontra and Re (R19)
        text_rows = text_rows | (batch.column("kontra_by") >= 0)
    rows = batch_rows(batch, ids, text_rows)

    col = batch.column
    declarer = col("declarer").astype(np.int8)
    passed = declarer < 0
    decl = col("decl").astype(np.int64)
    decl_rows = DECL_T[np.where(passed, 0, decl)]
    contract = decl_rows[:, 0]
    pickup = col("pickup").astype(bool)
    declarer_tricks = col("declarer_tricks")
    valid, nulls = _validity(passed)
    ending = np.where(passed, 0, np.where((contract == Contract.NULL) & (declarer_tricks > 0),
                                          2, 1))
    games = run_columns(batch, ids, rows, declarer, pickup & ~passed, valid, nulls)
    games.update({
        "passed": passed,
        "outcome": _dict(passed.astype(np.int32), _OUTCOMES),
        "ending": _dict(ending, _ENDINGS),
        "contract": _dict(contract, _CONTRACTS, valid, nulls),
        "hand": _flag(decl_rows[:, 1], valid, nulls),
        "schneider_announced": _flag(decl_rows[:, 2], valid, nulls),
        "schwarz_announced": _flag(decl_rows[:, 3], valid, nulls),
        "ouvert": _flag(decl_rows[:, 4], valid, nulls),
        "moves": pa.StringArray.from_buffers(n, pa.py_buffer(rows.offsets),
                                             pa.py_buffer(rows.text),
                                             *_validity(~text_rows)),
    })
    score_columns(games, batch, valid, nulls)
    if batch.extra is not None:
        _house_columns(batch, games, passed, contract, rows, text_rows)
    return run_tables(games, batch, rows, sessions, ingest_id)


def run_columns(batch: BatchGames, ids: np.ndarray, rows: Any, declarer: np.ndarray,
                laid_away: np.ndarray, valid: pa.Buffer | None, nulls: int
                ) -> dict[str, object]:
    """The ``games`` columns every simulated batch fills alike (the modern and Foster's):
    ids, origin, the players by seat and the dealer (Rearhand, R1), the deal and its masks,
    the declarer, the skat taken and laid away, bid, value, rule set, seed and bots."""
    n = len(batch)
    dealer = batch.index % 3
    positions = [(dealer + 1 + seat) % 3 for seat in range(3)]  # seat -> table position
    names = list(player_names(batch.bots))
    rotations = [",".join(batch.bots[(d + 1 + s) % 3] for s in range(3)) for d in range(3)]
    discard_offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(laid_away * np.int32(2), out=discard_offsets[1:])
    discard_values = batch.discard[laid_away].reshape(-1).view(np.uint8)
    discard = pa.ListArray.from_arrays(pa.array(discard_offsets), pa.array(discard_values),
                                       mask=pa.array(~laid_away))
    const = np.zeros(n, dtype=np.int32)
    return {
        "game_id": ids,
        "origin": _dict(const, ["simulated"]),
        "source": _dict(const, ["simulated"]),
        "forehand": _dict(positions[0], names),
        "middlehand": _dict(positions[1], names),
        "rearhand": _dict(positions[2], names),
        "dealer": np.full(n, 2, dtype=np.int8),  # the dealer sits Rearhand (R1, F1)
        "deal": batch.deal.view(np.uint8),
        "forehand_cards": rows.masks[0],
        "middlehand_cards": rows.masks[1],
        "rearhand_cards": rows.masks[2],
        "declarer": _array(declarer, pa.int8(), valid, nulls),
        "declarer_name": _dict(np.choose(np.maximum(declarer, 0), positions), names, valid,
                               nulls),
        "skat_taken": _flag(laid_away, valid, nulls),
        "discard": discard,
        "bid": batch.column("bid"),
        "value": batch.column("value"),
        "value_check": _dict(const, ["not_recorded"]),
        "rules": _dict(const, [str(batch.rules)]),
        "recorded_rules": np.zeros(n, dtype=bool),
        "seed": np.full(n, batch.seed, dtype=np.int64),
        "bots": _dict(dealer, rotations),
    }


def score_columns(games: dict[str, object], batch: BatchGames, valid: pa.Buffer | None,
                  nulls: int) -> None:
    """The scored columns of a batch's ``games`` rows (null where ``valid`` says so)."""
    col = batch.column
    for name, type_ in (("matadors", pa.int8()), ("declarer_points", pa.int16()),
                        ("defender_points", pa.int16()), ("declarer_tricks", pa.int8()),
                        ("defender_tricks", pa.int8()), ("game_value", pa.int16()),
                        ("multiplier", pa.int8())):
        games[name] = _array(col(name), type_, valid, nulls)
    for name in ("schneider", "schwarz", "won", "overbid"):
        games[name] = _flag(col(name), valid, nulls)


def run_tables(games: dict[str, object], batch: BatchGames, rows: Any, sessions: bool,
               ingest_id: str | None) -> dict[str, pa.Table]:
    """The three tables of a batch: ``games`` with the run's sessions and ingest id added,
    and the ``tricks`` and ``auction`` rows of the compiled row pass (:mod:`.sim_rows`)."""
    n = len(batch)
    index = batch.index
    if sessions and n:
        session_no = index // HANDS_PER_SESSION
        labels = [f"sim-{batch.seed}-{s}" for s in range(int(session_no[0]),
                                                          int(session_no[-1]) + 1)]
        games["session_id"] = _dict(session_no - session_no[0], labels).cast(pa.string())
        games["hand_no"] = (index % HANDS_PER_SESSION + 1).astype(np.int8)
    if ingest_id is not None:
        games["ingest_id"] = _dict(np.zeros(n, dtype=np.int32), [ingest_id])

    # tricks: one row per completed trick
    tricks: dict[str, object] = {"game_id": rows.trick_ids}
    tricks.update(zip(TRICK_SMALL_COLUMNS, rows.trick, strict=True))

    # auction: one row per call; a hold repeats the bid it holds
    auction = {
        "game_id": rows.call_ids,
        "call_no": rows.call[0],
        "seat": rows.call[1],
        "kind": _dict(rows.kind, _KINDS),
        "value": _array(rows.value, pa.int16(), *_validity(rows.is_pass)),
    }
    return {
        "games": table_from_columns("games", games, n),
        "tricks": table_from_columns("tricks", tricks, len(rows.trick_ids)),
        "auction": table_from_columns("auction", auction, len(rows.call_ids)),
    }
