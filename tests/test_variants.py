"""The isko options kontra_re (R19), ramsch (R20) and bock (R21): the vectors of
tests/data/variant_vectors.csv, when a call may be made, Ramsch play, Bock sessions, and
the engine's properties under every rule set."""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skatlog.engine import (
    Bid,
    Contract,
    Declaration,
    Declare,
    GameRecord,
    GameState,
    Pass,
    Play,
    RandomPlayer,
    Resign,
    RuleError,
    Rules,
    Session,
    core,
    deal_cards,
    replay,
    score_game,
    seeded_deal,
)
from skatlog.engine.game import Ending
from skatlog.engine.moves import Kontra, Re
from skatlog.engine.session import bock_hands
from skatlog.ingest.jsonl import write_jsonl
from skatlog.ingest.model import LogGame
from skatlog.ingest.validate import validate_text

VECTORS = Path(__file__).parent / "data" / "variant_vectors.csv"
ALL = Rules.parse("isko+kontra_re+ramsch+bock")
RULE_SETS = [Rules.parse(text) for text in (
    "isko", "isko+iss", "isko+kontra_re", "isko+ramsch", "isko+bock",
    "isko+kontra_re+ramsch+bock", "isko+iss+kontra_re+ramsch+bock")]


def _rows(kind: str) -> list[dict[str, str]]:
    with VECTORS.open(newline="") as handle:
        return [row for row in csv.DictReader(handle) if row["kind"] == kind]


def _three(text: str) -> tuple[int, int, int]:
    a, b, c = (int(x) for x in text.split("/"))
    return a, b, c


def test_the_vector_file_has_the_cases_the_issue_asks_for() -> None:
    rows = _rows("game") + _rows("ramsch")
    assert len(rows) >= 10
    notes = " ".join(row["note"] for row in rows)
    for word in ("Kontra", "Re", "Jungfrau", "Durchmarsch", "tie", "Bock"):
        assert word in notes
    assert {row["rule"] for row in rows} == {"R19", "R20", "R21"}


@pytest.mark.parametrize("row", _rows("game"), ids=lambda row: row["case"])
def test_game_vectors(row: dict[str, str]) -> None:
    contract = Contract.from_label(row["contract"])
    tricks = int(row["declarer_tricks"])
    points = int(row["declarer_points"])
    kontra, re, bock = (row[k] == "1" for k in ("kontra", "re", "bock"))
    score = score_game(Declaration(contract, hand=row["hand"] == "1"), bid=int(row["bid"]),
                       matadors=int(row["matadors"]), declarer_points=points,
                       declarer_tricks=tricks, defender_tricks=10 - tricks,
                       kontra=kontra, re=re, bock=bock)
    assert score.value == int(row["expected"]), row["note"]
    plain = score.value // 2 if bock else score.value
    earned = core.bock_earned(int(contract), points, score.won, kontra, plain, ALL.flags)
    assert earned == (row["earns_bock"] == "1"), row["note"]
    assert not core.bock_earned(int(contract), points, score.won, kontra, plain, 0)


@pytest.mark.parametrize("row", _rows("ramsch"), ids=lambda row: row["case"])
def test_ramsch_vectors(row: dict[str, str]) -> None:
    p, t = _three(row["points"]), _three(row["tricks"])
    assert sum(p) == 120 and sum(t) == 10
    v0, v1, v2, _, _ = core.ramsch_score(*p, *t)
    times = core.doublings(False, False, row["bock"] == "1")
    values = tuple(core.doubled(v, times) for v in (v0, v1, v2))
    assert values == _three(row["expected"]), row["note"]


# ---------------------------------------------------------------- Kontra and Re (R19)
def _declared(rules: Rules, seed: int = 7) -> GameState:
    """Forehand plays grand hand at 18 after both others passed."""
    state = GameState(seeded_deal(seed), rules=rules)
    for move in (Pass(1), Pass(2), Bid(0, 18)):
        state.apply(move)
    state.apply(Declare(0, Declaration(Contract.GRAND, hand=True)))
    return state


