"""The bots: legal play through the validated engine path, the heuristics, rules > random."""

from __future__ import annotations

import random

import numpy as np
import pytest

from skatlog.engine import (
    Card,
    Contract,
    Declare,
    Discard,
    GameState,
    PickUp,
    Play,
    RandomPlayer,
    play_hand,
    seeded_deal,
)
from skatlog.engine.batch import UnknownBot, seat_positions, simulate_batch
from skatlog.engine.batch import heuristics as h
from skatlog.engine.batch.config import DEFAULTS as CFG
from skatlog.engine.batch.config import NAMES, BadBotConfig, bot_name, config_vector, split_bot
from skatlog.engine.bots import RulesPlayer, make_bot
from skatlog.engine.cards import mask_of, parse_cards


def hand(text: str) -> int:
    return mask_of(parse_cards(text, " "))


def test_make_bot() -> None:
    assert isinstance(make_bot("random"), RandomPlayer)
    assert isinstance(make_bot("rules"), RulesPlayer)
    with pytest.raises(ValueError, match="unknown bot"):
        make_bot("clever")


def test_rules_player_plays_legal_hands_through_the_validated_path() -> None:
    rules = RulesPlayer()
    rng = random.Random(3)
    seen_contracts = set()
    for seed in range(150):
        seats = (rules, RandomPlayer(), rules) if seed % 2 else (rules, rules, rules)
        record = play_hand(seeded_deal(seed), seats, rng, checked=True)
        if record.declaration is not None:
            seen_contracts.add(record.declaration.contract)
            assert len(record.tricks) == 10 or record.declaration.contract is Contract.NULL
    assert len(seen_contracts) >= 4


def test_engine_rules_bot_equals_the_batch_rules_bot() -> None:
    """One implementation: RulesPlayer on the batch's deals makes the batch's moves."""
    batch = simulate_batch(31, 0, 300, ("rules", "rules", "rules"))
    rules = RulesPlayer()
    for row in range(len(batch)):
        record = play_hand(batch.deal_of(row), (rules, rules, rules), random.Random(0))
        assert list(record.moves) == batch.moves(row)


def test_mixed_seats_follow_the_table_positions() -> None:
    batch = simulate_batch(8, 0, 60, ("rules", "random", "random"))
    rules = RulesPlayer()
    for row in range(len(batch)):
        positions = seat_positions(row)
        players = tuple(rules if positions[s] == 0 else RandomPlayer() for s in range(3))
        moves = batch.moves(row)
        state = GameState(batch.deal_of(row))
        for move in moves:  # the rules seat's every move is what RulesPlayer chooses
            if positions[move.seat] == 0:
                assert players[move.seat].choose(state, random.Random(0)) == move
            state.apply(move)


def test_bidding_values() -> None:
    # J clubs + J spades and two side aces: the textbook grand (modern rules, Strategy).
    grand = hand("CJ SJ CA CT SA ST S9 HA H7 D8")
    assert h.bid_limit(grand, 0, CFG) >= 48
    # a hand with no jacks and one trump bids nothing worth a suit game
    assert h.bid_limit(hand("S7 S8 H9 HT DQ D8 C9 CQ SK D7"), 1, CFG) <= 23
    # "with 2" clubs can bid clubs at 3 x 12 = 36; "without 2" keeps one multiplier of slack
    with_two = hand("CJ SJ CA CT CK C9 C8 HA SA D7")
    assert h.bid_limit(with_two, 1, CFG) >= 36
    without_two = hand("HJ DJ CA CT CK C9 C8 HA SA D7")
    assert h.matadors(without_two, int(Contract.CLUBS)) == -2
    assert h.bidding_multiplier(without_two, int(Contract.CLUBS), CFG) == 2


def test_null_safety() -> None:
    safe = hand("C7 C9 S7 S8 ST H7 H9 D7 D8 DT")
    assert h.null_danger(safe, False, CFG) == 0
    risky = hand("C9 CT S7 S8 ST H7 H9 D7 D8 DA")  # no seven of clubs: a hole (Strategy)
    assert h.null_danger(risky, False, CFG) >= 1
    assert h.bid_limit(safe, 0, CFG) >= 35


def test_bid_slack_is_a_setting_of_bid_below_your_matadors() -> None:
    # A grand "without 2": one multiplier of slack by default, the full value without it.
    without_two = hand("HJ DJ CA CT CK C9 C8 HA SA S7")
    assert h.matadors(without_two, int(Contract.GRAND)) == -2
    assert h.bid_limit(without_two, 1, CFG) == 24 * 2
    bold = config_vector({"bid_slack": 0.0})
    assert h.bid_limit(without_two, 1, bold) == 24 * 3
    assert RulesPlayer("rules:bid_slack=0").cfg[NAMES.index("bid_slack")] == 0.0


def test_bot_names_carry_settings() -> None:
    assert bot_name({"null_risk": 1.0, "trumps_first": 0.0}) == "rules:no-trumps_first+null_risk=1"
    assert split_bot("rules:no-trumps_first")[1][NAMES.index("trumps_first")] == 0.0
    assert bot_name({}) == "rules" and bot_name({"smear": 1.0}) == "rules"
    for bad in ("rules:cleverness", "rules:smear=2", "rules:null_risk=x", "random:smear"):
        with pytest.raises(BadBotConfig):
            split_bot(bad)
    with pytest.raises(UnknownBot, match="cleverness"):
        simulate_batch(1, 0, 10, ("rules:cleverness", "rules", "rules"))


