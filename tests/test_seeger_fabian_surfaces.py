"""``--scoring list|seeger-fabian`` wherever a session or player total appears: the scoring
itself (3- and 4-player tables), the sessions view (DuckDB and polars), ``skatlog query``,
the player and session helpers, ``skatlog report`` and the web app's club report pages.

The games are a skatlog/1 log written here from engine-played hands: one 12-hand session at
a 3-player table and one at a 4-player table, where the dealer sits out each hand (the four
players take the dealer's chair in turn, the three others sit Forehand, Middlehand and
Rearhand). The expected totals are summed hand by hand in Python from the engine's results
with :func:`seeger_fabian`, which the vectors below pin.
"""

from __future__ import annotations

import csv
import json
import random
import re
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from skatlog.analytics.connect import connect
from skatlog.analytics.scoring import ScoringError, parse_scoring, seeger_fabian
from skatlog.analytics.seeger_fabian import player_table, session_table
from skatlog.analytics.views import lazy_frames, open_archive
from skatlog.cli import app
from skatlog.engine import RandomPlayer, play_hand, seeded_deal
from skatlog.ingest.jsonl import game_object
from skatlog.ingest.model import GameMeta

from .conftest import require_shared

#: Seeger-Fabian cases in the repo's own words (docs/rules.md, "Rule sets"): +50 to a won
#: game's list value, -50 to a lost one's; per lost game +40 to each other player at a table
#: of 3, +30 at 4 (the dealer who sits out too).
VECTORS = Path(__file__).parent / "data" / "seeger_fabian_vectors.csv"


def _vectors() -> list[dict[str, str]]:
    with VECTORS.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


TABLES = {"t3": ("Anna", "Ben", "Clara"), "t4": ("Dora", "Emil", "Fritz", "Gerd")}
CLUB = "Grand Hand"


@pytest.mark.parametrize("case", [row["case"] for row in _vectors()])
def test_vectors(case: str) -> None:
    row = next(r for r in _vectors() if r["case"] == case)
    got = seeger_fabian(int(row["list_value"]), row["won"] == "1", int(row["table_size"]))
    assert got == (int(row["declarer"]), int(row["each_other"])), row["note"]


def test_vectors_cover_both_table_sizes() -> None:
    rows = _vectors()
    assert len(rows) >= 12
    for size in ("3", "4"):
        assert {r["won"] for r in rows if r["table_size"] == size} == {"0", "1"}


def test_the_shared_vectors_agree_with_ours() -> None:
    path = require_shared("rules", "seeger_fabian_vectors.csv")
    ours = {(int(r["table_size"]), int(r["list_value"])): (int(r["declarer"]),
                                                         int(r["each_other"]))
            for r in _vectors()}
    shared = list(csv.DictReader(path.open(encoding="utf-8")))
    assert shared
    for row in shared:
        size, value = int(row["table_size"]), int(row["declarer_list_value"])
        want = (int(row["declarer_total"]), int(row["each_other_player"]))
        assert seeger_fabian(value, value > 0, size) == want, row
        assert ours.get((size, value), want) == want, row
    assert {(int(r["table_size"]), int(r["declarer_list_value"])) for r in shared} <= set(ours)


def test_scoring_names() -> None:
    assert parse_scoring("Seeger_Fabian") == "seeger-fabian"
    assert parse_scoring("list") == "list"
    with pytest.raises(ScoringError, match="unknown scoring 'fabian'"):
        parse_scoring("fabian")
    with pytest.raises(ValueError):
        seeger_fabian(18, True, 5)


# ---------------------------------------------------------------- the club's log
Totals = dict[str, dict[str, dict[str, int]]]  # scoring -> session -> player -> total


