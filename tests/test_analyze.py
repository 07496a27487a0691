"""``skatlog analyze``: the ``analysis`` table, rerun skipping, crash safety, workers, Dask."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skatlog.analytics import analysis
from skatlog.analytics.analysis import analyse_archive
from skatlog.analytics.views import open_archive
from skatlog.cli import app
from skatlog.engine import Play
from skatlog.engine.solver import Position, Solver, state_at, target
from skatlog.ingest.archive import committed_files
from skatlog.simulation import SimulationOptions, simulate_to_archive

runner = CliRunner()
# The seeds give light hands: the solver's exact value takes from milliseconds to seconds
# a hand (bench/solver.py), and this file should stay quick.


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("analyze")
    simulate_to_archive(root, SimulationOptions(hands=8, seed=24))
    return root


def _rows(root: Path) -> dict[int, dict]:
    con = open_archive(root)
    table = con.sql("SELECT * FROM analysis").to_arrow_table()
    return {row["game_id"]: row for row in table.to_pylist()}


def test_analyze_fills_the_table_and_a_rerun_skips(archive: Path) -> None:
    from skatlog.ingest.export import iter_archive_games

    first = analyse_archive(archive)
    con = open_archive(archive)
    played = con.execute("SELECT count(*) FROM games WHERE outcome = 'played'").fetchone()[0]
    assert first.selected == first.analysed == played > 0
    rows = _rows(archive)
    assert len(rows) == played
    again = analyse_archive(archive)
    assert (again.analysed, again.already) == (0, played)
    assert len(_rows(archive)) == played
    # every row against the solver, card by card
    solver = Solver()
    ids = [r[0] for r in con.execute("SELECT game_id FROM games WHERE outcome = 'played' "
                                     "ORDER BY game_id").fetchall()]
    records = [g.record for g in iter_archive_games(archive) if g.record is not None
               and g.record.result.declaration is not None]
    for gid, record in zip(ids, records, strict=True):
        row = rows[gid]
        state = state_at(record, 0)
        assert state.declaration is not None
        pos = Position.from_state(state)
        need = target(state.declaration, state.bid, state.matadors())
        assert row["dd_won"] == solver.wins(pos, need)
        cards = [m for m in record.moves if isinstance(m, Play)]
        assert len(row["dd_won_after"]) == len(row["changed"]) == len(cards)
        verdicts = [row["dd_won"], *row["dd_won_after"]]
        assert row["changed"] == [a != b for a, b in itertools.pairwise(verdicts)]
        n = row["first_change_card_no"]
        if n is None:
            assert not any(row["changed"])
            continue
        assert row["changed"].index(True) == n - 1
        here = pos
        for move in cards[:n - 1]:
            here = here.play(int(move.card))
        assert cards[n - 1].seat == row["first_change_seat"] == here.to_move
        assert int(cards[n - 1].card) == row["first_change_card"]
        assert row["first_change_trick"] == here.tricks_played + 1
        keep = row["first_change_keep"]
        assert keep in here.legal()
        assert solver.wins(here.play(keep), need) == verdicts[n - 1]


def test_the_chosen_games_are_read_by_id_alone(archive: Path) -> None:
    """Reading a few games by id (``game_ids``: the archive's rows filtered before any
    simulated hand's move list is rebuilt) gives the games the row filter gives."""
    from skatlog.ingest.export import iter_archive_games

    con = open_archive(archive)
    ids = [r[0] for r in con.execute("SELECT game_id FROM games ORDER BY game_id DESC "
                                     "LIMIT 7").fetchall()]
    by_id = list(iter_archive_games(archive, game_ids=[*ids, 2**70]))
    by_row = list(iter_archive_games(archive, where=lambda row: row["game_id"] in ids))
    assert len(by_id) == 7 and by_id == by_row


def test_a_crash_leaves_only_whole_commits_and_the_rerun_finishes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    simulate_to_archive(tmp_path, SimulationOptions(hands=8, seed=31))
    real = analysis.analyse_batch
    calls = []

    def dying(batch, ingest_id=None):  # type: ignore[no-untyped-def]
        calls.append(1)
        if len(calls) == 3:
            raise RuntimeError("killed")
        return real(batch, ingest_id)

    monkeypatch.setattr(analysis, "analyse_batch", dying)
    with pytest.raises(RuntimeError, match="killed"):
        analyse_archive(tmp_path, batch=2, checkpoint_seconds=0)
    stored = _rows(tmp_path)
    assert len(stored) == 4  # two batches, each committed when it was written
    files = {p.name for p in (tmp_path / "analysis").glob("*.parquet*")}
    assert files == {p.name for p in committed_files(tmp_path, "analysis")}  # no orphan
    monkeypatch.setattr(analysis, "analyse_batch", real)
    rest = analyse_archive(tmp_path)
    assert rest.already == 4
    rows = _rows(tmp_path)
    assert len(rows) == 4 + rest.analysed
    con = open_archive(tmp_path)
    assert con.execute("SELECT count(*), count(DISTINCT game_id) FROM analysis").fetchone() \
        == (len(rows), len(rows))


def test_workers_and_dask_give_the_same_rows(tmp_path: Path) -> None:
    import distributed

    simulate_to_archive(tmp_path / "a", SimulationOptions(hands=4, seed=30))
    simulate_to_archive(tmp_path / "b", SimulationOptions(hands=4, seed=30))
    result = runner.invoke(app, ["analyze", "--archive", str(tmp_path / "a"), "--workers",
                                 "2", "-q"])
    assert result.exit_code == 0, result.output
    assert "analysed" in result.stdout
    with distributed.Client(processes=False, n_workers=1, threads_per_worker=1) as client:
        analyse_archive(tmp_path / "b", scheduler=client)

    def strip(rows: dict[int, dict]) -> dict[int, dict]:
        return {gid: {k: v for k, v in row.items() if k != "ingest_id"}
                for gid, row in rows.items()}

    assert strip(_rows(tmp_path / "a")) == strip(_rows(tmp_path / "b"))


def test_analyze_usage_errors(tmp_path: Path) -> None:
    result = runner.invoke(app, ["analyze", "--archive", str(tmp_path / "none")])
    assert result.exit_code == 2 and "no archive" in result.output
