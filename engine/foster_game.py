"""One hand of Foster's Skat (F2-F12) driven move by move: his auction, the turned card,
Passt-mir-nicht, gucki and solos, the lay-out, the play and the score; a wrapper over the
rules core as :class:`~.game.GameState` is for ``isko``.

Seats are 0 Vorhand, 1 Mittelhand, 2 Hinterhand of the three active players (F1; which table
positions those are is :meth:`~.foster.Sitting.active`). The skat moves: a Tournée is
``Turn`` (a skat card, optionally after Passt-mir-nicht) then ``FosterDeclare`` of the
Tournée of its suit (or a turned grand for a jack) and the lay-out ``Discard``; a gucki grand
is ``Gucki``, ``FosterDeclare``, ``Discard``; a gucki nullo is announced first
(``FosterDeclare``, then ``Gucki`` and ``Discard``); a solo is ``FosterDeclare`` alone.
When nobody bids and Vorhand passes too, the hand is a Ramsch (F4, F12).
"""

from __future__ import annotations

from dataclasses import dataclass

from . import core
from .cards import Card, cards_of, mask_of
from .deal import Deal
from .errors import (
    CardNotInHand,
    IllegalBid,
    IllegalDeclaration,
    PlayAfterEnd,
    Revoke,
    RuleError,
    WrongPhase,
    WrongPlayer,
)
from .foster import FosterGame, contract_name
from .game import Ending, GameResult, Phase, RamschResult, Trick
from .moves import Bid, Discard, FosterDeclare, Gucki, Hold, Move, Pass, Play, Resign, Turn
from .rules import FOSTER, Rules
from .scoring import Score
from .tricks import trick_winner

_AUCTION_MESSAGES = {
    core.A_OVER: ("the auction is over", "F4"),
    core.A_ONLY_18: ("when nobody bid, Vorhand takes the game at 10 or passes", "F4"),
    core.A_LISTENER_BIDS: ("the listener holds or passes, it does not bid", "F4"),
    core.A_OFF_LADDER: ("no game is worth that: not one of Foster's bids", "F3"),
    core.A_NOT_HIGHER: ("a bid must be higher than the last one", "F4"),
    core.A_HOLD_NOT_LISTENER: ("only the listener can hold a bid", "F4"),
}


@dataclass(frozen=True, slots=True)
class FosterResult:
    """A finished Foster hand: ``played`` (``score``) or ``ramsch`` (``ramsch_values``)."""

    outcome: str
    declarer: int | None
    bid: int
    game: FosterGame
    passt_mir_nicht: bool
    matadors: int
    player_points: int
    player_tricks: int
    score: Score | None
    ramsch_points: tuple[int, int, int] | None = None
    ramsch_values: tuple[int, int, int] | None = None
    schneider_announced: bool = False
    schwarz_announced: bool = False

    @property
    def contract(self) -> str:
        """The archive's self-explaining name: ``tournee_hearts``, ``passt_mir_nicht_hearts``."""
        return contract_name(self.game, self.passt_mir_nicht)

    @property
    def seat_values(self) -> tuple[int, int, int]:
        """Every seat's value: the single player's (law 58), or each Ramsch score."""
        if self.ramsch_values is not None:
            return self.ramsch_values
        values = [0, 0, 0]
        if self.declarer is not None and self.score is not None:
            values[self.declarer] = self.score.value
        return (values[0], values[1], values[2])


