"""The rules core: every rule of Skat that skatlog plays, written once, over small integers.

Cards are integers 0..31 (``suit * 8 + rank``, ranks ``7 8 9 T J Q K A``), hands are 32-bit
masks, contracts are 0..5 (diamonds, hearts, spades, clubs, grand, null), seats 0..2
(Forehand, Middlehand, Rearhand). Two layers live here:

* **rule data**, computed once at import from readable rule functions (:func:`effective_suit`,
  :func:`card_power`, :func:`bid_ladder`, ...): card points, effective suits, trump order,
  follow masks, the bidding ladder, base values;
* **rule primitives**, compiled with numba (:mod:`.jit`) and runnable as plain Python: legal
  follow, trick winner, auction steps and their errors, declaration checks, early endings,
  concessions, matadors, game value and list value.

The primitives the hand loops call per card or trick are inlined into their callers at
numba's level (``inline="always"``): a call would cost more than the rule itself.

Every path calls these: the reference engine (:mod:`.game`, :mod:`.auction`, :mod:`.scoring`,
:mod:`.tricks` are typed wrappers), the batch simulator and the rules bot
(:mod:`.batch.kernel`, :mod:`.batch.heuristics`), the compiled ISS kernel and the archive's row
builders. Nothing else decides how a trick is won or a game is valued.

A rule set (:class:`~.rules.Rules`) reaches the primitives as ``flags``, an integer of
``RULE_*`` bits; see ``docs/architecture.md`` for how the next rule sets plug in.
"""

from __future__ import annotations

import numpy as np

from .jit import njit, refresh_stale_cache

refresh_stale_cache()  # before any compiled function below is loaded from numba's cache

# ------------------------------------------------------------------------ identities
DIAMONDS, HEARTS, SPADES, CLUBS, GRAND, NULL = 0, 1, 2, 3, 4, 5
N_CONTRACTS = 6
#: Ramsch (option ``ramsch``): the game of an all-pass hand, each for himself. It is a game
#: kind of the play tables (its rows are grand's: the jacks alone are trumps), never a
#: contract a declarer names, so it sits after the ``N_CONTRACTS`` declarable ones.
RAMSCH = 6
N_KINDS = 7
#: Effective-suit index of trumps (plain suits are 0..3).
TRUMP = 4
#: Ranks in ISS notation order ``7 8 9 T J Q K A``.
SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE = range(8)
FOREHAND, MIDDLEHAND, REARHAND = 0, 1, 2
N_TRICKS = 10

# ------------------------------------------------------------------------ rule-set flags
#: R17: recorded suit/grand games may stop at their decisive trick (ISS records).
RULE_EARLY_ENDINGS = 1
#: R18: ISS's off-ladder bids 171, 189, 190 are accepted (with a warning upstream).
RULE_ISS_BIDS = 2
#: R7: a null declared below the bid is scored as an overbid instead of refused.
RULE_NULL_BELOW_BID = 4
#: Option ``kontra_re``: a defender may say Kontra, the declarer then Re (doubling the value).
RULE_KONTRA_RE = 8
#: Option ``ramsch``: an all-pass hand is played as Ramsch instead of skipped.
RULE_RAMSCH = 16
#: Option ``bock``: Bock rounds (every list value doubled) follow certain hands.
RULE_BOCK = 32

# ------------------------------------------------------------------------ R1: cards
#: Card points per rank: A 11, 10 10, K 4, Q 3, J 2, 9/8/7 0 (R1).
RANK_POINTS = (0, 0, 0, 10, 2, 3, 4, 11)
#: Order of plain (non-trump) cards in suit and grand games: A 10 K Q 9 8 7 (R8), lowest first.
PLAIN_ORDER = (SEVEN, EIGHT, NINE, QUEEN, KING, TEN, ACE)
#: Null order A K Q J 10 9 8 7 (R8), lowest first: the ten sits below the jack.
NULL_ORDER = (SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE)
#: Jacks in trump order, highest first: clubs, spades, hearts, diamonds (R8).
JACK_ORDER = (CLUBS * 8 + JACK, SPADES * 8 + JACK, HEARTS * 8 + JACK, DIAMONDS * 8 + JACK)


def effective_suit(card: int, contract: int) -> int:
    """The suit a card belongs to when following (R8): jacks are trumps except in null."""
    if contract == NULL:
        return card >> 3
    if card & 7 == JACK:
        return TRUMP
    if contract <= CLUBS and card >> 3 == contract:
        return TRUMP
    return card >> 3


def card_power(card: int, contract: int) -> int:
    """A strength that orders the cards of one effective suit; trumps beat plain cards (R8)."""
    if contract == NULL:
        return NULL_ORDER.index(card & 7)
    if card & 7 == JACK:
        return 200 - JACK_ORDER.index(card)
    plain = PLAIN_ORDER.index(card & 7)
    return 100 + plain if effective_suit(card, contract) == TRUMP else plain


def trump_sequence(contract: int) -> tuple[int, ...]:
    """Trumps from the highest down, the sequence matadors are counted along (R12)."""
    if contract == NULL:
        return ()
    if contract in (GRAND, RAMSCH):
        return JACK_ORDER
    return JACK_ORDER + tuple(contract * 8 + rank for rank in reversed(PLAIN_ORDER))


