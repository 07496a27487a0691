"""skatlog's own log format, ``skatlog/1``: JSON Lines, one game per line (docs/skatlog-format.md).

:func:`read_jsonl` turns one line into a :class:`~.model.ParsedGame` (errors as data, never an
exception); :func:`write_jsonl` writes a validated game so that write -> read gives the same
deal, moves, meta and recorded result. Move numbers: the deal is move 0, then every engine
move (call, pick-up, discard, declaration, card, concession) counts one, in game order.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from skatlog.engine import Card, Contract, Deal, Declaration
from skatlog.engine.core import FOSTER_NAMES
from skatlog.engine.errors import BadDeal
from skatlog.engine.moves import (
    Bid,
    Declare,
    Discard,
    FosterDeclare,
    Gucki,
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
    Turn,
)
from skatlog.engine.record import GameRecord
from skatlog.engine.rules import ISKO, Rules

from .iss import recorded_from_result
from .model import (
    RAMSCH_EXTRA,
    GameMeta,
    LogGame,
    LogSyntaxError,
    ParsedGame,
    RecordedResult,
    UnknownRules,
    read_rules,
)

FORMAT = "skatlog/1"
SEAT_KEYS = ("forehand", "middlehand", "rearhand")
CONCESSIONS: dict[str, type[Resign | ShowCards | TimeOut | Leave]] = {
    "resign": Resign, "show_cards": ShowCards, "time_out": TimeOut, "leave": Leave,
}
_CONCESSION_NAMES: dict[type, str] = {kind: name for name, kind in CONCESSIONS.items()}
#: R19: the doubling calls, listed in ``doubles`` like concessions (type, seat, at).
DOUBLES: dict[str, type[Kontra | Re]] = {"kontra": Kontra, "re": Re}
_DOUBLE_NAMES: dict[type, str] = {kind: name for name, kind in DOUBLES.items()}
_CARDS: dict[str, Card] = {card.name: card for card in Card}
RESULT_FIELDS = ("passed", "penalty", "declarer", "won", "value", "matadors", "overbid",
                 "declarer_points", "declarer_tricks", "schneider", "schwarz", "raw")


# ---------------------------------------------------------------- reading
def read_jsonl(text: str, *, source: str = "", line: int = 1, rules: Rules = ISKO
               ) -> ParsedGame:
    """Read one skatlog/1 line. Problems come back in ``errors``, never raised. ``rules``:
    the rule set of a record without a ``rules`` field (skatlog's own, ``isko``, unless the
    caller says otherwise)."""
    parsed = ParsedGame(source=source, line=line, raw=text, format="jsonl", rules=rules)
    try:
        try:
            obj = json.loads(text)
        except RecursionError:
            raise LogSyntaxError("syntax", "the JSON is nested too deeply") from None
        except ValueError as err:
            raise LogSyntaxError("syntax", f"not valid JSON: {err}") from None
        if not isinstance(obj, dict):
            raise LogSyntaxError("syntax", "a skatlog/1 line is a JSON object")
        if obj.get("format") != FORMAT:
            raise LogSyntaxError("syntax", f'the line is not "format": "{FORMAT}"'
                                 f" (found {_short(obj.get('format'))})")
        try:  # isko+iss: a recorded ISS game (R17 early endings, R18 off-ladder bids)
            named = _get(obj, "rules", str, "")
            if named:
                parsed.rules = read_rules(named)
        except UnknownRules as err:
            raise LogSyntaxError("syntax", f'"rules": {err}') from None
        parsed.meta = _meta(obj, sitting=parsed.rules.foster)
        tags = _get(obj, "tags", dict, {})
        if not all(isinstance(v, str) for v in tags.values()):
            raise LogSyntaxError("syntax", '"tags" values must be strings')
        if tags:
            parsed.extra["tags"] = dict(tags)
        played_at = parsed.meta.played_at
        if played_at is not None and played_at.tzinfo is None:
            # no UTC offset (or a date alone): stored as if UTC, and the text kept, so that
            # export writes back exactly what the log said
            parsed.extra["date"] = obj["date"]
        if "result" in obj and obj["result"] is not None:
            parsed.recorded = _result(_get(obj, "result", dict))
            if parsed.recorded.scores is not None or parsed.recorded.points is not None:
                parsed.extra[RAMSCH_EXTRA] = {  # kept for export (not in the result struct)
                    "scores": parsed.recorded.scores, "points": parsed.recorded.points}
        parsed.bock = _get(obj, "bock", bool, False)
        if parsed.bock and not parsed.rules.bock:
            raise LogSyntaxError("syntax", f'"bock": true needs the option bock in "rules"'
                                 f" (the record is played under {parsed.rules})")
        parsed.deal = _deal(_get(obj, "deal", dict))
        _moves(obj, parsed)
    except LogSyntaxError as err:
        parsed.errors.append(err.as_error(line))
    return parsed


def _short(value: object) -> str:
    text = json.dumps(value)
    return text if len(text) <= 30 else text[:30] + "..."


def _get(obj: dict[str, Any], key: str, kind: type | tuple[type, ...], default: Any = ...,
         ) -> Any:
    """``obj[key]`` checked against ``kind``; a LogSyntaxError names what is wrong."""
    if key not in obj or (obj[key] is None and default is not ...):
        if default is ...:
            raise LogSyntaxError("syntax", f'the field "{key}" is missing')
        return default
    value = obj[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise LogSyntaxError("syntax", f'the field "{key}" has the wrong type: {_short(value)}')
    return value


def _seat(value: object, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value not in (0, 1, 2):
        raise LogSyntaxError("syntax", f"{what} must be a seat 0, 1 or 2, not {_short(value)}")
    return value


def _meta(obj: dict[str, Any], *, sitting: bool = False) -> GameMeta:
    """The meta fields; ``sitting``: a Foster sitting (F1), whole rounds of any length."""
    players = _get(obj, "players", list, ["", "", ""])
    if len(players) != 3 or not all(isinstance(p, str) for p in players):
        raise LogSyntaxError("syntax", '"players" lists three names (Forehand, Middlehand,'
                             " Rearhand)")
    played_at = None
    date = _get(obj, "date", str, "")
    if date:
        try:
            played_at = datetime.fromisoformat(date)
        except ValueError:
            raise LogSyntaxError("syntax", f'"date" {_short(date)} is not an ISO 8601 date'
                                 ) from None
    session = _get(obj, "session", dict, {})
    hand_no = _get(session, "hand", int, None)
    if hand_no is not None and sitting and hand_no < 1:
        raise LogSyntaxError("syntax", f'"session.hand" is {hand_no}; deals count from 1')
    if hand_no is not None and not sitting and not 1 <= hand_no <= 12:
        raise LogSyntaxError("syntax", f'"session.hand" is {hand_no}; a session has hands'
                             " 1 to 12 (R2)")
    dealer = obj.get("dealer")
    return GameMeta(
        players=(players[0], players[1], players[2]),
        played_at=played_at,
        record_id=_get(obj, "id", str, ""),
        session_id=_get(session, "id", str, ""),
        hand_no=hand_no,
        club=_get(obj, "club", str, ""),
        table=_get(obj, "table", str, ""),
        dealer=None if dealer is None else _seat(dealer, '"dealer"'),
    )


def _cards(text: object, what: str, move: int | None = None) -> list[Card]:
    if not isinstance(text, str):
        raise LogSyntaxError("syntax", f"{what} must be cards like \"CJ.ST\", not"
                             f" {_short(text)}", move=move)
    out = []
    for part in text.split(".") if text else []:
        card = _CARDS.get(part)
        if card is None:
            if part == "??":
                raise LogSyntaxError("corrupt_card", f"{what} holds the unknown card '??'",
                                     move=move)
            raise LogSyntaxError("syntax", f"{what}: {_short(part)} is not a card", move=move)
        out.append(card)
    return out


def _deal(obj: dict[str, Any]) -> Deal:
    hands = [_cards(_get(obj, key, str), f'"deal.{key}"', 0) for key in SEAT_KEYS]
    skat = _cards(_get(obj, "skat", str), '"deal.skat"', 0)
    try:
        if any(len(h) != 10 for h in hands) or len(skat) != 2:
            raise BadDeal("a deal is three hands of 10 cards and a skat of 2", rule="R1")
        return Deal((tuple(hands[0]), tuple(hands[1]), tuple(hands[2])),
                    (skat[0], skat[1]))
    except BadDeal as err:
        raise LogSyntaxError("bad_deal", err.message, move=0, rule="R1") from err


def _declaration(obj: dict[str, Any]) -> Declaration:
    label = _get(obj, "contract", str)
    try:
        contract = Contract.from_label(label)
    except KeyError:
        raise LogSyntaxError("syntax", f'"declaration.contract" {_short(label)} is not one of'
                             " diamonds, hearts, spades, clubs, grand, null") from None
    return Declaration(
        contract,
        hand=_get(obj, "hand", bool, False),
        schneider_announced=_get(obj, "schneider_announced", bool, False),
        schwarz_announced=_get(obj, "schwarz_announced", bool, False),
        ouvert=_get(obj, "ouvert", bool, False),
    )


def _moves(obj: dict[str, Any], parsed: ParsedGame) -> None:
    moves: list[Move] = []
    for call in _get(obj, "auction", list, []):
        if not isinstance(call, list) or len(call) != 2:
            raise LogSyntaxError("syntax", "an auction call is [seat, bid | \"hold\" |"
                                 f" \"pass\"], not {_short(call)}", move=len(moves) + 1)
        seat = _seat(call[0], "the seat of an auction call")
        what = call[1]
        if what == "hold":
            moves.append(Hold(seat))
        elif what == "pass":
            moves.append(Pass(seat))
        elif isinstance(what, int) and not isinstance(what, bool):
            moves.append(Bid(seat, what))
        else:
            raise LogSyntaxError("syntax", f"{_short(what)} is not a bid, \"hold\" or"
                                 " \"pass\"", move=len(moves) + 1)
    declarer = obj.get("declarer")
    skat = _get(obj, "skat", str, "")
    declaration = obj.get("declaration")
    discard = _get(obj, "discard", str, "")
    if any(key in obj for key in FOSTER_FIELDS):
        if not parsed.rules.foster:
            raise LogSyntaxError("syntax", f'"turn", "gucki" and "game" are Foster\'s moves:'
                                 f' the record needs "rules": "foster" (it is {parsed.rules})')
        moves += _foster_skat_moves(obj, _seat(declarer, '"declarer"'), len(moves))
    elif skat or declaration is not None or discard:
        seat = _seat(declarer, '"declarer"')
        if skat not in ("", "taken", "hand"):
            raise LogSyntaxError("syntax", f'"skat" is "taken" or "hand", not {_short(skat)}')
        if skat == "taken":
            moves.append(PickUp(seat))
        steps: list[Move] = []
        if discard:
            cards = _cards(discard, '"discard"', len(moves) + 1)
            if len(cards) != 2:
                raise LogSyntaxError("syntax", '"discard" names two cards',
                                     move=len(moves) + 1)
            steps.append(Discard(seat, (cards[0], cards[1])))
        if declaration is not None:
            if not isinstance(declaration, dict):
                raise LogSyntaxError("syntax", '"declaration" must be an object')
            steps.append(Declare(seat, _declaration(declaration)))
        if _get(obj, "declared_first", bool, False):
            steps.reverse()
        moves += steps
    for number, trick in enumerate(_get(obj, "tricks", list, []), 1):
        if not isinstance(trick, dict):
            raise LogSyntaxError("syntax", f"trick {number} must be an object")
        leader = _seat(trick.get("leader"), f"the leader of trick {number}")
        cards = _get(trick, "cards", list)
        if not 1 <= len(cards) <= 3:
            raise LogSyntaxError("syntax", f"trick {number} has {len(cards)} cards",
                                 move=len(moves) + 1)
        for i, name in enumerate(cards):
            card = _cards(name, f"a card of trick {number}", len(moves) + 1)
            if len(card) != 1:
                raise LogSyntaxError("syntax", f"trick {number} lists {_short(name)}, not one"
                                     " card", move=len(moves) + 1)
            moves.append(Play((leader + i) % 3, card[0]))
    events: list[tuple[int, Move]] = []
    for field, kinds, what in (("concessions", CONCESSIONS, "concession"),
                               ("doubles", DOUBLES, "double")):
        for event in _get(obj, field, list, []):
            if not isinstance(event, dict):
                raise LogSyntaxError("syntax", f"a {what} must be an object")
            name = event.get("type")
            kind = kinds.get(name) if isinstance(name, str) else None
            if kind is None:
                raise LogSyntaxError("syntax", f"{_short(name)} is not a {what}"
                                     f" ({', '.join(kinds)})")
            at = _get(event, "at", int)
            events.append((at, kind(_seat(event.get("seat"), f"the seat of a {what}"))))
    for at, move in sorted(events, key=lambda e: e[0]):
        if not 0 <= at <= len(moves):
            raise LogSyntaxError("syntax", f"a concession at position {at} lies outside the"
                                 f" game's {len(moves)} moves", move=len(moves) + 1)
        moves.insert(at, move)
    parsed.moves = [(i, move) for i, move in enumerate(moves, 1)]
    parsed.last_move = len(moves)


#: Foster's skat moves in skatlog/1 (F5).
FOSTER_FIELDS = ("turn", "gucki", "game")


def _foster_skat_moves(obj: dict[str, Any], seat: int, before: int) -> list[Move]:
    """F5: a Foster record's skat moves in game order: a Tournée ``turn`` then the ``game``
    and the ``discard``; ``gucki`` then the game (a gucki nullo is named first) and the
    discard; a solo's ``game`` alone."""
    out: list[Move] = []
    game_obj = _get(obj, "game", dict, None)
    declare: FosterDeclare | None = None
    if game_obj is not None:
        name = _get(game_obj, "name", str)
        if name not in FOSTER_NAMES:
            raise LogSyntaxError("syntax", f'"game.name" {_short(name)} is not a Foster game'
                                 f" ({', '.join(FOSTER_NAMES[:-1])})", move=before + 1)
        declare = FosterDeclare(seat, FOSTER_NAMES.index(name),
                                _get(game_obj, "schneider_announced", bool, False),
                                _get(game_obj, "schwarz_announced", bool, False))
    turn = _get(obj, "turn", dict, None)
    gucki = _get(obj, "gucki", bool, False)
    if turn is not None:
        card = _cards(_get(turn, "card", str), '"turn.card"', before + 1)
        if len(card) != 1:
            raise LogSyntaxError("syntax", '"turn.card" names one skat card', move=before + 1)
        out.append(Turn(seat, card[0], _get(turn, "passt_mir_nicht", bool, False)))
    nullo_first = declare is not None and gucki and "nullo" in FOSTER_NAMES[declare.game]
    if nullo_first:
        out.append(declare)  # type: ignore[arg-type]
    if gucki:
        out.append(Gucki(seat))
    if declare is not None and not nullo_first:
        out.append(declare)
    discard = _get(obj, "discard", str, "")
    if discard:
        cards = _cards(discard, '"discard"', before + len(out) + 1)
        if len(cards) != 2:
            raise LogSyntaxError("syntax", '"discard" names two cards', move=before + len(out) + 1)
        out.append(Discard(seat, (cards[0], cards[1])))
    return out


