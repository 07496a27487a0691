"""Validation by replay: every game through the engine's validated path, every value rescored.

:func:`iter_log_games` streams files into validated :class:`~.model.LogGame` values (in file
order); :func:`validate_text` does the same for text in memory; :func:`game_json` gives the
object ``skatlog validate --json`` prints. Errors are data (:class:`~.model.GameError`) with a
stable code, a readable message, the record's 1-based line and the move number.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skatlog.engine import Contract, RuleError
from skatlog.engine.contract import BASE_VALUES
from skatlog.engine.game import Ending, GameState, new_state
from skatlog.engine.moves import (
    SEAT_NAMES,
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
from skatlog.engine.rules import ISKO, ISKO_ISS, Rules
from skatlog.engine.scoring import score_game

if TYPE_CHECKING:
    from skatlog.engine.foster_game import FosterHand

from .house import check_foster_value, check_ramsch_value
from .iss import read_iss
from .jsonl import read_jsonl
from .model import GameError, LogGame, ParsedGame, RecordedResult
from .sources import RawRecord, expand_paths, iter_lines_records, iter_records


# ---------------------------------------------------------------- reading + replay
def parse_raw(raw: RawRecord, rules: Rules | None = None) -> ParsedGame:
    """Read one raw record with the reader of its format. ``rules``: the rule set of a record
    that does not name one; None for each format's own (ISS ``isko+iss``, skatlog/1 ``isko``)."""
    if raw.format == "iss":
        return read_iss(raw.text, source=raw.source, line=raw.line, complete=raw.complete,
                        rules=rules or ISKO_ISS)
    if raw.format == "jsonl":
        return read_jsonl(raw.text, source=raw.source, line=raw.line, rules=rules or ISKO)
    parsed = ParsedGame(source=raw.source, line=raw.line, raw=raw.text, format="unknown")
    parsed.errors.append(GameError(
        "syntax", "this line is neither an ISS record '(;...;)' nor a skatlog/1 JSON line",
        raw.line))
    return parsed


#: What a move does, in words, by its type (:func:`describe_move`).
_MOVE_WORDS: dict[type, Callable[[Any], str]] = {
    Bid: lambda move: f"bids {move.value}",
    Hold: lambda move: "holds",
    Pass: lambda move: "passes",
    PickUp: lambda move: "picks up the skat",
    Discard: lambda move: "discards " + " and ".join(str(c) for c in move.cards),
    Declare: lambda move: f"declares {move.declaration}",
    Play: lambda move: f"plays {move.card}",
    Resign: lambda move: "resigns",
    ShowCards: lambda move: "shows the cards",
    TimeOut: lambda move: "times out",
    Leave: lambda move: "leaves the table",
    Kontra: lambda move: "says Kontra",
    Re: lambda move: "says Re",
    Turn: lambda move: f"turns {move.card}"
    + (" after Passt-mir-nicht" if move.passt_mir_nicht else ""),
    Gucki: lambda move: "takes the skat unseen (gucki)",
    FosterDeclare: lambda move: f"names {foster_label(move.game)}",
}


def describe_move(move: Move, players: tuple[str, str, str]) -> str:
    """``Middlehand (kermit) plays HA``: who did what, in a club member's words."""
    seat = move.seat
    who = SEAT_NAMES[seat] if seat in (0, 1, 2) else f"seat {seat}"
    if seat in (0, 1, 2) and players[seat]:
        who += f" ({players[seat]})"
    return f"{who} {_MOVE_WORDS[type(move)](move)}"


def replay_parsed(parsed: ParsedGame, *, checked: bool = True) -> LogGame:
    """Replay a parsed record through the rules (validated path) and check its value.

    ``checked`` False: the compiled kernel has replayed every move of this record legally
    already (only its recorded result differs), so the moves take the engine's unchecked
    path (:meth:`~skatlog.engine.game.GameState.apply_unchecked`, about half the time);
    should that not end in a finished game, the record is replayed checked after all.
    """
    errors = list(parsed.errors)
    if not errors and parsed.deal is not None:
        state = new_state(parsed.deal, rules=parsed.rules, bock=parsed.bock)
        to_check = parsed.moves
        if not checked and isinstance(state, GameState):  # (a Foster hand: checked)
            if not _applied_unchecked(state, parsed):
                return replay_parsed(parsed)
            to_check = []
        for number, move in to_check:
            try:
                state.apply(move)
            except RuleError as err:
                errors.append(move_error(err, move, number, parsed))
                break
        else:
            if not state.finished:
                errors.append(GameError(
                    "truncated", "the record stops before the game is over (next: "
                    + _expected(state) + ")", parsed.line, parsed.last_move + 1))
            else:
                return finished_game(parsed, GameRecord.from_state(state), errors)
    return LogGame(
        source=parsed.source, line=parsed.line, raw=parsed.raw, format=parsed.format,
        meta=parsed.meta, record=None, recorded=parsed.recorded, errors=tuple(errors),
        warnings=tuple(parsed.warnings), value_check="not_recorded", extra=parsed.extra,
    )


