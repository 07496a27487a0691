"""The "Could it have been won?" figures and report page, from ``skatlog analyze``'s table."""

from __future__ import annotations

from pathlib import Path

from skatlog.analytics.analysis import analyse_archive
from skatlog.analytics.could_win import could_win
from skatlog.analytics.views import open_archive
from skatlog.reports.build import build_report
from skatlog.simulation import SimulationOptions, simulate_to_archive


def test_could_win_counts_and_page(tmp_path: Path) -> None:
    archive = tmp_path / "a"
    simulate_to_archive(archive, SimulationOptions(hands=8, seed=24))  # light hands
    con = open_archive(archive)
    assert could_win(con).height == 0
    analyse_archive(archive)
    con = open_archive(archive)
    frame = could_win(con)
    rows = con.execute("SELECT g.won, a.dd_won FROM games g JOIN analysis a USING (game_id)"
                       ).fetchall()
    assert int(frame["analysed"].sum()) == len(rows)
    assert int(frame["lost_winnable"].sum()) == sum(1 for w, d in rows if not w and d)
    assert int(frame["won_beatable"].sum()) == sum(1 for w, d in rows if w and not d)
    out = tmp_path / "report"
    build_report(archive, out)
    page = next(out.glob("*/could-win.html")).read_text()
    assert "Could it have been won?" in page and 't-could-win' in page