def _rule_error(state: GameState, move: object) -> RuleError:
    with pytest.raises(RuleError) as info:
        state.apply(move)  # type: ignore[arg-type]
    return info.value


def test_kontra_and_re_only_under_the_option() -> None:
    state = _declared(Rules.parse("isko"))
    err = _rule_error(state, Kontra(1))
    assert err.rule == "R19" and "kontra_re" in err.message
    assert state.legal_doubles() == []


def test_when_kontra_and_re_may_be_said() -> None:
    rules = Rules.parse("isko+kontra_re")
    state = GameState(seeded_deal(7), rules=rules)
    state.apply(Pass(1))
    assert _rule_error(state, Kontra(2)).code == "wrong_phase"  # no game declared yet
    state = _declared(rules)
    assert _rule_error(state, Kontra(0)).code == "wrong_player"  # the declarer
    assert _rule_error(state, Re(0)).message == "Re answers a Kontra"
    assert set(state.legal_doubles()) == {Kontra(1), Kontra(2)}
    state.apply(Play(0, state.legal_cards()[0]))  # Forehand (declarer) leads
    state.apply(Play(1, state.legal_cards()[0]))  # Middlehand has played his first card
    assert "first card" in _rule_error(state, Kontra(1)).message
    state.apply(Kontra(2))  # Rearhand has not played yet
    assert _rule_error(state, Kontra(1)).code == "wrong_phase"  # once a game
    assert _rule_error(state, Re(1)).code == "wrong_player"  # the declarer's answer
    state.apply(Re(0))
    assert "once" in _rule_error(state, Re(0)).message
    while not state.finished:
        state.apply(Play(state.to_move, state.legal_cards()[0]))
    result = state.result()
    assert result.kontra == 2 and result.re and result.score is not None
    assert result.score.doublings == 2
    plain = score_game(result.declaration, bid=18, matadors=result.matadors,  # type: ignore[arg-type]
                       declarer_points=result.declarer_points,
                       declarer_tricks=result.declarer_tricks,
                       defender_tricks=result.defender_tricks)
    assert result.value == 4 * plain.value
    again = replay(state.deal, state.moves, rules=rules)
    assert again.result == result


def test_re_comes_before_the_kontra_defender_plays() -> None:
    state = _declared(Rules.parse("isko+kontra_re"))
    state.apply(Kontra(1))
    state.apply(Play(0, state.legal_cards()[0]))
    state.apply(Play(1, state.legal_cards()[0]))
    assert "first card" in _rule_error(state, Re(0)).message


# ---------------------------------------------------------------- Ramsch (R20)
def test_all_pass_is_ramsch_under_the_option_and_skipped_otherwise() -> None:
    for rules, outcome in ((Rules.parse("isko"), "passed"),
                           (Rules.parse("isko+ramsch"), "ramsch")):
        state = GameState(seeded_deal(3), rules=rules)
        for move in (Pass(1), Pass(2), Pass(0)):
            state.apply(move)
        while not state.finished:
            state.apply(Play(state.to_move, state.legal_cards()[0]))
        result = state.result()
        assert result.outcome == outcome
        if outcome == "ramsch":
            ramsch = result.ramsch
            assert ramsch is not None and result.declarer is None and result.value == 0
            assert sum(ramsch.points) == 120 and sum(ramsch.tricks) == 10
            last = state.tricks[-1].winner
            taken = [sum(t.points for t in state.tricks if t.winner == s) for s in range(3)]
            taken[last] += state.skat_points  # the skat goes with the last trick
            assert list(ramsch.points) == taken
            assert result.seat_values == ramsch.values and min(ramsch.values) < 0
            assert result.ending is Ending.TEN_TRICKS


