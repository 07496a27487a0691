"""One hand driven move by move: auction, skat, declaration, tricks, end, result.

:meth:`GameState.apply` is the validated path: it raises a typed :class:`~.errors.RuleError`
that names the rule and the offending move. :meth:`GameState.apply_unchecked` is the fast
path for trusted callers (bots, the engine's own generators); both share the same state
changes, so the rules live here once.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

from . import core
from .auction import Auction
from .cards import CARD_POINTS, Card, cards_of, mask_of
from .contract import Contract, Declaration
from .deal import Deal
from .errors import (
    CardNotInHand,
    IllegalDeclaration,
    PlayAfterEnd,
    Revoke,
    WrongPhase,
    WrongPlayer,
)
from .moves import (
    AuctionCall,
    Bid,
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
from .rules import ISKO, Rules
from .scoring import Score, score_game
from .tricks import EFFECTIVE, TRUMP, matadors, trick_winner

if TYPE_CHECKING:
    from .foster_game import FosterHand, FosterResult


class Phase(Enum):
    """Where a hand stands."""

    AUCTION = "auction"
    SKAT = "skat"  # the declarer picks up the skat or declares a hand game
    DISCARD = "discard"  # skat picked up: discard and declare, in either order
    PLAY = "play"
    DONE = "done"


class Ending(Enum):
    """How a hand ended; in the order of the rules core's ``END_*`` codes."""

    ALL_PASSED = "all_passed"
    TEN_TRICKS = "ten_tricks"
    NULL_TRICK = "null_trick"  # R9: the null declarer took a trick
    # R17: the game was decided (lost) at this trick; a record may stop there or play on.
    DEFENDERS_TRICK = "defenders_trick"  # schwarz announced / ouvert, defenders took one
    DEFENDERS_31 = "defenders_31"  # schneider announced, defenders passed 30
    DECLARER_RESIGNED = "declarer_resigned"
    DEFENDERS_RESIGNED = "defenders_resigned"
    DECLARER_ABSENT = "declarer_absent"  # declarer timed out or left after declaring
    DEFENDER_ABSENT = "defender_absent"  # a defender timed out or left after the declaration
    PENALTY = "penalty"  # a time-out or leave before any game was declared


@dataclass(frozen=True, slots=True)
class Trick:
    """A trick: who led, the cards in play order, and who won it (seats 0-2)."""

    leader: int
    cards: tuple[Card, ...]
    winner: int

    @property
    def seats(self) -> tuple[int, ...]:
        return tuple((self.leader + i) % 3 for i in range(len(self.cards)))

    @property
    def points(self) -> int:
        if len(self.cards) == 3:  # plain ints: numba would type (slowly) each Card member
            c0, c1, c2 = self.cards
            return int(core.trick_points(int(c0), int(c1), int(c2)))
        return sum(CARD_POINTS[c] for c in self.cards)


@dataclass(frozen=True, slots=True)
class RamschResult:
    """A Ramsch hand's outcome (R20), by seat: card points (the skat with the last trick),
    tricks, and list values (Bock doubling included, R21)."""

    points: tuple[int, int, int]
    tricks: tuple[int, int, int]
    values: tuple[int, int, int]
    jungfrau: bool
    durchmarsch: bool


