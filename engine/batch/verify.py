"""The differential test: every simulated hand replayed through ``GameState.apply`` (under
``foster`` through :class:`~skatlog.engine.FosterHand`)."""

from __future__ import annotations

from dataclasses import dataclass

from ..game import new_state
from .foster_kernel import FOSTER_EXTRA_COLUMNS
from .games import BatchGames

_FX = {name: i for i, name in enumerate(FOSTER_EXTRA_COLUMNS)}


@dataclass(frozen=True, slots=True)
class Mismatch:
    """A hand where the simulator and the engine disagree (or the engine refused a move)."""

    index: int
    field: str
    simulator: object
    engine: object


def verify_batch(batch: BatchGames, rows: range | None = None) -> list[Mismatch]:
    """Replay ``rows`` of ``batch`` through the validated engine path and compare the tricks
    (cards, winners) and every scored field; an empty list means all agree. A Foster batch
    replays through :class:`~skatlog.engine.FosterHand` (F2-F12): his score, the turned
    card, Passt-mir-nicht and a Ramsch's points and values are compared too."""
    out: list[Mismatch] = []
    foster = batch.rules.foster
    for row in rows if rows is not None else range(len(batch)):
        index = batch.start + row
        bock = batch.extra is not None and not foster and bool(batch.extra[row, -1])  # R21
        state = new_state(batch.deal_of(row), rules=batch.rules, bock=bock)
        try:
            for move in batch.moves(row):
                state.apply(move)
        except ValueError as err:
            out.append(Mismatch(index, "replay", "legal", f"{type(err).__name__}: {err}"))
            continue
        if not state.finished:
            out.append(Mismatch(index, "finished", True, False))
            continue
        result = state.result()
        sim_tricks = [
            (tuple(int(c) for c in batch.cards[row, 3 * t:3 * t + 3]), int(batch.winners[row, t]))
            for t in range(int(batch.column("n_cards")[row]) // 3)
        ]
        eng_tricks = [(tuple(int(c) for c in t.cards), t.winner) for t in state.tricks]
        if sim_tricks != eng_tricks:
            out.append(Mismatch(index, "tricks", sim_tricks, eng_tricks))
        declarer = int(batch.column("declarer")[row])
        expected: dict[str, object] = {"declarer": None if declarer < 0 else declarer,
                                       "bid": int(batch.column("bid")[row])}
        got: dict[str, object] = {"declarer": result.declarer, "bid": result.bid}
        if result.score is not None:
            score = result.score
            pairs: tuple[tuple[str, int | None], ...] = (
                ("won", int(score.won)), ("value", score.value),
                ("game_value", score.game_value), ("multiplier", score.multiplier),
                ("overbid", int(score.overbid)), ("schneider", int(score.schneider)),
                ("schwarz", int(score.schwarz)), ("matadors", result.matadors),
                ("declarer_points", result.declarer_points),
                ("defender_points", result.defender_points),
                ("declarer_tricks", result.declarer_tricks),
                ("defender_tricks", result.defender_tricks),
            )
            for name, value in pairs:
                got[name] = value
                expected[name] = int(batch.column(name)[row])
        elif declarer >= 0:
            got["score"] = None
            expected["score"] = "scored"
        if foster:
            _foster_fields(batch, row, state, expected, got)
        elif batch.extra is not None:  # the house options: Kontra, Re, a Ramsch's result
            extra = [int(x) for x in batch.extra[row]]
            expected["kontra"] = None if extra[0] < 0 else extra[0]
            got["kontra"] = result.kontra
            expected["re"] = bool(extra[1])
            got["re"] = result.re
            ramsch = result.ramsch
            played_ramsch = declarer < 0 and int(batch.column("n_cards")[row]) > 0
            expected["ramsch"] = (tuple(extra[2:5]), tuple(extra[5:8])) if played_ramsch \
                else None
            got["ramsch"] = None if ramsch is None else (ramsch.points, ramsch.values)
        for name, wanted in expected.items():
            if got[name] != wanted:
                out.append(Mismatch(index, name, wanted, got[name]))
    return out


def _foster_fields(batch: BatchGames, row: int, hand: object, expected: dict[str, object],
                   got: dict[str, object]) -> None:
    """F5, F12: the Foster facts of a row against the replayed hand's."""
    from ..foster_game import FosterHand

    assert isinstance(hand, FosterHand) and batch.extra is not None
    extra = [int(x) for x in batch.extra[row]]
    expected["game"] = int(batch.column("decl")[row])
    got["game"] = None if hand.game is None else int(hand.game)
    expected["turned"] = None if extra[_FX["turned"]] < 0 else extra[_FX["turned"]]
    got["turned"] = None if hand.turned is None else int(hand.turned)
    expected["passt_mir_nicht"] = bool(extra[_FX["passt_mir_nicht"]])
    got["passt_mir_nicht"] = hand.passt_mir_nicht
    fr = hand.foster_result()
    first = _FX["ramsch_points_0"]
    expected["ramsch"] = (tuple(extra[first:first + 3]), tuple(extra[first + 3:first + 6])) \
        if fr.ramsch_points is not None else None
    got["ramsch"] = None if fr.ramsch_points is None else (fr.ramsch_points, fr.ramsch_values)
