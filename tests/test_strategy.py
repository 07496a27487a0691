"""Strategy advice: the hand patterns on hand-made hands, the verdict rules, and evaluation."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from skatlog.analytics import strategy as st
from skatlog.analytics.connect import connect
from skatlog.analytics.hands import mask
from skatlog.analytics.stats import proportion
from skatlog.analytics.synthetic import write_sessions
from skatlog.engine import Card, parse_cards


def _mask(text: str) -> int:
    return mask(*parse_cards(text))


def _holds(condition: str, hand: str, contract: str = "hearts", **extra: object) -> bool:
    con = duckdb.connect()
    st.register_helpers_functions(con)
    cols = {"hand_mask": _mask(hand), "contract": contract, "bid": 18, **extra}
    select = ", ".join(f"? AS {name}" for name in cols)
    row = con.execute(f"SELECT ({condition}) FROM (SELECT *, dealt_matadors(hand_mask, "
                      f"contract) AS dealt FROM (SELECT {select}))", list(cols.values())
                      ).fetchall()
    return bool(row[0][0])


def test_two_jacks_and_five_card_ace_suit() -> None:
    hand = "CJ.HJ.HA.HT.HK.H9.H8.S7.D7.D8"
    assert _holds(st.TWO_JACKS_LONG_ACE, hand, "hearts")
    assert not _holds(st.TWO_JACKS_LONG_ACE, hand, "spades")  # the long suit must be trumps
    assert not _holds(st.TWO_JACKS_LONG_ACE, "CJ.HJ.SJ.HA.HT.HK.H9.H8.S7.D7", "hearts")
    assert not _holds(st.TWO_JACKS_LONG_ACE, "CJ.HJ.HQ.HT.HK.H9.H8.S7.D7.D8", "hearts")
    # four hearts plus the jack of hearts is not a five-card suit (jacks are not in a suit)
    assert not _holds(st.TWO_JACKS_LONG_ACE, "CJ.HJ.HA.HT.HK.H9.S8.S7.D7.D8", "hearts")


def test_null_patterns() -> None:
    sevens = "C7.C8.CT.S7.SK.H7.H9.HQ.D7.DA"
    assert _holds(st.NULL_ALL_SEVENS, sevens) and not _holds(st.NULL_HOLE, sevens)
    hole = "C9.CT.CJ.S7.SK.H7.H9.HQ.D7.DA"  # clubs: lowest card 9 (the jack is a club in null)
    assert _holds(st.NULL_HOLE, hole) and not _holds(st.NULL_ALL_SEVENS, hole)
    eight = "C8.CT.S7.SK.H7.H9.HQ.D7.DA.DK"  # clubs start at the 8: no 7 but no hole
    assert not _holds(st.NULL_HOLE, eight) and not _holds(st.NULL_ALL_SEVENS, eight)
    jack_only = "CJ.S7.SK.S8.H7.H9.HQ.D7.DA.DK"  # a lone jack of clubs is a hole in null
    assert _holds(st.NULL_HOLE, jack_only)


def test_grand_patterns_and_dealt_value() -> None:
    assert _holds(st.LONG_SUIT, "CJ.SJ.HA.HT.HK.H9.H8.S7.D7.D8")
    assert not _holds(st.LONG_SUIT, "CJ.SJ.HJ.HA.HT.HK.H9.S7.D7.D8")  # jacks are not hearts
    # with 2 in clubs (CJ SJ, no HJ): 12 x 3 = 36; without 1 in grand: 24 x 2 = 48
    assert _holds(f"{st.DEALT_VALUE} = 36", "CJ.SJ.CA.CT.CK.H9.H8.S7.D7.D8", "clubs")
    assert _holds(f"{st.DEALT_VALUE} = 48", "SJ.HJ.CA.CT.CK.H9.H8.S7.D7.D8", "grand")


def test_verdict_rules() -> None:
    threshold = st.ADVICE[0]
    assert st.judge(threshold, proportion(80, 100), None)[1] == "supported"
    assert st.judge(threshold, proportion(20, 100), None)[1] == "not supported"
    assert st.judge(threshold, proportion(52, 100), None)[1] == "inconclusive"
    assert "only 10" in st.judge(threshold, proportion(10, 10), None)[2]
    comparison = st.ADVICE[1]
    assert comparison.contrast is not None
    assert st.judge(comparison, proportion(60, 100), proportion(40, 100))[1] == "supported"
    assert st.judge(comparison, proportion(40, 100), proportion(60, 100))[1] == "not supported"
    assert st.judge(comparison, proportion(50, 100), proportion(48, 100))[1] == "inconclusive"
    ceiling = st.judge(comparison, proportion(100, 100), proportion(80, 80))
    assert ceiling[1] == "inconclusive" and "every game" in ceiling[2]
    tight = st.judge(comparison, proportion(5000, 10000), proportion(5010, 10000))
    assert tight[1] == "not supported" and "no difference" in tight[2]
    described = st.ADVICE[-1]
    assert described.descriptive
    assert st.judge(described, proportion(10, 100), None)[1] == "inconclusive"


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("strategy") / "archive"
    write_sessions(path, 40, 21)
    return path


def test_evaluate_counts_match_direct_queries(archive: Path) -> None:
    con = connect(archive)
    verdicts = st.evaluate(con)
    assert [v.advice.key for v in verdicts] == [a.key for a in st.ADVICE]
    for v in verdicts:
        population = con.execute(
            f"SELECT count(*) FROM strategy_hands WHERE outcome = 'played' AND "
            f"({v.advice.population})").fetchall()[0][0]
        assert v.matching.n <= population
        if v.contrast is not None and v.advice.contrast == "NOT " + v.advice.pattern:
            assert v.matching.n + v.contrast.n == population
        assert v.verdict in ("supported", "not supported", "inconclusive")
        assert v.summary().startswith(v.advice.key)
    club = next(v for v in verdicts if v.advice.key == "club_jack")
    direct = con.execute(
        "SELECT count(*), count_if(won) FROM games WHERE outcome = 'played' AND contract IN "
        "('diamonds','hearts','spades','clubs') AND bit_count(CASE declarer WHEN 0 THEN "
        "forehand_cards WHEN 1 THEN middlehand_cards ELSE rearhand_cards END & ?::BIGINT) = 2 "
        "AND (CASE declarer WHEN 0 THEN forehand_cards WHEN 1 THEN middlehand_cards ELSE "
        "rearhand_cards END & ?::BIGINT) <> 0",
        [mask(Card.CJ, Card.SJ, Card.HJ, Card.DJ), mask(Card.CJ)]).fetchall()[0]
    assert (club.matching.n, club.matching.k) == direct
    none = st.evaluate(con, "bid > 1000")
    assert all(v.matching.n == 0 and v.verdict == "inconclusive" for v in none)
