"""Foster's rule set (F1-F13): the scoring vectors of tests/data/foster_vectors.csv (each with
its law), his bidding numbers, the seats of a 3-6 player table and a sitting's settlement."""

from __future__ import annotations

import csv
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skatlog.engine import (
    CARD_POINTS,
    Bid,
    Card,
    Discard,
    Hold,
    Move,
    Pass,
    Phase,
    Play,
    Resign,
    RuleError,
    UnknownRules,
    core,
    deal_cards,
    seeded_deal,
)
from skatlog.engine.foster import (
    FOSTER_BIDS,
    FosterGame,
    Sitting,
    contract_name,
    foster_ramsch,
    foster_score,
)
from skatlog.engine.foster_game import FosterHand, replay_foster
from skatlog.engine.moves import FosterDeclare, Gucki, Turn
from skatlog.engine.rules import Rules

from .enginekit import make_deal

VECTORS = Path(__file__).parent / "data" / "foster_vectors.csv"


def _rows(kind: str) -> list[dict[str, str]]:
    with VECTORS.open(newline="") as handle:
        return [row for row in csv.DictReader(handle) if row["kind"] == kind]


def _ints(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split("/"))


def test_the_vectors_cover_the_cases_the_issue_names() -> None:
    rows = _rows("game") + _rows("ramsch") + _rows("settlement")
    assert len(rows) >= 12 and all(row["law"].startswith("law ") for row in rows)
    laws = {row["law"].split(" (")[0] for row in rows}
    assert {"law 61", "law 3", "law 39", "law 4", "law 59", "law 56", "law 57"} <= laws
    notes = " ".join(row["note"] for row in rows)
    for case in ("Passt-mir-nicht", "gucki", "open grand", "30", "91", "three at 40"):
        assert case in notes


@pytest.mark.parametrize("row", _rows("game"), ids=lambda row: row["case"])
def test_game_vectors(row: dict[str, str]) -> None:
    flag = {k: row[k] == "1" for k in ("passt_mir_nicht", "schneider_announced",
                                       "schwarz_announced", "abandoned")}
    score = foster_score(FosterGame.from_label(row["game"]), bid=int(row["bid"]),
                         matadors=int(row["matadors"]), player_points=int(row["player_points"]),
                         player_tricks=int(row["player_tricks"]), **flag)
    assert score.value == int(row["expected"]), row["note"]
    assert score.won == (score.value > 0)


@pytest.mark.parametrize("row", _rows("ramsch"), ids=lambda row: row["case"])
def test_ramsch_vectors(row: dict[str, str]) -> None:
    points, tricks = _ints(row["points"]), _ints(row["tricks"])
    assert sum(points) == 120 and sum(tricks) == 10
    values = foster_ramsch(points, tricks, int(row["last_winner"]))  # type: ignore[arg-type]
    assert values == _ints(row["expected"]), row["note"]


@pytest.mark.parametrize("row", _rows("settlement"), ids=lambda row: row["case"])
def test_settlement_vectors(row: dict[str, str]) -> None:
    assert core.foster_settlement(_ints(row["points"])) == _ints(row["expected"])


def test_the_bidding_numbers_come_from_the_game_table() -> None:
    assert FOSTER_BIDS[:8] == (10, 12, 14, 15, 16, 18, 20, 21)
    assert 11 not in FOSTER_BIDS and 13 not in FOSTER_BIDS  # no game is worth them (F3)
    for value in (15, 20, 30, 40):  # the nullos' fixed values
        assert value in FOSTER_BIDS
    assert FOSTER_BIDS[-1] == 24 * (5 + 4)  # an open grand with four


def test_names_are_self_explaining() -> None:
    names = [game.label for game in FosterGame]
    for name in ("tournee_hearts", "gucki_grand", "solo_grand", "open_grand", "solo_nullo",
                 "ramsch"):
        assert name in names
    assert contract_name(FosterGame.TOURNEE_HEARTS, passt_mir_nicht=True) \
        == "passt_mir_nicht_hearts"
    assert contract_name(FosterGame.TURNED_GRAND, passt_mir_nicht=True) \
        == "passt_mir_nicht_grand"