@dataclass(frozen=True, slots=True)
class GameResult:
    """The outcome of a hand.

    ``outcome`` is ``played``, ``passed`` (all passed, R4), ``ramsch`` (all passed and
    played as Ramsch, R20; ``ramsch`` holds it) or ``penalty`` (no game declared before
    someone timed out or left, R17). For played games ``score`` holds the value.
    ``kontra`` is the seat that said Kontra, ``re`` whether the declarer said Re (R19);
    ``bock`` whether the hand was played in a Bock round (R21).
    """

    outcome: str
    ending: Ending
    declarer: int | None
    bid: int
    declaration: Declaration | None
    matadors: int
    declarer_points: int
    defender_points: int
    declarer_tricks: int
    defender_tricks: int
    score: Score | None
    kontra: int | None = None
    re: bool = False
    bock: bool = False
    ramsch: RamschResult | None = None
    #: A Foster hand (rule set ``foster``): his game, Passt-mir-nicht, his own result.
    foster: FosterResult | None = None

    @property
    def contract_label(self) -> str | None:
        """The archive's ``contract``: the declaration's contract, ``ramsch``, or Foster's
        self-explaining name (``tournee_hearts``, ``passt_mir_nicht_hearts``, ...)."""
        if self.foster is not None:
            return self.foster.contract
        if self.declaration is not None:
            return self.declaration.contract.label
        return "ramsch" if self.ramsch is not None else None

    @property
    def won(self) -> bool:
        return self.score is not None and self.score.won

    @property
    def value(self) -> int:
        """The declarer's signed list value; 0 for passed, Ramsch and penalty hands."""
        return self.score.value if self.score is not None else 0

    @property
    def seat_values(self) -> tuple[int, int, int]:
        """Every seat's list value: the declarer's value (R16: defenders never score), or
        each player's Ramsch result (R20)."""
        if self.ramsch is not None:
            return self.ramsch.values
        values = [0, 0, 0]
        if self.declarer is not None:
            values[self.declarer] = self.value
        return (values[0], values[1], values[2])


def played_result(declaration: Declaration, declarer: int, bid: int, ending: Ending,
                  matadors: int, declarer_points: int, defender_points: int,
                  declarer_tricks: int, defender_tricks: int, kontra_by: int | None = None,
                  re: bool = False, bock: bool = False) -> GameResult:
    """The result of a declared game that ended with these counts (R10-R17, R19, R21):
    :meth:`GameState.result`, also for a caller that has the counts from the compiled
    replay (the ISS kernel's verdicts, :mod:`skatlog.ingest.fast.verdicts`)."""
    score = score_game(
        declaration,
        bid=bid,
        matadors=matadors,
        declarer_points=declarer_points,
        declarer_tricks=declarer_tricks,
        defender_tricks=defender_tricks,
        defender_points=defender_points,
        declarer_conceded=ending in (Ending.DECLARER_RESIGNED, Ending.DECLARER_ABSENT),
        kontra=kontra_by is not None,
        re=re,
        bock=bock,
    )
    return GameResult("played", ending, declarer, bid, declaration, matadors, declarer_points,
                      defender_points, declarer_tricks, defender_tricks, score, kontra_by, re,
                      bock)


