"""The ``games``, ``tricks`` and ``auction`` tables of a batch of simulated Foster hands.

:func:`foster_batch_tables` makes them from the batch's arrays, as :mod:`.sim_tables` does
for the modern game: the card masks, tricks and auction of :func:`.sim_rows.batch_rows`, the
full move list of every hand by a compiled writer (the turned card is in no other column),
the games columns by numpy. :func:`reference_tables` makes the same tables the slow way:
every hand replayed through :class:`~skatlog.engine.FosterHand` (after
:func:`~skatlog.engine.batch.verify_batch` found the loop's score equal to the rules') and
added to the logged-record row builder (:class:`.rows.GameRowsBuilder`); the tests hold the
two equal, and ``skatlog verify`` replays a stored run.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from skatlog.engine import core
from skatlog.engine.batch.foster_kernel import FOSTER_EXTRA_COLUMNS
from skatlog.engine.batch.games import BatchGames
from skatlog.engine.batch.kernel import GAME_COLUMNS
from skatlog.engine.batch.verify import verify_batch
from skatlog.engine.foster import FosterGame, contract_name
from skatlog.engine.foster_game import replay_foster
from skatlog.engine.jit import njit
from skatlog.engine.record import GameRecord
from skatlog.engine.session import HANDS_PER_SESSION

from .rows import GameRowsBuilder, SimulatedMeta
from .sim_ids import run_ids
from .sim_rows import CARD_NAME_T, batch_rows


class SimulatorMismatch(AssertionError):
    """The compiled Foster loop played or scored a hand otherwise than the reference rules."""


def foster_records(batch: BatchGames) -> list[GameRecord]:
    """Every hand of the batch replayed under ``foster`` as a record, after
    :func:`~skatlog.engine.batch.verify_batch` found the loop's play and score equal to
    the reference rules' (SimulatorMismatch otherwise)."""
    problems = verify_batch(batch)
    if problems:
        first = problems[0]
        raise SimulatorMismatch(f"{len(problems)} differences in seed {batch.seed}; hand "
                                f"{first.index}: {first.field} is {first.simulator} in the "
                                f"compiled loop, {first.engine} by the rules")
    return [GameRecord.from_state(replay_foster(batch.deal_of(row), batch.moves(row)))
            for row in range(len(batch))]


def reference_tables(batch: BatchGames, id_base: int, sessions: bool = False,
                     ingest_id: str | None = None) -> dict[str, pa.Table]:
    """The archive tables of a simulated Foster batch the reference way: every hand
    replayed (:func:`foster_records`) and added to a :class:`.rows.GameRowsBuilder` as a
    logged record is. :func:`foster_batch_tables` makes the same tables from the arrays
    (a test holds them equal)."""
    from .sim_tables import player_names

    names = player_names(batch.bots)
    ids = run_ids(id_base, batch.start, len(batch))
    builder = GameRowsBuilder(ingest_id)
    for row, record in enumerate(foster_records(batch)):
        index = batch.start + row
        dealer = index % 3
        positions = [(dealer + 1 + seat) % 3 for seat in range(3)]  # seat -> table position
        session = index // HANDS_PER_SESSION
        meta = SimulatedMeta(
            seed=batch.seed,
            bots=",".join(batch.bots[p] for p in positions),
            players=(names[positions[0]], names[positions[1]], names[positions[2]]),
            session_id=f"sim-{batch.seed}-{session}" if sessions else "",
            hand_no=index % HANDS_PER_SESSION + 1 if sessions else None,
            dealer=2,  # with three players Hinterhand deals (F1, law 15)
        )
        builder.add_simulated(record, meta, game_id=int(np.int64(ids[row])))
    return builder.tables()


