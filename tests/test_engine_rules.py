"""One test (at least) per decided point R1-R16, each failing if the rule were implemented
the other way. Scoring arithmetic is also covered by test_vectors.py."""

from __future__ import annotations

import random

import pytest

from skatlog.engine import (
    BID_LADDER,
    CARD_POINTS,
    DECK,
    ISKO_ISS,
    BadDeal,
    Bid,
    Card,
    CardNotInHand,
    Contract,
    Deal,
    Declaration,
    Declare,
    Discard,
    Ending,
    GameState,
    Hold,
    IllegalBid,
    IllegalDeclaration,
    Pass,
    PickUp,
    Play,
    PlayAfterEnd,
    RandomPlayer,
    Revoke,
    Session,
    WrongPhase,
    WrongPlayer,
    deal_cards,
    parse_cards,
    play_hand,
    play_session,
    replay,
    score_game,
)
from skatlog.engine.auction import Auction
from skatlog.engine.session import seat_players
from skatlog.engine.tricks import matadors, trick_winner

from .enginekit import forehand_declares, make_deal


def play(state: GameState, cards: str) -> None:
    """Play ``cards`` in order, each by the seat to move."""
    for card in parse_cards(cards):
        seat = state.to_move
        assert seat is not None
        state.apply(Play(seat, card))


# --------------------------------------------------------------------------- R1
def test_r1_deck_and_points() -> None:
    assert len(DECK) == 32 and sum(CARD_POINTS) == 120
    assert [Card.CA.points, Card.CT.points, Card.CK.points, Card.CQ.points, Card.CJ.points,
            Card.C9.points, Card.C8.points, Card.C7.points] == [11, 10, 4, 3, 2, 0, 0, 0]


def test_r1_iss_round_trip() -> None:
    for card in DECK:
        assert Card.from_iss(str(card)) is card
    assert str(Card.from_iss("ST")) == "ST" and Card.from_iss("D7") == 0


def test_r1_unknown_card_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        Card.from_iss("??")


def test_r1_deal_rhythm_3_skat2_4_3() -> None:
    class Identity(random.Random):
        def shuffle(self, x: list) -> None:  # type: ignore[override]
            pass

    deal = deal_cards(Identity())
    pack = list(DECK)
    # 3 each (FH, MH, RH), skat 2, then 4 each, then 3 each.
    assert deal.hands[0] == tuple(pack[0:3] + pack[11:15] + pack[23:26])
    assert deal.hands[1] == tuple(pack[3:6] + pack[15:19] + pack[26:29])
    assert deal.hands[2] == tuple(pack[6:9] + pack[19:23] + pack[29:32])
    assert deal.skat == (pack[9], pack[10])


def test_r1_bad_deal() -> None:
    cards = list(DECK)
    cards[5] = cards[6]
    with pytest.raises(BadDeal):
        Deal.from_cards(cards)
    with pytest.raises(BadDeal):
        Deal.from_cards(list(DECK)[:31])


def test_r1_seats_forehand_left_of_dealer() -> None:
    assert seat_players(0) == (1, 2, 0)  # the dealer is Rearhand
    assert seat_players(2) == (0, 1, 2)


# --------------------------------------------------------------------------- R2
def test_r2_session_is_twelve_hands_with_rotation() -> None:
    session = play_session(["A", "B", "C"], (RandomPlayer(step_bids=True),) * 3, seed=7)
    assert len(session.hands) == 12
    assert [h.dealer for h in session.hands] == [0, 1, 2] * 4
    with pytest.raises(ValueError):
        session.add(session.hands[0].record)
    totals = [0, 0, 0]
    for hand in session.hands:
        if hand.declarer_position is not None:
            totals[hand.declarer_position] += hand.record.result.value
    assert session.totals() == tuple(totals)


def _all_pass_record():
    state = GameState(make_deal())
    for move in (Pass(1), Pass(2), Pass(0)):
        state.apply(move)
    from skatlog.engine import GameRecord
    return GameRecord.from_state(state)


def test_r2_skipped_hand_counts_and_moves_the_deal() -> None:
    session = Session(("A", "B", "C"))
    session.add(_all_pass_record())
    assert session.next_dealer == 1 and session.totals() == (0, 0, 0)


def test_r2_ties_are_shared() -> None:
    session = Session(("A", "B", "C"))
    for _ in range(12):
        session.add(_all_pass_record())
    assert session.winners() == ["A", "B", "C"]