def bid_ladder() -> tuple[int, ...]:
    """The 63 legal bids (R3): multiples 2..18 of 9-12, 2..11 of 24, and 23, 35, 46, 59."""
    values = {base * k for base in (9, 10, 11, 12) for k in range(2, 19)}
    values |= {24 * k for k in range(2, 12)}
    values |= {23, 35, 46, 59}
    return tuple(sorted(values))


def null_value(hand: bool, ouvert: bool) -> int:
    """Fixed null values (R5): 23 plain, 35 hand, 46 ouvert, 59 ouvert hand."""
    return (59 if hand else 46) if ouvert else (35 if hand else 23)


#: Base values (R5): diamonds 9, hearts 10, spades 11, clubs 12, grand 24; null's 23.
BASE_VALUES = (9, 10, 11, 12, 24, 23)
BID_LADDER = bid_ladder()
#: Non-ladder bids the ISS server accepted (R18); never legal in skatlog's own games.
ISS_EXTRA_BIDS = (171, 189, 190)
MIN_BID = BID_LADDER[0]
assert len(BID_LADDER) == 63 and BID_LADDER[-1] == 264 and MIN_BID == 18

# ------------------------------------------------------------------------ rule data
#: POINTS[card] -> card points (R1); they total 120.
POINTS = np.array([RANK_POINTS[c & 7] for c in range(32)], dtype=np.int64)
#: EFFECTIVE[kind, card] -> effective suit 0..3, or TRUMP (R8); ``kind`` is a contract or
#: RAMSCH (whose rows are grand's: the jacks alone are trumps, R19).
EFFECTIVE = np.array([[effective_suit(c, k) for c in range(32)] for k in range(N_KINDS)],
                     dtype=np.int64)
#: POWER[kind, card] -> strength within its effective suit (R8).
POWER = np.array([[card_power(c, k) for c in range(32)] for k in range(N_KINDS)],
                 dtype=np.int64)
#: SUIT_MASK[kind, effective suit] -> the cards of that effective suit (R8).
SUIT_MASK = np.array([[sum(1 << c for c in range(32) if EFFECTIVE[k, c] == s)
                       for s in range(TRUMP + 1)] for k in range(N_KINDS)], dtype=np.int64)
#: LED_FOLLOW[kind, card] -> the cards that follow a trick led by ``card`` (R8).
LED_FOLLOW = np.array([[SUIT_MASK[k, EFFECTIVE[k, c]] for c in range(32)]
                       for k in range(N_KINDS)], dtype=np.int64)


def _trick_keys() -> np.ndarray:
    """TRICK_KEY[contract, led suit, card] -> the card's strength in a trick whose first card
    has effective suit ``led suit``: its power, lifted above every plain card for a trump, and
    -1 for a card of another plain suit, which cannot win. The highest key takes the trick."""
    keys = np.full((N_KINDS, TRUMP + 1, 32), -1, dtype=np.int64)
    lift = int(POWER.max()) + 1
    for k in range(N_KINDS):
        for led in range(TRUMP + 1):
            for c in range(32):
                trump = k != NULL and EFFECTIVE[k, c] == TRUMP
                if trump or EFFECTIVE[k, c] == led:
                    keys[k, led, c] = POWER[k, c] + (lift if trump else 0)
    return keys


TRICK_KEY = _trick_keys()
#: TRUMP_SEQ[kind, i] -> the i-th highest trump (matador order, R12), -1 padded.
TRUMP_SEQ = np.full((N_KINDS, 11), -1, dtype=np.int64)
for _k in range(N_KINDS):
    for _i, _card in enumerate(trump_sequence(_k)):
        TRUMP_SEQ[_k, _i] = _card
#: TRUMP_LEN[kind] -> how many trumps (11 suit, 4 grand and Ramsch, 0 null).
TRUMP_LEN = np.array([len(trump_sequence(k)) for k in range(N_KINDS)], dtype=np.int64)
LADDER = np.array(BID_LADDER, dtype=np.int64)
N_LADDER = len(BID_LADDER)
#: BID_KIND[value] -> 1 on the ladder (R3), 2 an ISS off-ladder bid (R18), 0 otherwise.
BID_KIND = np.zeros(max(BID_LADDER + ISS_EXTRA_BIDS) + 1, dtype=np.int64)
BID_KIND[list(BID_LADDER)] = 1
BID_KIND[list(ISS_EXTRA_BIDS)] = 2
#: NEXT_BID[bid] -> index in LADDER of the lowest bid above ``bid`` (R3).
NEXT_BID = np.searchsorted(LADDER, np.arange(len(BID_KIND)), side="right").astype(np.int64)
BASE = np.array(BASE_VALUES, dtype=np.int64)
#: NULL_VALUE[hand, ouvert] -> fixed null value (R5).
NULL_VALUE = np.array([[null_value(False, False), null_value(False, True)],
                       [null_value(True, False), null_value(True, True)]], dtype=np.int64)
ALL_CARDS = (1 << 32) - 1
assert int(POINTS.sum()) == 120


# ------------------------------------------------------------------------ bits
@njit
def mask_points(mask: int) -> int:
    """The card points in ``mask`` (R1)."""
    total = 0
    for card in range(32):
        if (mask >> card) & 1:
            total += POINTS[card]
    return total


# ------------------------------------------------------------------------ R8: play
@njit(inline="always")
def follow_mask(contract: int, led: int) -> int:
    """The cards that follow a trick led by card ``led``; every card (-1) when ``led < 0``."""
    if led < 0:
        return -1
    return LED_FOLLOW[contract, led]


