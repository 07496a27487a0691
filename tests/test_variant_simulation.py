"""``simulate --rules isko+kontra_re+ramsch``: the compiled loop plays the house options
(R19 Kontra/Re decided by the bots' hand evaluation, R20 Ramsch on an all-pass hand).

Held to the engine (every hand replays under the rule set with the same Kontra, Re and
Ramsch result), to the logged-game row builder (the archive's rows of the simulated hands
equal those ingest builds from the same hands exported as skatlog/1), and to the CLI's
contracts (stored once, verify clean, clear refusals)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from skatlog.analytics.views import open_archive
from skatlog.cli import app
from skatlog.engine import GameState, Rules
from skatlog.engine.batch import simulate_batch, verify_batch
from skatlog.engine.batch.games import UnsupportedRules
from skatlog.engine.session import HANDS_PER_SESSION, bock_hands

HOUSE = "isko+kontra_re+ramsch"
ALL_OPTIONS = "isko+kontra_re+ramsch+bock"


@pytest.mark.parametrize("rules", [HOUSE, "isko+kontra_re", "isko+ramsch"])
@pytest.mark.parametrize("bots", [("rules", "rules", "rules"), ("random", "rules", "random")])
def test_every_house_rules_hand_replays_through_the_engine(
        rules: str, bots: tuple[str, str, str]) -> None:
    batch = simulate_batch(9, 0, 4000, bots, rules=Rules.parse(rules))
    assert not verify_batch(batch)
    assert batch.extra is not None
    ramsch = (batch.column("declarer") < 0) & (batch.column("n_cards") > 0)
    if "ramsch" in rules:
        assert ramsch.any()
        assert (batch.column("n_cards")[ramsch] == 30).all()
        points = batch.extra[ramsch, 2:5].astype(int)
        assert (points.sum(axis=1) == 120).all()  # the skat goes with the last trick
    else:
        assert not ramsch.any()
    if "kontra_re" in rules:
        assert (batch.column("kontra_by") >= 0).any()
    else:
        assert (batch.column("kontra_by") < 0).all()


def test_the_plain_rule_set_plays_as_before() -> None:
    plain = simulate_batch(4, 0, 2000, ("rules",) * 3)
    house = simulate_batch(4, 0, 2000, ("rules",) * 3, rules=Rules.parse(HOUSE))
    assert plain.extra is None
    played = plain.column("declarer") >= 0  # the same deals, auctions and play
    assert np.array_equal(plain.cards[played], house.cards[played])
    kontra = house.column("kontra_by") >= 0
    assert np.array_equal(plain.column("value")[played & ~kontra],
                          house.column("value")[played & ~kontra])


def test_the_rules_bot_says_kontra_against_games_it_can_beat() -> None:
    batch = simulate_batch(2, 0, 60_000, ("rules",) * 3, rules=Rules.parse("isko+kontra_re"))
    played = batch.column("declarer") >= 0
    kontra = batch.column("kontra_by") >= 0
    assert 0.005 < kontra[played].mean() < 0.2
    won = batch.column("won") != 0
    assert won[kontra].mean() < won[played & ~kontra].mean() - 0.2


def test_bock_hands_are_the_ones_the_engine_s_sessions_owe() -> None:
    rules = Rules.parse(ALL_OPTIONS)
    batch = simulate_batch(6, 0, 600, ("rules", "random", "rules"), rules=rules)
    assert not verify_batch(batch)
    flags = [bool(x) for x in batch.column("bock")]
    assert 0 < sum(flags) < 600
    results = []
    for row in range(len(batch)):
        state = GameState(batch.deal_of(row), rules=rules, bock=flags[row])
        for move in batch.moves(row):
            state.apply(move)
        results.append(state.result())
    for first in range(0, 600, HANDS_PER_SESSION):
        session = slice(first, first + HANDS_PER_SESSION)
        assert bock_hands(results[session], rules)[:-1] == flags[session]
    later = simulate_batch(6, 207, 100, ("rules", "random", "rules"), rules=rules)
    for name in ("game", "extra", "cards"):  # a slice from mid-session knows what it owes
        assert np.array_equal(getattr(later, name), getattr(batch, name)[207:307]), name


def test_unsupported_rule_sets_are_refused() -> None:
    for text in ("isko+iss", "isko+iss+ramsch"):  # foster is simulated: test_foster_simulation
        with pytest.raises(UnsupportedRules):
            simulate_batch(1, 0, 10, ("rules",) * 3, rules=Rules.parse(text))


_COMPARED = ("outcome, contract, passed, ending, declarer, bid, kontra, re, ramsch_points, "
             "ramsch_values, value, game_value, won, declarer_points, declarer_tricks, rules, "
             "bock, session_id, hand_no")


def _rows(archive: Path) -> list[tuple[object, ...]]:
    con = open_archive(archive)
    # the logged rows keep every move list; the simulated ones only those the rows cannot
    # rebuild (export wrote the others from the rows, and ingest replayed them)
    return sorted(con.execute(f"SELECT forehand_cards, middlehand_cards, {_COMPARED} "
                              "FROM games").fetchall(), key=repr)


def test_simulated_house_rules_rows_equal_the_logged_rows_of_the_same_hands(
        tmp_path: Path) -> None:
    runner = CliRunner()
    archive = tmp_path / "sim"
    args = ["simulate", "--hands", "1500", "--seed", "3", "--rules", ALL_OPTIONS,
            "--sessions", "--archive", str(archive)]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    again = runner.invoke(app, args)
    assert again.exit_code == 0
    assert "1,500 stored hands were not simulated again" in again.output
    checked = runner.invoke(app, ["verify", "--archive", str(archive)])
    assert checked.exit_code == 0 and "0 problems" in checked.output, checked.output
    log = tmp_path / "house.jsonl"
    exported = runner.invoke(app, ["export", "--archive", str(archive), "--out", str(log)])
    assert exported.exit_code == 0, exported.output
    logged = tmp_path / "logged"
    ingested = runner.invoke(app, ["ingest", str(log), "--archive", str(logged)])
    assert ingested.exit_code == 0 and "rejected    0" in ingested.output, ingested.output
    simulated_rows, logged_rows = _rows(archive), _rows(logged)
    assert len(simulated_rows) == 1500
    assert simulated_rows == logged_rows
    con = open_archive(archive)
    assert con.execute("SELECT count(*) FROM games WHERE outcome = 'ramsch'").fetchone()[0] > 0
    assert con.execute("SELECT count(*) FROM games WHERE kontra").fetchone()[0] > 0
    assert con.execute("SELECT count(*) FROM games WHERE bock").fetchone()[0] > 0
    # the sessions view totals the same either way (ingest checked every Bock hand, R21)
    query = "SELECT session_id, players, totals FROM sessions ORDER BY session_id"
    assert con.execute(query).fetchall() == open_archive(logged).execute(query).fetchall()


def test_house_rules_go_to_an_archive_not_to_out(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["simulate", "--hands", "5", "--rules", HOUSE, "--out",
                                      str(tmp_path / "x.sgf")])
    assert result.exit_code == 2 and "--archive" in result.output
    refused = CliRunner().invoke(app, ["simulate", "--hands", "5", "--rules", "isko+bock",
                                       "--archive", str(tmp_path / "a")])
    assert refused.exit_code == 2 and "--sessions" in refused.output
    assert "Traceback" not in refused.output


def test_the_report_has_a_house_rules_page_for_those_games_only(tmp_path: Path) -> None:
    runner = CliRunner()
    archive = tmp_path / "archive"
    for rules in (ALL_OPTIONS, "isko"):
        made = runner.invoke(app, ["simulate", "--hands", "3000", "--seed", "8", "--rules",
                                   rules, "--sessions", "--archive", str(archive)])
        assert made.exit_code == 0, made.output
    out = tmp_path / "report"
    built = runner.invoke(app, ["report", "--archive", str(archive), "--out", str(out),
                                "--no-progress"])
    assert built.exit_code == 0, built.output
    pages = sorted(out.glob("*/house-rules.html"))
    assert len(pages) == 1  # the isko line-up's part has none
    html = pages[0].read_text()
    con = open_archive(archive)
    kontra = con.execute(f"SELECT count(*) FROM games WHERE rules = '{ALL_OPTIONS}' AND kontra"
                         ).fetchone()[0]
    ramsch = con.execute(f"SELECT count(*) FROM games WHERE rules = '{ALL_OPTIONS}' AND "
                         "outcome = 'ramsch'").fetchone()[0]
    assert f"Kontra was said in {kontra:,} of" in html
    assert 't-ramsch' in html and f">{ramsch:,}<" in html
    assert "Bock round" in html
