"""skatlog's compact move notation: a game's whole move list as one short string.

``games.moves`` (see :mod:`.schema`) holds it: tokens separated by one space, each token
the seat digit (0 Forehand, 1 Middlehand, 2 Rearhand) followed by the action ::

      <seat><digits>   bid            "118"   Middlehand bids 18
      <seat>y          hold           "0y"
      <seat>p          pass           "2p"
      <seat>s          pick up skat   "0s"
      <seat>d<c>.<c>   discard        "0dST.H8"
      <seat>=<decl>    declare (ISS)  "0=CHS", "1=G", "2=NO"
      <seat><card>     play           "0CJ"
      <seat>RE / SC    resign / show cards (R17)
      <seat>TI / LE    time-out / left the table (R17)
      <seat>K / R      Kontra / Re (option kontra_re, R19)
      <seat>t<card>    Foster: turns a skat card (Tournée); T after Passt-mir-nicht
      <seat>g          Foster: gucki (both skat cards taken unseen)
      <seat>:<game>    Foster: names his game, e.g. "0:tournee_hearts", "1:solo_clubs/S"
                       (/S schneider, /SZ schwarz announced)


:func:`encode_moves` and :func:`decode_moves` convert; they round-trip exactly. The
compiled writers (:mod:`.sim_rows`, the ISS kernel's game-id key) write the same text.
"""

from __future__ import annotations

from collections.abc import Iterable

from skatlog.engine import (
    Bid,
    Card,
    Declaration,
    Declare,
    Discard,
    Hold,
    Kontra,
    Leave,
    Move,
    Pass,
    PickUp,
    Play,
    Re,
    Resign,
    ShowCards,
    TimeOut,
)
from skatlog.engine.foster import FosterGame
from skatlog.engine.moves import FosterDeclare, Gucki, Turn

_SimpleMove = type[Hold] | type[Pass] | type[PickUp] | type[Resign] | type[ShowCards] | \
    type[TimeOut] | type[Leave] | type[Kontra] | type[Re] | type[Gucki]
_SIMPLE: dict[_SimpleMove, str] = {
    Hold: "y", Pass: "p", PickUp: "s", Resign: "RE", ShowCards: "SC", TimeOut: "TI", Leave: "LE",
    Kontra: "K", Re: "R", Gucki: "g",
}
_SIMPLE_BACK: dict[str, _SimpleMove] = {code: kind for kind, code in _SIMPLE.items()}
_CARD_NAMES = tuple(c.name for c in Card)


class MovesError(ValueError):
    """Text that is not a move list in skatlog's compact notation."""


def encode_move(move: Move) -> str:
    """One move as a token of the compact notation (module doc)."""
    kind = type(move)
    seat = str(move.seat)
    if kind is Play:
        return seat + _CARD_NAMES[move.card]  # type: ignore[union-attr]
    if kind is Bid:
        return seat + str(move.value)  # type: ignore[union-attr]
    code = _SIMPLE.get(kind)  # type: ignore[arg-type]
    if code is not None:
        return seat + code
    if kind is Discard:
        a, b = move.cards  # type: ignore[union-attr]
        return f"{seat}d{_CARD_NAMES[a]}.{_CARD_NAMES[b]}"
    if kind is Declare:
        return seat + "=" + move.declaration.iss  # type: ignore[union-attr]
    if kind is Turn:
        return seat + ("T" if move.passt_mir_nicht else "t") + _CARD_NAMES[move.card]  # type: ignore[union-attr]
    if kind is FosterDeclare:
        d = move  # a Foster game by its name, with a solo's announcements
        marks = "SZ" if d.schwarz_announced else ("S" if d.schneider_announced else "")  # type: ignore[union-attr]
        return f"{seat}:{FosterGame(d.game).label}" + (f"/{marks}" if marks else "")  # type: ignore[union-attr]
    raise MovesError(f"cannot encode {move!r}")


def encode_moves(moves: Iterable[Move]) -> str:
    """A move list in the compact notation: ``"1p 2p 018 0s 0dST.H8 0=C 0CJ ..."``."""
    return " ".join(encode_move(m) for m in moves)


def decode_move(token: str) -> Move:
    """Parse one token of the compact notation; raises :class:`MovesError`."""
    if len(token) < 2 or token[0] not in "012":
        raise MovesError(f"bad move token {token!r}")
    seat = int(token[0])
    action = token[1:]
    try:
        if action.isdigit():
            return Bid(seat, int(action))
        simple = _SIMPLE_BACK.get(action)
        if simple is not None:
            return simple(seat)
        if action[0] == "d":
            a, b = action[1:].split(".")
            return Discard(seat, (Card.from_iss(a), Card.from_iss(b)))
        if action[0] == "=":
            return Declare(seat, Declaration.from_iss(action[1:]))
        if action[0] in "tT" and len(action) == 3:
            return Turn(seat, Card.from_iss(action[1:]), action[0] == "T")
        if action[0] == ":":
            name, _, marks = action[1:].partition("/")
            if marks not in ("", "S", "SZ"):
                raise ValueError(f"announcements are /S or /SZ, not /{marks}")
            return FosterDeclare(seat, int(FosterGame.from_label(name)), bool(marks),
                                 marks == "SZ")
        return Play(seat, Card.from_iss(action))
    except ValueError as err:
        raise MovesError(f"bad move token {token!r}: {err}") from err


_DECODED: dict[str, Move] = {}


def decode_moves(text: str) -> tuple[Move, ...]:
    """The moves of a compact-notation move list (inverse of :func:`encode_moves`).

    Moves are small frozen values from a small vocabulary, so decoded tokens are cached."""
    if not text:
        return ()
    cache = _DECODED
    moves = []
    for token in text.split():
        move = cache.get(token)
        if move is None:
            move = decode_move(token)
            if len(cache) < 100_000:
                cache[token] = move
        moves.append(move)
    return tuple(moves)