def _sessions() -> tuple[list[str], Totals]:
    """skatlog/1 lines of the two sessions, and their totals summed hand by hand."""
    lines: list[str] = []
    totals: Totals = {"list": {}, "seeger-fabian": {}}
    bots = (RandomPlayer(step_bids=True),) * 3
    for session, table in TABLES.items():
        rng = random.Random(len(table))
        size = len(table)
        for scoring in totals:
            totals[scoring][session] = dict.fromkeys(table, 0)
        for hand in range(12):
            # three players: the dealer is Rearhand; four: the dealer sits out
            dealer = hand % size
            names = tuple(table[(dealer + 1 + i) % size] for i in range(3))
            record = play_hand(seeded_deal(1000 * size + hand), bots, rng)
            meta = GameMeta(players=(names[0], names[1], names[2]), record_id=f"{session}-{hand}",
                            session_id=session, hand_no=hand + 1, club=CLUB,
                            dealer=2 if size == 3 else None)
            lines.append(json.dumps(game_object(record, meta)))
            result = record.result
            if result.declarer is None:
                continue
            declarer = names[result.declarer]
            totals["list"][session][declarer] += result.value
            own, other = seeger_fabian(result.value, bool(result.won), size)
            for name in table:
                totals["seeger-fabian"][session][name] += own if name == declarer else other
    return lines, totals


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Totals]:
    """(the log, the archive it was ingested into, the expected totals)."""
    root = tmp_path_factory.mktemp("sf-surfaces")
    lines, totals = _sessions()
    log = root / "club.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    archive = root / "archive"
    result = CliRunner().invoke(app, ["ingest", str(log), "--archive", str(archive), "-q"])
    assert result.exit_code == 0, result.output
    return log, archive, totals


def test_the_log_has_lost_games_at_both_tables(club: tuple[Path, Path, Totals]) -> None:
    """Otherwise the +40/+30 to the other players would go untested."""
    _, archive, totals = club
    lost = dict(connect(archive).execute(
        "SELECT session_id, count_if(NOT won) FROM games GROUP BY ALL").fetchall())
    assert lost["t3"] > 0 and lost["t4"] > 0
    assert totals["list"] != totals["seeger-fabian"]


def _winners(totals: dict[str, int]) -> list[str]:
    best = max(totals.values())
    return sorted(p for p, t in totals.items() if t == best)


@pytest.mark.parametrize("scoring", ["list", "seeger-fabian"])
def test_sessions_view_totals(club: tuple[Path, Path, Totals], scoring: str) -> None:
    _, archive, totals = club
    con = open_archive(archive, scoring=parse_scoring(scoring))
    rows = con.execute("SELECT session_id, players, totals, winners, table_size, scoring, hands"
                       " FROM sessions ORDER BY session_id").fetchall()
    assert [r[0] for r in rows] == ["t3", "t4"]
    for sid, players, got, winners, size, named, hands in rows:
        want = totals[scoring][sid]
        assert dict(zip(players, got, strict=True)) == want
        assert winners == _winners(want)
        assert (size, named, hands) == (len(TABLES[sid]), scoring, 12)
    frame = lazy_frames(archive, parse_scoring(scoring))["sessions"].sort("session_id").collect()
    assert frame.columns == [c[0] for c in con.execute("DESCRIBE sessions").fetchall()]
    assert frame.select("session_id", "players", "totals", "winners", "table_size",
                        "scoring", "hands").rows() == [tuple(r) for r in rows]


def test_the_default_is_list_points(club: tuple[Path, Path, Totals]) -> None:
    _, archive, totals = club
    con = open_archive(archive)
    rows = con.execute("SELECT session_id, players, totals, scoring FROM sessions").fetchall()
    assert {sid: dict(zip(p, t, strict=True)) for sid, p, t, _ in rows} == totals["list"]
    assert {r[3] for r in rows} == {"list"}


def test_seeger_fabian_is_null_at_a_table_of_five(tmp_path: Path) -> None:
    """Seeger-Fabian has no rule for five players: the view says so instead of guessing."""
    con = open_archive(tmp_path / "empty", scoring="seeger-fabian")
    con.execute("""CREATE OR REPLACE VIEW games AS SELECT * FROM (VALUES
        ('s', 'log', 'played', 'A', 'B', 'C', 'A', true, 24, TIMESTAMP '2026-01-01',
         NULL::SMALLINT[]),
        ('s', 'log', 'played', 'D', 'E', 'A', 'D', false, -48, TIMESTAMP '2026-01-01',
         NULL::SMALLINT[]))
        t(session_id, origin, outcome, forehand, middlehand, rearhand, declarer_name, won,
          value, played_at, ramsch_values)""")
    from skatlog.analytics.views import sessions_sql
    (size, got, winners), = con.execute(
        f"SELECT table_size, totals, winners FROM ({sessions_sql('seeger-fabian')})").fetchall()
    assert size == 5 and got == [None] * 5 and winners is None
    (got,), = con.execute(f"SELECT totals FROM ({sessions_sql('list')})").fetchall()
    assert got == [24, 0, 0, -48, 0]


