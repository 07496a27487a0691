"""The auction (R3, R4) as a state machine: who speaks, which calls are legal, who declares."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Collection

from .errors import IllegalBid, WrongPlayer
from .moves import FOREHAND, MIDDLEHAND, REARHAND, AuctionCall, Bid, Hold, Pass


def _ladder() -> tuple[int, ...]:
    """The 63 legal bids (R3): multiples 2..18 of 9-12, 2..11 of 24, and the null values."""
    values = {base * k for base in (9, 10, 11, 12) for k in range(2, 19)}
    values |= {24 * k for k in range(2, 12)}
    values |= {23, 35, 46, 59}
    return tuple(sorted(values))


BID_LADDER: tuple[int, ...] = _ladder()
LADDER_SET = frozenset(BID_LADDER)
#: Non-ladder bids the ISS server accepted (R18); never legal in skatlog's own games.
ISS_EXTRA_BIDS = frozenset({171, 189, 190})
MIN_BID = BID_LADDER[0]

assert len(BID_LADDER) == 63 and BID_LADDER[-1] == 264


class Auction:
    """The bidding duels of one hand (R4).

    Middlehand speaks to Forehand; the survivor listens to Rearhand; if Middlehand and
    Rearhand both pass without any bid, Forehand may take the game at 18 or pass.
    ``extra_bids`` admits ISS's off-ladder values when replaying ISS records (R18).
    """

    __slots__ = ("bid", "declarer", "done", "extra", "listener", "speaker", "stage", "to_act")

    def __init__(self, extra_bids: Collection[int] = ()) -> None:
        self.speaker = MIDDLEHAND
        self.listener = FOREHAND
        self.to_act = MIDDLEHAND
        self.bid = 0
        #: 1: Middlehand vs Forehand; 2: Rearhand vs survivor; 3: Forehand's 18-or-pass.
        self.stage = 1
        self.declarer: int | None = None
        self.done = False
        self.extra = frozenset(extra_bids)

    def legal_calls(self) -> list[AuctionCall]:
        """Every call the seat to act may make now."""
        if self.done:
            return []
        seat = self.to_act
        if self.stage == 3:
            return [Bid(seat, MIN_BID), Pass(seat)]
        if seat == self.listener:
            return [Hold(seat), Pass(seat)]
        start = bisect_right(BID_LADDER, self.bid)
        calls: list[AuctionCall] = [Bid(seat, v) for v in BID_LADDER[start:]]
        calls.append(Pass(seat))
        return calls

    def check(self, call: AuctionCall) -> None:
        """Raise a typed error unless ``call`` is legal now (R3, R4)."""
        if self.done:
            raise IllegalBid("the auction is over", rule="R4", move=call)
        if call.seat != self.to_act:
            raise WrongPlayer(
                f"seat {call.seat} called but seat {self.to_act} is to speak", rule="R4", move=call
            )
        if isinstance(call, Bid):
            if self.stage == 3:
                if call.value != MIN_BID:
                    raise IllegalBid(
                        f"Forehand may only take the game at 18, not {call.value}",
                        rule="R4", move=call,
                    )
                return
            if call.seat == self.listener:
                raise IllegalBid("the listener holds or passes, it does not bid", rule="R4",
                                 move=call)
            if call.value not in LADDER_SET and call.value not in self.extra:
                raise IllegalBid(f"{call.value} is not a value on the bidding ladder", rule="R3",
                                 move=call)
            if call.value <= self.bid:
                raise IllegalBid(f"bid {call.value} is not higher than {self.bid}", rule="R3",
                                 move=call)
        elif isinstance(call, Hold):
            if self.stage == 3 or call.seat != self.listener:
                raise IllegalBid("only the listener can hold a bid", rule="R4", move=call)
        elif not isinstance(call, Pass):
            raise IllegalBid(f"not an auction call: {call!r}", rule="R4", move=call)

    def apply(self, call: AuctionCall) -> None:
        """Apply a call without checking it (see :meth:`check`)."""
        if self.stage == 3:
            self.done = True
            if isinstance(call, Bid):
                self.bid = call.value
                self.declarer = FOREHAND
            return
        if isinstance(call, Bid):
            self.bid = call.value
            self.to_act = self.listener
        elif isinstance(call, Hold):
            self.to_act = self.speaker
        else:
            survivor = self.listener if call.seat == self.speaker else self.speaker
            self._duel_over(survivor)

    def _duel_over(self, survivor: int) -> None:
        if self.stage == 1:
            self.stage = 2
            self.speaker, self.listener = REARHAND, survivor
            self.to_act = REARHAND
        elif self.bid:
            self.done = True
            self.declarer = survivor
        else:
            self.stage = 3
            self.speaker = self.listener = self.to_act = FOREHAND

    @property
    def all_passed(self) -> bool:
        """True when the hand is skipped: everyone passed without a bid (R4)."""
        return self.done and self.declarer is None
