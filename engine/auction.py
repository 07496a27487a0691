"""The auction (R3, R4) as a typed state machine over the rules core's auction steps."""

from __future__ import annotations

from . import core
from .errors import IllegalBid, RuleError, WrongPlayer
from .moves import AuctionCall, Bid, Hold, Pass
from .rules import ISKO, Rules

#: The 63 legal bids (R3), lowest first.
BID_LADDER: tuple[int, ...] = core.BID_LADDER
LADDER_SET = frozenset(BID_LADDER)
#: Non-ladder bids the ISS server accepted (R18); never legal in skatlog's own games.
ISS_EXTRA_BIDS = frozenset(core.ISS_EXTRA_BIDS)
MIN_BID = core.MIN_BID

#: The core's call code of a bid that is no value at all (out of range): never allowed.
_NOT_A_VALUE = 2


class Auction:
    """The bidding duels of one hand (R4), played under ``rules``.

    Middlehand speaks to Forehand; the survivor listens to Rearhand; if Middlehand and
    Rearhand both pass without any bid, Forehand may take the game at 18 or pass. The state
    is the core's ``(stage, speaker, listener, to_act, bid)``; :func:`core.auction_error` and
    :func:`core.auction_step` decide every call.
    """

    __slots__ = ("bid", "declarer", "flags", "listener", "rules", "speaker", "stage", "to_act")

    def __init__(self, rules: Rules = ISKO) -> None:
        self.rules = rules
        self.flags = rules.flags
        #: 1: Middlehand vs Forehand; 2: Rearhand vs survivor; 3: Forehand's 18-or-pass;
        #: 0 (``core.AUCTION_DONE``) when the auction is over.
        self.stage, self.speaker, self.listener, self.to_act, self.bid = core.AUCTION_START
        self.declarer: int | None = None

    @property
    def done(self) -> bool:
        return self.stage == core.AUCTION_DONE

    def legal_calls(self) -> list[AuctionCall]:
        """Every call the seat to act may make now (ladder bids only, R3)."""
        if self.done:
            return []
        seat = self.to_act
        if self.stage == 3:
            return [Bid(seat, MIN_BID), Pass(seat)]
        if seat == self.listener:
            return [Hold(seat), Pass(seat)]
        above = int(core.NEXT_BID[self.bid]) if self.bid < len(core.NEXT_BID) else len(BID_LADDER)
        calls: list[AuctionCall] = [Bid(seat, v) for v in BID_LADDER[above:]]
        calls.append(Pass(seat))
        return calls

    def check(self, call: AuctionCall) -> None:
        """Raise a typed error unless ``call`` is legal now (R3, R4)."""
        if not isinstance(call, (Bid, Hold, Pass)):
            raise IllegalBid(f"not an auction call: {call!r}", rule="R4", move=call)
        error = core.auction_error(self.stage, self.listener, self.to_act, self.bid,
                                   call.seat, _code(call), self.flags)
        if error:
            raise _error(error, call, self)

    def apply(self, call: AuctionCall) -> None:
        """Apply a call without checking it (see :meth:`check`)."""
        stage, speaker, listener, to_act, bid, declarer = core.auction_step(
            self.stage, self.speaker, self.listener, self.to_act, self.bid, call.seat,
            _code(call))
        self.stage, self.speaker, self.listener = int(stage), int(speaker), int(listener)
        self.to_act, self.bid = int(to_act), int(bid)
        if declarer >= 0:
            self.declarer = int(declarer)


def _code(call: AuctionCall) -> int:
    """The core's integer for a call: its value for a bid, ``CALL_HOLD`` or ``CALL_PASS``."""
    if isinstance(call, Bid):
        value = call.value
        return value if core.CALL_HOLD < value < 2**31 else _NOT_A_VALUE
    return core.CALL_HOLD if isinstance(call, Hold) else core.CALL_PASS


def _error(error: int, call: AuctionCall, auction: Auction) -> RuleError:
    """The typed error, with its message and rule, for one of the core's ``A_*`` codes."""
    value = call.value if isinstance(call, Bid) else None
    if error == core.A_NOT_YOUR_TURN:
        return WrongPlayer(f"seat {call.seat} called but seat {auction.to_act} is to speak",
                           rule="R4", move=call)
    message, rule = {
        core.A_OVER: ("the auction is over", "R4"),
        core.A_ONLY_18: (f"Forehand may only take the game at 18, not {value}", "R4"),
        core.A_LISTENER_BIDS: ("the listener holds or passes, it does not bid", "R4"),
        core.A_OFF_LADDER: (f"{value} is not a value on the bidding ladder", "R3"),
        core.A_NOT_HIGHER: (f"bid {value} is not higher than {auction.bid}", "R3"),
        core.A_HOLD_NOT_LISTENER: ("only the listener can hold a bid", "R4"),
    }[error]
    return IllegalBid(message, rule=rule, move=call)