# --------------------------------------------------------------------------- R3
def test_r3_ladder_is_exactly_the_63_values() -> None:
    expected = ("18 20 22 23 24 27 30 33 35 36 40 44 45 46 48 50 54 55 59 60 63 66 70 72 77 80 "
                "81 84 88 90 96 99 100 108 110 117 120 121 126 130 132 135 140 143 144 150 153 "
                "154 156 160 162 165 168 170 176 180 187 192 198 204 216 240 264")
    assert tuple(int(x) for x in expected.split()) == BID_LADDER


def test_r3_bids_must_rise_and_be_on_the_ladder_jumps_allowed() -> None:
    state = GameState(make_deal())
    with pytest.raises(IllegalBid) as err:
        state.apply(Bid(1, 19))
    assert err.value.rule == "R3"
    state.apply(Bid(1, 36))  # a jump
    state.apply(Hold(0))
    with pytest.raises(IllegalBid):
        state.apply(Bid(1, 36))
    with pytest.raises(IllegalBid):
        state.apply(Bid(1, 171))  # ISS's off-ladder value is never legal in the engine (R18)
    state.apply(Bid(1, 40))


def test_r3_iss_extra_bids_only_when_admitted() -> None:
    state = GameState(make_deal(), rules=ISKO_ISS)
    state.apply(Bid(1, 171))
    assert state.auction.bid == 171


def test_r3_passes_are_irrevocable() -> None:
    state = GameState(make_deal())
    state.apply(Pass(1))
    with pytest.raises(WrongPlayer):
        state.apply(Bid(1, 18))


# --------------------------------------------------------------------------- R4
def test_r4_middlehand_speaks_first_then_rearhand_to_the_survivor() -> None:
    state = GameState(make_deal())
    with pytest.raises(WrongPlayer):
        state.apply(Bid(2, 18))
    with pytest.raises(WrongPlayer):
        state.apply(Bid(0, 18))
    state.apply(Bid(1, 18))
    with pytest.raises(IllegalBid):
        state.apply(Bid(0, 20))  # the listener holds or passes
    state.apply(Hold(0))
    state.apply(Bid(1, 20))
    state.apply(Pass(0))  # Middlehand survives
    state.apply(Bid(2, 22))
    state.apply(Hold(1))
    state.apply(Pass(2))
    assert state.declarer == 1 and state.bid == 22


def test_r4_forehand_18_or_pass() -> None:
    state = GameState(make_deal())
    state.apply(Pass(1))
    state.apply(Pass(2))
    assert state.legal_calls() == [Bid(0, 18), Pass(0)]
    with pytest.raises(IllegalBid):
        state.apply(Bid(0, 20))
    state.apply(Bid(0, 18))
    assert state.declarer == 0 and state.bid == 18


def test_r4_all_pass_skips_the_hand() -> None:
    state = GameState(make_deal())
    for move in (Pass(1), Pass(2), Pass(0)):
        state.apply(move)
    result = state.result()
    assert state.finished and result.outcome == "passed" and result.value == 0
    assert result.ending is Ending.ALL_PASSED


def test_r4_forehand_held_bid_wins_when_rearhand_passes() -> None:
    state = GameState(make_deal())
    for move in (Bid(1, 18), Hold(0), Pass(1), Pass(2)):
        state.apply(move)
    assert state.declarer == 0 and state.bid == 18


def test_r4_auction_legal_calls_match_validator() -> None:
    auction = Auction()
    calls = auction.legal_calls()
    assert calls[0] == Bid(1, 18) and calls[-1] == Pass(1) and len(calls) == 64


# --------------------------------------------------------------------------- R5
def test_r5_pickup_discard_and_declare() -> None:
    deal = make_deal(fh="CJ.SJ.CA.CT.CK.CQ.C9.C8.C7.HA", skat="DA.D7")
    state = forehand_declares(deal, Contract.CLUBS, hand=False, discard="DA.HA")
    assert state.phase.value == "play" and state.skat_points == 22
    assert not state.hands[0] >> Card.DA & 1