def finished_game(parsed: ParsedGame, record: GameRecord, errors: Iterable[GameError] = ()
                  ) -> LogGame:
    """The verdict on a record whose moves replayed to the finished game ``record``: its
    recorded value checked (R18, :func:`check_value`), a difference the rules do not
    explain an error (``score_mismatch``) after ``errors``."""
    value_check, problem = check_value(record, parsed.recorded, early_iss=_early_iss(parsed))
    found = list(errors)
    if problem:
        found.append(GameError("score_mismatch", problem, parsed.line, parsed.last_move))
    return LogGame(
        source=parsed.source, line=parsed.line, raw=parsed.raw, format=parsed.format,
        meta=parsed.meta, record=record, recorded=parsed.recorded, errors=tuple(found),
        warnings=tuple(parsed.warnings), value_check=value_check, extra=parsed.extra,
    )


def _applied_unchecked(state: GameState, parsed: ParsedGame) -> bool:
    """Apply every move unchecked; whether that ended in a finished game without a fault
    (else the caller replays the record checked, which gives the verdict)."""
    try:
        for _, move in parsed.moves:
            state.apply_unchecked(move)
    except Exception:  # any fault at all: left to the checked replay
        return False
    return state.finished


def move_error(err: RuleError, move: Move, number: int, parsed: ParsedGame) -> GameError:
    """The diagnostic of move ``number`` breaking a rule: who did what, then why."""
    return GameError(err.code, f"{describe_move(move, parsed.meta.players)}: {err.message}",
                     parsed.line, number, err.rule)


def foster_label(kind: int) -> str:
    """A Foster game's name for messages (``tournee_hearts``), or the number when unknown."""
    from skatlog.engine.core import FOSTER_NAMES

    return FOSTER_NAMES[kind] if 0 <= kind < len(FOSTER_NAMES) else f"game {kind}"


def _expected(state: GameState | FosterHand) -> str:
    seat = state.to_move
    who = SEAT_NAMES[seat] if seat is not None else "nobody"
    return f"{who} to move in the {state.phase.value} phase"


# ---------------------------------------------------------------- value check
def _early_iss(parsed: ParsedGame) -> bool:
    """True for a record of the 2007-2008 ISS (``PC[Internet Skat Server]`` or dated then)."""
    if not parsed.rules.early_endings:
        return False
    tags = parsed.extra.get("tags")
    server = tags.get("PC", "") if isinstance(tags, dict) else ""
    played_at = parsed.meta.played_at
    return server == "Internet Skat Server" or (played_at is not None
                                                and played_at.year in (2007, 2008))


def check_value(record: GameRecord, recorded: RecordedResult | None, *,
                early_iss: bool = False) -> tuple[str, str]:
    """Compare the recomputed result with the recorded one (R18).

    ``early_iss`` marks a record of the 2007-2008 server, whose own counting is accepted
    when it explains the difference (see :func:`_iss_own_figures`).

    Returns ``(value_check, problem)``: ``value_check`` is one of ``ok``, ``iss_convention``,
    ``score_mismatch``, ``not_recorded``; ``problem`` explains a ``score_mismatch`` (else "").
    """
    if recorded is None:
        return "not_recorded", ""
    result = record.result
    if result.ramsch is not None or recorded.scores is not None:
        return check_ramsch_value(result, recorded)  # R20, F12
    if result.foster is not None:
        return check_foster_value(result, recorded)  # F8-F11
    if recorded.passed:
        if result.outcome == "passed":
            return "ok", ""
        return "score_mismatch", (f"the log says everyone passed, but {_seat(result.declarer)}"
                                  f" won the auction at {result.bid}")
    if recorded.declarer is None and recorded.value is None and not recorded.penalty:
        return "not_recorded", ""  # R[unknown] or an empty result
    if result.outcome == "passed":
        return "score_mismatch", "everyone passed, but the log records a game"
    if result.outcome == "penalty":
        if recorded.declarer is None and recorded.value in (0, None):
            return "ok", ""
        return "score_mismatch", ("a player timed out or left before any game was declared"
                                  " (no game value, R17), but the log records"
                                  f" {_recorded_text(recorded)}")
    if recorded.penalty:
        return "score_mismatch", (f"{_seat(result.declarer)} played a game, but the log"
                                  " records a penalty")
    if recorded.declarer is not None and recorded.declarer != result.declarer:
        return "score_mismatch", (f"the declarer is {_seat(result.declarer)}, but the log"
                                  f" names {_seat(recorded.declarer)}")
    if recorded.value is None:
        return "not_recorded", ""
    score = result.score
    assert score is not None and result.declaration is not None
    if recorded.value == score.value:
        return "ok", ""
    if _iss_fewer_levels(record, recorded) or _iss_absent_declarer_matadors(record, recorded):
        return "iss_convention", ""
    if early_iss and _iss_own_figures(record, recorded):
        return "iss_convention", ""
    return "score_mismatch", (f"the game is worth {score.value:+d} ({result.declaration},"
                              f" {_verdict(record)}), but the log records"
                              f" {recorded.value:+d}")


