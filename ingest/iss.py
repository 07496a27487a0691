"""The ISS game-record format (docs/iss-format.md): reader and writer.

Reading turns one record's text into a :class:`~.model.ParsedGame`: meta data, the deal, and
the engine moves, each with its ISS move number (the deal ``w ...`` is move 0, each following
``<who> <action>`` pair counts one). Problems come back as :class:`~.model.GameError` data,
never as exceptions; the replay through the rules happens in :mod:`.validate`.

Writing is the inverse: :func:`write_iss` gives one archive line for a validated game, so that
read -> write -> read yields the same deal, moves, meta and recorded result.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, datetime

from skatlog.engine import BID_LADDER, ISS_EXTRA_BIDS, Card, Deal, Declaration
from skatlog.engine.errors import BadDeal
from skatlog.engine.game import GameResult
from skatlog.engine.moves import (
    Bid,
    Declare,
    Discard,
    Hold,
    Leave,
    Move,
    Pass,
    PickUp,
    Play,
    Resign,
    ShowCards,
    TimeOut,
)
from skatlog.engine.record import GameRecord
from skatlog.engine.rules import ISKO_ISS, Rules

from .model import (
    GameError,
    GameMeta,
    LogGame,
    LogSyntaxError,
    ParsedGame,
    RecordedResult,
    UnknownRules,
    read_rules,
)

#: Tags the reader maps onto :class:`GameMeta` / moves / result; every other tag is kept
#: verbatim in ``extra["tags"]`` so the writer can reproduce it.
CORE_TAGS = frozenset({"GM", "SE", "ID", "DT", "P0", "P1", "P2", "MV", "R", "RU"})
# ``RU[isko]`` (older: ``RU[skatlog]``) marks a record of a game played under another rule
# set than ISS's, here skatlog's own (R9: every game to ten tricks, ladder bids only);
# without it a record follows the ISS conventions, ``isko+iss`` (R17 early endings, R18
# off-ladder bids, R7).
DEFAULT_TAGS = {"PC": "skatlog", "CO": "", "R0": "", "R1": "", "R2": ""}
DATE_FORMAT = "%Y-%m-%d/%H:%M:%S/UTC"

_CARDS: dict[str, Card] = {card.name: card for card in Card}
_RANKS = frozenset("789TJQKA")
_CONTRACT_LETTERS = frozenset("GCSHDN")
_SEATS = {"0": 0, "1": 1, "2": 2}
#: How a played card is named in a reading error (``the card played is the unknown ...``).
PLAYED_CARD = "the card played"
_RESULT_FLAGS = frozenset({"win", "loss", "penalty", "bidok", "overbid"})
#: Longer digit strings are no bid but a syntax error. Shorter off-ladder numbers are bids
#: the auction refuses (illegal_bid); the compiled kernel draws the same line (it reads at
#: most nine digits as a number), and ``int()`` refuses more than 4,300 digits anyway.
MAX_BID_DIGITS = 9


def _simple_moves() -> dict[tuple[str, str], Move]:
    """Every plain ``<seat> <action>`` pair (cards, ladder bids, calls) as its move value:
    moves are immutable, so the reader looks them up instead of building them (speed)."""
    table: dict[tuple[str, str], Move] = {}
    for who, seat in _SEATS.items():
        for card in Card:
            table[who, card.name] = Play(seat, card)
        for value in BID_LADDER:
            table[who, str(value)] = Bid(seat, value)
        table[who, "p"] = Pass(seat)
        table[who, "y"] = Hold(seat)
        table[who, "s"] = PickUp(seat)
        table[who, "RE"] = Resign(seat)
        table[who, "SC"] = ShowCards(seat)
    return table


_SIMPLE_MOVES = _simple_moves()


# ---------------------------------------------------------------- properties
#: A whole record of the common shape is ``(;``, one or more ``TAG[value]`` properties with
#: nothing but spaces and line breaks before each, ``;)``. Such a text is cut at its ``]``
#: (no escapes) or read by one regular expression (:func:`parse_properties`); any other text
#: goes the careful way.
_VALUE = r"[^\]\\]*(?:\\.[^\]\\]*)*"  # up to the first ] that no backslash escapes
#: One property of such a record: the spaces before it, its tag and its value, escapes
#: still in it.
_SPACED_PROPERTY = re.compile(rf"([ \t\r\n]*)([A-Za-z0-9]+)\[({_VALUE})\]", re.DOTALL)


def parse_properties(text: str) -> tuple[dict[str, str], str | None]:
    """Generic ``TAG[value]`` properties of one record, in their order.

    Returns the properties and the tag whose value the text cut off (``None`` when every value
    is closed); an unclosed value is returned as far as it goes. ``\\]`` and ``\\\\`` escapes
    are undone. Raises :class:`LogSyntaxError` on text between values that is not a tag.
    """
    if not text.startswith("(;") or not text.endswith(";)"):
        return _parse_properties_loop(text)
    if "\\" not in text:  # no escapes (nearly every record): the values end at each ]
        *pieces, tail = text[2:-2].split("]")
        props: dict[str, str] = {}
        for piece in pieces:
            tag, bracket, value = piece.partition("[")
            tag = tag.lstrip(" \t\r\n")
            if not bracket or not tag.isascii() or not tag.isalnum() or tag in props:
                break  # not the plain shape, or a tag twice: the loop says what is wrong
            props[tag] = value
        else:
            if props and not tail.strip(" \t\r\n"):
                return props, None
    else:  # the same shape with escapes in values: one regular expression
        end = len(text) - 2
        found = _SPACED_PROPERTY.findall(text, 2, end)
        # the matches come in order and never overlap, and none takes the spaces after the
        # last value: they cover the text between (; and ;) exactly when no other character
        # is left out
        covered = sum(len(spaces) + len(tag) + len(value) + 2 for spaces, tag, value in found)
        if found and covered == len(text[2:end].rstrip(" \t\r\n")):
            plain = {tag: _unescape(value) for _, tag, value in found}
            if len(plain) == len(found):  # a tag twice: the error comes from the loop below
                return plain, None
    return _parse_properties_loop(text)


def _parse_properties_loop(text: str) -> tuple[dict[str, str], str | None]:
    """:func:`parse_properties` for any text, character by character: cut values, ``;``
    between properties, and every error with its message."""
    props: dict[str, str] = {}
    pos = 0
    length = len(text)
    while pos < length:
        open_at = text.find("[", pos)
        if open_at < 0:
            rest = text[pos:].strip()
            if rest.endswith(";)"):
                rest = rest[:-2].strip()
            if rest:
                raise LogSyntaxError("syntax", f"unexpected text {_clip(rest)!r} after the last"
                                     " property")
            break
        tag = text[pos:open_at].strip()
        if not props:
            if not tag.startswith("(;"):
                raise LogSyntaxError("syntax", "an ISS record starts with '(;'")
            tag = tag[2:].strip()
        elif tag.startswith(";"):
            tag = tag[1:].strip()  # SGF-style node separators between properties
        if not tag or not tag.isascii() or not tag.isalnum():
            raise LogSyntaxError("syntax", f"expected a property name before '[', found "
                                 f"{_clip(tag)!r}")
        close_at = text.find("]", open_at + 1)
        while close_at > 0 and _escaped(text, close_at):
            close_at = text.find("]", close_at + 1)
        if close_at < 0:
            props[tag] = _unescape(text[open_at + 1:])
            return props, tag
        if tag in props:
            raise LogSyntaxError("syntax", f"the property {tag} appears twice")
        props[tag] = _unescape(text[open_at + 1:close_at])
        pos = close_at + 1
    if not props and not text.strip().startswith("(;"):
        raise LogSyntaxError("syntax", "an ISS record starts with '(;'")
    return props, None


def _escaped(text: str, at: int) -> bool:
    """True when the character at ``at`` is preceded by an odd number of backslashes."""
    count = 0
    at -= 1
    while at >= 0 and text[at] == "\\":
        count += 1
        at -= 1
    return count % 2 == 1


def _unescape(value: str) -> str:
    if "\\" not in value:
        return value
    out: list[str] = []
    chars = iter(value)
    for ch in chars:
        out.append(next(chars, "") if ch == "\\" else ch)
    return "".join(out)


def _escape(value: str) -> str:
    """Escape ``\\`` and ``]``; line breaks become spaces (a record is one line)."""
    value = value.replace("\\", "\\\\").replace("]", "\\]")
    if "\n" in value or "\r" in value:
        value = value.replace("\r\n", " ").replace("\n", " ").replace("\r", " ")
    return value


def _clip(text: str, width: int = 30) -> str:
    return text if len(text) <= width else text[:width] + "..."


# ---------------------------------------------------------------- reading
def read_iss(text: str, *, source: str = "", line: int = 1, complete: bool = True,
             rules: Rules = ISKO_ISS) -> ParsedGame:
    """Read one ISS record (one line, or several joined by newlines) into a ParsedGame.

    ``rules``: the rule set of a record that does not name one with ``RU[...]`` (ISS's
    conventions, ``isko+iss``, unless the caller says otherwise).

    ``complete=False`` says the input stopped before the record's ``;)``. Never raises for bad
    input: problems are in ``errors`` (codes ``syntax``, ``truncated``, ``bad_deal``,
    ``corrupt_card``, ``illegal_declaration``) with the move number where they sit.
    """
    parsed = ParsedGame(source=source, line=line, raw=text, format="iss", rules=rules)
    stripped = text.strip()
    complete = complete and stripped.endswith(";)")
    parsed.complete = complete
    try:
        props, cut = parse_properties(stripped)
    except LogSyntaxError as err:
        parsed.errors.append(err.as_error(line))
        return parsed
    if cut is not None:
        complete = parsed.complete = False
    try:
        parsed.meta, parsed.extra["tags"] = read_meta(props, parsed)
        if "RU" in props:
            try:
                parsed.rules = read_rules(props["RU"])
            except UnknownRules as err:
                raise LogSyntaxError("syntax", f"RU[...]: {err}") from None
        if "MV" not in props:
            if complete:
                raise LogSyntaxError("syntax", "the record has no move list MV[...]")
            raise LogSyntaxError("truncated", "the record stops before its move list")
        _read_moves(props["MV"], parsed, partial=cut == "MV")
        if cut is not None:
            raise LogSyntaxError("truncated", "the record stops in the middle (no closing"
                                 " ';)')", move=parsed.last_move + 1)
        if "R" in props:
            parsed.recorded = parse_result(props["R"])
        if not complete:
            raise LogSyntaxError("truncated", "the record stops before its end ';)'",
                                 move=parsed.last_move + 1)
    except LogSyntaxError as err:
        parsed.errors.append(err.as_error(line))
    return parsed


def read_meta(props: dict[str, str], parsed: ParsedGame) -> tuple[GameMeta, dict[str, str]]:
    """A record's metadata from its properties, and the tags kept verbatim (the ones the
    reader does not map, and an unreadable date); an unreadable date is a warning on
    ``parsed``, a record of another game a :class:`LogSyntaxError`."""
    game = props.get("GM", "Skat")
    if game.strip().lower() != "skat":
        raise LogSyntaxError("syntax", f"GM[{_clip(game)}] is not a Skat record")
    played_at = None
    date = props.get("DT", "").strip()
    if date:
        try:
            played_at = read_date(date)
        except ValueError:
            parsed.warnings.append(GameError(
                "bad_date", f"DT[{_clip(date)}] is not a date like 2011-04-05/20:35:55/UTC;"
                " the game is kept without a date", parsed.line))
    meta = GameMeta(
        players=(props.get("P0", ""), props.get("P1", ""), props.get("P2", "")),
        played_at=played_at,
        record_id=props.get("ID", ""),
        session_id=props.get("SE", ""),
        dealer=2,  # R1: in a three-player ISS game Rearhand deals
    )
    tags = {tag: value for tag, value in props.items() if tag not in CORE_TAGS}
    if played_at is None and date:
        tags["DT"] = date  # keep an unreadable date verbatim for the writer
    return meta, tags


#: ``DATE_FORMAT`` with two-digit fields (what ISS and skatlog write).
_PLAIN_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})/([0-9]{2}):([0-9]{2}):([0-9]{2})/UTC")


def read_date(text: str) -> datetime:
    """The time of a ``DT[...]`` value (``2011-04-05/20:35:55/UTC``, :data:`DATE_FORMAT`);
    ValueError when it is none. The usual form is read directly, about ten times faster than
    ``strptime``, which reads the rest (one-digit fields) and words every refusal."""
    match = _PLAIN_DATE.fullmatch(text)
    if match:
        try:
            year, month, day, hour, minute, second = map(int, match.groups())
            return datetime(year, month, day, hour, minute, second, tzinfo=UTC)
        except ValueError:
            pass  # a day or hour out of range: strptime says which
    return datetime.strptime(text, DATE_FORMAT).replace(tzinfo=UTC)


def read_card(text: str, move: int, what: str) -> Card:
    """The card an ISS name (``CJ``, ``HT``) stands for; ``??`` (a hidden card) is a
    ``corrupt_card`` error and anything else a ``syntax`` error at move ``move``, where
    ``what`` names the card in the message (:data:`PLAYED_CARD`)."""
    card = _CARDS.get(text)
    if card is None:
        if text == "??":
            raise LogSyntaxError("corrupt_card", f"{what} is the unknown card '??': the record"
                                 " is corrupt (R17)", move=move)
        raise LogSyntaxError("syntax", f"{_clip(text)!r} is not a card (suits C S H D, ranks"
                             " 7 8 9 T J Q K A)", move=move)
    return card


def _cards(text: str, move: int, what: str) -> list[Card]:
    return [read_card(part, move, what) for part in text.split(".")] if text else []


def _read_deal(text: str) -> Deal:
    parts = text.replace("|", ".").split(".")
    if "??" in parts:
        raise LogSyntaxError("corrupt_card", "the deal hides cards ('??'): a player's view of"
                             " the game cannot be replayed (R17)", move=0)
    if len(parts) != 32:
        raise LogSyntaxError("bad_deal", f"the deal lists {len(parts)} cards, not 32",
                             move=0, rule="R1")
    try:
        cards = [_CARDS[part] for part in parts]
    except KeyError:  # the first that is no card says why
        cards = [read_card(part, 0, "a dealt card") for part in parts]
    try:
        return Deal.from_cards(cards)
    except BadDeal as err:
        raise LogSyntaxError("bad_deal", err.message, move=0, rule="R1") from err


def _read_moves(text: str, parsed: ParsedGame, *, partial: bool) -> None:
    """Fill ``parsed.deal`` and ``parsed.moves`` from an MV value."""
    tokens = text.split()
    if partial:  # the cut may have split the last token, and the last pair
        if tokens and not text[-1].isspace():
            tokens.pop()
        if len(tokens) % 2:
            tokens.pop()
    if not tokens:
        if partial:
            raise LogSyntaxError("truncated", "the record stops before the deal", move=0)
        raise LogSyntaxError("syntax", "the move list MV[] is empty", move=0)
    if tokens[0] != "w" or len(tokens) < 2:
        raise LogSyntaxError("syntax", "the move list must start with the deal 'w <32 cards>'",
                             move=0)
    deal = parsed.deal = _read_deal(tokens[1])
    moves = parsed.moves
    append = moves.append
    picked_up = discarded = False
    simple = _SIMPLE_MOVES
    number = 0
    # move n is the pair tokens[2n], tokens[2n + 1]; a who without an action is after them
    for number, pair in enumerate(zip(tokens[2::2], tokens[3::2], strict=False), 1):
        move = simple.get(pair)
        if move is not None:
            append((number, move))
            if type(move) is PickUp:
                picked_up = True
            continue
        parsed.last_move = number
        who, action = pair
        if who == "w":
            if action.startswith(("TI.", "LE.")):
                seat = _SEATS.get(action[3:])
                if seat is None:
                    raise LogSyntaxError("syntax", f"'{_clip(action)}' names no seat 0, 1 or"
                                         " 2", move=number)
                moves.append((number, TimeOut(seat) if action[0] == "T" else Leave(seat)))
                continue
            shown = _cards(action, number, "the skat")
            if len(shown) != 2:
                raise LogSyntaxError("syntax", f"the server move '{_clip(action)}' is neither"
                                     " the skat nor TI./LE.", move=number)
            if not moves or not isinstance(moves[-1][1], PickUp):
                raise LogSyntaxError("syntax", "the skat is shown but nobody picked it up",
                                     move=number)
            if set(shown) != set(deal.skat):
                raise LogSyntaxError("bad_deal", f"the skat shown ({action}) is not the skat"
                                     f" dealt ({deal.skat[0]}.{deal.skat[1]})", move=number,
                                     rule="R1")
            continue
        seat = _SEATS.get(who)
        if seat is None:
            raise LogSyntaxError("syntax", f"'{_clip(who)}' is not a player (w, 0, 1 or 2)",
                                 move=number)
        # The plain moves (passes, holds, ladder bids, cards, s, RE, SC) were found in
        # _SIMPLE_MOVES above; what is left is unusual or wrong.
        if action.isascii() and action.isdigit():
            if len(action) > MAX_BID_DIGITS:
                raise LogSyntaxError("syntax", f"the bid '{_clip(action)}' has {len(action):,}"
                                     f" digits: no bid is a number that long", move=number)
            value = int(action)
            if parsed.rules.iss_bids and value in ISS_EXTRA_BIDS:  # R18: with a warning
                parsed.warnings.append(GameError(
                    "off_ladder_bid", f"bid {value} is not on the bidding ladder; ISS accepted"
                    " it, so it is admitted in this ISS record (R18)", parsed.line, number,
                    "R18"))
            moves.append((number, Bid(seat, value)))
        elif action.startswith("SC."):  # show cards, with the cards named
            moves.append((number, ShowCards(seat)))
        elif len(action) == 2 and (action[1] in _RANKS or action == "??"):
            moves.append((number, Play(seat, read_card(action, number, PLAYED_CARD))))
        elif action[0] in _CONTRACT_LETTERS and (len(action) == 1 or action[1] not in _RANKS):
            head, _, rest = action.partition(".")
            try:
                declaration = Declaration.from_iss(head)
            except ValueError as err:
                raise LogSyntaxError("syntax", f"'{_clip(head)}' is not a contract: {err}",
                                     move=number) from err
            cards = _cards(rest, number, "a discarded or open card")
            if picked_up and not discarded and cards:
                # "D.ST.H8": contract and the two discards in one move; any ten further
                # cards are an ouvert declarer's open hand.
                if len(cards) not in (2, 12):
                    raise LogSyntaxError("syntax", f"'{_clip(action)}' should name the two"
                                         " discards (and, ouvert, the ten open cards)",
                                         move=number)
                moves.append((number, Discard(seat, (cards[0], cards[1]))))
                discarded = True
            elif len(cards) not in (0, 10):
                raise LogSyntaxError("syntax", f"'{_clip(action)}' lists {len(cards)} cards"
                                     " after the contract; an ouvert game shows ten",
                                     move=number)
            moves.append((number, Declare(seat, declaration)))
        else:
            cards = _cards(action, number, "a discarded card")
            if len(cards) != 2:
                raise LogSyntaxError("syntax", f"'{_clip(action)}' is not a move", move=number)
            moves.append((number, Discard(seat, (cards[0], cards[1]))))  # split discard
            discarded = True
    parsed.last_move = number
    if len(tokens) % 2:
        parsed.last_move = number + 1
        raise LogSyntaxError("syntax", f"'{_clip(tokens[-1])}' has no action after it",
                             move=number + 1)
    _imply_resign_after_show(parsed)


def _imply_resign_after_show(parsed: ParsedGame) -> None:
    """ISS convention: after the declarer shows the cards (``SC``), one defender's ``RE`` as
    the record's last move ends the game, the remaining tricks going to the declarer (ID
    272095: ``0 SC 2 RE``, recorded ``win ... t:8 r:1``). R17 needs both defenders to
    resign, so the other defender's resignation is made explicit here (same move number),
    with a warning. Writing the game back gives the explicit ``RE`` of both defenders.
    """
    moves = parsed.moves
    if not moves or type(moves[-1][1]) is not Resign:
        return
    number, last = moves[-1]
    shown = next((m.seat for _, m in moves if type(m) is ShowCards), None)
    if shown is None or last.seat == shown or not 0 <= shown <= 2:
        return
    other = 3 - shown - last.seat
    if any(type(m) is Resign and m.seat == other for _, m in moves):
        return
    moves.append((number, Resign(other)))
    parsed.warnings.append(GameError(
        "implied_resign", f"after the declarer showed the cards, one defender resigned and"
        f" the record ends: ISS counts that as both defenders resigning (R17), so seat"
        f" {other}'s resignation is implied", parsed.line, number, "R17"))


def parse_result(text: str) -> RecordedResult:
    """Parse an ISS result ``R[...]`` (``passed``, ``unknown``, or ``d:2 loss v:-54 ...``)."""
    raw = text
    text = text.strip()
    if text == "passed":
        return RecordedResult(passed=True, raw=raw)
    if text in ("", "unknown"):
        return RecordedResult(raw=raw)
    numbers: dict[str, int] = {}
    flags: set[str] = set()
    for token in text.split():
        key, colon, value = token.partition(":")
        if colon:
            try:
                numbers[key] = int(value)
            except ValueError:
                raise LogSyntaxError("syntax", f"R[...]: {_clip(token)!r} is not a number"
                                     ) from None
        elif token in _RESULT_FLAGS:
            flags.add(token)
        else:
            raise LogSyntaxError("syntax", f"R[...]: unknown result field {_clip(token)!r}")
    declarer = numbers.get("d", -1)

    def flag(key: str) -> bool | None:
        return bool(numbers[key]) if key in numbers else None

    return RecordedResult(
        passed=False,
        penalty="penalty" in flags,
        declarer=declarer if declarer in (0, 1, 2) else None,
        won=True if "win" in flags else (False if "loss" in flags else None),
        value=numbers.get("v"),
        matadors=numbers.get("m"),
        overbid=True if "overbid" in flags else (False if "bidok" in flags else None),
        declarer_points=numbers.get("p"),
        declarer_tricks=numbers.get("t"),
        schneider=flag("s"),
        schwarz=flag("z"),
        raw=raw,
    )


# ---------------------------------------------------------------- writing
def format_moves(record: GameRecord) -> str:
    """The MV text of a record: the deal, then one ``<who> <action>`` pair per ISS move.

    A Discard directly followed by its Declare is written as one move (``2 D.ST.H8``); a
    Declare before the Discard as two (``2 D`` then ``2 ST.H8``), as real records do.
    """
    deal = record.deal
    parts = ["w", deal.iss]
    moves = record.moves
    i = 0
    while i < len(moves):
        move = moves[i]
        kind = type(move)
        if kind is Play:
            parts += [str(move.seat), move.card.name]  # type: ignore[union-attr]
        elif kind is Bid:
            parts += [str(move.seat), str(move.value)]  # type: ignore[union-attr]
        elif kind is Hold:
            parts += [str(move.seat), "y"]
        elif kind is Pass:
            parts += [str(move.seat), "p"]
        elif kind is PickUp:
            parts += [str(move.seat), "s", "w", f"{deal.skat[0]}.{deal.skat[1]}"]
        elif kind is Discard:
            a, b = move.cards  # type: ignore[union-attr]
            nxt = moves[i + 1] if i + 1 < len(moves) else None
            if isinstance(nxt, Declare) and nxt.seat == move.seat:
                parts += [str(move.seat), f"{nxt.declaration.iss}.{a}.{b}"]
                i += 1
            else:
                parts += [str(move.seat), f"{a}.{b}"]
        elif kind is Declare:
            parts += [str(move.seat), move.declaration.iss]  # type: ignore[union-attr]
        elif kind is Resign:
            parts += [str(move.seat), "RE"]
        elif kind is ShowCards:
            parts += [str(move.seat), "SC"]
        elif kind is TimeOut:
            parts += ["w", f"TI.{move.seat}"]
        elif kind is Leave:
            parts += ["w", f"LE.{move.seat}"]
        i += 1
    return " ".join(parts)


def recorded_from_result(record: GameRecord, *, with_raw: bool = True) -> RecordedResult:
    """The result ISS would record for ``record`` (fields as in docs/iss-format.md).

    ``with_raw`` keeps the ISS ``R[...]`` text in ``raw`` (for ISS output); skatlog/1 output
    leaves it empty.
    """
    recorded = _recorded_from_result(record)
    return recorded if with_raw else replace(recorded, raw="")


def _recorded_from_result(record: GameRecord) -> RecordedResult:
    result: GameResult = record.result
    if result.outcome == "passed":
        return RecordedResult(passed=True, raw="passed")
    left = next((m.seat for m in record.moves if isinstance(m, Leave)), -1)
    timed_out = next((m.seat for m in record.moves if isinstance(m, TimeOut)), -1)
    resigned = any(isinstance(m, Resign) for m in record.moves)
    if result.outcome == "penalty":
        flags = [int(seat in (left, timed_out)) for seat in range(3)]
        raw = (f"d:-1 penalty v:0 m:0 bidok p:0 t:0 s:0 z:0 p0:{flags[0]} p1:{flags[1]}"
               f" p2:{flags[2]} l:{left} to:{timed_out} r:{int(resigned)}")
        return RecordedResult(penalty=True, value=0, matadors=0, overbid=False,
                              declarer_points=0, declarer_tricks=0, schneider=False,
                              schwarz=False, raw=raw)
    score = result.score
    assert score is not None and result.declarer is not None
    raw = (f"d:{result.declarer} {'win' if score.won else 'loss'} v:{score.value}"
           f" m:{result.matadors} {'overbid' if score.overbid else 'bidok'}"
           f" p:{result.declarer_points} t:{result.declarer_tricks} s:{int(score.schneider)}"
           f" z:{int(score.schwarz)} p0:0 p1:0 p2:0 l:{left} to:{timed_out} r:{int(resigned)}")
    return parse_result(raw)


def format_result(recorded: RecordedResult) -> str:
    """The R text: the recorded raw text when there is one, else built from the fields."""
    if recorded.raw:
        return recorded.raw
    if recorded.passed:
        return "passed"
    if recorded.value is None and recorded.declarer is None and not recorded.penalty:
        return "unknown"
    parts = [f"d:{-1 if recorded.declarer is None else recorded.declarer}"]
    if recorded.penalty:
        parts.append("penalty")
    elif recorded.won is not None:
        parts.append("win" if recorded.won else "loss")
    for key, value in (("v", recorded.value), ("m", recorded.matadors)):
        if value is not None:
            parts.append(f"{key}:{value}")
    if recorded.overbid is not None:
        parts.append("overbid" if recorded.overbid else "bidok")
    for key, value in (("p", recorded.declarer_points), ("t", recorded.declarer_tricks),
                       ("s", recorded.schneider), ("z", recorded.schwarz)):
        if value is not None:
            parts.append(f"{key}:{int(value)}")
    return " ".join(parts)


def iss_can_carry(record: GameRecord) -> bool:
    """Whether ISS notation holds the whole game: not a Kontra or Re (it has no such move),
    a Ramsch (no declarer's result), a Bock hand (R19-R21) nor a Foster hand."""
    result = record.result
    return not (record.bock or result.ramsch is not None or result.kontra is not None
                or record.rules.foster)


def write_iss(game: LogGame, *, result: str = "auto") -> str:
    """One ISS archive line (no newline) for a validated game.

    ``result``: ``recorded`` writes the log's own result, ``computed`` the one the rules give,
    ``auto`` the recorded one when there is one and the computed one otherwise, ``none``
    leaves ``R[...]`` out. Raises ValueError for a game that did not validate.
    """
    if game.record is None:
        raise ValueError("only a validated game (with a record) can be written")
    if not iss_can_carry(game.record):
        raise ValueError("an ISS record cannot carry Kontra, Re, a Ramsch, a Bock hand"
                         " (R19-R21) or a Foster hand: write skatlog/1 (.jsonl) instead")
    recorded: RecordedResult | None
    if result == "computed" or (result == "auto" and game.recorded is None):
        recorded = recorded_from_result(game.record)
    elif result in ("recorded", "auto"):
        recorded = game.recorded
    elif result == "none":
        recorded = None
    else:
        raise ValueError(f"unknown result choice {result!r}")
    tags = game.extra.get("tags")
    return format_iss(game.record, game.meta, recorded,
                      tags if isinstance(tags, dict) else None)


def format_iss(record: GameRecord, meta: GameMeta | None = None,
               recorded: RecordedResult | None = None, tags: dict[str, str] | None = None
               ) -> str:
    """One ISS line for ``record`` with ``meta``; ``tags`` adds or overrides other tags.

    A game played under another rule set than ISS's (``isko+iss``) gets ``RU[<rules>]``,
    e.g. ``RU[isko]``, so that reading it back replays it the same way (R9).
    """
    meta = meta or GameMeta()
    # A game from elsewhere gets the tags of an archive line; a read ISS record keeps its own.
    tags = dict(DEFAULT_TAGS if tags is None else tags)
    date = meta.played_at.astimezone(UTC).strftime(DATE_FORMAT) if meta.played_at else ""
    if not date:
        date = tags.pop("DT", "")  # an unreadable date, kept verbatim
    fields: list[tuple[str, str]] = [("GM", "Skat")]
    fields += [(tag, tags.pop(tag)) for tag in ("PC", "CO") if tag in tags]
    fields += [("SE", meta.session_id), ("ID", meta.record_id), ("DT", date),
               ("P0", meta.players[0]), ("P1", meta.players[1]), ("P2", meta.players[2])]
    fields += [(tag, tags.pop(tag)) for tag in ("R0", "R1", "R2") if tag in tags]
    fields += [(tag, value) for tag, value in tags.items() if tag not in CORE_TAGS]
    if record.rules != ISKO_ISS:
        fields.append(("RU", str(record.rules)))
    fields.append(("MV", format_moves(record) + " "))
    text = "(;" + "".join(f"{tag}[{_escape(value)}]" for tag, value in fields)
    if recorded is not None:
        text += f"R[{_escape(format_result(recorded))}]"
    return text + " ;)"