def test_r5_discard_needs_held_cards() -> None:
    deal = make_deal(fh="CJ", skat="DA.D7")
    state = GameState(deal)
    for move in (Pass(1), Pass(2), Bid(0, 18), PickUp(0)):
        state.apply(move)
    with pytest.raises(CardNotInHand):
        state.apply(Discard(0, (Card.DA, deal.hands[1][0])))
    with pytest.raises(WrongPhase):
        state.apply(Play(0, Card.CJ))  # no card play before the declaration


def test_r5_hand_game_must_not_pick_up() -> None:
    state = GameState(make_deal())
    for move in (Pass(1), Pass(2), Bid(0, 18)):
        state.apply(move)
    with pytest.raises(IllegalDeclaration):
        state.apply(Declare(0, Declaration(Contract.GRAND)))  # not hand, skat untouched


def test_r5_null_ouvert_with_or_without_skat() -> None:
    forehand_declares(make_deal(), Contract.NULL, hand=True, ouvert=True)
    deal = make_deal(fh="D7.D8")
    forehand_declares(deal, Contract.NULL, hand=False, discard="D7.D8", ouvert=True)


def test_r5_base_values() -> None:
    assert [Declaration(c).base_value for c in Contract][:5] == [9, 10, 11, 12, 24]
    assert Declaration(Contract.NULL).base_value == 23
    assert Declaration(Contract.NULL, hand=True).base_value == 35
    assert Declaration(Contract.NULL, ouvert=True).base_value == 46
    assert Declaration(Contract.NULL, hand=True, ouvert=True).base_value == 59


# --------------------------------------------------------------------------- R6
def test_r6_announcements_only_in_hand_games() -> None:
    deal = make_deal(fh="D7.D8")
    with pytest.raises(IllegalDeclaration) as err:
        forehand_declares(deal, Contract.CLUBS, hand=False, discard="D7.D8",
                          schneider_announced=True)
    assert err.value.rule == "R6"


def test_r6_implications() -> None:
    ouvert = Declaration.normalized(Contract.GRAND, ouvert=True)
    assert ouvert.hand and ouvert.schneider_announced and ouvert.schwarz_announced
    assert Declaration.normalized(Contract.CLUBS, hand=True,
                                  schwarz_announced=True).schneider_announced
    with pytest.raises(IllegalDeclaration):
        Declaration(Contract.CLUBS, hand=True, schwarz_announced=True).check(skat_taken=False)
    with pytest.raises(IllegalDeclaration):
        Declaration(Contract.NULL, hand=True, schneider_announced=True).check(skat_taken=False)


def test_r6_iss_contract_notation() -> None:
    for text in ("G", "CH", "CHZ", "GO", "GHS", "NOH", "NHO", "SHO", "CHOSZ", "NO", "DH"):
        declaration = Declaration.from_iss(text)
        assert Declaration.from_iss(declaration.iss) == declaration
    assert Declaration.from_iss("SHO") == Declaration.normalized(Contract.SPADES, ouvert=True)


# --------------------------------------------------------------------------- R7
def test_r7_null_below_bid_is_illegal_in_the_engine() -> None:
    state = GameState(make_deal())
    for move in (Bid(1, 36), Pass(0), Pass(2)):
        state.apply(move)
    with pytest.raises(IllegalDeclaration) as err:
        state.apply(Declare(1, Declaration(Contract.NULL, hand=True)))  # 35 < 36
    assert err.value.rule == "R7"
    assert Declare(1, Declaration(Contract.NULL, hand=True)) not in state.legal_moves()
    state.apply(Declare(1, Declaration(Contract.NULL, hand=True, ouvert=True)))  # 59 >= 36


def test_r7_recorded_null_below_bid_scores_as_overbid() -> None:
    score = score_game(Declaration(Contract.NULL), bid=24, matadors=0, declarer_points=0,
                       declarer_tricks=0, defender_tricks=10)
    assert score.value == -92 and score.overbid and not score.won
    state = GameState(make_deal(), rules=ISKO_ISS)
    for move in (Bid(1, 24), Pass(0), Pass(2), PickUp(1)):
        state.apply(move)
    state.apply(Declare(1, Declaration(Contract.NULL)))  # accepted when replaying a record


# --------------------------------------------------------------------------- R8
def test_r8_jacks_follow_trumps_not_their_suit() -> None:
    # Spades game: on a heart lead, HJ is a trump, so a holder of H7 must play H7.
    deal = make_deal(fh="SJ.SA.HA", mh="HJ.H7.D7", rh="H8.D8")
    state = forehand_declares(deal, Contract.SPADES)
    state.apply(Play(0, Card.HA))
    with pytest.raises(Revoke) as err:
        state.apply(Play(1, Card.HJ))
    assert err.value.rule == "R8" and err.value.code == "revoke"
    state.apply(Play(1, Card.H7))