def test_null_with_one_risky_card_is_bid_but_not_played_from_hand() -> None:
    risky = hand("C7 C9 S7 S8 ST H7 H9 D7 D8 DA")  # the bare ace of diamonds is the hole
    assert h.null_danger(risky, False, CFG) == 1
    assert h.bid_limit(risky, 1, CFG) == 23
    assert h.hand_game(risky, 23, 1, CFG) == -1  # a hand null must be safe
    from skatlog.engine.bots import declaration_of

    a, b, decl = h.discard_and_declare(risky | hand("CK SQ"), 23, 1, CFG)
    assert Card.DA in {Card(a), Card(b)}  # the risky card is laid away
    assert declaration_of(int(decl)).contract is Contract.NULL


def test_null_defence_attacks_with_low_cards() -> None:
    null = int(Contract.NULL)
    spades_void = 1 << (2 * 5 + int(Contract.SPADES))  # seat 2 (the partner) showed out
    mine = hand("C7 C8 CA S7 SK H9 HT")
    # seat 1 leads against the declarer (seat 0): the lowest card nobody can duck under,
    # from the longer suit; from the suit the partner discarded once he has (Foster)
    assert h.choose_card(1, mine, mine, null, 0, 1, -1, -1, 0, 0, 0, 0, 0, CFG) == Card.C7
    assert h.choose_card(1, mine, mine, null, 0, 1, -1, -1, 0, 0, 0, spades_void, 0, CFG) == Card.S7
    # second behind the declarer's S9: duck with the highest card below it
    legal = hand("S7 S8 SK")
    assert h.choose_card(1, legal | hand("H7"), legal, null, 0, 0, int(Card.S9), -1, 1,
                         hand("S9"), 0, 0, 0, CFG) == Card.S8
    # the partner led the S9 and the declarer plays last: stay below the lead
    legal = hand("S8 SK")
    assert h.choose_card(2, legal, legal, null, 0, 1, int(Card.S9), -1, 1,
                         hand("S9"), 0, 0, 0, CFG) == Card.S8
    # the declarer ducked under the partner's ace: the trick is safe, shed the high card
    legal = hand("S7 SK")
    assert h.choose_card(2, legal, legal, null, 0, 0, int(Card.S9), int(Card.SA), 2,
                         hand("S9 SA"), 0, 0, 0, CFG) == Card.SK


def test_discard_lays_away_points_and_keeps_jacks() -> None:
    held = hand("CJ SJ HJ CA CT C9 C8 C7 SA HA DT D7")
    a, b, decl = h.discard_and_declare(held, 18, 0, CFG)
    assert Card(a).rank != 4 and Card(b).rank != 4  # never a jack
    from skatlog.engine.bots import declaration_of

    assert declaration_of(int(decl)).contract in (Contract.CLUBS, Contract.GRAND)
    assert {Card(a), Card(b)} & {Card.DT, Card.D7}  # clear the weak diamonds


def test_declarer_draws_trumps_and_defender_smears() -> None:
    clubs = int(Contract.CLUBS)
    mine = hand("CJ SJ CA CT C9 SA HA HT D7 D8")
    card = h.choose_card(0, mine, mine, clubs, 0, 0, -1, -1, 0, 0, 0, 0, 0, CFG)
    assert card == Card.CJ  # the top trump, a sure winner: draw trumps
    # defender last to play, partner (seat 1) is winning with an ace: fatten with the ten
    defender = hand("HT H7 S8 D9")
    played = mask_of([Card.SA, Card.S7])
    legal = mask_of([Card.HT, Card.H7, Card.S8, Card.D9]) & ~hand("S8")  # void in spades
    card = h.choose_card(2, defender & ~hand("S8"), legal, clubs, 0, 1, int(Card.SA),
                         int(Card.S7), 2, played, 0, 0, 0, CFG)
    assert card == Card.HT
    # defender second behind the declarer's ten keeps the ace for it (Foster)
    second = hand("SA S7 H9")
    legal = mask_of([Card.SA, Card.S7])
    card = h.choose_card(1, second, legal, clubs, 0, 0, int(Card.ST), -1, 1,
                         mask_of([Card.ST]), 0, 0, 0, CFG)
    assert card == Card.SA


def test_rules_beats_random_at_mixed_seats() -> None:
    """Small CI sample (the >= 100,000-hand figures are in bench/simulate.py)."""
    batch = simulate_batch(99, 0, 6000, ("rules", "random", "rules"))
    declarer = batch.column("declarer")
    played = declarer >= 0
    index = batch.index
    position = np.where(played, (index % 3 + 1 + np.maximum(declarer, 0)) % 3, -1)
    value = batch.column("value")
    won = batch.column("won")
    rules_seat = played & (position != 1)
    random_seat = played & (position == 1)
    assert won[rules_seat].mean() > 0.6 > 0.1 > won[random_seat].mean()
    per_hand_rules = value[rules_seat].sum() / (2 * len(batch))
    per_hand_random = value[random_seat].sum() / len(batch)
    assert per_hand_rules > 0 > per_hand_random


def test_choose_needs_a_move_to_make() -> None:
    state = GameState(seeded_deal(1))
    rules = RulesPlayer()
    while not state.finished:
        move = rules.choose(state, random.Random(0))
        assert isinstance(move, (Play, PickUp, Discard, Declare)) or state.phase.value == "auction"
        state.apply(move)
    with pytest.raises(ValueError, match="over"):
        rules.choose(state, random.Random(0))
