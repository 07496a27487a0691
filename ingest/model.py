"""What a log reader hands to validation and the archive: one game as read, and its errors.

Readers (ISS, skatlog JSONL) yield :class:`LogGame` values; validation by replay fills in
``record`` (the engine's :class:`~skatlog.engine.record.GameRecord`) or ``errors``; the
archive turns valid games into rows and invalid ones into ``rejects`` rows with their raw text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from skatlog.engine.deal import Deal
from skatlog.engine.moves import Move
from skatlog.engine.record import GameRecord
from skatlog.engine.rules import ISKO, ISKO_ISS, Rules, UnknownRules

#: Spellings of a rule set that records written before the ``NAME[+OPTION]`` form carry.
_OLD_RULE_NAMES = {"skatlog": ISKO, "iss": ISKO_ISS}


def read_rules(text: str) -> Rules:
    """The rule set a record names: ``NAME[+OPTION...]`` (``isko``, ``isko+iss``), or the
    older ``skatlog`` (= ``isko``) and ``iss`` (= ``isko+iss``). :class:`UnknownRules` else."""
    old = _OLD_RULE_NAMES.get(text.strip())
    return old if old is not None else Rules.parse(text)


__all__ = ["UnknownRules"]

#: Stable error codes (issue "Game-log formats ..."): every diagnostic carries one.
ERROR_CODES = (
    "syntax",
    "truncated",
    "bad_deal",
    "illegal_bid",
    "wrong_player",
    "wrong_phase",
    "illegal_declaration",
    "card_not_in_hand",
    "revoke",
    "play_after_end",
    "corrupt_card",
    "score_mismatch",
)

#: Codes of warnings: the game is valid, but a reader should know (R18).
WARNING_CODES = ("off_ladder_bid", "implied_resign", "bad_date", "not_reproduced")

#: How a recomputed value compares with the one the log claims.
VALUE_CHECKS = ("ok", "iss_convention", "score_mismatch", "not_recorded")


@dataclass(frozen=True, slots=True)
class GameError:
    """One diagnostic: a stable code, a readable message, where it is (1-based line; move
    number with the deal as move 0) and the rule it cites (``R8``) when there is one."""

    code: str
    message: str
    line: int
    move: int | None = None
    rule: str = ""

    def format(self, source: str) -> str:
        """``file:line: move N: message``, the compiler-style form."""
        where = f"{source}:{self.line}:"
        if self.move is not None:
            where += f" move {self.move}:"
        return f"{where} {self.message}"


@dataclass(frozen=True, slots=True)
class GameMeta:
    """What a log says about a game beyond its moves."""

    players: tuple[str, str, str] = ("", "", "")  # Forehand, Middlehand, Rearhand names
    played_at: datetime | None = None
    record_id: str = ""
    session_id: str = ""  # ISS series SE, or the skatlog session id
    hand_no: int | None = None  # 1..12 within a session when known
    club: str = ""
    table: str = ""
    dealer: int | None = None  # seat of the dealer (2 = Rearhand in three-player games)


@dataclass(frozen=True, slots=True)
class RecordedResult:
    """The result the log claims (ISS ``R[...]`` or a skatlog ``result`` object)."""

    passed: bool = False
    penalty: bool = False
    declarer: int | None = None
    won: bool | None = None
    value: int | None = None
    matadors: int | None = None
    overbid: bool | None = None
    declarer_points: int | None = None
    declarer_tricks: int | None = None
    schneider: bool | None = None
    schwarz: bool | None = None
    raw: str = ""
    #: A Ramsch (R20): every seat's list value and card points, as the log claims them.
    #: Not part of the archive's ``recorded_result`` struct: kept in ``games.extra``.
    scores: tuple[int, int, int] | None = None
    points: tuple[int, int, int] | None = None


#: The RecordedResult fields the archive's ``recorded_result`` struct holds.
RECORDED_STRUCT_FIELDS = ("passed", "penalty", "declarer", "won", "value", "matadors",
                          "overbid", "declarer_points", "declarer_tricks", "schneider",
                          "schwarz", "raw")
#: ``LogGame.extra`` key of a recorded Ramsch result's ``scores`` and ``points``.
RAMSCH_EXTRA = "ramsch_result"


class LogError(ValueError):
    """A typed reading error (raised by the strict helpers; readers return GameError data).

    ``code`` is one of :data:`ERROR_CODES`; ``line`` is 1-based (0 when unknown) and ``move``
    the move number (deal = 0) when the error sits in a move.
    """

    def __init__(self, code: str, message: str, *, line: int = 0, move: int | None = None,
                 rule: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.line = line
        self.move = move
        self.rule = rule

    def as_error(self, line: int | None = None) -> GameError:
        """The same diagnostic as :class:`GameError` data."""
        return GameError(self.code, self.message, self.line if line is None else line,
                         self.move, self.rule)


class LogSyntaxError(LogError):
    """Text that is not a well-formed record (codes ``syntax``, ``truncated``,
    ``corrupt_card``, ``bad_deal``)."""


@dataclass(slots=True)
class ParsedGame:
    """A record as read, before the replay: the deal and the engine moves, each with its move
    number (deal = 0; ISS numbers one ``<who> <action>`` pair per move, so a combined
    ``D.ST.H8`` yields a Discard and a Declare under one number).

    ``errors`` holds what reading found (syntax, truncation, corrupt cards); the replay in
    :mod:`skatlog.ingest.validate` adds the rule errors and turns this into a :class:`LogGame`.
    ``rules`` is the rule set the record is replayed under: ``isko+iss`` for ISS records
    (R17's early endings, R18's off-ladder bids), the record's own for skatlog/1.
    """

    source: str
    line: int
    raw: str
    format: str
    meta: GameMeta = GameMeta()
    deal: Deal | None = None
    moves: list[tuple[int, Move]] = field(default_factory=list)
    recorded: RecordedResult | None = None
    rules: Rules = ISKO
    bock: bool = False  # R21: a hand of a Bock round (skatlog/1 ``bock``)
    errors: list[GameError] = field(default_factory=list)
    warnings: list[GameError] = field(default_factory=list)
    complete: bool = True  # False when the text stops before the record's end
    last_move: int = 0  # highest move number read
    extra: dict[str, object] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class LogGame:
    """One game as read from a log and validated by replay."""

    source: str
    line: int
    raw: str
    format: str  # "iss" or "jsonl"
    meta: GameMeta = GameMeta()
    record: GameRecord | None = None
    recorded: RecordedResult | None = None
    errors: tuple[GameError, ...] = ()
    warnings: tuple[GameError, ...] = ()
    value_check: str = "not_recorded"
    extra: dict[str, object] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.errors and self.record is not None