def _result(obj: dict[str, Any]) -> RecordedResult:
    def opt(key: str, kind: type) -> Any:
        return _get(obj, key, kind, None)

    declarer = opt("declarer", int)
    if declarer is not None:
        declarer = _seat(declarer, '"result.declarer"')
    return RecordedResult(
        scores=_per_seat(obj, "scores"),
        points=_per_seat(obj, "points"),
        passed=_get(obj, "passed", bool, False),
        penalty=_get(obj, "penalty", bool, False),
        declarer=declarer,
        won=opt("won", bool),
        value=opt("value", int),
        matadors=opt("matadors", int),
        overbid=opt("overbid", bool),
        declarer_points=opt("declarer_points", int),
        declarer_tricks=opt("declarer_tricks", int),
        schneider=opt("schneider", bool),
        schwarz=opt("schwarz", bool),
        raw=_get(obj, "raw", str, ""),
    )


def _per_seat(obj: dict[str, Any], key: str) -> tuple[int, int, int] | None:
    """``result.scores`` / ``result.points``: three integers, Forehand to Rearhand (R20)."""
    values = _get(obj, key, list, None)
    if values is None:
        return None
    if len(values) != 3 or not all(type(v) is int for v in values):
        raise LogSyntaxError("syntax", f'"result.{key}" lists three integers (Forehand,'
                             f" Middlehand, Rearhand), not {_short(values)}")
    return (values[0], values[1], values[2])