@njit(inline="always")
def legal_cards(hand: int, follow: int) -> int:
    """The cards of ``hand`` that may be played to a trick whose :func:`follow_mask` is
    ``follow`` (R8): the cards of the led effective suit, or any card when void in it."""
    legal = hand & follow
    return legal if legal != 0 else hand


@njit(inline="always")
def trick_winner(contract: int, c0: int, c1: int, c2: int) -> int:
    """Index (0..2, in play order) of the card that takes the trick (R8): the highest trump,
    else the highest card of the led effective suit. Branch-free: who wins is a coin flip
    to a branch predictor."""
    led = EFFECTIVE[contract, c0]
    k0 = TRICK_KEY[contract, led, c0]
    k1 = TRICK_KEY[contract, led, c1]
    k2 = TRICK_KEY[contract, led, c2]
    best = 1 if k1 > k0 else 0
    return 2 if k2 > max(k0, k1) else best


@njit(inline="always")
def beats(contract: int, card: int, best: int) -> bool:
    """Whether ``card`` beats ``best``, the card now winning the trick (R8)."""
    led = EFFECTIVE[contract, best]
    return TRICK_KEY[contract, led, card] > TRICK_KEY[contract, led, best]


@njit(inline="always")
def trick_points(c0: int, c1: int, c2: int) -> int:
    """Card points of one trick (R1)."""
    return POINTS[c0] + POINTS[c1] + POINTS[c2]


@njit(nogil=True)
def trick_winners(cards: np.ndarray, contracts: np.ndarray) -> np.ndarray:
    """:func:`trick_winner` for rows of three cards (``cards[n, 3]``, ``contracts[n]``)."""
    out = np.empty(cards.shape[0], dtype=np.int8)
    for i in range(cards.shape[0]):
        out[i] = trick_winner(contracts[i], cards[i, 0], cards[i, 1], cards[i, 2])
    return out


# ------------------------------------------------------------------------ R3, R4: auction
#: Auction calls as integers: a bid is its value.
CALL_PASS = 0
CALL_HOLD = 1
#: Auction stages: 1 Middlehand speaks to Forehand, 2 Rearhand to the survivor, 3 Forehand
#: alone may take the game at 18; 0 once the auction is over.
AUCTION_DONE = 0
#: (stage, speaker, listener, to_act, bid) when the auction opens.
AUCTION_START = (1, MIDDLEHAND, FOREHAND, MIDDLEHAND, 0)

# Auction errors (0: the call is legal).
A_OVER = 1  # the auction is over
A_NOT_YOUR_TURN = 2  # another seat is to speak
A_ONLY_18 = 3  # Forehand alone takes the game at 18 or passes
A_LISTENER_BIDS = 4  # the listener holds or passes
A_OFF_LADDER = 5  # not a value of the ladder (R3), nor an admitted ISS bid (R18)
A_NOT_HIGHER = 6  # a bid must be higher than the last one (R3)
A_HOLD_NOT_LISTENER = 7  # only the listener holds


@njit
def bid_allowed(value: int, flags: int) -> bool:
    """Whether ``value`` may be bid at all: on the ladder (R3), or an ISS bid (R18)."""
    if value < 0 or value >= BID_KIND.shape[0]:
        return False
    kind = BID_KIND[value]
    return kind == 1 or (kind == 2 and (flags & RULE_ISS_BIDS) != 0)


@njit(inline="always")
def duel_error(stage: int, listener: int, to_act: int, bid: int, seat: int, call: int,
               allowed: bool, opening: int) -> int:
    """The ``A_*`` error of a call in the bidding duels (R4, and Foster's F4, the same
    order): ``allowed`` says whether a bid's value is one of the rule set's, ``opening`` is
    the one value Forehand alone may take the game at."""
    if stage == AUCTION_DONE:
        return A_OVER
    if seat != to_act:
        return A_NOT_YOUR_TURN
    if call > CALL_HOLD:
        if stage == 3:
            return 0 if call == opening else A_ONLY_18
        if seat == listener:
            return A_LISTENER_BIDS
        if not allowed:
            return A_OFF_LADDER
        if call <= bid:
            return A_NOT_HIGHER
    elif call == CALL_HOLD and (stage == 3 or seat != listener):
        return A_HOLD_NOT_LISTENER
    return 0


@njit
def auction_error(stage: int, listener: int, to_act: int, bid: int, seat: int, call: int,
                  flags: int) -> int:
    """The ``A_*`` error that ``call`` by ``seat`` makes now, or 0 when it is legal (R3, R4)."""
    return duel_error(stage, listener, to_act, bid, seat, call, bid_allowed(call, flags),
                      MIN_BID)


@njit(inline="always")
def auction_step(stage: int, speaker: int, listener: int, to_act: int, bid: int, seat: int,
                 call: int) -> tuple[int, int, int, int, int, int]:
    """Apply a legal call (R4): ``(stage, speaker, listener, to_act, bid, declarer)`` after it.

    Middlehand speaks to Forehand, who holds or passes; Rearhand then speaks to the survivor;
    when both pass without a bid, Forehand may take the game at 18 or pass (all passed). The
    declarer is -1 until the auction is over with a bid.
    """
    declarer = -1
    if stage == 3:
        if call != CALL_PASS:
            bid = call
            declarer = FOREHAND
        return AUCTION_DONE, speaker, listener, to_act, bid, declarer
    if call == CALL_HOLD:
        to_act = speaker
    elif call != CALL_PASS:
        bid = call
        to_act = listener
    else:
        survivor = listener if seat == speaker else speaker
        if stage == 1:
            stage = 2
            speaker = REARHAND
            listener = survivor
            to_act = REARHAND
        elif bid > 0:
            stage = AUCTION_DONE
            declarer = survivor
        else:
            stage = 3
            speaker = FOREHAND
            listener = FOREHAND
            to_act = FOREHAND
    return stage, speaker, listener, to_act, bid, declarer