def test_announcements_only_in_solos() -> None:
    with pytest.raises(ValueError, match="law 41"):
        foster_score(FosterGame.TOURNEE_CLUBS, bid=16, matadors=1, player_points=95,
                     player_tricks=8, schneider_announced=True)
    with pytest.raises(ValueError, match="law 28"):
        foster_score(FosterGame.SOLO_CLUBS, bid=24, matadors=1, player_points=95,
                     player_tricks=8, passt_mir_nicht=True)


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_a_sitting_of_whole_rounds_with_the_dealer_sitting_out(players: int) -> None:
    names = tuple("ABCDEF"[:players])
    sitting = Sitting(names)
    seen_out = set()
    for deal in range(players):
        active = sitting.active()
        assert len(set(active)) == 3
        dealer = sitting.dealer
        assert dealer == deal
        if players == 3:
            assert active[2] == dealer  # Hinterhand deals (law 15)
        else:
            assert dealer not in active  # the dealer takes no cards (law 14)
            assert active == ((dealer + 1) % players, (dealer + 2) % players,
                              (dealer - 1) % players)
            seen_out.add(dealer)
        assert not sitting.complete
        sitting.enter((12 * (deal + 1), 0, 0))  # Vorhand's game, entered under his name
    assert sitting.complete
    settled = sitting.settlement()
    assert sum(settled) == pytest.approx(0)
    assert sum(sitting.scores) == sum(12 * (d + 1) for d in range(players))
    if players > 3:
        assert seen_out == set(range(players))


def test_table_sizes_and_half_rounds_are_refused() -> None:
    with pytest.raises(ValueError, match="3 to 6"):
        Sitting(("A", "B"))
    sitting = Sitting(("A", "B", "C", "D"))
    sitting.enter((10, 0, 0))
    with pytest.raises(ValueError, match="whole rounds"):
        sitting.settlement()


def test_foster_is_a_rule_set_without_options() -> None:
    assert str(Rules.parse("foster")) == "foster" and Rules.parse("foster").foster
    with pytest.raises(UnknownRules, match="no option"):
        Rules.parse("foster+ramsch")


# ---------------------------------------------------------------- a Foster hand, move by move
def _candidates(hand: FosterHand) -> list[Move]:
    """Every move worth trying now (legal and not); the hand's own check sorts them."""
    seats = (0, 1, 2)
    if hand.phase is Phase.AUCTION:
        return ([Bid(s, v) for s in seats for v in (*FOSTER_BIDS[:6], 11, 216)]
                + [Hold(s) for s in seats] + [Pass(s) for s in seats])
    if hand.phase is Phase.PLAY:  # and abandoning a Tournee (law 44)
        return [Play(s, c) for s in seats for c in Card] + [Resign(s) for s in seats]
    seat = hand.declarer
    assert seat is not None
    held = [c for c in Card if hand.hands[seat] >> c & 1]
    moves: list[Move] = [Gucki(seat)]
    moves += [Turn(seat, c, pmn) for c in hand.deal.skat for pmn in (False, True)]
    moves += [FosterDeclare(seat, int(g), s, z) for g in FosterGame
              for s, z in ((False, False), (True, False), (True, True))]
    moves += [Discard(seat, (a, b)) for i, a in enumerate(held) for b in held[i + 1:i + 3]]
    return moves


def _legal(hand: FosterHand) -> list[Move]:
    out = []
    for move in _candidates(hand):
        try:
            hand.check(move)
        except RuleError:
            continue
        out.append(move)
    return out