class GameState:
    """A hand in progress under ``rules``. Build it from a :class:`~.deal.Deal`, feed it moves.

    Under ``isko`` (skatlog's own games) every game is played to ten tricks (R9). Under
    ``isko+iss`` (recorded logs) a suit or grand game is decided at R17's decisive trick and
    may stop there (:attr:`finished` turns true) or play on, a null declared below the bid is
    scored as an overbid instead of refused (R7), and ISS's off-ladder bids are accepted (R18).
    """

    def __init__(self, deal: Deal, *, rules: Rules = ISKO, bock: bool = False) -> None:
        if bock and not rules.bock:
            raise ValueError(f"a Bock hand needs the option bock (rules {rules})")
        self.deal = deal
        self.rules = rules
        self.flags = rules.flags
        #: R21: the hand is played in a Bock round (every list value doubled).
        self.bock = bock
        #: The game kind in play: the declared contract, or ``core.RAMSCH`` (R20); -1 before.
        self.kind = -1
        #: R19: the seat that said Kontra, and whether the declarer answered Re.
        self.kontra_by: int | None = None
        self.re_said = False
        self.hands = [mask_of(h) for h in deal.hands]
        self.skat_mask = mask_of(deal.skat)
        self.auction = Auction(rules)
        self.phase = Phase.AUCTION
        self.moves: list[Move] = []
        self.declarer: int | None = None
        self.bid = 0
        self.skat_taken = False
        self.discard: tuple[Card, Card] | None = None
        self.declaration: Declaration | None = None
        self.tricks: list[Trick] = []
        self.trick_cards: list[Card] = []
        self.leader = 0
        self.taken_points = [0, 0, 0]
        self.taken_tricks = [0, 0, 0]
        self.resigned: set[int] = set()
        self._ending: Ending | None = None
        #: R17: the decisive ending a recorded game reached; it may stop there or play on.
        self.decided: Ending | None = None
        self.credited_points = 0  # remaining card points given to the declarer (R17)
        self.credited_tricks = 0

    # ----------------------------------------------------------------- queries
    @property
    def recorded(self) -> bool:
        """Whether recorded-log conventions apply (R17 endings), as ``isko+iss`` sets them."""
        return self.rules.early_endings

    @property
    def ending(self) -> Ending | None:
        """How the hand ended, or the decisive ending of a game decided by R17; else None."""
        return self._ending if self._ending is not None else self.decided

    @property
    def finished(self) -> bool:
        """The hand is over, or decided at a trick's end where a record may stop (R17)."""
        return self.phase is Phase.DONE or (self.decided is not None and not self.trick_cards)

    @property
    def to_move(self) -> int | None:
        """The seat whose move it is, or None when the hand is over."""
        if self.phase is Phase.AUCTION:
            return self.auction.to_act
        if self.phase in (Phase.SKAT, Phase.DISCARD):
            return self.declarer
        if self.phase is Phase.PLAY:
            return (self.leader + len(self.trick_cards)) % 3
        return None

    @property
    def contract(self) -> Contract | None:
        return self.declaration.contract if self.declaration else None

    @property
    def ramsch(self) -> bool:
        """The hand is a Ramsch (all passed under the option ``ramsch``, R20)."""
        return self.kind == core.RAMSCH

    def legal_cards(self) -> list[Card]:
        """The cards the seat to play may play now (R8)."""
        if self.phase is not Phase.PLAY or self.kind < 0:
            return []
        seat = (self.leader + len(self.trick_cards)) % 3
        led = self.trick_cards[0] if self.trick_cards else None
        follow = core.follow_mask(self.kind, -1 if led is None else int(led))
        return cards_of(int(core.legal_cards(self.hands[seat], follow)))

    def legal_doubles(self) -> list[Kontra | Re]:
        """The Kontra and Re calls that may be made now (R19); none without ``kontra_re``."""
        if self.phase is Phase.DONE or not self.rules.kontra_re:
            return []
        out: list[Kontra | Re] = []
        for seat in (0, 1, 2):
            for move in (Kontra(seat), Re(seat)):
                if not self._double_error(move):
                    out.append(move)
        return out

    def legal_calls(self) -> list[AuctionCall]:
        """The auction calls the seat to speak may make now (R3, R4)."""
        return self.auction.legal_calls() if self.phase is Phase.AUCTION else []

    def legal_moves(self) -> list[Move]:
        """Every legal move now, excluding concessions (resign, time-out, leave)."""
        if self.phase is Phase.AUCTION:
            return list(self.auction.legal_calls())
        seat = self.declarer
        if self.phase is Phase.PLAY:
            to_play = (self.leader + len(self.trick_cards)) % 3
            return [Play(to_play, c) for c in self.legal_cards()]
        if seat is None:
            return []
        if self.phase is Phase.SKAT:
            decls = [d for d in all_declarations() if d.hand and self._declaration_ok(d)]
            skat_moves: list[Move] = [PickUp(seat)]
            return skat_moves + [Declare(seat, d) for d in decls]
        if self.phase is Phase.DISCARD:
            moves: list[Move] = []
            if self.discard is None:
                held = cards_of(self.hands[seat])
                moves += [Discard(seat, (a, b)) for i, a in enumerate(held) for b in held[i + 1:]]
            if self.declaration is None:
                moves += [Declare(seat, d) for d in all_declarations()
                          if not d.hand and self._declaration_ok(d)]
            return moves
        return []

    # ------------------------------------------------------- validated path
    def apply(self, move: Move) -> None:
        """Check ``move`` against the rules, then play it; raises a typed RuleError."""
        self.check(move)
        self.apply_unchecked(move)

    def check(self, move: Move) -> None:
        """Raise the typed :class:`RuleError` that ``move`` breaks, if any."""
        if isinstance(move, (TimeOut, Leave)):
            if self.phase is Phase.DONE:
                raise PlayAfterEnd("the game is already over", rule="R17", move=move)
            self._check_seat_number(move)
            return
        if self.phase is Phase.DONE:
            raise PlayAfterEnd("the game is already over", rule="R9", move=move)
        if isinstance(move, (Bid, Hold, Pass)):
            if self.phase is not Phase.AUCTION:
                raise WrongPhase("the auction is over", rule="R4", move=move)
            self.auction.check(move)
            return
        if isinstance(move, (Kontra, Re)):
            self._check_seat_number(move)
            self._check_double(move)
            return
        if self.phase is Phase.AUCTION:
            raise WrongPhase(f"{type(move).__name__} during the auction", rule="R4", move=move)
        if isinstance(move, Play):
            self._check_play(move)
        elif isinstance(move, PickUp):
            self._check_declarer(move)
            if self.phase is not Phase.SKAT:
                raise WrongPhase("the skat can only be picked up once, before declaring",
                                 rule="R5", move=move)
        elif isinstance(move, Discard):
            self._check_discard(move)
        elif isinstance(move, Declare):
            self._check_declare(move)
        elif isinstance(move, (Resign, ShowCards)):
            self._check_seat_number(move)
            if isinstance(move, ShowCards) and move.seat != self.declarer:
                raise WrongPlayer("only the declarer shows cards", rule="R17", move=move)
            if self.declaration is None:
                raise WrongPhase("no game has been declared", rule="R17", move=move)
        else:  # Turn, Gucki, FosterDeclare
            raise WrongPhase(f"{type(move).__name__} is a move of Foster's Skat (rules"
                             f" foster), not of {self.rules}", rule="F5", move=move)

    def _double_error(self, move: Kontra | Re) -> int:
        """The core's ``K_*`` error of a Kontra or Re now, 0 when legal (R19)."""
        call = core.CALL_KONTRA if isinstance(move, Kontra) else core.CALL_RE
        kontra = -1 if self.kontra_by is None else self.kontra_by
        watched = move.seat if call == core.CALL_KONTRA else kontra
        played = watched >= 0 and self.hands[watched].bit_count() < 10
        declarer = -1 if self.declarer is None else self.declarer
        return int(core.double_error(call, move.seat, declarer, self.declaration is not None,
                                     kontra, self.re_said, played, self.flags))

    def _check_double(self, move: Kontra | Re) -> None:
        error = self._double_error(move)
        if not error:
            return
        name = type(move).__name__
        if error in (core.K_DEFENDERS_ONLY, core.K_DECLARER_ONLY):
            who = "a defender" if error == core.K_DEFENDERS_ONLY else "the declarer"
            raise WrongPlayer(f"only {who} says {name}", rule="R19", move=move)
        message = {
            core.K_NOT_PLAYED: f"{name} is not played under {self.rules} (option kontra_re)",
            core.K_NO_GAME: f"{name} needs a declared game",
            core.K_ONCE: f"{name} is said once a game",
            core.K_TOO_LATE: f"{name} comes before the Kontra's defender plays his first card",
            core.K_NO_KONTRA: "Re answers a Kontra",
        }[error]
        raise WrongPhase(message, rule="R19", move=move)

    def _check_seat_number(self, move: Move) -> None:
        if move.seat not in (0, 1, 2):
            raise WrongPlayer(f"there is no seat {move.seat}", rule="R1", move=move)

    def _check_declarer(self, move: Move) -> None:
        if move.seat != self.declarer:
            raise WrongPlayer(f"seat {move.seat} is not the declarer (seat {self.declarer})",
                              rule="R5", move=move)

    def _check_play(self, move: Play) -> None:
        if self.phase is not Phase.PLAY:
            raise WrongPhase("cards are played only after the declaration", rule="R8", move=move)
        seat = (self.leader + len(self.trick_cards)) % 3
        if move.seat != seat:
            raise WrongPlayer(f"seat {move.seat} played but seat {seat} is to play",
                              rule="R8", move=move)
        hand = self.hands[seat]
        if not hand >> move.card & 1:
            raise card_not_held(move)
        if self.trick_cards:
            contract = self.kind
            led = self.trick_cards[0]
            legal = int(core.legal_cards(hand, core.follow_mask(contract, int(led))))
            if not legal >> move.card & 1:
                raise revoke(move, contract, int(led), legal, self.ramsch)

    def _check_discard(self, move: Discard) -> None:
        self._check_declarer(move)
        if self.phase is not Phase.DISCARD or self.discard is not None:
            raise WrongPhase("discards follow picking up the skat, once", rule="R5", move=move)
        a, b = move.cards
        if a == b:
            raise IllegalDeclaration("the two discards must be different cards", rule="R5",
                                     move=move)
        for card in (a, b):
            if not self.hands[move.seat] >> card & 1:
                raise CardNotInHand(f"the declarer cannot discard {card}: not held", rule="R5",
                                    move=move)

    def _check_declare(self, move: Declare) -> None:
        self._check_declarer(move)
        if self.phase not in (Phase.SKAT, Phase.DISCARD) or self.declaration is not None:
            raise WrongPhase("the game is declared once, after the auction", rule="R5",
                             move=move)
        try:
            move.declaration.check(skat_taken=self.skat_taken)
        except IllegalDeclaration as err:
            err.move = move
            raise
        d = move.declaration
        if core.bid_error(int(d.contract), d.hand, d.ouvert, self.bid, self.flags):
            raise IllegalDeclaration(
                f"{move.declaration} is worth {move.declaration.base_value},"
                f" below the bid of {self.bid}", rule="R7", move=move)

    def _declaration_ok(self, declaration: Declaration) -> bool:
        """Legal, and worth the bid if a null: the choices a player is offered (R5-R7)."""
        d = declaration
        return not core.declaration_error(int(d.contract), d.hand, d.schneider_announced,
                                          d.schwarz_announced, d.ouvert, self.skat_taken) \
            and not core.bid_error(int(d.contract), d.hand, d.ouvert, self.bid, 0)

    # --------------------------------------------------------- fast path
    def apply_unchecked(self, move: Move) -> None:
        """Play ``move`` without checking it. For trusted callers only."""
        self.moves.append(move)
        kind = type(move)
        if kind is Play:
            self._play(move.card)  # type: ignore[union-attr]
        elif kind is Bid or kind is Hold or kind is Pass:
            self.auction.apply(move)  # type: ignore[arg-type]
            if self.auction.done:
                self._auction_over()
        elif kind is PickUp:
            self.skat_taken = True
            assert self.declarer is not None
            self.hands[self.declarer] |= self.skat_mask
            self.phase = Phase.DISCARD
        elif kind is Discard:
            assert self.declarer is not None
            self.discard = move.cards  # type: ignore[union-attr]
            self.hands[self.declarer] &= ~mask_of(self.discard)
            self._maybe_start_play()
        elif kind is Declare:
            self.declaration = move.declaration  # type: ignore[union-attr]
            if self.phase is Phase.SKAT:
                self.phase = Phase.PLAY
            self._maybe_start_play()
        elif kind is Kontra:
            self.kontra_by = move.seat
        elif kind is Re:
            self.re_said = True
        elif kind is Resign:
            self._resign(move.seat)
        elif kind is TimeOut or kind is Leave:
            self._absent(move.seat)
        # ShowCards changes nothing (R17).

    def _auction_over(self) -> None:
        if self.auction.declarer is None:
            if core.ramsch_on_all_pass(self.flags):  # R20: played as Ramsch, Forehand leads
                self.kind = core.RAMSCH
                self.phase = Phase.PLAY
                self.leader = 0
                return
            self._end(Ending.ALL_PASSED)
            return
        self.declarer = self.auction.declarer
        self.bid = self.auction.bid
        self.phase = Phase.SKAT

    def _maybe_start_play(self) -> None:
        if self.phase is Phase.DISCARD and self.discard is not None and self.declaration:
            self.phase = Phase.PLAY
        if self.phase is Phase.PLAY:
            self.leader = 0  # R8: Forehand leads the first trick
            assert self.declaration is not None
            self.kind = int(self.declaration.contract)

    def _play(self, card: Card) -> None:
        seat = (self.leader + len(self.trick_cards)) % 3
        self.hands[seat] &= ~(1 << card)
        self.trick_cards.append(card)
        if len(self.trick_cards) < 3:
            return
        winner = (self.leader + trick_winner(self.trick_cards, self.kind)) % 3  # type: ignore[arg-type]
        trick = Trick(self.leader, tuple(self.trick_cards), winner)
        self.tricks.append(trick)
        self.taken_points[winner] += trick.points
        self.taken_tricks[winner] += 1
        self.trick_cards = []
        self.leader = winner
        decided = core.END_NONE if self.decided is None else _END_CODES[self.decided]
        declaration = self.declaration
        if declaration is None:  # R20: a Ramsch has no declarer and no announcement
            ending, over = core.after_trick(self.kind, False, False, -1, winner,
                                            len(self.tricks), 0, decided, self.flags)
        else:
            assert self.declarer is not None
            ending, over = core.after_trick(
                self.kind, declaration.schneider_announced,
                declaration.schwarz_announced, self.declarer, winner, len(self.tricks),
                self.defender_points, decided, self.flags)
        if over:
            self._end(ENDINGS[ending])  # R9, ten tricks
        elif ending != core.END_NONE:
            self.decided = ENDINGS[ending]  # R17: decided; the record may stop or play on

    def _resign(self, seat: int) -> None:
        if seat == self.declarer:
            self._end(Ending.DECLARER_RESIGNED)
            return
        self.resigned.add(seat)
        if len(self.resigned) == 2:
            self._credit_declarer()
            self._end(Ending.DEFENDERS_RESIGNED)

    def _absent(self, seat: int) -> None:
        if self.declaration is None:
            self._end(Ending.PENALTY)
        elif seat == self.declarer:
            self._end(Ending.DECLARER_ABSENT)
        else:
            self._credit_declarer()
            self._end(Ending.DEFENDER_ABSENT)

    def _credit_declarer(self) -> None:
        """R17: the defenders concede, so every remaining trick goes to the declarer.

        In null the declarer wants no tricks: conceding defenders simply lose.
        """
        assert self.declaration is not None
        remaining = self.hands[0] | self.hands[1] | self.hands[2] | mask_of(self.trick_cards)
        points, tricks = core.concession_credit(
            int(self.declaration.contract), remaining, self.skat_mask,
            self.skat_taken and self.discard is None, len(self.tricks))
        self.credited_points, self.credited_tricks = int(points), int(tricks)

    def _end(self, ending: Ending) -> None:
        """End the hand; a game already decided (R17) keeps its decisive ending."""
        self._ending = self.decided or ending
        self.phase = Phase.DONE

    # ----------------------------------------------------------- results
    @property
    def skat_points(self) -> int:
        """Points of the skat as it lies: the discards, or the untouched skat (R10)."""
        d0, d1 = self.discard if self.discard is not None else (-1, -1)
        s0, s1 = self.deal.skat
        return int(core.skat_points(int(d0), int(d1), int(s0), int(s1)))

    @property
    def declarer_points(self) -> int:
        """Card points for the declarer: tricks, credited cards and the skat (R10, R17)."""
        if self.declarer is None:
            return 0
        return self.taken_points[self.declarer] + self.credited_points + self.skat_points

    @property
    def defender_points(self) -> int:
        if self.declarer is None:
            return 0
        return sum(self.taken_points) - self.taken_points[self.declarer]

    @property
    def declarer_tricks(self) -> int:
        if self.declarer is None:
            return 0
        return self.taken_tricks[self.declarer] + self.credited_tricks

    @property
    def defender_tricks(self) -> int:
        if self.declarer is None:
            return 0
        return len(self.tricks) - self.taken_tricks[self.declarer]

    def matadors(self) -> int:
        """Signed matadors over the declarer's dealt hand plus the original skat (R12)."""
        if self.declarer is None or self.declaration is None:
            return 0
        held = mask_of(self.deal.hands[self.declarer]) | self.skat_mask
        return matadors(held, self.declaration.contract)

    def result(self) -> GameResult:
        """The result of a finished hand; raises ValueError while it is still going.

        A recorded game decided at R17's decisive trick is finished there (the record may
        stop) and, played on, is scored on every trick played."""
        ending = self.ending
        if ending is None or not self.finished:
            raise ValueError("the hand is not finished")
        if self.ramsch and ending is Ending.TEN_TRICKS:
            return self._ramsch_result()
        if ending is Ending.ALL_PASSED or self.declaration is None:
            outcome = "passed" if ending is Ending.ALL_PASSED else "penalty"
            return GameResult(outcome, ending, self.declarer, self.bid, None, 0,
                              0, 0, 0, 0, None, bock=self.bock)
        assert self.declarer is not None
        return played_result(
            self.declaration, self.declarer, self.bid, ending, self.matadors(),
            self.declarer_points, self.defender_points, self.declarer_tricks,
            self.defender_tricks, self.kontra_by, self.re_said, self.bock)

    def _ramsch_result(self) -> GameResult:
        """R20: the skat goes with the last trick; each seat scored by the core; Bock (R21)
        doubles every value."""
        taken = self.taken_points
        points = [int(x) for x in core.skat_to_last_trick(
            taken[0], taken[1], taken[2], self.tricks[-1].winner, self.skat_points)]
        t = self.taken_tricks
        v0, v1, v2, jungfrau, durchmarsch = core.ramsch_score(
            points[0], points[1], points[2], t[0], t[1], t[2])
        times = int(core.doublings(False, False, self.bock))
        values = tuple(int(core.doubled(int(v), times)) for v in (v0, v1, v2))
        ramsch = RamschResult((points[0], points[1], points[2]), (t[0], t[1], t[2]),
                              (values[0], values[1], values[2]), bool(jungfrau),
                              bool(durchmarsch))
        return GameResult("ramsch", Ending.TEN_TRICKS, None, 0, None, 0, 0, 0, 0, 0, None,
                          bock=self.bock, ramsch=ramsch)