def test_player_table_counts_ramsch_values_as_plain_points(tmp_path: Path) -> None:
    """A Ramsch hand (R20) has no declarer: each seat's value counts as it is under both
    scorings, and the defenders' +40 is only for declared games lost."""
    from skatlog.analytics.stats import register_wilson

    con = open_archive(tmp_path / "empty")
    register_wilson(con)
    con.execute("""CREATE OR REPLACE VIEW games AS SELECT * FROM (VALUES
        ('s', 'c', 'played', 'A', 'B', 'C', 0, true, 24, NULL::SMALLINT[]),
        ('s', 'c', 'ramsch', 'B', 'C', 'A', NULL, NULL, 0, [-45, 0, 0]::SMALLINT[]),
        ('s', 'c', 'played', 'C', 'A', 'B', 0, false, -48, NULL::SMALLINT[]))
        t(session_id, club, outcome, forehand, middlehand, rearhand, declarer, won, value,
          ramsch_values)""")
    got = {name: dict(player_table(con, by="session", scoring=parse_scoring(name))
                      .select("player", "points").rows())
           for name in ("list", "seeger-fabian")}
    assert got == {"list": {"A": 24, "B": -45, "C": -48},
                   "seeger-fabian": {"A": 24 + 50 + 40, "B": -45 + 40, "C": -48 - 50}}


def _query(archive: Path, *options: str) -> list[dict[str, object]]:
    result = CliRunner().invoke(app, [
        "query", "SELECT session_id, players, totals, winners, scoring FROM sessions "
        "ORDER BY session_id", "--archive", str(archive), "--format", "json", *options])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_query_cli_scoring(club: tuple[Path, Path, Totals]) -> None:
    _, archive, totals = club
    for options, scoring in (((), "list"), (("--scoring", "list"), "list"),
                             (("--scoring", "seeger-fabian"), "seeger-fabian")):
        rows = _query(archive, *options)
        got = {str(r["session_id"]): dict(zip(r["players"], r["totals"], strict=True))  # type: ignore[call-overload]
               for r in rows}
        assert got == totals[scoring], options
        assert {r["scoring"] for r in rows} == {scoring}
    bad = CliRunner().invoke(app, ["query", "SELECT 1", "--archive", str(archive),
                                   "--scoring", "fabian"])
    assert bad.exit_code == 2
    assert "unknown scoring 'fabian'" in bad.output and "Traceback" not in bad.output


def test_player_and_session_helpers(club: tuple[Path, Path, Totals]) -> None:
    _, archive, totals = club
    con = connect(archive)
    for name in ("list", "seeger-fabian"):
        scoring = parse_scoring(name)
        table = player_table(con, by="session", scoring=scoring)
        got = {(r["session_id"], r["player"]): r["points"] for r in table.iter_rows(named=True)}
        want = {(sid, p): t for sid, per in totals[scoring].items() for p, t in per.items()}
        assert got == want
        assert table["points"].to_list() == table[
            "list_points" if scoring == "list" else "seeger_fabian"].to_list()
        at_four = table.filter(pl.col("session_id") == "t4")
        assert at_four["hands"].to_list() == [9] * 4  # each deals three times and sits out
        assert at_four["sat_out"].to_list() == [3] * 4
        assert table.filter(pl.col("session_id") == "t3")["sat_out"].sum() == 0
        overall = player_table(con, scoring=scoring)
        assert dict(overall.select("player", "points").rows()) == {
            p: t for per in totals[scoring].values() for p, t in per.items()}
        sessions = session_table(con, "session_id = 't4'", scoring)
        assert sessions["session_id"].to_list() == ["t4"]
        assert dict(zip(sessions["players"][0], sessions["totals"][0], strict=True)) == \
            totals[scoring]["t4"]


# ---------------------------------------------------------------- report and web pages
_CELL = re.compile(r'<td[^>]*data-col="([^"]+)">([^<]*)</td>')


def _table(html: str, table_id: str) -> list[dict[str, str]]:
    body = html.split(f'id="{table_id}"', 1)[1].split("</table>", 1)[0]
    rows = []
    for row in body.split("<tr>")[2:]:
        rows.append({c: v.replace("&#x27;", "'") for c, v in _CELL.findall(row)})
    return rows