def _random_hand(seed: int) -> FosterHand:
    rng = random.Random(seed)
    hand = FosterHand(deal_cards(rng))
    while not hand.finished:
        legal = _legal(hand)
        assert legal, hand.phase
        passes = [m for m in legal if isinstance(m, Pass)]
        pick = passes[0] if passes and rng.random() < 0.5 else rng.choice(legal)
        if isinstance(pick, Resign) and rng.random() < 0.8:  # abandon now and then
            pick = next(m for m in legal if isinstance(m, Play))
        hand.apply(pick)
    return hand


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=2**63 - 1))
def test_random_foster_hands_total_120_and_replay(seed: int) -> None:
    hand = _random_hand(seed)
    result = hand.foster_result()
    if result.ramsch_points is not None:
        assert sum(result.ramsch_points) == 120
        assert sum(1 for v in result.seat_values if v) in (0, 1, 2)
    elif len(hand.tricks) == 10:
        other = sum(hand.taken_points) - hand.taken_points[result.declarer or 0]
        assert result.player_points + other == 120
    again = replay_foster(hand.deal, hand.moves).foster_result()
    assert again == result


def _tournee(passt_mir_nicht: bool) -> FosterHand:
    deal = make_deal("CJ.HA.HT.HK.H9.H8.SA.DA.D7.C7", "", "", "HQ.ST")
    hand = FosterHand(deal)
    for move in (Bid(1, 10), Hold(0), Pass(1), Pass(2)):
        hand.apply(move)
    assert hand.declarer == 0 and hand.bid == 10
    with pytest.raises(RuleError, match="turn a card"):
        hand.apply(FosterDeclare(0, int(FosterGame.TOURNEE_HEARTS)))  # the skat untouched
    hand.apply(Turn(0, Card.HQ, passt_mir_nicht))
    with pytest.raises(RuleError, match="law 39, 41"):  # no announcement with the skat
        hand.apply(FosterDeclare(0, int(FosterGame.TOURNEE_HEARTS), True))
    with pytest.raises(RuleError, match="law 29"):
        hand.apply(FosterDeclare(0, int(FosterGame.TOURNEE_SPADES)))
    with pytest.raises(RuleError, match="law 29"):
        hand.apply(FosterDeclare(0, int(FosterGame.TURNED_GRAND)))  # a queen, not a jack
    hand.apply(FosterDeclare(0, int(FosterGame.TOURNEE_HEARTS)))
    hand.apply(Discard(0, (Card.ST, Card.C7)))
    while not hand.finished:
        hand.apply(Play(hand.to_move, hand.legal_cards()[0]))  # type: ignore[arg-type]
    return hand


def test_a_tournee_and_passt_mir_nicht_doubling_the_loss() -> None:
    plain, pmn = _tournee(False).foster_result(), _tournee(True).foster_result()
    assert plain.contract == "tournee_hearts" and pmn.contract == "passt_mir_nicht_hearts"
    assert plain.score is not None and pmn.score is not None
    assert plain.matadors == 1 and plain.player_points == pmn.player_points
    expected = foster_score(FosterGame.TOURNEE_HEARTS, bid=10, matadors=1,
                            player_points=plain.player_points,
                            player_tricks=plain.player_tricks)
    assert plain.score == expected
    assert pmn.score.value == (plain.score.value if plain.score.won
                               else 2 * plain.score.value)


def test_the_auction_on_fosters_numbers_and_ramsch_when_nobody_bids() -> None:
    hand = FosterHand(seeded_deal(2))
    with pytest.raises(RuleError, match="Foster's bids"):
        hand.apply(Bid(1, 11))
    for move in (Pass(1), Pass(2)):
        hand.apply(move)
    with pytest.raises(RuleError, match="at 10"):
        hand.apply(Bid(0, 12))
    hand.apply(Pass(0))
    assert hand.game is FosterGame.RAMSCH and hand.phase is Phase.PLAY
    while not hand.finished:
        hand.apply(Play(hand.to_move, hand.legal_cards()[0]))  # type: ignore[arg-type]
    result = hand.foster_result()
    assert result.outcome == "ramsch" and result.ramsch_points is not None
    assert sum(result.ramsch_points) == 120 and min(result.seat_values) in (-20, -30, -50, 0)