def _iss_fewer_levels(record: GameRecord, recorded: RecordedResult) -> bool:
    """R18: a lost suit/grand game with an announcement, which ISS charges at fewer levels.

    R14 charges every level up to and including the announced one (grand hand with 2,
    schneider announced, 85 points: -288); ISS charges fewer (-240). Accepted when the
    recorded value is a smaller loss that is still a whole number of levels (-2 x base x n).
    """
    result = record.result
    declaration = result.declaration
    score = result.score
    assert declaration is not None and score is not None and recorded.value is not None
    if declaration.contract is Contract.NULL or not declaration.schneider_announced:
        return False
    if score.won or score.overbid or recorded.won:
        return False
    base = BASE_VALUES[declaration.contract]
    return score.value < recorded.value < 0 and recorded.value % (2 * base) == 0


def _iss_absent_declarer_matadors(record: GameRecord, recorded: RecordedResult) -> bool:
    """R17/R18: a declarer who timed out or left after picking up the skat, before discarding.

    The engine scores the loss by R12 (matadors over the dealt hand plus the original skat).
    ISS counts the matadors over the cards it has assigned to the declarer's side at the end,
    and with the skat still in the hand that is nothing: it records "without 11" (suit) or
    "without 4" (grand), e.g. ID 10330141: clubs with 3 -> R12 gives -96, ISS -288 with m:-11.
    We accept the difference only when it is exactly that: the game ended by the declarer's
    absence with the discard missing, ISS's recorded matador count differs from R12's, and
    rescoring the same game with ISS's matador count reproduces ISS's value. Any other
    difference in an absent declarer's game stays a score mismatch.
    """
    result = record.result
    declaration = result.declaration
    assert declaration is not None
    if result.ending is not Ending.DECLARER_ABSENT or not record.skat_taken:
        return False
    if record.discard is not None or recorded.matadors in (None, result.matadors):
        return False
    assert recorded.matadors is not None
    rescored = score_game(
        declaration, bid=result.bid, matadors=recorded.matadors,
        declarer_points=result.declarer_points, declarer_tricks=result.declarer_tricks,
        defender_tricks=result.defender_tricks, defender_points=result.defender_points,
        declarer_conceded=True,
    )
    return rescored.value == recorded.value


def _iss_own_figures(record: GameRecord, recorded: RecordedResult) -> bool:
    """R18, 2007-2008 records: ISS's value follows the rules from ISS's own recorded figures.

    Some records of the early server carry values that differ from the replay while the
    play itself is legal. We accept such a difference only when it lies in how ISS counted
    (matadors ``m:``, card points ``p:``, tricks ``t:``), not in how it scored: rescoring
    the declared game (same declaration, same bid) from the recorded figures must reproduce
    the recorded value exactly, and the recorded winner must agree with it. Anything else
    stays a score mismatch.
    """
    result = record.result
    declaration = result.declaration
    if declaration is None or recorded.value is None:
        return False
    if None in (recorded.matadors, recorded.declarer_points, recorded.declarer_tricks):
        return False
    assert recorded.matadors is not None and recorded.declarer_points is not None
    assert recorded.declarer_tricks is not None
    if not (-11 <= recorded.matadors <= 11 and 0 <= recorded.declarer_points <= 120
            and 0 <= recorded.declarer_tricks <= 10):
        return False
    conceded = result.ending in (Ending.DECLARER_RESIGNED, Ending.DECLARER_ABSENT)
    rescored = score_game(
        declaration, bid=result.bid, matadors=recorded.matadors,
        declarer_points=recorded.declarer_points, declarer_tricks=recorded.declarer_tricks,
        defender_tricks=result.defender_tricks if recorded.declarer_tricks
        == result.declarer_tricks else 10 - recorded.declarer_tricks,
        declarer_conceded=conceded,
    )
    return rescored.value == recorded.value and recorded.won in (None, rescored.won)


