"""``simulate --rules foster``: the compiled Foster loop (:mod:`skatlog.engine.batch.
foster_kernel`) and its bots play Foster's game (F2-F12), into the archive's rows.

Held to the reference rules (every hand replays through ``FosterHand`` to the loop's score),
to the logged-game row builder (the columnar rows equal the rows of the same hands replayed
and built as logged records, and the rows ingest builds from the hands exported as
skatlog/1), and to the CLI's contracts (stored once, verify clean, clear refusals)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from skatlog.analytics.views import open_archive
from skatlog.cli import app
from skatlog.engine import FOSTER, ISKO, Play, core
from skatlog.engine.batch import simulate_batch, verify_batch
from skatlog.ingest.moves_codec import encode_moves
from skatlog.ingest.sim_foster import (
    SimulatorMismatch,
    foster_batch_tables,
    foster_moves_text,
    foster_records,
    reference_tables,
)
from skatlog.ingest.sim_ids import run_base

MIXES = [("rules", "rules", "rules"), ("random", "random", "random"),
         ("rules", "random", "rules")]


@pytest.mark.parametrize("bots", MIXES)
def test_every_foster_hand_replays_to_the_loops_score(bots: tuple[str, str, str]) -> None:
    batch = simulate_batch(11, 0, 3000, bots, rules=FOSTER)
    records = foster_records(batch)  # SimulatorMismatch on any difference
    contracts = Counter(r.result.contract_label for r in records)
    for record in records:
        result = record.result
        foster = result.foster
        assert foster is not None
        plays = [m for m in record.moves if isinstance(m, Play)]
        if foster.ramsch_points is not None:  # F12: the skat goes with the last trick
            assert sum(foster.ramsch_points) == 120
        elif len(plays) == 3 * core.N_TRICKS:  # F9: the skat counts for the player
            assert foster.player_points + result.defender_points == 120
    if bots == ("random", "random", "random"):  # every game the random bot can choose
        assert set(core.FOSTER_NAMES) - {"ramsch"} <= set(contracts)  # all pass: rare
    if bots == ("rules", "rules", "rules"):  # the rules bot's repertoire (F5)
        for name in ("ramsch", "tournee_hearts", "gucki_grand", "gucki_nullo", "solo_clubs",
                     "solo_grand", "turned_grand"):
            assert contracts[name] > 0, name
        assert sum(n for name, n in contracts.items() if name.startswith("passt_mir")) > 0


def test_a_wrong_score_or_turn_in_the_loop_is_caught() -> None:
    batch = simulate_batch(2, 0, 300, ("rules",) * 3, rules=FOSTER)
    assert not verify_batch(batch)
    played = int(np.flatnonzero(batch.column("declarer") >= 0)[0])
    batch.game[played, 7] += 1  # the value
    turned = int(np.flatnonzero(batch.column("turned") >= 0)[0])
    batch.extra[turned, 1] ^= 1  # Passt-mir-nicht  # type: ignore[index]
    ramsch = int(np.flatnonzero(batch.column("declarer") < 0)[0])
    batch.extra[ramsch, 8] += 20  # a Ramsch value  # type: ignore[index]
    fields = {(m.index, m.field) for m in verify_batch(batch)}
    assert {(played, "value"), (ramsch, "ramsch")} <= fields
    assert any(index == turned for index, _ in fields)
    with pytest.raises(SimulatorMismatch):
        foster_records(batch)


@pytest.mark.parametrize("bots", MIXES)
@pytest.mark.parametrize("sessions", [True, False])
def test_the_columnar_rows_equal_the_replayed_rows(bots: tuple[str, str, str],
                                                   sessions: bool) -> None:
    batch = simulate_batch(5, 1234, 1500, bots, rules=FOSTER)
    fast = foster_batch_tables(batch, 77, sessions, "ingest-1")
    slow = reference_tables(batch, 77, sessions, "ingest-1")
    for table in ("games", "tricks", "auction"):
        assert fast[table].schema == slow[table].schema
        for name in fast[table].column_names:
            assert fast[table].column(name).to_pylist() == \
                slow[table].column(name).to_pylist(), (table, name)


def test_the_compiled_move_text_is_the_compact_notation() -> None:
    batch = simulate_batch(3, 0, 800, ("random", "rules", "rules"), rules=FOSTER)
    offsets, text = foster_moves_text(batch)
    for row in range(len(batch)):
        written = bytes(text[offsets[row]:offsets[row + 1]]).decode("ascii")
        assert written == encode_moves(batch.moves(row))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**40), start=st.integers(0, 10**9),
       bots=st.sampled_from(MIXES))
def test_generated_foster_games_replay_cleanly_with_120_points(
        seed: int, start: int, bots: tuple[str, str, str]) -> None:
    batch = simulate_batch(seed, start, 40, bots, rules=FOSTER)
    for record in foster_records(batch):
        foster = record.result.foster
        assert foster is not None
        plays = [m for m in record.moves if isinstance(m, Play)]
        if foster.ramsch_points is not None:
            assert sum(foster.ramsch_points) == 120
        elif len(plays) == 3 * core.N_TRICKS:
            assert foster.player_points + record.result.defender_points == 120


def test_the_run_does_not_depend_on_threads_or_slicing() -> None:
    whole = simulate_batch(8, 0, 6000, ("rules", "random", "rules"), threads=2, rules=FOSTER)
    one = simulate_batch(8, 0, 6000, ("rules", "random", "rules"), threads=1, rules=FOSTER)
    part = simulate_batch(8, 2500, 100, ("rules", "random", "rules"), threads=1, rules=FOSTER)
    for name in ("deal", "calls", "game", "discard", "cards", "winners", "extra"):
        assert np.array_equal(getattr(whole, name), getattr(one, name)), name
        assert np.array_equal(getattr(part, name), getattr(whole, name)[2500:2600]), name


def test_foster_runs_have_ids_of_their_own() -> None:
    bots = ("rules",) * 3
    assert run_base(1, bots, 1, "foster") != run_base(1, bots, 1, "")
    assert run_base(1, bots, 1, "foster") == run_base(1, bots, 1, "foster")


_COMPARED = ("outcome, contract, passed, ending, declarer, bid, hand, skat_taken, discard, "
             "schneider_announced, schwarz_announced, ouvert, ramsch_points, ramsch_values, "
             "value, game_value, multiplier, matadors, won, overbid, declarer_points, "
             "defender_points, declarer_tricks, defender_tricks, moves, rules, session_id, "
             "hand_no")


def _rows(archive: Path) -> list[tuple[object, ...]]:
    con = open_archive(archive)
    return sorted(con.execute(f"SELECT forehand_cards, middlehand_cards, {_COMPARED} "
                              "FROM games").fetchall(), key=repr)


def test_simulate_foster_into_the_archive_end_to_end(tmp_path: Path) -> None:
    runner = CliRunner()
    archive = tmp_path / "sim"
    args = ["simulate", "--hands", "1200", "--seed", "4", "--rules", "foster", "--sessions",
            "--archive", str(archive), "--no-progress"]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    again = runner.invoke(app, args)
    assert again.exit_code == 0 and "1,200 stored hands were not simulated again" in \
        again.output, again.output
    checked = runner.invoke(app, ["verify", "--archive", str(archive)])
    assert checked.exit_code == 0 and "0 problems" in checked.output, checked.output
    con = open_archive(archive)
    assert con.execute("SELECT count(*), min(rules), max(rules) FROM games").fetchone() == (
        1200, "foster", "foster")
    names = {row[0] for row in con.execute("SELECT DISTINCT contract FROM games").fetchall()}
    assert {"ramsch", "tournee_hearts", "gucki_grand", "solo_clubs"} <= names
    assert names <= set(core.FOSTER_NAMES) | {f"passt_mir_nicht_{s}" for s in (
        "diamonds", "hearts", "spades", "clubs", "grand")}
    # the same hands exported as skatlog/1 and ingested as logged records: the same rows
    log = tmp_path / "foster.jsonl"
    exported = runner.invoke(app, ["export", "--archive", str(archive), "--out", str(log)])
    assert exported.exit_code == 0, exported.output
    logged = tmp_path / "logged"
    ingested = runner.invoke(app, ["ingest", str(log), "--archive", str(logged)])
    assert ingested.exit_code == 0 and "rejected    0" in ingested.output, ingested.output
    assert _rows(archive) == _rows(logged)
    query = "SELECT session_id, players, totals FROM sessions ORDER BY session_id"
    sessions = con.execute(query).fetchall()
    assert len(sessions) == 100
    assert sessions == open_archive(logged).execute(query).fetchall()
    totals = con.execute("SELECT session_id, forehand, middlehand, rearhand, declarer, value, "
                         "ramsch_values FROM games").fetchall()
    by_session: dict[str, Counter[str]] = {}
    for session, fore, middle, rear, declarer, value, ramsch in totals:  # law 58
        seats = (fore, middle, rear)
        tally = by_session.setdefault(session, Counter())
        if ramsch is not None:
            for seat, v in enumerate(ramsch):
                tally[seats[seat]] += v
        else:
            tally[seats[declarer]] += value
    for session, players, session_totals in sessions:
        assert [by_session[session][p] for p in players] == session_totals


def test_foster_hands_are_not_written_to_a_log_file_by_simulate(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["simulate", "--hands", "5", "--rules", "foster", "--out",
                                      str(tmp_path / "x.jsonl")])
    assert result.exit_code == 2 and "export" in result.output
    assert "Traceback" not in result.output and not (tmp_path / "x.jsonl").exists()


def test_the_pimc_bot_does_not_play_foster() -> None:
    result = CliRunner().invoke(app, ["simulate", "--hands", "5", "--rules", "foster",
                                      "--bots", "pimc,rules,rules", "--archive", "unused"])
    assert result.exit_code == 2 and "pimc" in result.output
    assert "Traceback" not in result.output


def test_an_isko_batch_has_no_foster_columns() -> None:
    plain = simulate_batch(1, 0, 200, ("rules",) * 3, rules=ISKO)
    assert plain.extra is None and plain.rules == ISKO


@pytest.mark.parametrize("rules", ["foster", "isko+kontra_re+ramsch+bock"])
def test_an_exported_run_ingested_again_is_stored_once(tmp_path: Path, rules: str) -> None:
    """A run under a rule set other than ``isko`` exports with the tags that name its hands,
    and ingest re-simulates them under the record's rule set: into the run's own archive
    nothing is stored twice, into a fresh one they are the simulator's rows."""
    runner = CliRunner()
    archive = tmp_path / "sim"
    made = runner.invoke(app, ["simulate", "--hands", "300", "--seed", "9", "--rules", rules,
                               "--sessions", "--archive", str(archive), "--no-progress"])
    assert made.exit_code == 0, made.output
    log = tmp_path / "run.jsonl"
    assert runner.invoke(app, ["export", "--archive", str(archive), "--out", str(log)]
                         ).exit_code == 0
    again = runner.invoke(app, ["ingest", str(log), "--archive", str(archive)])
    assert again.exit_code == 0, again.output
    assert "stored      0" in again.output and "duplicates  300" in again.output, again.output
    fresh = tmp_path / "fresh"
    assert runner.invoke(app, ["ingest", str(log), "--archive", str(fresh)]).exit_code == 0
    query = "SELECT game_id, origin, rules FROM games ORDER BY game_id"
    assert open_archive(fresh).execute(query).fetchall() == \
        open_archive(archive).execute(query).fetchall()


