"""Foster's rule set (F1-F13): the scoring vectors of tests/data/foster_vectors.csv (each with
its law), his bidding numbers, the seats of a 3-6 player table and a sitting's settlement."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from skatlog.engine import UnknownRules, core
from skatlog.engine.foster import (
    FOSTER_BIDS,
    FosterGame,
    Sitting,
    contract_name,
    foster_ramsch,
    foster_score,
)
from skatlog.engine.rules import Rules

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


def test_foster_play_is_not_offered_before_it_is_built() -> None:
    with pytest.raises(UnknownRules, match="not built yet"):
        Rules.parse("foster")
