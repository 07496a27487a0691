"""The HTML report: its numbers equal direct SQL on the archive's Parquet files, per bot
line-up (never pooled); names are escaped; Plotly is shipped once, offline; long tables are
collapsed with a CSV; numbers carry separators; no chart draws invisible bars; the output
folder is replaced whole or not at all; the CLI prints where the index is."""

from __future__ import annotations

import csv
import errno
import hashlib
import json
import os
import re
import shutil
import time
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import duckdb
import plotly.graph_objects as go
import pytest
from typer.testing import CliRunner

from skatlog.analytics.connect import connect
from skatlog.analytics.strategy import ADVICE, evaluate
from skatlog.analytics.synthetic import write_sessions
from skatlog.cli import app
from skatlog.engine.bots import RulesPlayer
from skatlog.ingest.archive import committed_files
from skatlog.reports.build import ReportResult, build_report
from skatlog.reports.html import number, percent, plural
from skatlog.reports.output import STALE_SECONDS
from skatlog.reports.parts import Part, find_parts

HOSTILE = "<img src=x onerror=alert(1)>"
PART_PAGES = {"index.html", "contracts.html", "bidding.html", "bid-levels.html", "seats.html",
              "matadors.html", "players.html", "tricks.html", "could-win.html"}


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


def figures_of(path: Path) -> dict[str, dict[str, Any]]:
    """Every ``Plotly.newPlot(id, data, layout, config)`` of a page, by chart id."""
    text = path.read_text(encoding="utf-8")
    decoder = json.JSONDecoder()
    found = {}
    for match in re.finditer(r"Plotly\.newPlot\(", text):
        pos, args = match.end(), []
        for _ in range(4):
            value, pos = decoder.raw_decode(text, pos)
            args.append(value)
            pos += 1  # the comma (or the closing parenthesis)
        found[args[0]] = {"data": args[1], "layout": args[2]}
    return found


def integer(text: str) -> int:
    return int(text.replace(",", ""))


def _pct(k: int, n: int) -> str:
    return percent(k / n)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ReportResult]:
    root = tmp_path_factory.mktemp("report")
    archive = root / "archive"
    write_sessions(archive, 20, 31)
    write_sessions(archive, 6, 33, bots=(RulesPlayer(),) * 3)
    write_sessions(archive, 4, 32, origin="log", club="Kreuz & Quer",
                   players=(HOSTILE, "Ann & Bob", "Zoë", "Max"))
    return archive, build_report(archive, root / "out")


def direct(archive: Path, part: Part) -> duckdb.DuckDBPyConnection:
    """A plain DuckDB view of one part's committed games: no skatlog query code involved."""
    con = duckdb.connect()
    files = [str(p) for p in committed_files(archive, "games")]
    con.execute(f"CREATE VIEW g AS SELECT * FROM read_parquet({files!r}) WHERE "
                f"origin = '{part.origin}' AND bots = '{part.bots}'")
    return con


def part_named(result: ReportResult, origin: str, bots: str) -> Part:
    return next(p for p in result.parts if p.origin == origin and p.bots == bots)


def test_pages_are_split_by_bot_lineup(report: tuple[Path, ReportResult]) -> None:
    archive, result = report
    out = result.index.parent
    assert [(p.origin, p.bots) for p in result.parts] == [
        ("log", "random,random,random"), ("simulated", "random,random,random"),
        ("simulated", "rules,rules,rules")]
    assert [p.hands for p in result.parts] == [48, 240, 72]
    index = (out / "index.html").read_text(encoding="utf-8")
    for part in result.parts:
        folder = out / part.slug
        pages = {p.name for p in folder.glob("*.html")}
        assert pages == PART_PAGES | ({"strategy.html"} if part.simulated else set())
        assert f'href="{part.slug}/index.html"' in index
        overview = {r["what"]: integer(r["count"])
                    for r in tables_of(folder / "index.html")["t-overview"]}
        assert overview["hands"] == part.hands
    # each line-up's strategy verdict is its own, not a pool of both simulated line-ups
    con = connect(archive)
    for part in result.parts[1:]:
        rows = tables_of(out / part.slug / "strategy.html")["t-strategy"]
        own = evaluate(con, part.condition)
        assert [integer(r["n"]) for r in rows] == [v.matching.n for v in own]
        assert [r["verdict"] for r in rows] == [v.verdict for v in own]
    pooled = evaluate(con, "origin = 'simulated'")
    shown = [[integer(r["n"]) for r in tables_of(out / p.slug / "strategy.html")["t-strategy"]]
             for p in result.parts[1:]]
    assert [v.matching.n for v in pooled] == [a + b for a, b in zip(*shown, strict=True)]
    assert any(a and b for a, b in zip(*shown, strict=True))  # both line-ups, apart