def test_ramsch_jacks_alone_are_trumps() -> None:
    # a heart led, a jack of hearts does not follow it: the jacks are trumps (grand order)
    assert core.EFFECTIVE[core.RAMSCH, 1 * 8 + core.JACK] == core.TRUMP
    assert core.EFFECTIVE[core.RAMSCH, 1 * 8 + core.ACE] == 1
    for card in range(32):
        assert core.POWER[core.RAMSCH, card] == core.POWER[core.GRAND, card]


def test_ramsch_has_no_kontra_and_no_resign() -> None:
    state = GameState(seeded_deal(3), rules=ALL)
    for move in (Pass(1), Pass(2), Pass(0)):
        state.apply(move)
    assert _rule_error(state, Kontra(1)).message == "Kontra needs a declared game"
    assert _rule_error(state, Resign(0)).code == "wrong_phase"


# ---------------------------------------------------------------- Bock (R21)
def test_a_bock_hand_needs_the_option() -> None:
    with pytest.raises(ValueError, match="option bock"):
        GameState(seeded_deal(1), bock=True)


def _hand(rules: Rules, seed: int, bock: bool, *, declare: bool, kontra: bool = False
          ) -> GameRecord:
    """A hand: Forehand plays grand hand at 18, or everybody passes."""
    state = GameState(seeded_deal(seed), rules=rules, bock=bock)
    state.apply(Pass(1))
    state.apply(Pass(2))
    if declare:
        state.apply(Bid(0, 18))
        state.apply(Declare(0, Declaration(Contract.GRAND, hand=True)))
        if kontra:
            state.apply(Kontra(1))
    else:
        state.apply(Pass(0))
    while not state.finished:
        state.apply(Play(state.to_move, state.legal_cards()[-1]))
    return GameRecord.from_state(state)