def test_gucki_nullo_is_announced_before_the_skat_and_gucki_grand_after() -> None:
    for first in ("nullo", "grand"):
        hand = FosterHand(seeded_deal(4))
        for move in (Pass(1), Pass(2), Bid(0, 10)):
            hand.apply(move)
        if first == "nullo":
            hand.apply(FosterDeclare(0, int(FosterGame.GUCKI_NULLO)))
            hand.apply(Gucki(0))
        else:
            hand.apply(Gucki(0))
            with pytest.raises(RuleError, match="law 28"):
                hand.apply(FosterDeclare(0, int(FosterGame.GUCKI_NULLO)))
            hand.apply(FosterDeclare(0, int(FosterGame.GUCKI_GRAND)))
        held = [c for c in Card if hand.hands[0] >> c & 1]
        assert len(held) == 12
        hand.apply(Discard(0, (held[0], held[1])))
        while not hand.finished:
            hand.apply(Play(hand.to_move, hand.legal_cards()[-1]))  # type: ignore[arg-type]
        result = hand.foster_result()
        assert result.score is not None
        if not result.score.won:  # every gucki loses double (law 3)
            assert result.score.value == -2 * result.score.game_value


def test_a_solo_with_announcements_and_the_skat_for_the_player() -> None:
    hand = FosterHand(seeded_deal(6))
    for move in (Pass(1), Pass(2), Bid(0, 10)):
        hand.apply(move)
    with pytest.raises(RuleError, match="implies"):
        hand.apply(FosterDeclare(0, int(FosterGame.SOLO_CLUBS), False, True))
    hand.apply(FosterDeclare(0, int(FosterGame.SOLO_CLUBS), True))
    with pytest.raises(RuleError):
        hand.apply(Gucki(0))
    while not hand.finished:
        hand.apply(Play(hand.to_move, hand.legal_cards()[0]))  # type: ignore[arg-type]
    result = hand.foster_result()
    skat = sum(CARD_POINTS[c] for c in hand.deal.skat)
    assert result.player_points == hand.taken_points[0] + skat
    assert result.score is not None and result.score.multiplier >= 4  # announced: level 3+


def test_a_tournee_may_be_abandoned_before_the_second_trick() -> None:
    deal = make_deal("CJ.HA.HT.HK.H9.H8.SA.DA.D7.C7", "", "", "HQ.ST")
    for tricks_before in (0, 1, 2):
        hand = FosterHand(deal)
        for move in (Bid(1, 10), Hold(0), Pass(1), Pass(2), Turn(0, Card.HQ),
                     FosterDeclare(0, int(FosterGame.TOURNEE_HEARTS)),
                     Discard(0, (Card.ST, Card.C7))):
            hand.apply(move)
        with pytest.raises(RuleError, match="only the player"):
            hand.apply(Resign(1))
        while len(hand.tricks) < tricks_before or hand.to_move != 0:
            hand.apply(Play(hand.to_move, hand.legal_cards()[0]))  # type: ignore[arg-type]
        if tricks_before == 2:
            with pytest.raises(RuleError, match="law 44"):
                hand.apply(Resign(0))
            continue
        hand.apply(Resign(0))
        result = hand.foster_result()
        assert result.score is not None and not result.score.won
        # lost at the game level, never schneider: 6 x (1 + 1 matador), single
        assert result.score.value == -12 and result.score.multiplier == 2
        again = replay_foster(deal, hand.moves).foster_result()
        assert again == result


def test_a_solo_cannot_be_abandoned() -> None:
    hand = FosterHand(seeded_deal(6))
    for move in (Pass(1), Pass(2), Bid(0, 10), FosterDeclare(0, int(FosterGame.SOLO_CLUBS))):
        hand.apply(move)
    with pytest.raises(RuleError, match="only a Tourn"):
        hand.apply(Resign(0))
