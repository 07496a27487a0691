"""Paired experiments: same deals per arm, seats rotated, effects equal to a direct count,
reruns store nothing twice, the CLI prints the effects."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from skatlog.analytics.connect import connect
from skatlog.analytics.experiments import PairedEffect, experiment_results
from skatlog.cli import app
from skatlog.engine.batch import simulate_batch
from skatlog.simulation import SimulationError
from skatlog.simulation.experiment import (
    ExperimentOptions,
    advice_by_key,
    advice_experiment,
    run_experiment,
)

DEALS = 900


def _direct_list_points(seed: int, options: ExperimentOptions, arm: int) -> np.ndarray:
    """The test bot's list points against the table (its own minus its opponents' mean)
    per deal, averaged over the three positions, straight from the batch simulator."""
    total = np.zeros(options.deals)
    for position in range(3):
        batch = simulate_batch(seed, 0, options.deals, options.line_up(arm, position))
        seat = (position - batch.index % 3 - 1) % 3
        declarer = batch.column("declarer")
        value = batch.column("value").astype(float)
        total += np.where(declarer == seat, value, np.where(declarer >= 0, -value / 2, 0))
    return total / 3


def test_experiment_pairs_the_same_deals(tmp_path: Path) -> None:
    options = advice_experiment(advice_by_key(["trumps_first"])[0], DEALS, 21)
    assert options.arms == ("rules", "rules:no-trumps_first")
    first = run_experiment(tmp_path, options)
    assert first.stored == 4 * DEALS  # the default line-up once, three for the other arm
    manifest = json.loads((tmp_path / "experiments" / f"{options.experiment_id}.json")
                          .read_text())
    assert [a["bot"] for a in manifest["arms"]] == list(options.arms)
    # the same deals in every run (common random numbers)
    con = connect(tmp_path)
    deals = con.execute("SELECT count(DISTINCT deal) FROM games").fetchone()
    assert deals is not None and deals[0] == DEALS
    [result] = experiment_results(con, tmp_path)
    expected = (_direct_list_points(21, options, 0) - _direct_list_points(21, options, 1))
    assert result.deals == DEALS
    assert result.list_points.effect == pytest.approx(expected.mean())
    assert result.list_points.n == DEALS
    assert result.list_points.low < result.list_points.effect < result.list_points.high
    assert 0 < result.declarer_success.n <= 3 * DEALS
    assert 0 < result.defence_success.n <= 3 * DEALS
    # a rerun simulates nothing again and gives the same figures
    again = run_experiment(tmp_path, options)
    assert again.stored == 0 and again.duplicates == 4 * DEALS
    assert experiment_results(connect(tmp_path), tmp_path)[0] == result


def test_verdict_follows_the_interval() -> None:
    assert PairedEffect("m", 1.0, 0.2, 1.8, 100).verdict == "supported"
    assert PairedEffect("m", -1.0, -1.8, -0.2, 100).verdict == "refuted"
    assert PairedEffect("m", 0.1, -0.3, 0.5, 100).verdict == "not distinguishable"


def test_bad_experiments_are_one_line() -> None:
    with pytest.raises(SimulationError, match="two or more arms"):
        ExperimentOptions(10, 1, ("rules",))
    with pytest.raises(SimulationError, match="unknown rules-bot setting"):
        ExperimentOptions(10, 1, ("rules", "rules:cleverness"))
    with pytest.raises(SimulationError, match="unknown advice"):
        advice_by_key(["luck"])


def test_cli_experiment(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["experiment", "--deals", "300", "--seed", "4",
                                      "--arms", "rules,rules:no-smear", "--archive",
                                      str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "list points a hand" in result.output and "n 300" in result.output
    bad = CliRunner().invoke(app, ["experiment", "--deals", "10", "--arms",
                                   "rules,rules:smear=3", "--archive", str(tmp_path)])
    assert bad.exit_code == 2 and "switch" in bad.output and "Traceback" not in bad.output


def test_strategy_page_shows_the_experiment_and_the_human_reference(tmp_path: Path) -> None:
    from skatlog.reports.build import build_report

    options = advice_experiment(advice_by_key(["trumps_first"])[0], 600, 3)
    run_experiment(tmp_path / "archive", options)
    [result] = experiment_results(connect(tmp_path / "archive"), tmp_path / "archive")
    build_report(tmp_path / "archive", tmp_path / "out", where="bots = 'rules,rules,rules'")
    page = (tmp_path / "out" / "sim-rules-rules-rules-isko" / "strategy.html").read_text()
    assert 'id="t-experiments"' in page and 'id="t-bot-vs-human"' in page
    assert options.experiment_id in page and result.verdict in page
    assert f"{result.list_points.effect:+.3f}" in page
    assert "91.4 %" in page and "Correlational tables" in page