def test_bock_rounds_follow_and_queue_in_a_session() -> None:
    rules = Rules.parse("isko+kontra_re+bock")
    session = Session(("A", "B", "C"), rules=rules)
    earned = []
    for seed in range(12):
        declare = seed % 2 == 0
        record = _hand(rules, seed, session.next_bock, declare=declare, kontra=declare)
        wrong = GameRecord(record.deal, record.moves, record.result, rules,
                           not record.bock)
        with pytest.raises(ValueError, match="R21"):
            session.add(wrong)
        session.add(record)
        result = record.result
        earned.append(result.score is not None and (
            (not result.won) or abs(result.value // (2 if record.bock else 1)) >= 100
            or result.declarer_points == 60))
    flags = [h.record.bock for h in session.hands]
    assert flags == bock_hands((h.record.result for h in session.hands), rules)[:-1]
    owed, expected = 0, []
    for e in earned:  # the queue by hand: three Bock hands per earning hand
        expected.append(owed > 0)
        owed = max(owed - 1, 0) + (3 if e else 0)
    assert flags == expected and any(flags)
    totals = session.totals()
    assert sum(totals) == sum(sum(h.position_values) for h in session.hands)


def test_session_totals_count_every_ramsch_player() -> None:
    session = Session(("A", "B", "C"), rules=ALL)
    record = _hand(ALL, 3, False, declare=False)
    session.add(record)
    hand = session.hands[0]
    ramsch = record.result.ramsch
    assert ramsch is not None
    expected = [0, 0, 0]
    for seat, value in enumerate(ramsch.values):
        expected[hand.seats[seat]] += value
    assert session.totals() == tuple(expected)


# ---------------------------------------------------------------- properties, every rule set
PROPS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def random_game(seed: int, rules: Rules) -> GameRecord:
    """A random legal game under ``rules``: random calls and cards, Kontra and Re said at
    random when legal, a Bock hand at random when the rule set has Bock."""
    rng = random.Random(seed)
    state = GameState(deal_cards(rng), rules=rules, bock=rules.bock and rng.random() < 0.5)
    player = RandomPlayer(step_bids=True)
    while not state.finished:
        doubles = state.legal_doubles()
        if doubles and rng.random() < 0.3:
            state.apply(rng.choice(doubles))
            continue
        state.apply(player.choose(state, rng))
    return GameRecord.from_state(state)


@PROPS
@given(st.integers(min_value=0, max_value=2**63 - 1), st.sampled_from(RULE_SETS))
def test_points_total_120_and_games_replay(seed: int, rules: Rules) -> None:
    record = random_game(seed, rules)
    result = record.result
    state = record.replay_state()
    if result.ramsch is not None:
        assert sum(result.ramsch.points) == 120
    elif result.outcome == "played" and len(state.tricks) == 10:
        assert result.declarer_points + result.defender_points == 120
    again = replay(record.deal, record.moves, rules=rules, bock=record.bock)
    assert again.result == record.result
    if result.score is not None:
        assert result.score.doublings == (result.kontra is not None) + result.re + record.bock


# ---------------------------------------------------------------- skatlog/1 records
SCHEMA = json.loads((Path(__file__).parent.parent / "docs" / "skatlog-1.schema.json")
                    .read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def _line(record: GameRecord) -> str:
    return write_jsonl(LogGame("t.jsonl", 1, "", "jsonl", record=record))


@PROPS
@given(st.integers(min_value=0, max_value=2**63 - 1), st.sampled_from(RULE_SETS))
def test_skatlog1_parse_write_parse_is_lossless(seed: int, rules: Rules) -> None:
    record = random_game(seed, rules)
    line = _line(record)
    VALIDATOR.validate(json.loads(line))
    game = validate_text(line)[0]
    assert game.ok, game.errors
    assert game.record is not None and game.value_check in ("ok", "not_recorded")
    assert (game.record.moves, game.record.rules, game.record.bock) == (
        record.moves, record.rules, record.bock)
    assert game.record.result == record.result
    assert write_jsonl(game) == line


def test_skatlog1_ramsch_kontra_bock_records() -> None:
    ramsch = _hand(ALL, 3, True, declare=False)
    obj = json.loads(_line(ramsch))
    assert obj["bock"] is True and "declarer" not in obj
    ramsch_result = ramsch.result.ramsch
    assert ramsch_result is not None
    assert obj["result"]["scores"] == list(ramsch_result.values)
    assert obj["result"]["points"] == list(ramsch_result.points)
    wrong = dict(obj, result=dict(obj["result"], scores=[0, 0, 0]))
    errors = validate_text(json.dumps(wrong))[0].errors
    assert [e.code for e in errors] == ["score_mismatch"] and "Ramsch" in errors[0].message
    no_bock = dict(obj, rules="isko+ramsch")
    errors = validate_text(json.dumps(no_bock))[0].errors
    assert errors[0].code == "syntax" and "option bock" in errors[0].message
    kontra = json.loads(_line(_hand(ALL, 4, False, declare=True, kontra=True)))
    assert kontra["doubles"] == [{"type": "kontra", "seat": 1, "at": 4}]
    late = dict(kontra, doubles=[{"type": "kontra", "seat": 1, "at": 9}])
    errors = validate_text(json.dumps(late))[0].errors
    assert errors[0].code == "wrong_phase" and errors[0].rule == "R19"
    assert errors[0].move == 10 and "Middlehand" in errors[0].message


def test_the_compiled_iss_path_is_not_used_under_ramsch(tmp_path: Path) -> None:
    """R20 changes the play of an all-pass ISS record (it must be played as Ramsch), which
    the compiled ISS kernel does not play: such runs take the reference path."""
    pytest.importorskip("numba")
    from skatlog.ingest.pipeline import use_fast_path

    log = tmp_path / "a.sgf"
    log.write_text("(;GM[Skat])\n")
    assert use_fast_path(True, "iss", [log], Rules.parse("isko+iss"))
    assert not use_fast_path(True, "iss", [log], Rules.parse("isko+iss+ramsch"))
