"""Property tests over random legal games (hypothesis): at least 1,000 games per property."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skatlog.engine import (
    BID_LADDER,
    CARD_POINTS,
    ISKO_ISS,
    Bid,
    Card,
    Contract,
    Declare,
    Discard,
    GameRecord,
    GameState,
    Hold,
    Leave,
    Pass,
    Phase,
    PickUp,
    Play,
    RandomPlayer,
    Resign,
    RuleError,
    TimeOut,
    deal_cards,
    play_hand,
    replay,
)
from skatlog.engine.cards import points_of
from skatlog.engine.game import all_declarations

GAMES = settings(max_examples=1000, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow])
seeds = st.integers(min_value=0, max_value=2**63 - 1)
players = (RandomPlayer(), RandomPlayer(step_bids=True))


def random_game(seed: int) -> GameRecord:
    rng = random.Random(seed)
    bots = (players[seed % 2],) * 3  # half uniform auctions, half step-by-step ones
    return play_hand(deal_cards(rng), bots, rng)


@GAMES
@given(seeds)
def test_card_points_total_120(seed: int) -> None:
    record = random_game(seed)
    state = record.replay_state()
    result = record.result
    in_hands = sum(points_of(h) for h in state.hands)
    in_trick = sum(CARD_POINTS[c] for c in state.trick_cards)
    if result.outcome == "played":
        assert result.declarer_points + result.defender_points + in_hands + in_trick == 120
        if len(state.tricks) == 10:
            assert result.declarer_points + result.defender_points == 120
    assert sum(t.points for t in state.tricks) + state.skat_points + in_hands + in_trick == 120


@GAMES
@given(seeds)
def test_ten_tricks_unless_null_ended_early(seed: int) -> None:
    record = random_game(seed)
    result = record.result
    if result.outcome != "played":
        assert not record.tricks
        return
    tricks = record.tricks
    if len(tricks) < 10:
        assert result.declaration.contract is Contract.NULL
        assert tricks[-1].winner == result.declarer
        assert all(t.winner != result.declarer for t in tricks[:-1])
    assert result.declarer_tricks + result.defender_tricks == len(tricks)


def _candidates(state: GameState) -> list:
    """Moves to try at this point: every legal one and many illegal ones."""
    seats = (0, 1, 2)
    if state.phase is Phase.AUCTION:
        values = [*BID_LADDER[:12], 19, 171, 264]
        return ([Bid(s, v) for s in seats for v in values] + [Hold(s) for s in seats]
                + [Pass(s) for s in seats])
    if state.phase is Phase.PLAY:
        return [Play(s, c) for s in seats for c in Card] + [PickUp(0)]
    declarer = state.declarer
    held = [c for c in Card if state.hands[declarer] >> c & 1]
    others = [c for c in Card if not state.hands[declarer] >> c & 1][:3]
    moves: list = [PickUp(s) for s in seats]
    moves += [Declare(s, d) for s in seats for d in all_declarations()]
    pairs = [(a, b) for i, a in enumerate(held) for b in held[i + 1:]]
    moves += [Discard(declarer, p) for p in pairs] + [Discard(declarer, (held[0], held[0]))]
    moves += [Discard(declarer, (held[0], o)) for o in others]
    moves += [Discard((declarer + 1) % 3, pairs[0]), Play(declarer, held[0])]
    return moves


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seeds)
def test_legal_move_generator_and_validator_agree(seed: int) -> None:
    rng = random.Random(seed)
    state = GameState(deal_cards(rng))
    player = players[seed % 2]
    while not state.finished:
        legal = state.legal_moves()
        legal_set = set(legal)
        assert legal and len(legal_set) == len(legal)
        for move in _candidates(state) + legal:
            try:
                state.check(move)
                accepted = True
            except RuleError:
                accepted = False
            assert accepted == (move in legal_set), (move, state.phase)
        state.apply(player.choose(state, rng))
    for move in (Pass(0), Play(0, Card.CJ)):
        try:
            state.check(move)
            raise AssertionError("a move after the end was accepted")
        except RuleError as err:
            assert err.code == "play_after_end"


@GAMES
@given(seeds)
def test_replay_reproduces_the_result(seed: int) -> None:
    record = random_game(seed)
    again = replay(record.deal, record.moves)
    assert again.result == record.result
    assert again.tricks == record.tricks and again.auction == record.auction


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seeds, st.integers(min_value=0, max_value=40), st.sampled_from([Resign, TimeOut, Leave]),
       st.integers(min_value=0, max_value=2))
def test_recorded_games_with_concessions_replay(seed: int, at: int, event: type,
                                                seat: int) -> None:
    """R17: a concession, time-out or leave ends recorded games; the result replays."""
    rng = random.Random(seed)
    state = GameState(deal_cards(rng), rules=ISKO_ISS)
    player = players[1]
    step = 0
    while not state.finished:
        if step == at and (event is not Resign or state.declaration is not None):
            state.apply(event(seat))
            if event is Resign and seat != state.declarer and not state.finished:
                state.apply(event((seat + 1) % 3 if (seat + 1) % 3 != state.declarer
                                  else (seat + 2) % 3))
            continue
        state.apply(player.choose(state, rng))
        step += 1
    record = GameRecord.from_state(state)
    again = replay(record.deal, record.moves, rules=ISKO_ISS)
    assert again.result == record.result
    result = record.result
    if result.outcome == "played" and result.declarer_tricks + result.defender_tricks == 10:
        assert result.declarer_points + result.defender_points == 120


def test_the_reference_engine_hands_the_core_plain_integers() -> None:
    """Every call the typed engine makes into the compiled rules core passes ints and bools,
    never Card/Contract enum members: numba types an enum member by walking the enum, which
    made a trick's points cost 60 times a plain call (the reference path 5 times slower)."""
    from skatlog.engine import RandomPlayer, core, seeded_deal

    if not hasattr(core.trick_points, "signatures"):
        pytest.skip("numba not installed: the core runs as plain Python")
    rng = random.Random(5)
    for seed in range(30):
        state = GameState(seeded_deal(seed), rules=ISKO_ISS)
        while not state.finished:
            state.apply(RandomPlayer(step_bids=True).choose(state, rng))
        record = GameRecord.from_state(state)
        _ = [trick.points for trick in record.tricks], record.result
    for name in dir(core):
        dispatcher = getattr(core, name)
        for signature in getattr(dispatcher, "signatures", ()):
            assert all("Enum" not in str(arg) for arg in signature), (name, signature)