def test_r8_jack_must_follow_a_trump_lead() -> None:
    deal = make_deal(fh="SA.CA", mh="HJ.H7.D7.C7", rh="H8.D8")
    state = forehand_declares(deal, Contract.SPADES)
    state.apply(Play(0, Card.SA))  # trump lead; Middlehand's only trump is HJ
    with pytest.raises(Revoke):
        state.apply(Play(1, Card.H7))
    state.apply(Play(1, Card.HJ))


def test_r8_no_duty_to_win_or_trump() -> None:
    deal = make_deal(fh="HA", mh="H7.CJ.CA", rh="SJ.D8")
    state = forehand_declares(deal, Contract.CLUBS)
    state.apply(Play(0, Card.HA))
    state.apply(Play(1, Card.H7))  # may follow low
    rh_hand = state.legal_cards()
    if not any(c.suit == 1 and c.rank != 4 for c in rh_hand):
        assert len(rh_hand) == 10  # void in hearts: anything goes, no duty to trump


def test_r8_trump_order_and_null_order() -> None:
    assert trick_winner([Card.DJ, Card.CA, Card.HJ], Contract.CLUBS) == 2
    assert trick_winner([Card.CA, Card.CT, Card.DJ], Contract.CLUBS) == 2
    assert trick_winner([Card.CT, Card.CK, Card.CA], Contract.CLUBS) == 2
    assert trick_winner([Card.CT, Card.CK, Card.C7], Contract.GRAND) == 0
    assert trick_winner([Card.HA, Card.CJ, Card.HT], Contract.HEARTS) == 1
    assert trick_winner([Card.SA, Card.HA, Card.S7], Contract.GRAND) == 0  # off-suit ace loses
    # Null: A K Q J 10 9 8 7 — the ten sits below the jack, and jacks are plain cards.
    assert trick_winner([Card.HT, Card.HJ, Card.H9], Contract.NULL) == 1
    assert trick_winner([Card.HJ, Card.CJ, Card.H7], Contract.NULL) == 0


def test_r8_forehand_leads_and_winner_leads_next() -> None:
    deal = make_deal(fh="H7", mh="HA", rh="H8")
    state = forehand_declares(deal, Contract.CLUBS)
    with pytest.raises(WrongPlayer):
        state.apply(Play(1, Card.HA))
    play(state, "H7.HA.H8")
    assert state.tricks[0].winner == 1 and state.to_move == 1


# --------------------------------------------------------------------------- R9
def test_r9_null_ends_at_the_declarers_first_trick() -> None:
    deal = make_deal(fh="HA", mh="H7", rh="H8")
    state = forehand_declares(deal, Contract.NULL)
    play(state, "HA.H7.H8")
    assert state.finished and state.ending is Ending.NULL_TRICK
    assert state.result().value == -70  # null hand lost: -2 x 35
    with pytest.raises(PlayAfterEnd):
        state.apply(Play(0, deal.hands[0][1]))


def test_r9_suit_games_play_ten_tricks_even_when_decided() -> None:
    rng = random.Random(3)
    for _ in range(50):
        record = play_hand(deal_cards(rng), (RandomPlayer(),) * 3, rng)
        result = record.result
        if result.outcome == "played" and result.declaration.contract is not Contract.NULL:
            assert len(record.tricks) == 10


# ------------------------------------------------------------------------- R10-R16
def test_r10_discarded_points_count_for_the_declarer() -> None:
    deal = make_deal(fh="CA.CT", skat="D7.D8")
    state = forehand_declares(deal, Contract.CLUBS, hand=False, discard="CA.CT")
    assert state.declarer_points == 21
    hand_state = forehand_declares(make_deal(skat="DA.DT"), Contract.GRAND)
    assert hand_state.declarer_points == 21  # untouched skat counts too


def test_r11_thirty_is_schneider_thirty_one_is_not() -> None:
    hearts = Declaration(Contract.HEARTS)
    at_30 = score_game(hearts, bid=18, matadors=1, declarer_points=30, declarer_tricks=3,
                       defender_tricks=7)
    at_31 = score_game(hearts, bid=18, matadors=1, declarer_points=31, declarer_tricks=3,
                       defender_tricks=7)
    assert at_30.schneider and at_30.value == -60
    assert not at_31.schneider and at_31.value == -40


