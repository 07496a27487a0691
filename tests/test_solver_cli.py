"""``skatlog solve``: one game of a log or of the archive, its best-play value and line."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from skatlog.analytics.views import open_archive
from skatlog.cli import app
from skatlog.engine import GameState, Play
from skatlog.engine.cards import Card
from skatlog.engine.solver import state_at
from skatlog.simulation import SimulationOptions, simulate_to_archive

runner = CliRunner()
SAMPLES = Path(__file__).resolve().parents[1] / "data" / "samples"
LOG = SAMPLES / "skatfreunde-nord.sgf"


def test_solve_a_game_of_a_log_and_replay_its_line() -> None:
    result = runner.invoke(app, ["solve", str(LOG), "--game", "2", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["after_cards"] == 0 and len(out["line"]) == 30
    record = next(g for i, g in enumerate(_games(), start=1) if i == 2)
    state: GameState = state_at(record, 0)
    for seat, card in out["line"]:
        state.apply(Play(seat, Card.from_iss(card)))
    assert state.declarer_points == out["dd_value"]
    assert out["need"] == ["points", 61]
    assert out["dd_won"] == (out["dd_value"] >= 61)
    text = runner.invoke(app, ["solve", str(LOG), "--game", "2"]).stdout
    assert "best play after the discard:" in text and "trick 10:" in text


def _games():  # type: ignore[no-untyped-def]
    from skatlog.ingest.validate import iter_log_games

    for game in iter_log_games([LOG]):
        yield game.record


def test_solve_mid_play_and_from_the_archive(tmp_path: Path) -> None:
    simulate_to_archive(tmp_path, SimulationOptions(hands=20, seed=5))
    con = open_archive(tmp_path)
    gid = con.execute("SELECT game_id FROM games WHERE contract IS NOT NULL LIMIT 1"
                      ).fetchone()[0]
    result = runner.invoke(app, ["solve", "--id", str(gid), "--archive", str(tmp_path),
                                 "--after", "4", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["after_cards"] == 4 and len(out["line"]) <= 26
    for missing in ("12345", str(2**70)):  # no such game; no int64 id at all
        result = runner.invoke(app, ["solve", "--id", missing, "--archive", str(tmp_path)])
        assert result.exit_code == 2 and "no game with game_id" in result.output
        assert "Traceback" not in result.output


def test_solve_errors_are_one_line() -> None:
    for args, message in (
        (["solve", "nothere.sgf"], "no such file"),
        (["solve", str(LOG), "--game", "999"], "fewer than 999 games"),
        (["solve"], "name a log file"),
        (["solve", str(SAMPLES / "damaged.sgf")], "does not replay"),
        (["solve", str(LOG), "--game", "2", "--after", "31"], "cards of play"),
    ):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert message in result.output and "Traceback" not in result.output
        assert len(result.output.strip().splitlines()) == 1
