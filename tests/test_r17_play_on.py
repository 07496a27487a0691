"""R17 as now written: a recorded suit or grand game may stop at its decisive trick, or play on.

The records here are written by hand in the style of another program (its own names, spacing
and tag order), not by skatlog's writers, in both formats (ISS and skatlog/1), and checked on
both paths (the reference validator and the compiled ISS kernel).

One deal serves every case. Forehand holds the four jacks, the ace, ten, king and queen of
clubs and two low hearts; the skat (D7 D8) is worth nothing. Middlehand takes the first trick
with the ace of hearts (22 points with Rearhand's ace of diamonds) and the second with the ten
(20 more): the defenders have taken a trick after trick 1 and passed 30 after trick 2.
Playing on, Forehand takes every other trick: 78 card points and 8 tricks.

Expected values (R13, R14): clubs with 8, grand with 4; every level up to the announced one
is charged, none twice; lost games count double.

============================  ==========  ===========================  =======
contract                      decided at  multiplier                   value
============================  ==========  ===========================  =======
clubs hand schneider ann.     trick 2     8 + 1 + hand + S + S ann = 12   -288
clubs hand schwarz ann.       trick 1     12 + Z + Z ann = 14             -336
clubs ouvert                  trick 1     14 + ouvert = 15                -360
grand ouvert                  trick 1     4 + 1 + 1 + 2 + 2 + 1 = 11      -528
============================  ==========  ===========================  =======
"""

from __future__ import annotations

import io
import json

import pytest

from skatlog.engine import ISKO_ISS, Ending
from skatlog.ingest.fast import fast_validate_iss
from skatlog.ingest.validate import validate_text

FOREHAND = "CJ.SJ.HJ.DJ.CA.CT.CK.CQ.H7.H8"
MIDDLEHAND = "C9.C8.HA.HT.HK.HQ.H9.SA.ST.SK"
REARHAND = "C7.SQ.S9.S8.S7.DA.DT.DK.DQ.D9"
SKAT = "D7.D8"

#: The ten tricks of the clubs games: (leader, cards in play order).
CLUBS_TRICKS = [
    (0, "H7 HA DA"), (1, "HT DT H8"), (1, "SA S7 CQ"), (0, "CJ C8 C7"), (0, "SJ C9 S8"),
    (0, "HJ HK S9"), (0, "DJ HQ SQ"), (0, "CA H9 DK"), (0, "CT ST DQ"), (0, "CK SK D9"),
]
#: The ten tricks of the grand: clubs are a plain suit, so Forehand trumps the spade ace.
GRAND_TRICKS = [
    (0, "H7 HA DA"), (1, "HT DT H8"), (1, "SA S7 CJ"), (0, "CA C8 C7"), (0, "CT C9 S8"),
    (0, "SJ HK S9"), (0, "HJ HQ SQ"), (0, "DJ H9 DK"), (0, "CK ST DQ"), (0, "CQ SK D9"),
]

#: case -> (ISS contract, skatlog/1 declaration, tricks, decided at, ending, matadors, value)
CASES = {
    "schneider_announced": ("CHS", ("clubs", True, True, False, False), CLUBS_TRICKS, 2,
                            Ending.DEFENDERS_31, 8, -288),
    "schwarz_announced": ("CHSZ", ("clubs", True, True, True, False), CLUBS_TRICKS, 1,
                          Ending.DEFENDERS_TRICK, 8, -336),
    "suit_ouvert": ("CO", ("clubs", True, True, True, True), CLUBS_TRICKS, 1,
                    Ending.DEFENDERS_TRICK, 8, -360),
    "grand_ouvert": ("GO", ("grand", True, True, True, True), GRAND_TRICKS, 1,
                     Ending.DEFENDERS_TRICK, 4, -528),
}


def _played(tricks: list[tuple[int, str]], count: int) -> tuple[int, int, int]:
    """(declarer points incl. the empty skat, declarer tricks, defender points) of the
    first ``count`` tricks of this deal, from the table in the module docstring."""
    return (0, 0, 22) if count == 1 else (0, 0, 42) if count == 2 else (78, 8, 42)


PLAYERS = ("Ann-Kathrin", "Bernd", "Chantal")


