"""skatlog's rules engine: the one place where the rules of Skat (RULES.md R1-R18) live."""

from .auction import BID_LADDER, ISS_EXTRA_BIDS, Auction
from .cards import CARD_POINTS, DECK, Card, CardError, Rank, Suit, format_cards, parse_cards
from .contract import Contract, Declaration
from .deal import Deal, deal_cards, seeded_deal
from .errors import (
    BadDeal,
    CardNotInHand,
    IllegalBid,
    IllegalDeclaration,
    PlayAfterEnd,
    Revoke,
    RuleError,
    WrongPhase,
    WrongPlayer,
)
from .game import Ending, GameResult, GameState, Phase, Trick
from .moves import (
    FOREHAND,
    MIDDLEHAND,
    REARHAND,
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
from .players import Player, RandomPlayer, play_hand
from .record import GameRecord, replay
from .scoring import Score, score_game
from .session import HANDS_PER_SESSION, Session, play_session

__all__ = [
    "BID_LADDER", "CARD_POINTS", "DECK", "FOREHAND", "HANDS_PER_SESSION", "ISS_EXTRA_BIDS",
    "MIDDLEHAND", "REARHAND", "Auction", "BadDeal", "Bid", "Card", "CardError",
    "CardNotInHand", "Contract", "Deal", "Declaration", "Declare", "Discard", "Ending",
    "GameRecord", "GameResult", "GameState", "Hold", "IllegalBid", "IllegalDeclaration",
    "Leave", "Move", "Pass", "Phase", "PickUp", "Play", "PlayAfterEnd", "Player",
    "RandomPlayer", "Rank", "Resign", "Revoke", "RuleError", "Score", "Session", "ShowCards",
    "Suit", "TimeOut", "Trick", "WrongPhase", "WrongPlayer", "deal_cards", "format_cards",
    "parse_cards", "play_hand", "play_session", "replay", "score_game", "seeded_deal",
]