# ------------------------------------------------------------------------ R5-R7: declaring
# Declaration errors (0: legal).
D_HAND_MISMATCH = 1  # R5: a hand game leaves the skat, a game with the skat picks it up
D_NULL_ANNOUNCES = 2  # R6: null announces neither schneider nor schwarz
D_ANNOUNCE_NOT_HAND = 3  # R6: announcements only in hand games
D_SCHWARZ_ALONE = 4  # R6: schwarz announced implies schneider announced
D_OUVERT_ALONE = 5  # R6: ouvert implies schneider and schwarz announced
D_NULL_BELOW_BID = 6  # R7: a null worth less than the bid


@njit
def normalize_declaration(contract: int, hand: bool, schneider: bool, schwarz: bool,
                          ouvert: bool) -> tuple[bool, bool, bool]:
    """R6's implications: suit/grand ouvert is a hand game with schneider and schwarz
    announced, and schwarz announced implies schneider announced. ``(hand, S, Z)``."""
    if contract != NULL:
        if ouvert:
            hand = True
            schneider = True
            schwarz = True
        if schwarz:
            schneider = True
    return hand, schneider, schwarz


@njit
def declaration_error(contract: int, hand: bool, schneider: bool, schwarz: bool, ouvert: bool,
                      skat_taken: bool) -> int:
    """The ``D_*`` error of a declaration as written (not normalized), 0 if legal (R5, R6)."""
    if hand == skat_taken:
        return D_HAND_MISMATCH
    if contract == NULL:
        return D_NULL_ANNOUNCES if schneider or schwarz else 0
    if (schneider or schwarz or ouvert) and not hand:
        return D_ANNOUNCE_NOT_HAND
    if schwarz and not schneider:
        return D_SCHWARZ_ALONE
    if ouvert and not (schneider and schwarz):
        return D_OUVERT_ALONE
    return 0


@njit
def declared_base(contract: int, hand: bool, ouvert: bool) -> int:
    """Base value of a suit or grand game, or the fixed value of a null game (R5)."""
    if contract == NULL:
        return NULL_VALUE[1 if hand else 0, 1 if ouvert else 0]
    return BASE[contract]


@njit
def bid_error(contract: int, hand: bool, ouvert: bool, bid: int, flags: int) -> int:
    """R7: a null worth less than the bid is illegal (``D_NULL_BELOW_BID``), unless the rule
    set scores it as an overbid (``RULE_NULL_BELOW_BID``, recorded logs). 0 otherwise."""
    if contract == NULL and declared_base(contract, hand, ouvert) < bid \
            and (flags & RULE_NULL_BELOW_BID) == 0:
        return D_NULL_BELOW_BID
    return 0


# ------------------------------------------------------------------------ R9, R17: endings
# Endings, in the order of :class:`skatlog.engine.game.Ending`.
END_NONE = -1
END_ALL_PASSED = 0
END_TEN_TRICKS = 1
END_NULL_TRICK = 2  # R9: the null declarer took a trick
END_DEFENDERS_TRICK = 3  # R17: schwarz announced or ouvert, the defenders took a trick
END_DEFENDERS_31 = 4  # R17: schneider announced, the defenders passed 30
END_DECLARER_RESIGNED = 5
END_DEFENDERS_RESIGNED = 6
END_DECLARER_ABSENT = 7  # the declarer timed out or left after declaring
END_DEFENDER_ABSENT = 8  # a defender timed out or left after the declaration
END_PENALTY = 9  # a time-out or leave before any game was declared


@njit(inline="always")
def after_trick(contract: int, schneider: bool, schwarz: bool, declarer: int, winner: int,
                tricks: int, defender_points: int, decided: int, flags: int
                ) -> tuple[int, bool]:
    """How the game stands after a trick: ``(ending, over)``.

    ``tricks`` tricks have been played, the last won by ``winner``; ``defender_points`` is what
    the defenders have taken; ``decided`` is the decisive ending already reached (R17), or
    ``END_NONE``. ``over`` means no card may follow: a null the declarer took a trick in (R9),
    or ten tricks. Under ``RULE_EARLY_ENDINGS`` (recorded logs, R17) a suit or grand game is
    decided -- lost -- when the defenders take a trick against schwarz announced (ouvert
    included) or pass 30 against schneider announced; the record may stop there or play on,
    and the ending stays the decisive one. Otherwise ``ending`` is ``END_NONE``.
    """
    if contract == NULL and winner == declarer:
        return END_NULL_TRICK, True
    if decided != END_NONE:
        return decided, tricks == N_TRICKS
    if (flags & RULE_EARLY_ENDINGS) != 0 and contract != NULL and winner != declarer:
        if schwarz:
            return END_DEFENDERS_TRICK, tricks == N_TRICKS
        if schneider and defender_points > 30:
            return END_DEFENDERS_31, tricks == N_TRICKS
    if tricks == N_TRICKS:
        return END_TEN_TRICKS, True
    return END_NONE, False