def iss_line(contract: str, tricks: list[tuple[int, str]], count: int, value: int,
             matadors: int, game_id: int, players: tuple[str, str, str] = PLAYERS,
             session: str = "77") -> str:
    """An ISS record as another program writes it: its own tag order and names."""
    points, won_tricks, _ = _played(tricks, count)
    moves = " ".join(f"{(leader + k) % 3} {card}" for leader, cards in tricks[:count]
                     for k, card in enumerate(cards.split()))
    deal = ".".join((FOREHAND, MIDDLEHAND, REARHAND, SKAT))
    p0, p1, p2 = players
    return (f"(;GM[Skat]PC[Other Skat Program 2.1]ID[{game_id}]SE[{session}]"
            f"P0[{p0}]P1[{p1}]P2[{p2}]DT[2025-02-14/20:{15 + game_id % 40}:00/UTC]"
            f"MV[w {deal} 1 p 2 p 0 18 0 {contract} {moves}]"
            f"R[d:0 loss v:{value} m:{matadors} bidok p:{points} t:{won_tricks} s:0 z:0] ;)")


def jsonl_line(declaration: tuple[str, bool, bool, bool, bool], tricks: list[tuple[int, str]],
               count: int, value: int, matadors: int, rules: str = "isko+iss",
               players: tuple[str, str, str] = ("A", "B", "C"), hand_no: int | None = None
               ) -> str:
    """A skatlog/1 record, written field by field (not by skatlog's writer)."""
    points, won_tricks, _ = _played(tricks, count)
    contract, hand, schneider, schwarz, ouvert = declaration
    obj = {
        "format": "skatlog/1", "rules": rules, "id": f"r17-{hand_no}", "players": list(players),
        "deal": {"forehand": FOREHAND, "middlehand": MIDDLEHAND, "rearhand": REARHAND,
                 "skat": SKAT},
        "auction": [[1, "pass"], [2, "pass"], [0, 18]], "declarer": 0, "skat": "hand",
        "declaration": {"contract": contract, "hand": hand, "schneider_announced": schneider,
                        "schwarz_announced": schwarz, "ouvert": ouvert},
        "tricks": [{"leader": leader, "cards": cards.split()} for leader, cards in
                   tricks[:count]],
        "result": {"passed": False, "penalty": False, "declarer": 0, "won": False,
                   "value": value, "matadors": matadors, "overbid": False,
                   "declarer_points": points, "declarer_tricks": won_tricks,
                   "schneider": False, "schwarz": False},
    }
    if hand_no is not None:
        obj["session"] = {"id": "club-evening-7", "hand": hand_no}
    return json.dumps(obj)


def _check(game, ending: Ending, value: int, tricks: int, points: int) -> None:
    assert game.ok, game.errors
    assert game.value_check == "ok"
    result = game.record.result
    assert (result.ending, result.value, result.won) == (ending, value, False)
    assert (len(game.record.tricks), result.declarer_points) == (tricks, points)
    assert game.record.rules == ISKO_ISS


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("play_on", [False, True], ids=["stops", "plays_on"])
def test_recorded_game_may_stop_or_play_on_reference_path(case: str, play_on: bool) -> None:
    contract, declaration, tricks, decided, ending, mats, value = CASES[case]
    count = 10 if play_on else decided
    points = _played(tricks, count)[0]
    iss = validate_text(iss_line(contract, tricks, count, value, mats, 1), "other.sgf", "iss")
    jsonl = validate_text(jsonl_line(declaration, tricks, count, value, mats), "o.jsonl",
                          "jsonl")
    for games in (iss, jsonl):
        assert len(games) == 1
        _check(games[0], ending, value, count, points)


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("play_on", [False, True], ids=["stops", "plays_on"])
def test_recorded_game_may_stop_or_play_on_compiled_path(case: str, play_on: bool) -> None:
    contract, _, tricks, decided, ending, mats, value = CASES[case]
    count = 10 if play_on else decided
    line = iss_line(contract, tricks, count, value, mats, 2)
    batches = list(fast_validate_iss(io.BytesIO((line + "\n").encode()), workers=1,
                                     source="other.sgf"))
    games = batches[0].tables["games"].to_pylist()
    assert [raw for b in batches for raw in b.slow] == []  # decided by the kernel itself
    assert len(games) == 1
    row = games[0]
    assert (row["ending"], row["value"], row["won"], row["declarer_points"]) == (
        ending.value, value, False, _played(tricks, count)[0])
    assert row["value_check"] == "ok"


def test_a_trick_cut_short_after_the_decisive_one_is_truncated() -> None:
    contract, _, tricks, _, _, mats, value = CASES["schwarz_announced"]
    line = iss_line(contract, tricks, 2, value, mats, 3)
    line = line.replace(" 0 H8]", "]")  # trick 2 stops after two cards
    game = validate_text(line, "other.sgf", "iss")[0]
    assert [e.code for e in game.errors] == ["truncated"]


