"""The HTML report: its numbers equal direct SQL on the archive's Parquet files, names are
escaped, Plotly is shipped once with no CDN, and the CLI prints where the index is."""

from __future__ import annotations

import shutil
from html.parser import HTMLParser
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from skatlog.analytics.seeger_fabian import seeger_fabian
from skatlog.analytics.synthetic import write_sessions
from skatlog.cli import app
from skatlog.ingest.archive import committed_files
from skatlog.reports.build import build_report

HOSTILE = "<img src=x onerror=alert(1)>"


class Tables(HTMLParser):
    """Collects every ``table.data`` as {id: [ {column: text} ]} (cells keyed by data-col)."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[dict[str, str]]] = {}
        self._table: str | None = None
        self._row: dict[str, str] | None = None
        self._col: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "table" and a.get("id"):
            self._table = a["id"]
            self.tables[self._table] = []
        elif tag == "tr" and self._table:
            self._row = {}
        elif tag == "td" and self._row is not None:
            self._col = a.get("data-col")
            self._row[self._col or ""] = ""

    def handle_data(self, data: str) -> None:
        if self._row is not None and self._col is not None:
            self._row[self._col] += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "td":
            self._col = None
        elif tag == "tr" and self._table and self._row:
            self.tables[self._table].append(self._row)
            self._row = None
        elif tag == "table":
            self._table = None


def tables_of(path: Path) -> dict[str, list[dict[str, str]]]:
    parser = Tables()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser.tables


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("report")
    archive = root / "archive"
    write_sessions(archive, 20, 31)
    write_sessions(archive, 4, 32, origin="log", club="Kreuz & Quer",
                   players=(HOSTILE, "Ann & Bob", "Zoë", "Max"))
    out = root / "out"
    build_report(archive, out, inline_js=False)  # one shared plotly.min.js
    return archive, out


def direct(archive: Path) -> duckdb.DuckDBPyConnection:
    """A plain DuckDB view over the committed games files: no skatlog query code involved."""
    con = duckdb.connect()
    files = [str(p) for p in committed_files(archive, "games")]
    con.execute(f"CREATE VIEW g AS SELECT * FROM read_parquet({files!r})")
    return con


def _pct(k: int, n: int) -> str:
    return f"{100 * k / n:.1f} %"


def test_contract_seat_and_bid_tables_equal_sql(report: tuple[Path, Path]) -> None:
    archive, out = report
    con = direct(archive)
    contracts = tables_of(out / "contracts.html")["t-contracts"]
    by_contract: dict[str, list[int]] = {}
    for row in contracts:
        acc = by_contract.setdefault(row["game"].split()[0], [0, 0])
        acc[0] += int(row["n"])
        acc[1] += int(row["k"])
        assert row["rate"] == _pct(int(row["k"]), int(row["n"]))
    sql = con.execute("SELECT contract, count(*), count_if(won) FROM g WHERE outcome = 'played' "
                      "GROUP BY contract").fetchall()
    assert by_contract == {c: [n, k] for c, n, k in sql}

    seats = tables_of(out / "seats.html")
    sql_seats = dict(((s, (n, k)) for s, n, k in con.execute(
        "SELECT declarer, count(*), count_if(won) FROM g WHERE outcome = 'played' "
        "GROUP BY declarer").fetchall()))
    names = ("Forehand", "Middlehand", "Rearhand")
    assert {names.index(r["seat_name"]): (int(r["n"]), int(r["k"]))
            for r in seats["t-seats"]} == sql_seats
    skipped = seats["t-skipped"][0]
    assert (int(skipped["n"]), int(skipped["k"])) == con.execute(
        "SELECT count(*), count_if(passed) FROM g").fetchall()[0]

    bids = tables_of(out / "bidding.html")["t-bids"]
    assert {int(r["bid"]): int(r["n"]) for r in bids} == dict(con.execute(
        "SELECT bid, count(*) FROM g WHERE outcome = 'played' GROUP BY bid").fetchall())
    bidding = tables_of(out / "bidding.html")
    value = "CASE WHEN won THEN value ELSE -value // 2 END"
    assert {(int(r["bid"]), int(r["game_value"])): int(r["n"])
            for r in bidding["t-bid-value"]} == {(b, v): n for b, v, n in con.execute(
                f"SELECT bid, {value}, count(*) FROM g WHERE outcome = 'played' AND NOT overbid"
                " GROUP BY ALL").fetchall()}
    slack: dict[int, int] = {}
    for r in bidding["t-slack"]:
        slack[int(r["slack"])] = slack.get(int(r["slack"]), 0) + int(r["n"])
    assert slack == dict(con.execute(
        f"SELECT {value} - bid, count(*) FROM g WHERE outcome = 'played' AND NOT overbid"
        " GROUP BY ALL").fetchall())
    overview = {r["what"]: int(r["count"]) for r in tables_of(out / "index.html")["t-overview"]}
    assert overview["hands"] == con.execute("SELECT count(*) FROM g").fetchall()[0][0]
    assert overview["from logs"] == 48


def test_player_table_equals_sql_scoring(report: tuple[Path, Path]) -> None:
    archive, out = report
    rows = direct(archive).execute(
        "SELECT forehand, middlehand, rearhand, declarer, outcome, won, value FROM g").fetchall()
    expected: dict[str, list[int]] = {}
    for fh, mh, rh, declarer, outcome, won, value in rows:
        for seat, name in enumerate((fh, mh, rh)):
            acc = expected.setdefault(name, [0, 0, 0])
            acc[0] += 1
            if outcome != "played":
                continue
            total, other = seeger_fabian(value, won)
            acc[1] += value if seat == declarer else 0
            acc[2] += total if seat == declarer else other
    table = tables_of(out / "players.html")["t-players"]
    got = {r["player"]: [int(r["hands"]), int(r["list_points"]), int(r["seeger_fabian"])]
           for r in table}
    assert got == expected
    assert HOSTILE in got


def test_escaping_offline_and_pages(report: tuple[Path, Path]) -> None:
    _, out = report
    pages = sorted(p.name for p in out.glob("*.html"))
    assert pages == sorted(["index.html", "contracts.html", "bidding.html", "bid-levels.html",
                            "seats.html", "matadors.html", "players.html", "tricks.html",
                            "strategy.html"])
    assert (out / "plotly.min.js").stat().st_size > 1_000_000
    for name in pages:
        text = (out / name).read_text(encoding="utf-8")
        assert "cdn.plot.ly" not in text and "https://" not in text.split("</head>")[0]
        assert text.count('<script src="plotly.min.js"></script>') == 1
        assert "<img src=x" not in text
        assert 'class="reading"' in text and "xaxis" in text
    players = (out / "players.html").read_text(encoding="utf-8")
    assert "&lt;img src=x onerror=alert(1)&gt;" in players
    strategy = tables_of(out / "strategy.html")["t-strategy"]
    assert {r["verdict"] for r in strategy} <= {"supported", "not supported", "inconclusive"}


def test_cli_report_inline_and_errors(report: tuple[Path, Path], tmp_path: Path) -> None:
    archive, _ = report
    runner = CliRunner()
    out = tmp_path / "inline"
    result = runner.invoke(app, ["report", "--archive", str(archive), "--out", str(out),
                                 "--where", "origin = 'log'"])  # inlined by default
    assert result.exit_code == 0, result.output
    assert "index.html" in result.output.replace("\n", "")
    assert not (out / "plotly.min.js").exists()
    index = (out / "index.html").read_text(encoding="utf-8")
    assert len(index) > 1_000_000  # Plotly inlined
    assert not (out / "strategy.html").exists()  # only logs selected: no strategy page
    bad = runner.invoke(app, ["report", "--archive", str(archive), "--out", str(out),
                              "--where", "no_such_column > 1"])
    assert bad.exit_code == 2 and "no_such_column" in bad.output
    missing = runner.invoke(app, ["report", "--archive", str(tmp_path / "none"),
                                  "--out", str(out)])
    assert missing.exit_code == 2 and "no archive" in missing.output
    commented = runner.invoke(app, ["report", "--archive", str(archive), "--out",
                                    str(tmp_path / "commented"), "--where", "1=1) --"])
    assert commented.exit_code == 2 and "--where" in commented.output  # not a traceback
    plain_file = tmp_path / "plain"
    plain_file.write_text("x")
    blocked = runner.invoke(app, ["report", "--archive", str(archive), "--out", str(plain_file)])
    assert blocked.exit_code == 2 and "cannot write the report" in blocked.output
    damaged = tmp_path / "damaged"
    shutil.copytree(archive, damaged)
    sorted((damaged / "tricks").glob("*.parquet"))[0].unlink()
    unread = runner.invoke(app, ["report", "--archive", str(damaged), "--out",
                                 str(tmp_path / "never")])
    assert unread.exit_code == 2 and "could not be read" in unread.output, unread.output
    assert not (tmp_path / "never").exists()  # nothing half-written