@njit
def concession_credit(contract: int, open_cards: int, skat: int, skat_in_hand: bool,
                      tricks: int) -> tuple[int, int]:
    """R17: defenders who resign, time out or leave give every card not yet won to the
    declarer: ``(points, tricks)`` credited. ``open_cards`` holds the cards in the hands and
    in the unfinished trick; a skat picked up and not yet discarded counts as the skat. In
    null the declarer wants no tricks: nothing is credited."""
    if contract == NULL:
        return 0, 0
    if skat_in_hand:
        open_cards &= ~skat
    return mask_points(open_cards), N_TRICKS - tricks


@njit(inline="always")
def skat_points(discard0: int, discard1: int, skat0: int, skat1: int) -> int:
    """The points of the skat as it lies (R10): the two discards (``discard0 >= 0``), or the
    two skat cards as dealt when the declarer did not pick it up or has not discarded."""
    if discard0 >= 0:
        return POINTS[discard0] + POINTS[discard1]
    return POINTS[skat0] + POINTS[skat1]


# ------------------------------------------------------------------------ R10-R16: scoring
@njit
def matadors(held: int, contract: int) -> int:
    """Signed matadors (R12): +n "with n", -n "without n", counted over the declarer's dealt
    hand plus the original skat along the trump sequence; 0 in null."""
    n = TRUMP_LEN[contract]
    if n == 0:
        return 0
    top = (held >> TRUMP_SEQ[contract, 0]) & 1
    count = 0
    for i in range(n):
        if ((held >> TRUMP_SEQ[contract, i]) & 1) != top:
            break
        count += 1
    return count if top else -count