def _number(text: str) -> int:
    return int(text.replace(",", ""))


def _check_players_page(html: str, totals: Totals, scoring: str) -> None:
    """The page's totals are the expected ones, under the scoring it was built with."""
    players = {r["player"]: r for r in _table(html, "t-players")}
    everyone = {p: t for per in totals[scoring].values() for p, t in per.items()}
    points = "list_points" if scoring == "list" else "seeger_fabian"
    assert {p: _number(r[points]) for p, r in players.items()} == everyone
    assert {p: _number(r["list_points"]) for p, r in players.items()} == {
        p: t for per in totals["list"].values() for p, t in per.items()}
    assert ("seeger_fabian" in next(iter(players.values()))) == (scoring == "seeger-fabian")
    sessions = {r["session_id"]: r for r in _table(html, "t-session-totals")}
    for sid, per in totals[scoring].items():
        cell = sessions[sid]["totals"]
        assert cell == " · ".join(f"{p} {t:,}" for p, t in sorted(per.items()))
        assert sessions[sid]["winners"] == ", ".join(_winners(per))
        assert _number(sessions[sid]["table_size"]) == len(TABLES[sid])
    label = "Seeger-Fabian points" if scoring == "seeger-fabian" else "list points"
    assert f"Sessions (the first 2 sessions): {label}" in html
    assert ("+30 at a 4-player table" in html) == (scoring == "seeger-fabian")


@pytest.mark.parametrize("scoring", ["list", "seeger-fabian"])
def test_report_cli_scoring(club: tuple[Path, Path, Totals], tmp_path: Path,
                            scoring: str) -> None:
    _, archive, totals = club
    out = tmp_path / "report"
    options = [] if scoring == "list" else ["--scoring", scoring]
    result = CliRunner().invoke(app, ["report", "--archive", str(archive), "--out", str(out),
                                      "--no-progress", *options])
    assert result.exit_code == 0, result.output
    pages = list(out.glob("*/players.html"))
    assert len(pages) == 1
    _check_players_page(pages[0].read_text(encoding="utf-8"), totals, scoring)
    assert f"(--scoring {scoring})" in (out / "index.html").read_text(encoding="utf-8")


def test_report_cli_refuses_an_unknown_scoring(club: tuple[Path, Path, Totals],
                                               tmp_path: Path) -> None:
    _, archive, _ = club
    result = CliRunner().invoke(app, ["report", "--archive", str(archive), "--out",
                                      str(tmp_path / "r"), "--scoring", "bierlachs"])
    assert result.exit_code == 2 and "unknown scoring 'bierlachs'" in result.output
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("scoring", ["list", "seeger-fabian"])
def test_web_club_pages_scoring(club: tuple[Path, Path, Totals], tmp_path: Path,
                                scoring: str) -> None:
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from skatlog.web.app import create_app
    from skatlog.web.clubs import ClubStore
    from skatlog.web.settings import WebSettings

    log, _, totals = club
    token = ClubStore(tmp_path).add("grand-hand")
    client = TestClient(create_app(WebSettings(archive=tmp_path, scoring=scoring)))
    auth = {"Authorization": f"Bearer {token}"}
    upload = client.post("/api/uploads", files={"file": ("club.jsonl", log.read_bytes())},
                         headers=auth)
    assert upload.status_code == 200, upload.text
    assert upload.json()["stored"] == 24
    index = client.get("/reports/grand-hand/", headers=auth)
    assert index.status_code == 200
    link = re.search(r'href="([^"]+/players\.html)"', index.text)
    assert link is not None
    page = client.get(f"/reports/grand-hand/{link.group(1)}", headers=auth)
    assert page.status_code == 200
    _check_players_page(page.text, totals, scoring)


def test_serve_refuses_an_unknown_scoring(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["serve", "--archive", str(tmp_path), "--scoring", "x"])
    assert result.exit_code == 2 and "unknown scoring 'x'" in result.output
    pytest.importorskip("fastapi")
    from skatlog.web.app import create_app
    from skatlog.web.settings import WebSettings

    with pytest.raises(ScoringError):  # at start-up, not at a club's first page
        create_app(WebSettings(archive=tmp_path, scoring="bierlachs"))