def test_r11_zero_point_trick_prevents_schwarz() -> None:
    grand = Declaration(Contract.GRAND)
    score = score_game(grand, bid=18, matadors=1, declarer_points=120, declarer_tricks=9,
                       defender_tricks=1)
    assert not score.schwarz and score.value == 72
    schwarz = score_game(grand, bid=18, matadors=1, declarer_points=120, declarer_tricks=10,
                         defender_tricks=0)
    assert schwarz.schwarz and schwarz.value == 96


def test_r11_declarer_schwarz_against_him() -> None:
    score = score_game(Declaration(Contract.DIAMONDS), bid=18, matadors=1, declarer_points=0,
                       declarer_tricks=0, defender_tricks=10)
    assert score.schwarz and score.schneider and score.value == -72


def test_r12_matadors_clubs_with_and_without_eleven() -> None:
    from skatlog.engine.cards import mask_of
    every_club_trump = parse_cards("CJ.SJ.HJ.DJ.CA.CT.CK.CQ.C9.C8.C7")
    assert matadors(mask_of(every_club_trump), Contract.CLUBS) == 11
    assert matadors(mask_of(parse_cards("HA.SA")), Contract.CLUBS) == -11
    assert matadors(mask_of(parse_cards("CJ.SJ.HJ.DJ")), Contract.GRAND) == 4
    assert matadors(mask_of(parse_cards("DJ")), Contract.GRAND) == -3
    assert matadors(mask_of(parse_cards("CJ.HJ")), Contract.SPADES) == 1


def test_r12_matadors_count_the_skat_in_hand_games() -> None:
    deal = make_deal(fh="SJ.HJ", mh="DJ", skat="CJ.D7")
    state = forehand_declares(deal, Contract.GRAND)
    assert state.matadors() == 3  # CJ lies in the untouched skat: with 3, not without 1


def test_r13_grand_with_four_and_hand() -> None:
    grand = Declaration(Contract.GRAND)
    assert score_game(grand, bid=18, matadors=4, declarer_points=61, declarer_tricks=5,
                      defender_tricks=5).value == 120
    hand = Declaration(Contract.GRAND, hand=True)
    assert score_game(hand, bid=18, matadors=1, declarer_points=61, declarer_tricks=5,
                      defender_tricks=5).value == 72


def test_r14_failed_announcements_are_charged_every_level_once() -> None:
    schneider = Declaration.normalized(Contract.GRAND, hand=True, schneider_announced=True)
    assert score_game(schneider, bid=18, matadors=2, declarer_points=85, declarer_tricks=7,
                      defender_tricks=3).value == -288
    schwarz = Declaration.normalized(Contract.GRAND, hand=True, schwarz_announced=True)
    assert score_game(schwarz, bid=18, matadors=2, declarer_points=110, declarer_tricks=9,
                      defender_tricks=1).value == -384
    # no own schneider: defenders reaching schneider adds nothing beyond the announced level
    assert score_game(schneider, bid=18, matadors=2, declarer_points=25, declarer_tricks=2,
                      defender_tricks=8).value == -288


def test_r14_won_needs_value_at_least_bid() -> None:
    clubs = Declaration(Contract.CLUBS)
    won = score_game(clubs, bid=24, matadors=1, declarer_points=61, declarer_tricks=5,
                     defender_tricks=5)
    assert won.won and won.value == 24


def test_r15_overbid_cured_by_schneider() -> None:
    diamonds = Declaration(Contract.DIAMONDS)
    lost = score_game(diamonds, bid=22, matadors=-1, declarer_points=89, declarer_tricks=8,
                      defender_tricks=2)
    cured = score_game(diamonds, bid=22, matadors=-1, declarer_points=90, declarer_tricks=8,
                       defender_tricks=2)
    assert lost.overbid and lost.value == -54
    assert not cured.overbid and cured.won and cured.value == 27


def test_r16_lost_hand_games_count_double() -> None:
    hand = Declaration(Contract.SPADES, hand=True)
    score = score_game(hand, bid=18, matadors=1, declarer_points=60, declarer_tricks=5,
                       defender_tricks=5)
    assert score.value == -2 * 11 * 3