def test_tables_equal_sql_per_part(report: tuple[Path, ReportResult]) -> None:
    archive, result = report
    out = result.index.parent
    for part in result.parts:
        con = direct(archive, part)
        folder = out / part.slug
        by_contract: dict[str, list[int]] = {}
        for row in tables_of(folder / "contracts.html")["t-contracts"]:
            acc = by_contract.setdefault(row["game"].split()[0], [0, 0])
            acc[0] += integer(row["n"])
            acc[1] += integer(row["k"])
            assert row["rate"] == _pct(integer(row["k"]), integer(row["n"]))
        sql = con.execute("SELECT contract, count(*), count_if(won) FROM g "
                          "WHERE outcome = 'played' GROUP BY contract").fetchall()
        assert by_contract == {c: [n, k] for c, n, k in sql}

        seats = tables_of(folder / "seats.html")
        sql_seats = {s: (n, k) for s, n, k in con.execute(
            "SELECT declarer, count(*), count_if(won) FROM g WHERE outcome = 'played' "
            "GROUP BY declarer").fetchall()}
        names = ("Forehand", "Middlehand", "Rearhand")
        assert {names.index(r["seat_name"]): (integer(r["n"]), integer(r["k"]))
                for r in seats["t-seats"]} == sql_seats
        skipped = seats["t-skipped"][0]
        assert (integer(skipped["n"]), integer(skipped["k"])) == con.execute(
            "SELECT count(*), count_if(passed) FROM g").fetchall()[0]

        bids = tables_of(folder / "bidding.html")["t-bids"]
        assert {integer(r["bid"]): integer(r["n"]) for r in bids} == dict(con.execute(
            "SELECT bid, count(*) FROM g WHERE outcome = 'played' GROUP BY bid").fetchall())
        value = "CASE WHEN won THEN value ELSE -value // 2 END"
        with (folder / "t-bid-value.csv").open(encoding="utf-8") as f:  # every row
            pairs = {(int(r["bid"]), int(r["game_value"])): int(r["n"])
                     for r in csv.DictReader(f)}
        assert pairs == {(b, v): n for b, v, n in con.execute(
            f"SELECT bid, {value}, count(*) FROM g WHERE outcome = 'played' AND NOT overbid"
            " GROUP BY ALL").fetchall()}


def test_player_table_equals_sql_scoring(report: tuple[Path, ReportResult]) -> None:
    archive, result = report
    part = part_named(result, "log", "random,random,random")
    rows = direct(archive, part).execute(
        "SELECT forehand, middlehand, rearhand, declarer, outcome, won, value FROM g").fetchall()
    expected: dict[str, list[int]] = {}
    for fh, mh, rh, declarer, outcome, _won, value in rows:
        for seat, name in enumerate((fh, mh, rh)):
            acc = expected.setdefault(name, [0, 0])
            acc[0] += 1
            if outcome == "played":
                acc[1] += value if seat == declarer else 0
    table = tables_of(result.index.parent / part.slug / "players.html")["t-players"]
    got = {r["player"]: [integer(r["hands"]), integer(r["list_points"])] for r in table}
    assert got == expected
    # Seeger-Fabian is opt-in (--scoring seeger-fabian, tests/test_seeger_fabian_surfaces.py)
    assert all("seeger_fabian" not in r for r in table)
    assert HOSTILE in got


def test_one_plotly_offline_and_escaped(report: tuple[Path, ReportResult]) -> None:
    _, result = report
    out = result.index.parent
    assert [p.relative_to(out) for p in out.rglob("*.js")] == [Path("plotly.min.js")]
    assert (out / "plotly.min.js").stat().st_size > 1_000_000
    assert set(result.pages) == set(out.rglob("*.html"))
    for path in result.pages:
        text = path.read_text(encoding="utf-8")
        assert path.stat().st_size < 200_000  # Plotly is never inlined
        head = text.split("</head>")[0]
        assert "cdn.plot.ly" not in text and "https://" not in head
        sources = re.findall(r'<script src="([^"]+)"></script>', text)
        assert len(sources) == 1 and (path.parent / sources[0]).resolve() == \
            (out / "plotly.min.js").resolve()
        assert "<img src=x" not in text
        assert 'class="reading"' in text and "Plotly.newPlot(" in text
        assert "skatlog report - skatlog report" not in text
    players = (out / part_named(result, "log", "random,random,random").slug
               / "players.html").read_text(encoding="utf-8")
    assert "&lt;img src=x onerror=alert(1)&gt;" in players
    assert result.bytes == sum(p.stat().st_size for p in out.rglob("*") if p.is_file()
                               and p.name != ".skatlog-report")


