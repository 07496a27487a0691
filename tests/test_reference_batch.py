"""Line-ups with a bot the compiled loop does not play (``pimc``): played by the engine's
players into the batch arrays (engine/batch/reference.py), on the compiled loop's deals.

The reference path is held to the compiled loop on line-ups both can play (rules bots give
the same arrays, element for element), and its pimc hands to the engine (every hand
replays), to themselves (seeded, any slice alike), and to the archive's contracts
(simulate and experiment store them once, verify finds nothing)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from skatlog.cli import app
from skatlog.engine.batch import simulate_batch, verify_batch
from skatlog.engine.batch.games import BatchGames, UnknownBot, bot_kind, compiled_bot
from skatlog.engine.batch.kernel import GAME_COLUMNS, MAX_CALLS
from skatlog.engine.batch.reference import play_batch

ARRAYS = ("deal", "n_calls", "calls", "call_seats", "game", "discard", "cards", "winners")
PIMC = ("pimc:k=2", "rules", "rules")


def _reference(seed: int, start: int, count: int, bots: tuple[str, str, str]
               ) -> BatchGames:
    """The reference path's batch, unsorted deals (as the kernel's ``in_card_order=False``)."""
    arrays = (np.empty((count, 32), np.int8), np.empty(count, np.int16),
              np.zeros((count, MAX_CALLS), np.int16), np.zeros((count, MAX_CALLS), np.int8),
              np.empty((count, len(GAME_COLUMNS)), np.int16), np.empty((count, 2), np.int8),
              np.empty((count, 30), np.int8), np.empty((count, 10), np.int8))
    play_batch(seed, start, bots, *arrays)
    return BatchGames(seed, start, bots, *arrays)


@pytest.mark.parametrize("bots", [("rules", "rules", "rules"),
                                  ("rules:no-trumps_first", "rules", "rules:bid_slack=0")])
def test_the_reference_path_plays_rules_bots_exactly_as_the_compiled_loop(
        bots: tuple[str, str, str]) -> None:
    reference = _reference(5, 40, 240, bots)
    compiled = simulate_batch(5, 40, 240, bots, in_card_order=False)
    for name in ARRAYS:
        assert np.array_equal(getattr(reference, name), getattr(compiled, name)), name


def test_pimc_hands_replay_and_are_seeded_by_hand() -> None:
    batch = simulate_batch(3, 0, 6, PIMC)
    assert not verify_batch(batch)  # every hand replays through GameState, same result
    assert (batch.column("declarer") >= 0).any()
    # the kernel's deals, whoever plays them
    assert np.array_equal(batch.deal, simulate_batch(3, 0, 6, ("rules",) * 3).deal)
    again = simulate_batch(3, 4, 2, PIMC)  # a later slice alone (a resumed run)
    for name in ARRAYS:
        assert np.array_equal(getattr(again, name), getattr(batch, name)[4:]), name


def test_pimc_names() -> None:
    assert bot_kind("pimc") == bot_kind("pimc:k=8") == "pimc"
    assert not compiled_bot("pimc:k=8") and compiled_bot("rules:no-trumps_first")
    for bad in ("pimc:k=0", "pimc:depth=3", "pimc:k=x"):
        with pytest.raises(UnknownBot, match="k=N"):
            bot_kind(bad)


def test_simulate_and_experiment_store_pimc_hands_once(tmp_path: Path) -> None:
    runner = CliRunner()
    archive = tmp_path / "archive"
    args = ["simulate", "--hands", "4", "--seed", "2", "--bots", ",".join(PIMC),
            "--archive", str(archive)]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    assert "4 hands stored" in first.output
    second = runner.invoke(app, args)
    assert second.exit_code == 0 and "4 stored hands were not simulated again" in second.output
    checked = runner.invoke(app, ["verify", "--archive", str(archive)])
    assert checked.exit_code == 0 and "0 problems" in checked.output, checked.output
    experiment = runner.invoke(app, ["experiment", "--arms", "pimc:k=2,rules", "--deals", "2",
                                     "--archive", str(archive)])
    assert experiment.exit_code == 0, experiment.output
    assert "pimc:k=2 vs rules" in experiment.output
    (manifest,) = (archive / "experiments").glob("exp-*.json")
    arms = json.loads(manifest.read_text())["arms"]
    assert [a["bot"] for a in arms] == ["pimc:k=2", "rules"]
    assert arms[0]["runs"][0]["bots"] == ["pimc:k=2", "rules", "rules"]


def test_a_bad_pimc_setting_is_one_clear_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["simulate", "--hands", "3", "--bots", "pimc:k=0",
                                      "--archive", str(tmp_path / "a")])
    assert result.exit_code == 2
    assert "k=N" in result.output and "Traceback" not in result.output


def test_a_pimc_log_line_is_stored_as_a_logged_game_not_re_simulated(tmp_path: Path) -> None:
    runner = CliRunner()
    log = tmp_path / "pimc.sgf"
    made = runner.invoke(app, ["simulate", "--hands", "3", "--seed", "4", "--bots",
                               ",".join(PIMC), "--out", str(log)])
    assert made.exit_code == 0, made.output
    archive = tmp_path / "archive"
    ingested = runner.invoke(app, ["ingest", str(log), "--archive", str(archive)])
    assert ingested.exit_code == 0, ingested.output
    rows = runner.invoke(app, ["query", "--archive", str(archive), "--format", "csv",
                               "SELECT origin, count(*) AS n FROM games GROUP BY origin"])
    assert rows.exit_code == 0, rows.output
    assert "log,3" in rows.output.replace(" ", "")  # not "simulated": nothing re-simulated