def test_card_not_in_hand_is_typed() -> None:
    deal = make_deal(fh="H7", mh="HA")
    state = forehand_declares(deal, Contract.CLUBS)
    with pytest.raises(CardNotInHand) as err:
        state.apply(Play(0, Card.HA))
    assert isinstance(err.value, ValueError) and err.value.move == Play(0, Card.HA)


def test_replay_reproduces_the_result() -> None:
    rng = random.Random(11)
    record = play_hand(deal_cards(rng), (RandomPlayer(),) * 3, rng)
    again = replay(record.deal, record.moves)
    assert again.result == record.result and again.tricks == record.tricks


# --------------------------------------------------------------------------- R17
def test_r17_declarer_resigning_loses_at_once() -> None:
    deal = make_deal(fh="CJ.SJ.HJ.DJ.CA.CT.CK.CQ.C9.C8")
    state = forehand_declares(deal, Contract.CLUBS, rules=ISKO_ISS)
    from skatlog.engine import Resign
    state.apply(Resign(0))
    result = state.result()
    assert state.finished and not result.won and result.value < 0


def test_r17_defenders_resigning_give_the_declarer_the_rest() -> None:
    from skatlog.engine import Resign
    deal = make_deal(fh="CJ.SJ.HJ.DJ.CA.CT.CK.CQ.C9.C8")
    state = forehand_declares(deal, Contract.GRAND, rules=ISKO_ISS)
    state.apply(Play(0, Card.CJ))
    state.apply(Resign(1))
    assert not state.finished
    state.apply(Resign(2))
    result = state.result()
    assert result.declarer_points == 120 and result.declarer_tricks == 10
    assert result.won and result.score.schwarz


def test_r17_defenders_conceding_null_lets_the_declarer_win() -> None:
    from skatlog.engine import Resign
    state = forehand_declares(make_deal(), Contract.NULL, ouvert=True, rules=ISKO_ISS)
    state.apply(Resign(1))
    state.apply(Resign(2))
    assert state.result().value == 59


def test_r17_time_out_before_declaration_is_a_penalty() -> None:
    from skatlog.engine import TimeOut
    state = GameState(make_deal(), rules=ISKO_ISS)
    state.apply(Bid(1, 18))
    state.apply(TimeOut(0))
    result = state.result()
    assert result.outcome == "penalty" and result.value == 0


def test_r17_defender_time_out_credits_the_declarer() -> None:
    from skatlog.engine import TimeOut
    deal = make_deal(fh="CJ.SJ.HJ.DJ.CA.CT.CK.CQ.C9.C8")
    state = forehand_declares(deal, Contract.CLUBS, rules=ISKO_ISS)
    state.apply(TimeOut(2))
    assert state.result().declarer_points == 120


def test_r17_schwarz_announced_ends_when_defenders_take_a_trick() -> None:
    deal = make_deal(fh="H7", mh="HA", rh="H8")
    state = forehand_declares(deal, Contract.CLUBS, rules=ISKO_ISS, schwarz_announced=True)
    play(state, "H7.HA.H8")
    assert state.finished and state.result().value < 0
    own = forehand_declares(deal, Contract.CLUBS, schwarz_announced=True)
    play(own, "H7.HA.H8")
    assert not own.finished  # skatlog's own games play on (R9)


def test_r17_schneider_announced_ends_when_defenders_pass_thirty() -> None:
    deal = make_deal(fh="H7.S7", mh="HA.SA", rh="HT.ST")
    state = forehand_declares(deal, Contract.CLUBS, rules=ISKO_ISS, schneider_announced=True)
    play(state, "H7.HA.HT")  # defenders 21
    assert not state.finished
    play(state, "SA.ST.S7")  # defenders 42 > 30
    assert state.finished and state.ending is Ending.DEFENDERS_31


def test_r5_legal_moves_offer_every_null_variant() -> None:
    state = GameState(make_deal())
    for move in (Pass(1), Pass(2), Bid(0, 18)):
        state.apply(move)
    offered = {m.declaration for m in state.legal_moves() if isinstance(m, Declare)}
    assert Declaration(Contract.NULL, hand=True) in offered
    assert Declaration(Contract.NULL, hand=True, ouvert=True) in offered
    assert len(offered) == 22  # 5 contracts x (plain, S, Z, ouvert) hand games + NH + NHO