# ------------------------------------------------------------ the columnar (fast) path
def _name_table(names: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    width = max(len(n) for n in names)
    table = np.zeros((len(names), width), dtype=np.uint8)
    for i, name in enumerate(names):
        table[i, :len(name)] = np.frombuffer(name.encode("ascii"), dtype=np.uint8)
    return table, np.array([len(n) for n in names], dtype=np.int64)


#: FOSTER_NAME_T[kind] -> the game's name (``tournee_hearts``), FOSTER_LEN_T its length.
FOSTER_NAME_T, FOSTER_LEN_T = _name_table(core.FOSTER_NAMES)
#: Positions in ``GAME_COLUMNS`` and ``FOSTER_EXTRA_COLUMNS`` the text pass reads.
_READ = np.array([GAME_COLUMNS.index(name) for name in (
    "declarer", "pickup", "declare_first", "decl", "n_cards")] + [
    FOSTER_EXTRA_COLUMNS.index(name) for name in (
        "turned", "passt_mir_nicht", "schneider_announced", "schwarz_announced")],
    dtype=np.int64)


@njit(inline="always", error_model="numpy")
def _put(out: np.ndarray, pos: int, byte: int, write: bool) -> int:
    if write:
        out[pos] = byte
    return pos + 1


@njit(error_model="numpy")
def _foster_row_text(i: int, n_calls: np.ndarray, calls: np.ndarray, call_seats: np.ndarray,
                     game: np.ndarray, extra: np.ndarray, discard: np.ndarray,
                     cards: np.ndarray, winners: np.ndarray, read: np.ndarray,
                     card_names: np.ndarray, names: np.ndarray, lens: np.ndarray,
                     out: np.ndarray, pos: int, write: bool) -> int:
    """Hand ``i``'s move list in the compact notation (:func:`.moves_codec.encode_moves`)
    at ``pos`` (``write`` false: only its length); returns the end."""
    start = pos
    for k in range(n_calls[i]):
        if pos > start:
            pos = _put(out, pos, 32, write)
        pos = _put(out, pos, 48 + call_seats[i, k], write)
        code = calls[i, k]
        if code == 0:
            pos = _put(out, pos, 112, write)  # p
        elif code == 1:
            pos = _put(out, pos, 121, write)  # y
        else:
            digits = 1 if code < 10 else (2 if code < 100 else 3)
            if write:
                value = code
                for j in range(digits - 1, -1, -1):
                    out[pos + j] = 48 + value % 10
                    value //= 10
            pos += digits
    d = game[i, read[0]]
    if d >= 0:
        kind = game[i, read[3]]
        turned = extra[i, read[5]]
        gucki_first = game[i, read[1]] != 0 and turned < 0 and game[i, read[2]] == 0
        # the steps: 0 turn, 1 gucki, 2 name the game, 3 lay out; base-4 digits
        if game[i, read[1]] == 0:
            n_steps = 1
            steps = 2
        elif turned >= 0:
            n_steps = 3
            steps = 0 + 4 * 2 + 16 * 3
        elif gucki_first:
            n_steps = 3
            steps = 1 + 4 * 2 + 16 * 3
        else:  # a gucki nullo, named before the skat is touched (law 28)
            n_steps = 3
            steps = 2 + 4 * 1 + 16 * 3
        for s in range(n_steps):
            step = (steps >> (2 * s)) & 3
            pos = _put(out, pos, 32, write)
            pos = _put(out, pos, 48 + d, write)
            if step == 0:
                pos = _put(out, pos, 84 if extra[i, read[6]] else 116, write)  # T / t
                pos = _put(out, pos, card_names[turned, 0], write)
                pos = _put(out, pos, card_names[turned, 1], write)
            elif step == 1:
                pos = _put(out, pos, 103, write)  # g
            elif step == 2:
                pos = _put(out, pos, 58, write)  # :
                for j in range(lens[kind]):
                    pos = _put(out, pos, names[kind, j], write)
                if extra[i, read[8]]:
                    pos = _put(out, pos, 47, write)  # /SZ
                    pos = _put(out, pos, 83, write)
                    pos = _put(out, pos, 90, write)
                elif extra[i, read[7]]:
                    pos = _put(out, pos, 47, write)  # /S
                    pos = _put(out, pos, 83, write)
            else:
                a = discard[i, 0]
                b = discard[i, 1]
                pos = _put(out, pos, 100, write)  # d
                pos = _put(out, pos, card_names[a, 0], write)
                pos = _put(out, pos, card_names[a, 1], write)
                pos = _put(out, pos, 46, write)  # .
                pos = _put(out, pos, card_names[b, 0], write)
                pos = _put(out, pos, card_names[b, 1], write)
    leader = 0
    for k in range(game[i, read[4]]):
        if pos > start:
            pos = _put(out, pos, 32, write)
        pos = _put(out, pos, 48 + (leader + k % 3) % 3, write)
        card = cards[i, k]
        pos = _put(out, pos, card_names[card, 0], write)
        pos = _put(out, pos, card_names[card, 1], write)
        if k % 3 == 2:
            leader = winners[i, k // 3]
    return pos


@njit(nogil=True, error_model="numpy")
def _foster_texts(n_calls: np.ndarray, calls: np.ndarray, call_seats: np.ndarray,
                  game: np.ndarray, extra: np.ndarray, discard: np.ndarray, cards: np.ndarray,
                  winners: np.ndarray, read: np.ndarray, card_names: np.ndarray,
                  names: np.ndarray, lens: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(int32 offsets, UTF-8 bytes) of every hand's move list."""
    count = game.shape[0]
    offsets = np.zeros(count + 1, dtype=np.int32)
    scratch = np.zeros(1, dtype=np.uint8)
    for i in range(count):
        offsets[i + 1] = _foster_row_text(i, n_calls, calls, call_seats, game, extra,
                                          discard, cards, winners, read, card_names, names,
                                          lens, scratch, offsets[i], False)
    text = np.empty(offsets[count], dtype=np.uint8)
    for i in range(count):
        _foster_row_text(i, n_calls, calls, call_seats, game, extra, discard, cards, winners,
                         read, card_names, names, lens, text, offsets[i], True)
    return offsets, text


def foster_moves_text(batch: BatchGames) -> tuple[np.ndarray, np.ndarray]:
    """(int32 offsets, UTF-8 bytes) of every Foster hand's compact move list (a test holds
    it equal to :func:`.moves_codec.encode_moves` of :meth:`BatchGames.moves`)."""
    assert batch.extra is not None
    return _foster_texts(batch.n_calls, batch.calls, batch.call_seats, batch.game, batch.extra,
                         batch.discard, batch.cards, batch.winners, _READ, CARD_NAME_T,
                         FOSTER_NAME_T, FOSTER_LEN_T)


#: ``games.contract`` of every Foster game kind, then the Tournées after Passt-mir-nicht
#: (``passt_mir_nicht_hearts``, ``passt_mir_nicht_grand``; F5) at kind + 17.
_CONTRACTS = pa.array(list(core.FOSTER_NAMES) + [
    contract_name(FosterGame(k), True) for k in range(core.F_TURNED_GRAND + 1)])
_OUTCOMES = pa.array(["played", "ramsch"])
_ENDINGS = pa.array(["ten_tricks", "null_trick"])
_USES_SKAT = np.array(core.FOSTER_USES_SKAT, dtype=bool)
_OPEN = np.array([name.startswith("open_") for name in core.FOSTER_NAMES], dtype=bool)


def foster_batch_tables(batch: BatchGames, id_base: int, sessions: bool = False,
                        ingest_id: str | None = None) -> dict[str, pa.Table]:
    """The archive tables of a simulated Foster batch whose run numbers its hands from
    ``id_base`` and deals 12-hand sessions when ``sessions``, from the batch's arrays (the
    auction, trick and card-mask rows of :func:`.sim_rows.batch_rows`, the move lists of
    :func:`foster_moves_text`, the games columns by numpy), as :func:`reference_tables`
    makes them by replaying every hand."""
    from .sim_tables import _dict, _flag, _validity, run_columns, run_tables, score_columns

    n = len(batch)
    ids = run_ids(id_base, batch.start, n)
    rows = batch_rows(batch, ids, np.zeros(n, dtype=np.bool_))
    offsets, text = foster_moves_text(batch)
    col = batch.column
    declarer = col("declarer").astype(np.int8)
    ramsch = declarer < 0
    kind = col("decl").astype(np.int64)
    pmn = col("passt_mir_nicht") != 0
    valid, nulls = _validity(ramsch)
    laid_away = col("pickup").astype(bool) & ~ramsch
    nullo_trick = (col("n_cards") < 3 * core.N_TRICKS) & ~ramsch  # F7: over at his trick
    games = run_columns(batch, ids, rows, declarer, laid_away, valid, nulls)
    games.update({
        "passed": np.zeros(n, dtype=bool),  # F4: an all-pass hand is a Ramsch
        "outcome": _dict(ramsch.astype(np.int32), _OUTCOMES),
        "ending": _dict(nullo_trick.astype(np.int32), _ENDINGS),
        "contract": _dict(np.where(pmn, kind + core.N_FOSTER_KINDS, kind), _CONTRACTS),
        "hand": _flag(~_USES_SKAT[kind], valid, nulls),
        "schneider_announced": _flag(col("schneider_announced"), valid, nulls),
        "schwarz_announced": _flag(col("schwarz_announced"), valid, nulls),
        "ouvert": _flag(_OPEN[kind], valid, nulls),
        "moves": pa.StringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(text)),
    })
    score_columns(games, batch, valid, nulls)
    ramsch_offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(ramsch * np.int32(3), out=ramsch_offsets[1:])
    for name in ("ramsch_points", "ramsch_value"):
        values = np.stack([col(f"{name}_{s}") for s in range(3)], axis=1)[ramsch]
        games[name if name == "ramsch_points" else "ramsch_values"] = pa.ListArray.from_arrays(
            pa.array(ramsch_offsets), pa.array(values.reshape(-1).astype(np.int16)),
            mask=pa.array(~ramsch))
    return run_tables(games, batch, rows, sessions, ingest_id)