def ramsch_recorded(record: GameRecord) -> RecordedResult:
    """The result skatlog records for a Ramsch hand (R20): every seat's value and points."""
    ramsch = record.result.ramsch
    assert ramsch is not None
    return RecordedResult(scores=ramsch.values, points=ramsch.points)


# ---------------------------------------------------------------- writing
def game_object(record: GameRecord, meta: GameMeta | None = None,
                recorded: RecordedResult | None = None, tags: dict[str, str] | None = None,
                date_text: str | None = None) -> dict[str, Any]:
    """The skatlog/1 object of a game (see docs/skatlog-format.md)."""
    meta = meta or GameMeta()
    obj: dict[str, Any] = {"format": FORMAT}
    if record.rules != ISKO:
        obj["rules"] = str(record.rules)
    if meta.record_id:
        obj["id"] = meta.record_id
    if meta.session_id or meta.hand_no is not None:
        session: dict[str, Any] = {"id": meta.session_id}
        if meta.hand_no is not None:
            session["hand"] = meta.hand_no
        obj["session"] = session
    if meta.dealer is not None:
        obj["dealer"] = meta.dealer
    if record.bock:
        obj["bock"] = True
    obj["players"] = list(meta.players)
    if date_text:  # the date as the log wrote it (no UTC offset there)
        obj["date"] = date_text
    elif meta.played_at is not None:
        obj["date"] = meta.played_at.isoformat()
    if meta.club:
        obj["club"] = meta.club
    if meta.table:
        obj["table"] = meta.table
    deal = record.deal
    obj["deal"] = {key: ".".join(c.name for c in hand)
                   for key, hand in zip(SEAT_KEYS, deal.hands, strict=True)}
    obj["deal"]["skat"] = f"{deal.skat[0]}.{deal.skat[1]}"
    auction: list[list[Any]] = []
    tricks: list[dict[str, Any]] = []
    concessions: list[dict[str, Any]] = []
    doubles: list[dict[str, Any]] = []
    declarer = None
    order: list[str] = []
    for at, move in enumerate(record.moves):
        kind = type(move)
        if kind is Bid:
            auction.append([move.seat, move.value])  # type: ignore[union-attr]
        elif kind is Hold:
            auction.append([move.seat, "hold"])
        elif kind is Pass:
            auction.append([move.seat, "pass"])
        elif kind is PickUp:
            declarer = move.seat
            obj["skat"] = "taken"
        elif kind is Discard:
            declarer = move.seat
            obj["discard"] = ".".join(c.name for c in move.cards)  # type: ignore[union-attr]
            order.append("discard")
        elif kind is Declare:
            declarer = move.seat
            d = move.declaration  # type: ignore[union-attr]
            obj.setdefault("skat", "hand" if d.hand else "taken")
            obj["declaration"] = {
                "contract": d.contract.label, "hand": d.hand,
                "schneider_announced": d.schneider_announced,
                "schwarz_announced": d.schwarz_announced, "ouvert": d.ouvert,
            }
            order.append("declare")
        elif kind is Play:
            if not tricks or len(tricks[-1]["cards"]) == 3:
                tricks.append({"leader": move.seat, "cards": []})
            tricks[-1]["cards"].append(move.card.name)  # type: ignore[union-attr]
        elif kind is Turn:
            declarer = move.seat
            obj["turn"] = {"card": move.card.name,  # type: ignore[union-attr]
                           "passt_mir_nicht": move.passt_mir_nicht}  # type: ignore[union-attr]
        elif kind is Gucki:
            declarer = move.seat
            obj["gucki"] = True
        elif kind is FosterDeclare:
            declarer = move.seat
            obj["game"] = {"name": FOSTER_NAMES[move.game],  # type: ignore[union-attr]
                           "schneider_announced": move.schneider_announced,  # type: ignore[union-attr]
                           "schwarz_announced": move.schwarz_announced}  # type: ignore[union-attr]
        elif kind is Kontra or kind is Re:
            doubles.append({"type": _DOUBLE_NAMES[kind], "seat": move.seat, "at": at})
        else:
            concessions.append({"type": _CONCESSION_NAMES[kind], "seat": move.seat, "at": at})
    if declarer is None:
        declarer = record.result.declarer
    # key order for readers: auction, declarer, skat, declaration, discard, tricks
    skat_keys = ("skat", "declaration", "turn", "gucki", "game", "discard")
    ordered: dict[str, Any] = {k: obj[k] for k in obj if k not in skat_keys}
    ordered["auction"] = auction
    if declarer is not None:
        ordered["declarer"] = declarer
    for key in skat_keys:
        if key in obj and key not in ordered:
            ordered[key] = obj[key]
    if order == ["declare", "discard"]:
        ordered["declared_first"] = True
    ordered["tricks"] = tricks
    if concessions:
        ordered["concessions"] = concessions
    if doubles:
        ordered["doubles"] = doubles
    if recorded is not None:
        ordered["result"] = {key: getattr(recorded, key) for key in RESULT_FIELDS}
        for key in ("scores", "points"):
            values = getattr(recorded, key)
            if values is not None:
                ordered["result"][key] = list(values)
    if tags:
        ordered["tags"] = dict(tags)
    return ordered


def write_jsonl(game: LogGame, *, result: str = "auto") -> str:
    """One skatlog/1 line (no newline) for a validated game.

    ``result`` as in :func:`~.iss.write_iss`: ``auto`` (recorded, else computed),
    ``recorded``, ``computed`` or ``none``. Raises ValueError for a game that did not validate.
    """
    if game.record is None:
        raise ValueError("only a validated game (with a record) can be written")
    recorded: RecordedResult | None
    if result == "computed" or (result == "auto" and game.recorded is None):
        recorded = ramsch_recorded(game.record) if game.record.result.ramsch is not None \
            else recorded_from_result(game.record, with_raw=False)
    elif result in ("recorded", "auto"):
        recorded = game.recorded
    elif result == "none":
        recorded = None
    else:
        raise ValueError(f"unknown result choice {result!r}")
    tags = game.extra.get("tags")
    date_text = game.extra.get("date")
    obj = game_object(game.record, game.meta, recorded, tags if isinstance(tags, dict) else None,
                      date_text if isinstance(date_text, str) else None)
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