def test_every_chart_is_a_valid_plotly_figure(report: tuple[Path, ReportResult]) -> None:
    _, result = report
    charts = 0
    for path in result.pages:
        for chart_id, figure in figures_of(path).items():
            go.Figure(data=figure["data"], layout=figure["layout"])  # raises on a bad key
            assert figure["layout"]["xaxis"]["title"]["text"], (path, chart_id)
            charts += 1
    assert charts >= 40


def test_no_invisible_overbid_bars(report: tuple[Path, ReportResult]) -> None:
    archive, result = report
    seen = set()
    for part in result.parts:
        page = result.index.parent / part.slug / "bidding.html"
        overbids = direct(archive, part).execute(
            "SELECT count_if(overbid) FROM g WHERE outcome = 'played'").fetchall()[0][0]
        figure = figures_of(page).get("chart-overbid")
        text = page.read_text(encoding="utf-8")
        if overbids == 0:
            assert figure is None and "None of the " in text and "was overbid" in text
            rows = tables_of(page)["t-overbid"]
            assert rows and all("rate" not in r for r in rows)  # no column of 0 % rows
        else:
            assert figure is not None
            (bars,) = figure["data"]
            assert len(bars["text"]) == len(bars["x"])  # every bar says its value
            assert all(" of " in t for t in bars["text"])
            assert figure["layout"]["yaxis"]["range"][1] > max(bars["y"])
        seen.add(overbids == 0)
    assert seen == {True, False}  # the fixture shows both cases


def test_long_tables_are_collapsed_with_a_csv(report: tuple[Path, ReportResult]) -> None:
    archive, result = report
    part = part_named(result, "simulated", "random,random,random")
    folder = result.index.parent / part.slug
    text = (folder / "bidding.html").read_text(encoding="utf-8")
    rows = direct(archive, part).execute(
        "SELECT count(*) FROM (SELECT DISTINCT bid, value FROM g WHERE outcome = 'played' "
        "AND NOT overbid)").fetchall()[0][0]
    assert rows > 15
    collapsed = re.search(r'<details class="table" data-table="t-bid-value"><summary>'
                          r"Table: ([\d,]+) rows</summary>", text)
    assert collapsed is not None
    assert '<a href="t-bid-value.csv" download>' in text
    with (folder / "t-bid-value.csv").open(encoding="utf-8") as f:
        assert sum(1 for _ in csv.DictReader(f)) == integer(collapsed.group(1))
    seats = (folder / "seats.html").read_text(encoding="utf-8")
    assert "<details" not in seats  # short tables stay open


def test_numbers_have_separators_and_counts_agree_in_number() -> None:
    assert number(801948) == "801,948" and number(1_000_000) == "1,000,000"
    assert number(12.345) == "12.3" and number(-1234.5) == "-1,234.5"
    assert plural(1, "hand") == "1 hand" and plural(1_000_000, "hand") == "1,000,000 hands"
    assert percent(0) == "0 %" and percent(0.00004) == "0.004 %" and percent(0.621) == \
        "62.1 %"