def test_a_null_that_plays_on_is_an_error_on_both_paths() -> None:
    """R9: a null ends at the declarer's first trick; a card after it is play_after_end."""
    deal = ".".join((FOREHAND, MIDDLEHAND, REARHAND, SKAT))
    stop = (f"(;GM[Skat]ID[4]P0[a]P1[b]P2[c]MV[w {deal} 1 p 2 p 0 18 0 NH 0 CA 1 C9 2 C7]"
            f"R[d:0 loss v:-70 m:0 bidok p:11 t:1 s:0 z:0] ;)")
    on = stop.replace("2 C7]", "2 C7 0 H7 1 HA 2 DA]")
    game = validate_text(stop, "n.sgf", "iss")[0]
    assert game.ok and game.record.result.value == -70
    assert game.record.result.ending is Ending.NULL_TRICK
    bad = validate_text(on, "n.sgf", "iss")[0]
    assert [(e.code, e.move) for e in bad.errors] == [("play_after_end", 8)]
    batch = next(iter(fast_validate_iss(io.BytesIO((on + "\n").encode()), workers=1)))
    assert batch.tables["games"].num_rows == 0 and len(batch.slow) == 1


def test_skatlogs_own_rules_play_every_game_to_ten_tricks() -> None:
    """Under ``isko`` (R9) the same game that stops at its decisive trick is truncated, and
    played to ten tricks it is simply lost, with the same value."""
    _, declaration, tricks, _, _, mats, value = CASES["schneider_announced"]
    stop = validate_text(jsonl_line(declaration, tricks, 2, value, mats, rules="isko"),
                         "o.jsonl", "jsonl")[0]
    assert [e.code for e in stop.errors] == ["truncated"]
    full = validate_text(jsonl_line(declaration, tricks, 10, value, mats, rules="isko"),
                         "o.jsonl", "jsonl")[0]
    assert full.ok and full.record.result.ending is Ending.TEN_TRICKS
    assert full.record.result.value == value


def _session_hands() -> list[tuple[str, bool, tuple[str, str, str]]]:
    """Twelve hands of one session (R2): every R17 kind stopping and playing on, then the
    four kinds played on again; the seats move one to the left each hand."""
    kinds = sorted(CASES)
    plan = [(k, False) for k in kinds] + [(k, True) for k in kinds] + [(k, True) for k in kinds]
    return [(kind, on, tuple(PLAYERS[(n + k) % 3] for k in range(3)))  # type: ignore[misc]
            for n, (kind, on) in enumerate(plan)]


def _expected_totals() -> dict[str, int]:
    """Each player's session total: the values of the hands that player declared (Forehand)."""
    totals = dict.fromkeys(PLAYERS, 0)
    for kind, _, players in _session_hands():
        totals[players[0]] += CASES[kind][6]
    return totals


@pytest.mark.parametrize("fmt", ["iss", "jsonl"])
@pytest.mark.parametrize("fast", [True, False], ids=["compiled", "reference"])
def test_a_session_with_play_on_games_has_twelve_hands_and_the_right_totals(
        tmp_path, fmt: str, fast: bool) -> None:
    from skatlog.analytics.views import lazy_frames, open_archive
    from skatlog.ingest.pipeline import ingest_paths

    lines = []
    for number, (kind, play_on, players) in enumerate(_session_hands(), 1):
        contract, declaration, tricks, decided, _, mats, value = CASES[kind]
        count = 10 if play_on else decided
        lines.append(iss_line(contract, tricks, count, value, mats, 100 + number, players)
                     if fmt == "iss" else
                     jsonl_line(declaration, tricks, count, value, mats, players=players,
                                hand_no=number))
    path = tmp_path / f"evening.{'sgf' if fmt == 'iss' else 'jsonl'}"
    path.write_text("\n".join(lines) + "\n")
    archive = tmp_path / "archive"
    summary = ingest_paths([path], archive, progress=False, fast=fast)
    assert (summary.stored, summary.rejected) == (12, 0)
    want = _expected_totals()
    assert sum(want.values()) == 3 * sum(case[6] for case in CASES.values()) == -4536
    sql = open_archive(archive).sql(
        "SELECT hands, players, totals FROM sessions").fetchall()
    polars = lazy_frames(archive)["sessions"].collect().select("hands", "players", "totals")
    for hands, players, totals in [*sql, *polars.iter_rows()]:
        assert hands == 12
        assert dict(zip(players, totals, strict=True)) == want
    rules = open_archive(archive).sql("SELECT DISTINCT rules FROM games").fetchall()
    assert rules == [("isko+iss",)]