@njit
def score(contract: int, hand: bool, schneider_announced: bool, schwarz_announced: bool,
          ouvert: bool, bid: int, mats: int, declarer_points: int, defender_points: int,
          declarer_tricks: int, defender_tricks: int, conceded: bool
          ) -> tuple[bool, int, int, int, bool, bool, bool]:
    """Score a declared game: ``(won, value, game_value, multiplier, overbid, schneider,
    schwarz)``.

    ``value`` is the declarer's signed list value: +game value won, -2 x value lost
    (R14-R16). ``game_value`` is the unsigned value a loss doubles, the overbid value when
    ``overbid`` (R7, R15: the smallest multiple of the base that reaches the bid). Schneider
    is reached by a party holding 90 or more, schwarz by one taking all ten tricks (R11).
    Multiplier (R13): matadors + 1 + hand + schneider (reached or announced) + schneider
    announced + schwarz (reached or announced) + schwarz announced + ouvert. ``conceded``:
    the declarer resigned, timed out or left (lost whatever the points, R17).
    """
    h = 1 if hand else 0
    s_ann = 1 if schneider_announced else 0
    z_ann = 1 if schwarz_announced else 0
    o = 1 if ouvert else 0
    if contract == NULL:
        value = NULL_VALUE[h, o]
        if value < bid:  # R7: a recorded null below the bid scores as an overbid
            lost = -(-bid // BASE[NULL]) * BASE[NULL]
            return False, -2 * lost, lost, 1, True, False, False
        won = declarer_tricks == 0 and not conceded
        return won, value if won else -2 * value, value, 1, False, False, False
    schneider = declarer_points >= 90 or defender_points >= 90
    schwarz = declarer_tricks == N_TRICKS or defender_tricks == N_TRICKS
    mult = (abs(mats) + 1 + h + max(1 if schneider else 0, s_ann) + s_ann
            + max(1 if schwarz else 0, z_ann) + z_ann + o)
    base = BASE[contract]
    value = base * mult
    if z_ann:
        objective = declarer_tricks == N_TRICKS and defender_tricks == 0
    elif s_ann:
        objective = declarer_points >= 90
    else:
        objective = declarer_points >= 61
    if value < bid:  # R15: overbid, lost whatever the points
        lost = -(-bid // base) * base
        return False, -2 * lost, lost, mult, True, schneider, schwarz
    if objective and not conceded:
        return True, value, value, mult, False, schneider, schwarz
    return False, -2 * value, value, mult, False, schneider, schwarz


# ------------------------------------------------------------------------ R19-R21: options
# The ``isko`` options of docs/rules.md "Variants": Kontra/Re (R19), Ramsch (R20), Bock (R21).
#: Doubling calls (R19).
CALL_KONTRA = 1
CALL_RE = 2
# Doubling-call errors (0: legal).
K_NOT_PLAYED = 1  # the rule set has no Kontra/Re
K_NO_GAME = 2  # no game has been declared (before the declaration, or a Ramsch)
K_DEFENDERS_ONLY = 3  # Kontra is the defenders' call
K_ONCE = 4  # Kontra (Re) is said once a game
K_TOO_LATE = 5  # the defender who says (said) Kontra has played his first card
K_DECLARER_ONLY = 6  # Re is the declarer's answer
K_NO_KONTRA = 7  # Re answers a Kontra


@njit
def double_error(call: int, seat: int, declarer: int, declared: bool, kontra_by: int,
                 re_said: bool, first_card_played: bool, flags: int) -> int:
    """The ``K_*`` error of a Kontra or Re call (``CALL_KONTRA``/``CALL_RE``) by ``seat``,
    or 0 when it is legal (R19).

    A defender may say Kontra once the game is declared and before he plays his first card;
    the declarer may then answer Re before that same defender plays his first card.
    ``kontra_by`` is the seat that said Kontra (-1: none yet); ``first_card_played`` tells
    whether the caller (Kontra) or the Kontra's defender (Re) has played a card.
    """
    if (flags & RULE_KONTRA_RE) == 0:
        return K_NOT_PLAYED
    if not declared or declarer < 0:
        return K_NO_GAME
    if call == CALL_KONTRA:
        if seat == declarer:
            return K_DEFENDERS_ONLY
        if kontra_by >= 0:
            return K_ONCE
    else:
        if seat != declarer:
            return K_DECLARER_ONLY
        if kontra_by < 0:
            return K_NO_KONTRA
        if re_said:
            return K_ONCE
    return K_TOO_LATE if first_card_played else 0


@njit
def doublings(kontra: bool, re: bool, bock: bool) -> int:
    """How many times a list value is doubled: Kontra x2, Re x2 again (R19), Bock x2 (R21)."""
    return (1 if kontra else 0) + (1 if re else 0) + (1 if bock else 0)


@njit
def doubled(value: int, times: int) -> int:
    """A list value doubled ``times`` times (R19, R21)."""
    return value << times if value >= 0 else -((-value) << times)


@njit
def ramsch_on_all_pass(flags: int) -> bool:
    """R20: under ``ramsch`` an all-pass hand is played as Ramsch, otherwise skipped (R4)."""
    return (flags & RULE_RAMSCH) != 0


@njit
def skat_to_last_trick(p0: int, p1: int, p2: int, last: int, skat_points: int
                       ) -> tuple[int, int, int]:
    """R20 (and Foster's F12): in a Ramsch nobody takes the skat; its card points go to the
    winner of the last trick. The seats' card points with the skat's added."""
    return (p0 + (skat_points if last == 0 else 0), p1 + (skat_points if last == 1 else 0),
            p2 + (skat_points if last == 2 else 0))


@njit
def ramsch_score(p0: int, p1: int, p2: int, t0: int, t1: int, t2: int
                 ) -> tuple[int, int, int, bool, bool]:
    """Score a Ramsch (R20) from each seat's card points (the skat counted with the last
    trick's winner) and tricks: ``(v0, v1, v2, jungfrau, durchmarsch)``.

    A player who took every trick (Durchmarsch) scores +120 and the others 0. Otherwise every
    player with the most card points scores minus his points, doubled when a player took no
    trick (Jungfrau); the others score 0.
    """
    if t0 == N_TRICKS:
        return 120, 0, 0, False, True
    if t1 == N_TRICKS:
        return 0, 120, 0, False, True
    if t2 == N_TRICKS:
        return 0, 0, 120, False, True
    most = max(p0, max(p1, p2))
    jungfrau = t0 == 0 or t1 == 0 or t2 == 0
    factor = 2 if jungfrau else 1
    v0 = -most * factor if p0 == most else 0
    v1 = -most * factor if p1 == most else 0
    v2 = -most * factor if p2 == most else 0
    return v0, v1, v2, jungfrau, False


#: R21: a Bock round is one hand per player at the table.
BOCK_ROUND_HANDS = 3


@njit
def bock_step(owed: int, earned: bool) -> tuple[bool, int]:
    """R21, one hand of a session: whether it is a Bock hand (the session owes one), and
    what the session owes after it: one hand fewer, plus a round when the hand earns one
    (rounds earned in a Bock round queue after it)."""
    return owed > 0, (owed - 1 if owed > 0 else 0) + (BOCK_ROUND_HANDS if earned else 0)


#: R21: a list value of this size or more (won or lost, Kontra/Re counted, Bock not)
#: earns a Bock round.
BOCK_VALUE = 100


@njit
def bock_earned(contract: int, declarer_points: int, won: bool, kontra: bool, value: int,
                flags: int) -> bool:
    """R21: whether a hand earns a Bock round: a 60:60 split of a suit or grand game, a lost
    game that had Kontra, or a list value (Kontra/Re counted, Bock not) of 100 or more."""
    if (flags & RULE_BOCK) == 0 or contract < 0 or contract == RAMSCH:
        return False
    if contract != NULL and declarer_points == 60:
        return True
    if kontra and not won:
        return True
    return abs(value) >= BOCK_VALUE


# ------------------------------------------------------------------------ foster (F1-F13)
# R. F. Foster's laws of Skat (1890s), the rule set ``foster`` (docs/rules.md "Foster").
# Foster's games are kinds of their own with his unit values; each plays on the trump
# tables of a modern game kind (``FOSTER_PLAY``), so following and trick winners are R8's.
(F_TOURNEE_DIAMONDS, F_TOURNEE_HEARTS, F_TOURNEE_SPADES, F_TOURNEE_CLUBS, F_TURNED_GRAND,
 F_GUCKI_GRAND, F_SOLO_DIAMONDS, F_SOLO_HEARTS, F_SOLO_SPADES, F_SOLO_CLUBS, F_SOLO_GRAND,
 F_OPEN_GRAND, F_GUCKI_NULLO, F_OPEN_GUCKI_NULLO, F_SOLO_NULLO, F_OPEN_SOLO_NULLO,
 F_RAMSCH) = range(17)
N_FOSTER_KINDS = 17
#: Self-explaining names of Foster's games, as the archive's ``contract`` column spells them.
FOSTER_NAMES = (
    "tournee_diamonds", "tournee_hearts", "tournee_spades", "tournee_clubs", "turned_grand",
    "gucki_grand", "solo_diamonds", "solo_hearts", "solo_spades", "solo_clubs", "solo_grand",
    "open_grand", "gucki_nullo", "open_gucki_nullo", "solo_nullo", "open_solo_nullo", "ramsch",
)
#: F6 (law 1): unit values; a nullo's is its fixed value; Ramsch has none.
FOSTER_UNIT_VALUES = (5, 6, 7, 8, 12, 16, 9, 10, 11, 12, 20, 24, 15, 30, 20, 40, 0)
#: F2: the modern game kind whose trump tables each of Foster's games plays on.
FOSTER_PLAY_KINDS = (DIAMONDS, HEARTS, SPADES, CLUBS, GRAND, GRAND, DIAMONDS, HEARTS, SPADES,
                     CLUBS, GRAND, GRAND, NULL, NULL, NULL, NULL, RAMSCH)
#: F5: the games that use the skat (no announcement possible, law 41).
FOSTER_USES_SKAT = (1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0)
#: F11 (law 3): the games whose losses are always doubled (every gucki).
FOSTER_GUCKI = (0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0)
#: F8: the highest level each game can reach (3 without announcements; open grand is 5).
FOSTER_MAX_LEVEL = (3, 3, 3, 3, 3, 3, 5, 5, 5, 5, 5, 5, 0, 0, 0, 0, 0)
#: F8: the lowest level (open grand is always schwarz announced, law 39).
FOSTER_MIN_LEVEL = (1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 5, 0, 0, 0, 0, 0)
#: F3: the lowest bid.
FOSTER_MIN_BID = 10
#: F9: the player makes schneider at 91; the adversaries make him schneider at 90 (he has 30).
FOSTER_SCHNEIDER = 91
FOSTER_SCHNEIDERED = 30
#: F12 (law 4): what the Ramsch loser pays with no, one, two players who took no trick;
#: and what each of two tied players pays when the low score took the last trick.
FOSTER_RAMSCH_LOSS = (20, 30, 50)
FOSTER_RAMSCH_TIE_LOSS = 20


def foster_is_nullo(kind: int) -> bool:
    """F6: the nullos have fixed values and no trumps."""
    return FOSTER_PLAY_KINDS[kind] == NULL


def foster_bid_ladder() -> tuple[int, ...]:
    """F3: every won value some game can have -- unit value x a multiplier (a level the game
    can reach plus 1 to 11 matadors in suit games, 1 to 4 in grands), or a nullo's fixed
    value -- from 10 up."""
    values: set[int] = set()
    for kind in range(N_FOSTER_KINDS):
        unit = FOSTER_UNIT_VALUES[kind]
        if kind == F_RAMSCH:
            continue
        if foster_is_nullo(kind):
            values.add(unit)
            continue
        most = 4 if FOSTER_PLAY_KINDS[kind] == GRAND else 11
        for level in range(FOSTER_MIN_LEVEL[kind], FOSTER_MAX_LEVEL[kind] + 1):
            values |= {unit * (level + mats) for mats in range(1, most + 1)}
    return tuple(sorted(v for v in values if v >= FOSTER_MIN_BID))


FOSTER_BID_LADDER = foster_bid_ladder()
assert FOSTER_BID_LADDER[:5] == (10, 12, 14, 15, 16)
#: FOSTER_BID_KIND[value] -> 1 when ``value`` is one of Foster's bids (F3).
FOSTER_BID_KIND = np.zeros(FOSTER_BID_LADDER[-1] + 1, dtype=np.int64)
FOSTER_BID_KIND[list(FOSTER_BID_LADDER)] = 1
FOSTER_LADDER = np.array(FOSTER_BID_LADDER, dtype=np.int64)
FOSTER_UNIT = np.array(FOSTER_UNIT_VALUES, dtype=np.int64)
FOSTER_PLAY = np.array(FOSTER_PLAY_KINDS, dtype=np.int64)
FOSTER_DOUBLE_LOSS = np.array(FOSTER_GUCKI, dtype=np.int64)
FOSTER_LEVEL_MIN = np.array(FOSTER_MIN_LEVEL, dtype=np.int64)


@njit
def foster_score(kind: int, passt_mir_nicht: bool, schneider_announced: bool,
                 schwarz_announced: bool, abandoned: bool, bid: int, mats: int,
                 player_points: int, player_tricks: int, adversary_tricks: int
                 ) -> tuple[bool, int, int, int, bool, bool, bool]:
    """Score one of Foster's games: ``(won, value, game_value, multiplier, overbid,
    schneider, schwarz)`` as :func:`score` gives them.

    F8: multiplier = level + matadors; level 1 game, 2 schneider, 3 schneider announced or
    schwarz unannounced, 4 schwarz after schneider announced, 5 schwarz announced (an open
    grand always). F9: the player makes schneider at 91 and is made schneider at 30 or
    fewer. F10: won at 61 (91, every trick as announced) with a value reaching the bid, the
    levels made counting (law 49). F11: lost, the player pays the value at the level that
    stands, or when that is below the bid the smallest multiple of the unit value reaching it
    (law 61); doubled after Passt-mir-nicht and in every gucki (law 3), single otherwise. A
    Tournée abandoned (F7, law 44) is lost at the game level. A nullo is won without a trick.
    """
    unit = FOSTER_UNIT[kind]
    factor = 2 if FOSTER_DOUBLE_LOSS[kind] == 1 or passt_mir_nicht else 1
    if FOSTER_PLAY[kind] == NULL:
        won = player_tricks == 0 and not abandoned
        if unit < bid:
            lost = -(-bid // unit) * unit
            return False, -factor * lost, lost, 1, True, False, False
        return won, unit if won else -factor * unit, unit, 1, False, False, False
    schneider = player_points >= FOSTER_SCHNEIDER or player_points <= FOSTER_SCHNEIDERED
    schwarz = player_tricks == N_TRICKS or adversary_tricks == N_TRICKS
    open_game = FOSTER_LEVEL_MIN[kind] == 5
    if abandoned:
        level = 1
    elif schwarz_announced or open_game:
        level = 5
    elif schneider_announced:
        level = 4 if schwarz else 3
    elif schwarz:
        level = 3
    elif schneider:
        level = 2
    else:
        level = 1
    mult = level + abs(mats)
    value = unit * mult
    if schwarz_announced or open_game:
        objective = player_tricks == N_TRICKS
    elif schneider_announced:
        objective = player_points >= FOSTER_SCHNEIDER
    else:
        objective = player_points >= 61
    if value < bid:  # law 61: lost at the smallest multiple of the unit reaching the bid
        lost = -(-bid // unit) * unit
        return False, -factor * lost, lost, mult, True, schneider, schwarz
    if objective and not abandoned:
        return True, value, value, mult, False, schneider, schwarz
    return False, -factor * value, value, mult, False, schneider, schwarz


@njit
def foster_ramsch_score(p0: int, p1: int, p2: int, t0: int, t1: int, t2: int,
                        last_winner: int) -> tuple[int, int, int]:
    """F12 (law 4): a Ramsch's score by seat from card points (the skat with the last
    trick) and tricks. The most card points lose 20, 30 when one player took no trick, 50
    when two did. Two tied for most: the one who won the last trick loses; if the low score
    won it, both tied players lose 20 each. Three at 40: no score."""
    zero = (1 if t0 == 0 else 0) + (1 if t1 == 0 else 0) + (1 if t2 == 0 else 0)
    loss = FOSTER_RAMSCH_LOSS[min(zero, 2)]
    most = max(p0, max(p1, p2))
    top0, top1, top2 = p0 == most, p1 == most, p2 == most
    tied = (1 if top0 else 0) + (1 if top1 else 0) + (1 if top2 else 0)
    if tied == 3:
        return 0, 0, 0
    if tied == 2:
        winner_tied = (last_winner == 0 and top0) or (last_winner == 1 and top1) \
            or (last_winner == 2 and top2)
        if not winner_tied:
            tie = FOSTER_RAMSCH_TIE_LOSS
            return -tie if top0 else 0, -tie if top1 else 0, -tie if top2 else 0
        top0, top1, top2 = last_winner == 0, last_winner == 1, last_winner == 2
    return -loss if top0 else 0, -loss if top1 else 0, -loss if top2 else 0


def foster_active_positions(dealer: int, players: int) -> tuple[int, int, int]:
    """F1: the table positions (clockwise, 0..players-1) sitting Vorhand, Mittelhand,
    Hinterhand when ``dealer`` deals: with three, the dealer is Hinterhand (law 15); with four
    to six he takes no cards and deals to the two on his left and the one on his right
    (law 14)."""
    if not 3 <= players <= 6 or not 0 <= dealer < players:
        raise ValueError(f"a Foster table has 3 to 6 players (law 6), not {players}")
    if players == 3:
        return (dealer + 1) % 3, (dealer + 2) % 3, dealer
    return (dealer + 1) % players, (dealer + 2) % players, (dealer - 1) % players


def foster_settlement(scores: tuple[int, ...]) -> tuple[float, ...]:
    """F13 (law 59): each player's result is his running score minus the table's average
    (186, 42, 344, 116 -> +14, -130, +172, -56); exact whenever the average is whole."""
    average = sum(scores) / len(scores)
    return tuple(score - average for score in scores)


@njit
def foster_auction_error(stage: int, listener: int, to_act: int, bid: int, seat: int,
                         call: int) -> int:
    """F3, F4: the ``A_*`` error of a call in Foster's auction: the duels of R4 on Foster's
    numbers; when nobody bid, Vorhand may take the game at 10, or pass into a Ramsch."""
    allowed = 0 <= call < FOSTER_BID_KIND.shape[0] and FOSTER_BID_KIND[call] == 1
    return duel_error(stage, listener, to_act, bid, seat, call, allowed, FOSTER_MIN_BID)


#: F5: the Foster game kinds each skat move leads to: a turned card (Tournée), gucki.
FOSTER_TOURNEES = (F_TOURNEE_DIAMONDS, F_TOURNEE_HEARTS, F_TOURNEE_SPADES, F_TOURNEE_CLUBS)


@njit
def foster_turned_game_ok(kind: int, turned: int) -> bool:
    """F5 (law 29, 30): the game a turned skat card allows: the Tournée of its suit, and for
    a jack also a turned grand."""
    if kind == F_TURNED_GRAND:
        return (turned & 7) == JACK
    return F_TOURNEE_DIAMONDS <= kind <= F_TOURNEE_CLUBS and kind - F_TOURNEE_DIAMONDS \
        == (turned >> 3)
