"""The web app's games carry "Could it have been won?" once ``skatlog analyze`` solved them
(issue 16): the best-play verdict, the deciding card and the report's sentence."""

from __future__ import annotations

from pathlib import Path

from skatlog.analytics.analysis import analyse_archive
from skatlog.analytics.synthetic import write_sessions
from skatlog.web.backend import list_games


def test_an_analysed_game_has_its_could_it_have_been_won_line(tmp_path: Path) -> None:
    archive = tmp_path / "club"
    write_sessions(archive, 2, 3, origin="log", club="Pik & Co")
    before, _ = list_games({"pik": archive}, 500, 0)
    assert before and all("could_it_have_been_won" not in g for g in before)
    analysed = analyse_archive(archive, where="hand_no <= 3")
    assert analysed.analysed > 0
    rows, total = list_games({"pik": archive}, 500, 0)
    assert total == len(before)
    solved = [g for g in rows if "could_it_have_been_won" in g]
    assert len(solved) == analysed.analysed
    for game in solved:
        verdict = game["could_it_have_been_won"]
        assert isinstance(verdict["dd_won"], bool)
        line = verdict["line"]
        if game["won"] and verdict["dd_won"]:
            assert line.startswith("won; best defence could not have beaten it")
        elif game["won"]:
            assert line.startswith("won; best defence would have beaten it")
        elif verdict["dd_won"]:
            assert line.startswith("lost; best play would have won it")
        else:
            assert line.startswith("lost; it could not have been won")
        first = verdict["first_change"]
        if first is not None:
            assert f"trick {first['trick']}, seat {first['seat']}, {first['card']}" in line
            assert 1 <= first["trick"] <= 10 and first["seat"] in (0, 1, 2)
