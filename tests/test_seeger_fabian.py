"""Seeger-Fabian points: the shared test vectors, and the SQL player tables against them."""

from __future__ import annotations

import csv
from pathlib import Path

import polars as pl
import pytest

from skatlog.analytics.connect import connect
from skatlog.analytics.seeger_fabian import player_table, seeger_fabian
from skatlog.analytics.synthetic import write_sessions
from skatlog.ingest.archive import read_table

from .conftest import require_shared


def test_shared_vectors() -> None:
    path = require_shared("rules", "seeger_fabian_vectors.csv")
    rows = list(csv.DictReader(path.open(encoding="utf-8")))
    assert rows
    for row in rows:
        value = int(row["declarer_list_value"])
        total, other = seeger_fabian(value, value > 0, int(row["table_size"]))
        assert (total, other) == (int(row["declarer_total"]), int(row["each_other_player"])), row


def test_table_size_is_checked() -> None:
    with pytest.raises(ValueError):
        seeger_fabian(18, True, 5)


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sf") / "archive"
    write_sessions(path, 12, 3)
    write_sessions(path, 4, 4, origin="log", club="Grand Hand")
    return path


def _expected(games: pl.DataFrame) -> dict[tuple[str, str], tuple[int, int, int, int]]:
    """(club, player) -> (hands, declared, list points, Seeger-Fabian) straight from rows."""
    out: dict[tuple[str, str], list[int]] = {}
    for g in games.iter_rows(named=True):
        club = g["club"] or "(no club)"
        names = (g["forehand"], g["middlehand"], g["rearhand"])
        played = g["outcome"] == "played"
        for seat, name in enumerate(names):
            acc = out.setdefault((club, name), [0, 0, 0, 0])
            acc[0] += 1
            if not played:
                continue
            total, other = seeger_fabian(g["value"], g["won"], 3)
            if seat == g["declarer"]:
                acc[1] += 1
                acc[2] += g["value"]
                acc[3] += total
            else:
                acc[3] += other
    return {key: (a, b, c, d) for key, (a, b, c, d) in out.items()}


def test_player_tables_match_row_by_row_scoring(archive: Path) -> None:
    games = pl.DataFrame(pl.from_arrow(read_table(archive, "games")))
    expected = _expected(games)
    con = connect(archive)
    by_club = player_table(con, by="club")
    got = {(r["club"], r["player"]): (r["hands"], r["n"], r["list_points"], r["seeger_fabian"])
           for r in by_club.iter_rows(named=True)}
    assert got == expected
    overall = player_table(con, by="player")
    for r in overall.iter_rows(named=True):
        parts = [v for (club, name), v in expected.items() if name == r["player"]]
        assert r["seeger_fabian"] == sum(p[3] for p in parts)
        assert r["list_points"] == sum(p[2] for p in parts)
    sessions = player_table(con, by="session")
    assert sessions["hands"].sum() == 3 * games.height
    assert set(sessions.group_by("session_id").agg(pl.col("hands").max())["hands"]) == {12}
    first = player_table(con, by="session", first=3)
    assert first["session_id"].n_unique() == 3
    assert first.equals(sessions.filter(pl.col("session_id").is_in(
        sorted(set(sessions["session_id"]))[:3])))
    only_log = player_table(con, "origin = 'log'", by="player")
    assert only_log["hands"].sum() == 3 * 4 * 12