def test_pages_show_separators_and_the_singular(tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    write_sessions(archive, 90, 5)  # 1,080 hands
    one = duckdb.connect().execute(
        f"SELECT min(game_id) FROM read_parquet({[str(p) for p in committed_files(archive, 'games')]!r})"  # noqa: E501
        " WHERE outcome = 'played'").fetchall()[0][0]
    big = build_report(archive, tmp_path / "big")
    index = big.index.read_text(encoding="utf-8")
    words = re.sub(r"<script>.*?</script>", "", index, flags=re.S)  # the text, not the JSON
    assert "1,080 hands" in words and "1080" not in words
    overview = {r["what"]: r["count"] for r in tables_of(big.index)["t-overview"]}
    assert overview["hands"] == "1,080"
    single = build_report(archive, tmp_path / "one", where=f"game_id = {one}")
    text = (single.index.parent / single.parts[0].slug / "index.html").read_text(
        encoding="utf-8")
    assert "1 hand where" in text and "1 hands" not in text
    assert "1 hands" not in single.index.read_text(encoding="utf-8")


def test_strategy_chart_has_human_labels(report: tuple[Path, ReportResult]) -> None:
    _, result = report
    part = part_named(result, "simulated", "rules,rules,rules")
    figure = figures_of(result.index.parent / part.slug / "strategy.html")["chart-strategy"]
    for trace in figure["data"]:
        assert trace["x"] == [a.label.replace("&", "&amp;") for a in ADVICE]
        assert not any("_" in x for x in trace["x"])


def _tree(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_failed_build_leaves_the_previous_report(report: tuple[Path, ReportResult],
                                                   tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    archive, _ = report
    out = tmp_path / "out"
    build_report(archive, out)
    (out / "mine.txt").write_text("a stale file of the old report")
    before = _tree(out)
    real = Path.write_bytes
    real_text = Path.write_text
    calls = [0]

    def full_disk(self: Path, data: Any, *args: Any, **kwargs: Any) -> int:
        calls[0] += 1
        if calls[0] == 4:
            raise OSError(errno.ENOSPC, "No space left on device")
        if isinstance(data, str):
            return real_text(self, data, *args, **kwargs)
        return real(self, data)

    monkeypatch.setattr(Path, "write_bytes", full_disk)
    monkeypatch.setattr(Path, "write_text", full_disk)
    with pytest.raises(OSError, match="No space"):
        build_report(archive, out)
    monkeypatch.undo()
    assert calls[0] == 4
    assert _tree(out) == before  # not one page of the new report mixed in
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # no staging folder left
    build_report(archive, out)  # a complete build replaces the folder whole
    assert not (out / "mine.txt").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_cli_report(report: tuple[Path, ReportResult], tmp_path: Path) -> None:
    archive, _ = report
    runner = CliRunner()
    out = tmp_path / "inline"
    result = runner.invoke(app, ["report", "--archive", str(archive), "--out", str(out),
                                 "--where", "origin = 'log'", "--inline-js", "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "index.html" in result.output.replace("\n", "")
    assert "48 hands (1 line-up, 10 pages" in result.output
    assert not (out / "plotly.min.js").exists()
    assert len((out / "index.html").read_text(encoding="utf-8")) > 1_000_000  # inlined
    assert not list(out.rglob("strategy.html"))  # only logs selected: no strategy page
    shared = runner.invoke(app, ["report", "--archive", str(archive), "--out",
                                 str(tmp_path / "shared")])
    assert shared.exit_code == 0, shared.output
    assert (tmp_path / "shared" / "plotly.min.js").is_file()

    bad = runner.invoke(app, ["report", "--archive", str(archive), "--out", str(out),
                              "--where", "no_such_column > 1"])
    assert bad.exit_code == 2 and "no_such_column" in bad.output
    missing = runner.invoke(app, ["report", "--archive", str(tmp_path / "none"),
                                  "--out", str(out)])
    assert missing.exit_code == 2 and "no archive" in missing.output
    commented = runner.invoke(app, ["report", "--archive", str(archive), "--out",
                                    str(tmp_path / "commented"), "--where", "1=1) --"])
    assert commented.exit_code == 2 and "--where" in commented.output  # not a traceback
    remark = runner.invoke(app, ["report", "--archive", str(archive), "--out",
                                 str(tmp_path / "remark"), "--no-progress",
                                 "--where", "origin = 'log' -- the club's games only"])
    assert remark.exit_code == 0 and "48 hands" in remark.output, remark.output
    nothing = runner.invoke(app, ["report", "--archive", str(archive), "--out",
                                  str(tmp_path / "nothing"), "--where", "bid > 1000"])
    assert nothing.exit_code == 0 and "0 hands (0 line-ups, 1 page" in nothing.output
    assert "No games selected" in (tmp_path / "nothing" / "index.html").read_text()
    plain_file = tmp_path / "plain"
    plain_file.write_text("x")
    blocked = runner.invoke(app, ["report", "--archive", str(archive), "--out", str(plain_file)])
    assert blocked.exit_code == 2 and "cannot write the report" in blocked.output
    assert plain_file.read_text() == "x"
    others = tmp_path / "documents"
    others.mkdir()
    (others / "letter.txt").write_text("keep me")
    refused = runner.invoke(app, ["report", "--archive", str(archive), "--out", str(others)])
    assert refused.exit_code == 2 and "not a skatlog report" in refused.output
    assert [p.name for p in others.iterdir()] == ["letter.txt"]

    damaged = tmp_path / "damaged"
    shutil.copytree(archive, damaged)
    sorted((damaged / "tricks").glob("*.parquet"))[0].unlink()
    unread = runner.invoke(app, ["report", "--archive", str(damaged), "--out",
                                 str(tmp_path / "never")])
    assert unread.exit_code == 2 and "could not be read" in unread.output, unread.output
    assert not (tmp_path / "never").exists()  # nothing half-written
    before = _tree(out)
    again = runner.invoke(app, ["report", "--archive", str(damaged), "--out", str(out)])
    assert again.exit_code == 2 and _tree(out) == before  # the old report stays whole
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_progress_is_reported_page_by_page(report: tuple[Path, ReportResult],
                                           tmp_path: Path) -> None:
    archive, _ = report
    calls: list[tuple[int, int, str]] = []
    result = build_report(archive, tmp_path / "out", progress=lambda *a: calls.append(a))
    total = len(result.pages) + 1  # every page, and plotly.min.js first
    assert calls[-1] == (total, total, "done")
    assert [c[0] for c in calls] == list(range(total + 1))
    assert {c[1] for c in calls} == {total}
    assert any(c[2].startswith("Simulated by rules, rules, rules")
               and c[2].endswith(": Strategy") for c in calls)


def test_parts_split_by_rule_set_when_the_archive_records_it(
        report: tuple[Path, ReportResult]) -> None:
    archive, _ = report
    files = [str(p) for p in committed_files(archive, "games")]
    con = duckdb.connect()
    stored = {r[0] for r in con.execute(
        f"DESCRIBE SELECT * FROM read_parquet({files!r}, union_by_name = true)").fetchall()}
    # an archive whose games record their rule set: logs under isko+iss, and half of the
    # random bots' games under isko+iss too
    con.execute(f"""CREATE VIEW games AS SELECT * {"EXCLUDE (rules)" * ("rules" in stored)},
        CASE WHEN origin = 'log' OR (bots LIKE 'random%' AND game_id % 2 = 0)
             THEN 'isko+iss' ELSE 'isko' END AS rules
        FROM read_parquet({files!r}, union_by_name = true)""")
    parts = find_parts(con, None)
    assert [(p.origin, p.bots, p.rules) for p in parts] == [
        ("log", "random,random,random", "isko+iss"),
        ("simulated", "random,random,random", "isko"),
        ("simulated", "random,random,random", "isko+iss"),
        ("simulated", "rules,rules,rules", "isko")] or \
        [(p.origin, p.bots, p.rules) for p in parts] == [
        ("log", "random,random,random", "isko+iss"),
        ("simulated", "random,random,random", "isko+iss"),
        ("simulated", "random,random,random", "isko"),
        ("simulated", "rules,rules,rules", "isko")]
    assert sum(p.hands for p in parts) == 360
    assert len({p.slug for p in parts}) == 4
    for part in parts:
        assert part.label.endswith(f" · rules {part.rules}")
        assert con.execute(f"SELECT count(*) FROM games WHERE {part.condition}"
                           ).fetchall()[0][0] == part.hands


def test_leftovers_of_a_killed_build_are_removed(report: tuple[Path, ReportResult],
                                                 tmp_path: Path) -> None:
    archive, _ = report
    old = tmp_path / ".out.dead0001.tmp"  # what kill -9 in the middle of a build leaves
    old.mkdir()
    (old / "index.html").write_text("half")
    fresh = tmp_path / ".out.busy0002.tmp"  # a build running right now
    fresh.mkdir()
    other = tmp_path / ".other.dead0003.tmp"  # another report's: not ours to remove
    other.mkdir()
    hour_ago = time.time() - STALE_SECONDS - 60
    for folder in (old, other):
        os.utime(folder, (hour_ago, hour_ago))
    build_report(archive, tmp_path / "out")
    assert sorted(p.name for p in tmp_path.iterdir()) == [".other.dead0003.tmp",
                                                         ".out.busy0002.tmp", "out"]


def test_a_vanished_partition_is_a_read_error(tmp_path: Path) -> None:
    """pyarrow reports a partition deleted since its commit as a plain FileNotFoundError
    with no filename, the path only quoted in its text: still the archive's fault, not the
    report's output (CI once saw it reported as 'cannot write the report')."""
    from skatlog.commands.report import _reading

    part = tmp_path / "archive" / "tricks" / "part-1.parquet"
    vanished = FileNotFoundError(f"Failed to open local file '{part}'. Detail: [errno 2] No"
                                 " such file or directory")
    assert _reading(vanished, tmp_path / "archive")
    elsewhere = FileNotFoundError(f"Failed to open local file '{tmp_path / 'out' / 'x'}'")
    assert not _reading(elsewhere, tmp_path / "archive")
    assert not _reading(PermissionError(13, "Permission denied"), tmp_path / "archive")