def new_state(deal: Deal, *, rules: Rules = ISKO, bock: bool = False) -> GameState | FosterHand:
    """A hand under ``rules``: a :class:`GameState`, or for ``foster`` a
    :class:`~.foster_game.FosterHand` (the same moves interface: apply, check, finished,
    to_move, phase, moves, tricks, result)."""
    if rules.foster:
        from .foster_game import FosterHand

        return FosterHand(deal, rules=rules, bock=bock)
    return GameState(deal, rules=rules, bock=bock)


#: Endings by the rules core's ``END_*`` code, and back.
ENDINGS: tuple[Ending, ...] = tuple(Ending)
_END_CODES = {ending: code for code, ending in enumerate(ENDINGS)}
assert ENDINGS[core.END_DEFENDERS_31] is Ending.DEFENDERS_31
assert ENDINGS[core.END_PENALTY] is Ending.PENALTY


def card_not_held(move: Play) -> CardNotInHand:
    """The error of a card played that its seat does not hold (R8). A function beside
    :meth:`GameState.check` so that a compiled path that found the same fault reports it in
    the same words."""
    return CardNotInHand(f"seat {move.seat} does not hold {move.card}", rule="R8", move=move)


def revoke(move: Play, contract: int, led: int, legal: int, ramsch: bool) -> Revoke:
    """The error of a card that does not follow the card ``led`` though the seat's ``legal``
    cards (a mask) do (R8; R20 in a Ramsch); see :func:`card_not_held`."""
    return Revoke(
        f"{move.card} does not follow {_suit_name(EFFECTIVE[contract][led])}"
        f" led with {Card(led)}, though seat {move.seat} holds "
        + ".".join(c.name for c in cards_of(legal)),
        rule="R20" if ramsch else "R8", move=move,
    )


def _suit_name(effective: int) -> str:
    return "trumps" if effective == TRUMP else ("diamonds", "hearts", "spades", "clubs")[effective]


_ALL_DECLARATIONS: list[Declaration] = []


def all_declarations() -> list[Declaration]:
    """Every distinct normalized declaration (contract x hand x announcements x ouvert)."""
    if not _ALL_DECLARATIONS:
        seen = set()
        for contract in Contract:
            for hand in (False, True):
                for level in range(4):  # none, schneider, schwarz, ouvert
                    if contract is Contract.NULL and level in (1, 2):
                        continue
                    suit_or_grand = contract is not Contract.NULL
                    d = Declaration.normalized(
                        contract, hand=hand, schneider_announced=suit_or_grand and level >= 1,
                        schwarz_announced=suit_or_grand and level >= 2, ouvert=level == 3,
                    )
                    if d not in seen:
                        seen.add(d)
                        _ALL_DECLARATIONS.append(d)
    return list(_ALL_DECLARATIONS)


__all__ = ["Ending", "GameResult", "GameState", "Phase", "RamschResult", "Trick",
           "all_declarations", "new_state"]