def test_analyze_leaves_foster_games_out_and_says_so(tmp_path: Path) -> None:
    runner = CliRunner()
    archive = tmp_path / "a"
    made = runner.invoke(app, ["simulate", "--hands", "40", "--rules", "foster", "--archive",
                               str(archive), "--no-progress"])
    assert made.exit_code == 0, made.output
    played = open_archive(archive).execute(
        "SELECT count(*) FROM games WHERE outcome = 'played'").fetchone()[0]
    result = runner.invoke(app, ["analyze", "--archive", str(archive), "-q"])
    assert result.exit_code == 0, result.output
    assert f"{played:,} games under foster were left out" in " ".join(result.output.split())
    assert open_archive(archive).execute("SELECT count(*) FROM analysis").fetchone()[0] == 0


def test_the_report_of_a_foster_run_reads_his_games(tmp_path: Path) -> None:
    runner = CliRunner()
    archive = tmp_path / "a"
    made = runner.invoke(app, ["simulate", "--hands", "2000", "--rules", "foster",
                               "--sessions", "--archive", str(archive), "--no-progress"])
    assert made.exit_code == 0, made.output
    out = tmp_path / "report"
    built = runner.invoke(app, ["report", "--archive", str(archive), "--out", str(out),
                                "--no-progress"])
    assert built.exit_code == 0, built.output
    (part,) = [p for p in out.iterdir() if p.is_dir()]
    pages = {p.name for p in part.glob("*.html")}
    assert "contracts.html" in pages and "bid-levels.html" in pages
    # the modern rule text's advice and the solver's question are not asked of his games
    assert "strategy.html" not in pages and "could-win.html" not in pages
    matadors = (part / "t-matadors.csv").read_text().splitlines()
    assert {line.split(",")[0] for line in matadors[1:]} == {"suit", "grand"}  # no nullos
    assert "10-17" in (part / "bid-levels.html").read_text()  # his bids start at 10 (F3)


def test_the_log_file_writer_refuses_a_foster_run(tmp_path: Path) -> None:
    from skatlog.simulation import SimulationError, SimulationOptions, simulate_to_file

    with pytest.raises(SimulationError, match="export"):
        simulate_to_file(tmp_path / "f.jsonl", SimulationOptions(hands=30, rules=FOSTER))
    assert not (tmp_path / "f.jsonl").exists()