def _seat(seat: int | None) -> str:
    return SEAT_NAMES[seat] if seat in (0, 1, 2) else "nobody"  # type: ignore[index]


def _verdict(record: GameRecord) -> str:
    result = record.result
    score = result.score
    assert score is not None
    verdict = "won" if score.won else ("overbid" if score.overbid else "lost")
    return f"{verdict} with {result.declarer_points} points, {result.declarer_tricks} tricks"


def _recorded_text(recorded: RecordedResult) -> str:
    if recorded.value is None:
        return f"declarer {_seat(recorded.declarer)}"
    return f"{recorded.value:+d} for {_seat(recorded.declarer)}"


# ---------------------------------------------------------------- streaming API
def iter_log_games(paths: Iterable[str | Path] | str | Path, fmt: str = "auto",
                   rules: Rules | None = None) -> Iterator[LogGame]:
    """Validated games from files or directories (recursive), in file order.

    Files may be plain, ``.gz``, ``.bz2`` or ``.zst``; they are streamed, never read whole.
    ``fmt`` is ``auto`` (detected per file), ``iss`` or ``jsonl``; ``rules`` the rule set of
    records that do not name one (see :func:`parse_raw`). Raises
    :class:`~.sources.SourceError` (a ValueError) for a missing path or an unknown format.
    """
    if isinstance(paths, (str, Path)):
        paths = [paths]
    for path in expand_paths(paths):
        for raw in iter_records(path, fmt):
            yield replay_parsed(parse_raw(raw, rules))


def iter_text_games(text: str, source: str = "<text>", fmt: str = "auto",
                    rules: Rules | None = None) -> Iterator[LogGame]:
    """Validated games from text in memory (see :func:`iter_log_games`)."""
    # lines end at \n only, as files are read (sources.open_text), never str.splitlines()
    for raw in iter_lines_records(io.StringIO(text, newline="\n"), source, fmt):
        yield replay_parsed(parse_raw(raw, rules))


def validate_text(text: str, source: str = "<text>", fmt: str = "auto",
                  rules: Rules | None = None) -> list[LogGame]:
    """Every game in ``text``, validated (convenience for tests, notebooks and the web app)."""
    return list(iter_text_games(text, source, fmt, rules))


# ---------------------------------------------------------------- JSON report
def game_json(game: LogGame) -> dict[str, Any]:
    """The ``skatlog validate --json`` object of one game (keys documented in the report)."""
    record = game.record
    result = record.result if record is not None else None
    declaration = result.declaration if result is not None else None
    score = result.score if result is not None else None
    recorded = game.recorded
    return {
        "source": game.source,
        "line": game.line,
        "format": game.format,
        "id": game.meta.record_id,
        "ok": game.ok,
        "errors": [{"code": e.code, "message": e.message, "move": e.move, "rule": e.rule}
                   for e in game.errors],
        "warnings": [{"code": w.code, "message": w.message, "move": w.move}
                     for w in game.warnings],
        "outcome": result.outcome if result is not None else None,
        "passed": result.outcome == "passed" if result is not None else None,
        "declarer": result.declarer if result is not None else None,
        "contract": result.contract_label if result is not None else None,
        "hand": declaration.hand if declaration is not None else None,
        "schneider_announced": declaration.schneider_announced if declaration else None,
        "schwarz_announced": declaration.schwarz_announced if declaration else None,
        "ouvert": declaration.ouvert if declaration is not None else None,
        "bid": result.bid if result is not None else None,
        "matadors": result.matadors if declaration is not None else None,  # type: ignore[union-attr]
        "declarer_points": result.declarer_points if declaration else None,  # type: ignore[union-attr]
        "declarer_tricks": result.declarer_tricks if declaration else None,  # type: ignore[union-attr]
        "schneider": score.schneider if score is not None else None,
        "schwarz": score.schwarz if score is not None else None,
        "won": score.won if score is not None else None,
        "overbid": score.overbid if score is not None else None,
        "value": result.value if result is not None else None,
        "recorded_value": recorded.value if recorded is not None else None,
        "value_check": game.value_check,
    }