class FosterHand:
    """A Foster hand in progress; :meth:`apply` checks a move (a typed RuleError citing F2-F12
    or the law) and plays it."""

    def __init__(self, deal: Deal, *, rules: Rules = FOSTER, bock: bool = False) -> None:
        if rules.name != "foster" or bock:
            raise ValueError(f"a Foster hand is played under foster, not {rules}"
                             + (" with bock" if bock else ""))
        self.deal = deal
        self.rules = rules
        self.bock = False
        self.hands = [mask_of(h) for h in deal.hands]
        self.skat_mask = mask_of(deal.skat)
        self.stage, self.speaker, self.listener, self.to_act, self.bid = core.AUCTION_START
        self.phase = Phase.AUCTION
        self.moves: list[Move] = []
        self.declarer: int | None = None
        self.game: FosterGame | None = None
        self.turned: Card | None = None
        self.passt_mir_nicht = False
        self.gucki = False
        self.schneider_announced = False
        self.schwarz_announced = False
        self.discard: tuple[Card, Card] | None = None
        self.kind = -1  # the play kind (core.FOSTER_PLAY_KINDS) once play starts
        self.tricks: list[Trick] = []
        self.trick_cards: list[Card] = []
        self.leader = 0
        self.taken_points = [0, 0, 0]
        self.taken_tricks = [0, 0, 0]
        self.abandoned = False  # F7: a Tournée given up before the second trick

    # ---------------------------------------------------------------- queries
    @property
    def finished(self) -> bool:
        return self.phase is Phase.DONE

    @property
    def to_move(self) -> int | None:
        if self.phase is Phase.AUCTION:
            return self.to_act
        if self.phase in (Phase.SKAT, Phase.DISCARD):
            return self.declarer
        if self.phase is Phase.PLAY:
            return (self.leader + len(self.trick_cards)) % 3
        return None

    def legal_cards(self) -> list[Card]:
        if self.phase is not Phase.PLAY:
            return []
        seat = (self.leader + len(self.trick_cards)) % 3
        led = int(self.trick_cards[0]) if self.trick_cards else -1
        return cards_of(int(core.legal_cards(self.hands[seat], core.follow_mask(self.kind, led))))

    # ---------------------------------------------------------------- moves
    def apply(self, move: Move) -> None:
        """Check ``move`` against Foster's rules, then play it."""
        self.check(move)
        self._apply(move)

    def check(self, move: Move) -> None:
        """Raise the typed :class:`RuleError` that ``move`` breaks, if any."""
        if self.phase is Phase.DONE:
            raise PlayAfterEnd("the hand is over", rule="F7", move=move)
        if isinstance(move, (Bid, Hold, Pass)):
            self._check_call(move)
            return
        if self.phase is Phase.AUCTION:
            raise WrongPhase(f"{type(move).__name__} during the auction", rule="F4", move=move)
        if isinstance(move, Play):
            self._check_play(move)
            return
        if isinstance(move, Resign):
            self._check_abandon(move)
            return
        if move.seat != self.declarer:
            raise WrongPlayer(f"seat {move.seat} is not the player (seat {self.declarer})",
                              rule="F5", move=move)
        if isinstance(move, Turn):
            if self.phase is not Phase.SKAT or self.game is not None or self.gucki \
                    or self.turned is not None:
                raise WrongPhase("a skat card is turned once, before any game is named",
                                 rule="F5", move=move)
            if not self.skat_mask >> move.card & 1:
                raise CardNotInHand(f"{move.card} is not in the skat", rule="F5", move=move)
        elif isinstance(move, Gucki):
            nullo_first = self.game is not None and core.foster_is_nullo(int(self.game))
            if self.phase is not Phase.SKAT or self.turned is not None or self.gucki \
                    or (self.game is not None and not nullo_first):
                raise WrongPhase("gucki takes the untouched skat, before a grand is named (a"
                                 " nullo is announced before, law 28)", rule="F5", move=move)
        elif isinstance(move, FosterDeclare):
            self._check_declare(move)
        elif isinstance(move, Discard):
            if self.phase is not Phase.DISCARD or self.discard is not None:
                raise WrongPhase("two cards are laid out once, after the skat is taken and"
                                 " the game named (law 32)", rule="F5", move=move)
            a, b = move.cards
            hand = self.hands[move.seat]
            if a == b or not (hand >> a & 1 and hand >> b & 1):
                raise CardNotInHand("the lay-out is two different cards of the player's hand",
                                    rule="F5", move=move)
        else:
            raise WrongPhase(f"{type(move).__name__} is not a move of Foster's Skat", rule="F5",
                             move=move)

    def _check_abandon(self, move: Resign) -> None:
        """F7 (law 44): the player may abandon a Tournée (a turned game) before he plays to
        the second trick; nobody else resigns in Foster's game."""
        if move.seat != self.declarer:
            raise WrongPlayer("only the player abandons his game (law 44)", rule="F7",
                              move=move)
        if self.phase is not Phase.PLAY or self.turned is None:
            raise WrongPhase("only a Tournée in play can be abandoned (law 44)", rule="F7",
                             move=move)
        played = len(self.tricks) + (1 if move.seat in self._seats_in_trick() else 0)
        if played >= 2:
            raise WrongPhase("a Tournée is abandoned before the player plays to the second"
                             " trick (law 44)", rule="F7", move=move)

    def _seats_in_trick(self) -> tuple[int, ...]:
        return tuple((self.leader + i) % 3 for i in range(len(self.trick_cards)))

    def _check_call(self, call: Bid | Hold | Pass) -> None:
        if self.phase is not Phase.AUCTION:
            raise WrongPhase("the auction is over", rule="F4", move=call)
        code = core.CALL_PASS if isinstance(call, Pass) else (
            core.CALL_HOLD if isinstance(call, Hold) else max(call.value, 2))
        error = core.foster_auction_error(self.stage, self.listener, self.to_act, self.bid,
                                          call.seat, code)
        if error == core.A_NOT_YOUR_TURN:
            raise WrongPlayer(f"seat {call.seat} called but seat {self.to_act} is to speak",
                              rule="F4", move=call)
        if error:
            message, rule = _AUCTION_MESSAGES[error]
            raise IllegalBid(message, rule=rule, move=call)

    def _check_declare(self, move: FosterDeclare) -> None:
        if self.phase is not Phase.SKAT or self.game is not None:
            raise WrongPhase("the game is named once", rule="F5", move=move)
        try:
            game = FosterGame(move.game)
        except ValueError:
            raise IllegalDeclaration(f"{move.game} is not a Foster game", rule="F5",
                                     move=move) from None
        if game is FosterGame.RAMSCH:
            raise IllegalDeclaration("a Ramsch is not declared: it follows an all-pass"
                                     " auction", rule="F4", move=move)
        announces = move.schneider_announced or move.schwarz_announced
        if self.turned is not None:
            if not core.foster_turned_game_ok(int(game), int(self.turned)):
                raise IllegalDeclaration(f"{game.label} is not the game the turned"
                                         f" {self.turned} allows (law 29, 30)", rule="F5",
                                         move=move)
        elif self.gucki:
            if game is not FosterGame.GUCKI_GRAND:
                raise IllegalDeclaration("after gucki only a gucki grand (a gucki nullo is"
                                         " announced before touching the skat, law 28)",
                                         rule="F5", move=move)
        elif game.uses_skat and game not in (FosterGame.GUCKI_NULLO,
                                             FosterGame.OPEN_GUCKI_NULLO):
            raise IllegalDeclaration(f"{game.label} is played with the skat: turn a card or"
                                     " take it (gucki) first", rule="F5", move=move)
        if announces and (game.uses_skat or core.foster_is_nullo(int(game))):
            raise IllegalDeclaration("schneider and schwarz are announced only in suit solos"
                                     " and the solo grand (law 39, 41)", rule="F5", move=move)
        if move.schwarz_announced and not move.schneider_announced:
            raise IllegalDeclaration("schwarz announced implies schneider announced",
                                     rule="F8", move=move)

    def _check_play(self, move: Play) -> None:
        if self.phase is not Phase.PLAY:
            raise WrongPhase("cards are played after the game is named and laid out",
                             rule="F7", move=move)
        seat = (self.leader + len(self.trick_cards)) % 3
        if move.seat != seat:
            raise WrongPlayer(f"seat {move.seat} played but seat {seat} is to play",
                              rule="F7", move=move)
        if not self.hands[seat] >> move.card & 1:
            raise CardNotInHand(f"seat {seat} does not hold {move.card}", rule="F7", move=move)
        if move.card not in self.legal_cards():
            raise Revoke(f"{move.card} does not follow {self.trick_cards[0]}", rule="F2",
                         move=move)

    def _apply(self, move: Move) -> None:
        self.moves.append(move)
        if isinstance(move, (Bid, Hold, Pass)):
            code = core.CALL_PASS if isinstance(move, Pass) else (
                core.CALL_HOLD if isinstance(move, Hold) else move.value)
            stage, speaker, listener, to_act, bid, declarer = core.auction_step(
                self.stage, self.speaker, self.listener, self.to_act, self.bid, move.seat, code)
            self.stage, self.speaker, self.listener = int(stage), int(speaker), int(listener)
            self.to_act, self.bid = int(to_act), int(bid)
            if self.stage == core.AUCTION_DONE:
                if declarer >= 0:
                    self.declarer = int(declarer)
                    self.phase = Phase.SKAT
                else:  # F4: nobody bid and Vorhand passed: a Ramsch, Vorhand leads
                    self.game = FosterGame.RAMSCH
                    self._start_play()
        elif isinstance(move, Turn):
            self.turned = move.card
            self.passt_mir_nicht = move.passt_mir_nicht
            self._take_skat()
        elif isinstance(move, Gucki):
            self.gucki = True
            self._take_skat()
            if self.game is not None:  # a gucki nullo, announced before
                self.phase = Phase.DISCARD
        elif isinstance(move, FosterDeclare):
            self.game = FosterGame(move.game)
            self.schneider_announced = move.schneider_announced
            self.schwarz_announced = move.schwarz_announced
            if not self.game.uses_skat:
                self._start_play()
            elif self.turned is not None or self.gucki:
                self.phase = Phase.DISCARD
        elif isinstance(move, Discard):
            assert self.declarer is not None
            self.discard = move.cards
            self.hands[self.declarer] &= ~mask_of(move.cards)
            self._start_play()
        elif isinstance(move, Play):
            self._play(move)
        elif isinstance(move, Resign):  # F7: abandoned, lost at the game level
            self.abandoned = True
            self.phase = Phase.DONE

    def _take_skat(self) -> None:
        assert self.declarer is not None
        self.hands[self.declarer] |= self.skat_mask

    def _start_play(self) -> None:
        assert self.game is not None
        self.kind = core.FOSTER_PLAY_KINDS[self.game]
        self.phase = Phase.PLAY
        self.leader = 0  # F7: Vorhand leads

    def _play(self, move: Play) -> None:
        seat = move.seat
        self.hands[seat] &= ~(1 << move.card)
        self.trick_cards.append(move.card)
        if len(self.trick_cards) < 3:
            return
        winner = (self.leader + trick_winner(self.trick_cards, self.kind)) % 3  # type: ignore[arg-type]
        trick = Trick(self.leader, tuple(self.trick_cards), winner)
        self.tricks.append(trick)
        self.taken_points[winner] += trick.points
        self.taken_tricks[winner] += 1
        self.trick_cards = []
        self.leader = winner
        declarer = -1 if self.declarer is None else self.declarer
        _, over = core.after_trick(self.kind, False, False, declarer, winner, len(self.tricks),
                                   0, core.END_NONE, 0)  # F7: a nullo ends at the first trick
        if over:
            self.phase = Phase.DONE

    # ---------------------------------------------------------------- result
    def result(self) -> GameResult:
        """The finished hand as a :class:`~.game.GameResult` (``foster`` holds Foster's own
        view, :meth:`foster_result`), so records, logs and rows treat it as any hand."""
        fr = self.foster_result()
        if fr.ramsch_points is not None and fr.ramsch_values is not None:
            t = self.taken_tricks
            ramsch = RamschResult(fr.ramsch_points, (t[0], t[1], t[2]), fr.ramsch_values,
                                  0 in t, False)
            return GameResult("ramsch", Ending.TEN_TRICKS, None, 0, None, 0, 0, 0, 0, 0, None,
                              ramsch=ramsch, foster=fr)
        assert fr.declarer is not None
        taken = sum(self.taken_points) - self.taken_points[fr.declarer]
        ending = Ending.DECLARER_RESIGNED if self.abandoned else (
            Ending.TEN_TRICKS if len(self.tricks) == core.N_TRICKS else Ending.NULL_TRICK)
        return GameResult("played", ending, fr.declarer, fr.bid, None, fr.matadors,
                          fr.player_points, taken, fr.player_tricks,
                          len(self.tricks) - fr.player_tricks, fr.score, foster=fr)

    def foster_result(self) -> FosterResult:
        """The score of the finished hand (F8-F12); ValueError while it is going."""
        if not self.finished or self.game is None:
            raise ValueError("the hand is not finished")
        skat = self.deal.skat if self.discard is None else self.discard
        skat_points = int(core.skat_points(-1, -1, int(skat[0]), int(skat[1])))
        if self.game is FosterGame.RAMSCH:
            taken = self.taken_points
            last = self.tricks[-1].winner
            seat_points = [int(x) for x in core.skat_to_last_trick(  # F12, as R20
                taken[0], taken[1], taken[2], last, skat_points)]
            t = self.taken_tricks
            values = core.foster_ramsch_score(seat_points[0], seat_points[1], seat_points[2],
                                              t[0], t[1], t[2], last)
            return FosterResult("ramsch", None, 0, self.game, False, 0, 0, 0, None,
                                (seat_points[0], seat_points[1], seat_points[2]),
                                (int(values[0]), int(values[1]), int(values[2])))
        assert self.declarer is not None
        seat = self.declarer
        held = mask_of(self.deal.hands[seat]) | self.skat_mask
        mats = int(core.matadors(held, self.kind))
        points = self.taken_points[seat] + skat_points  # F9: the skat counts for the player
        tricks = self.taken_tricks[seat]
        won, value, game_value, mult, overbid, schneider, schwarz = core.foster_score(
            int(self.game), self.passt_mir_nicht, self.schneider_announced,
            self.schwarz_announced, self.abandoned, self.bid, mats, points, tricks,
            len(self.tricks) - tricks)
        score = Score(bool(won), int(value), int(game_value), int(mult), bool(overbid),
                      bool(schneider), bool(schwarz))
        return FosterResult("played", seat, self.bid, self.game, self.passt_mir_nicht, mats,
                            points, tricks, score, None, None, self.schneider_announced,
                            self.schwarz_announced)


def replay_foster(deal: Deal, moves: list[Move] | tuple[Move, ...]) -> FosterHand:
    """Replay ``moves`` on ``deal`` under Foster's rules; the first illegal move raises its
    typed :class:`RuleError`, moves that stop early a ValueError."""
    hand = FosterHand(deal)
    for move in moves:
        hand.apply(move)
    if not hand.finished:
        raise ValueError("the moves stop before the hand is over")
    return hand


__all__ = ["FosterHand", "FosterResult", "RuleError", "replay_foster"]
