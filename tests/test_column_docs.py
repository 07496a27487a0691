"""Every column of every archive view is documented once (skatlog.ingest.column_docs), and
the docs reach both ``skatlog schema`` and DuckDB (``duckdb_columns().comment``)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from skatlog.analytics.views import VIEWS, open_archive
from skatlog.cli import app
from skatlog.ingest.column_docs import COLUMN_DOCS, VIEW_DOCS


def _described(con) -> dict[str, dict[str, str | None]]:
    out: dict[str, dict[str, str | None]] = {}
    for view, column, comment in con.execute(
            "SELECT table_name, column_name, comment FROM duckdb_columns() "
            "WHERE table_name IN (SELECT unnest(?::VARCHAR[])) ORDER BY column_index",
            [list(VIEWS)]).fetchall():
        out.setdefault(view, {})[column] = comment
    return out


def test_every_column_of_every_view_has_a_description(tmp_path: Path) -> None:
    con = open_archive(tmp_path / "empty")
    described = _described(con)
    assert set(described) == set(VIEWS) == set(COLUMN_DOCS) == set(VIEW_DOCS)
    for view, columns in described.items():
        missing = [c for c, text in columns.items() if not text]
        assert not missing, f"{view}: undocumented columns {missing} (ingest/column_docs.py)"
        stale = set(COLUMN_DOCS[view]) - set(columns)
        assert not stale, f"{view}: documented columns the view lacks: {sorted(stale)}"
        assert list(COLUMN_DOCS[view]) == list(columns), f"{view}: not in the view's order"
    views = dict(con.execute("SELECT view_name, comment FROM duckdb_views()").fetchall())
    assert all(views[v] for v in VIEWS)


def test_a_real_archive_carries_the_comments(tmp_path: Path) -> None:
    samples = Path(__file__).resolve().parent.parent / "data" / "samples"
    archive = tmp_path / "arc"
    result = CliRunner().invoke(app, ["ingest", str(samples), "--archive", str(archive), "-q"])
    assert result.exit_code == 0, result.stderr
    described = _described(open_archive(archive))
    assert described["games"]["value"].startswith("the declarer's signed list value")
    assert "card_name" in (described["tricks"]["card1"] or "")


def test_the_schema_command_prints_every_column() -> None:
    result = CliRunner().invoke(app, ["schema"])
    assert result.exit_code == 0
    for view, columns in COLUMN_DOCS.items():
        assert f"\n{view}: " in "\n" + result.stdout
        for column in columns:
            assert any(line.split()[:1] == [column] for line in result.stdout.splitlines()), \
                column
    assert "(undocumented)" not in result.stdout
    one = CliRunner().invoke(app, ["schema", "games", "--json"])
    data = json.loads(one.stdout)
    assert list(data) == ["games"]
    by_name = {c["name"]: c for c in data["games"]["columns"]}
    assert by_name["matadors"]["type"] == "TINYINT" and "signed" in by_name["matadors"][
        "description"]
    assert by_name["game_value"]["description"] != by_name["value"]["description"]
    bad = CliRunner().invoke(app, ["schema", "players"])
    assert bad.exit_code == 2 and "unknown view 'players'" in bad.stderr
