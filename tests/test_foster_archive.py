"""Foster hands in skatlog/1 and the archive: parse -> write -> parse is lossless, and a
sitting of four players over whole rounds goes from a skatlog/1 file through ingest to the
sessions view's totals (the engine's Sitting), and back out through export."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skatlog.analytics.views import lazy_frames, open_archive
from skatlog.engine import GameRecord
from skatlog.engine.foster import Sitting
from skatlog.ingest.export import ExportError, export_archive
from skatlog.ingest.jsonl import write_jsonl
from skatlog.ingest.model import GameMeta, LogGame
from skatlog.ingest.pipeline import ingest_paths
from skatlog.ingest.validate import validate_text

from .test_foster import _random_hand

SCHEMA = json.loads((Path(__file__).parent.parent / "docs" / "skatlog-1.schema.json")
                    .read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
NAMES = ("Anna", "Ben", "Clara", "Dora")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=2**63 - 1))
def test_foster_records_parse_write_parse_losslessly(seed: int) -> None:
    record = GameRecord.from_state(_random_hand(seed))
    line = write_jsonl(LogGame("f.jsonl", 1, "", "jsonl", record=record))
    VALIDATOR.validate(json.loads(line))
    game = validate_text(line)[0]
    assert game.ok and game.record is not None, game.errors
    assert game.value_check in ("ok", "not_recorded")
    assert game.record.moves == record.moves and game.record.result == record.result
    assert write_jsonl(game) == line


def test_a_wrong_foster_value_and_foster_moves_elsewhere_are_reported() -> None:
    record = GameRecord.from_state(_random_hand(3))
    obj = json.loads(write_jsonl(LogGame("f.jsonl", 1, "", "jsonl", record=record)))
    while obj["result"].get("value") is None:  # a game, not a Ramsch
        record = GameRecord.from_state(_random_hand(len(obj["tricks"]) + 100))
        obj = json.loads(write_jsonl(LogGame("f.jsonl", 1, "", "jsonl", record=record)))
    wrong = dict(obj, result=dict(obj["result"], value=obj["result"]["value"] + 1))
    assert [e.code for e in validate_text(json.dumps(wrong))[0].errors] == ["score_mismatch"]
    if "game" in obj:
        errors = validate_text(json.dumps(dict(obj, rules="isko")))[0].errors
        assert errors[0].code == "syntax" and '"rules": "foster"' in errors[0].message


def test_a_four_player_sitting_goes_through_ingest_to_the_sessions_view(tmp_path: Path) -> None:
    sitting = Sitting(NAMES)
    lines = []
    seed = 0
    while not (sitting.complete and sitting.deals >= 2 * len(NAMES)):
        hand = _random_hand(seed)
        seed += 1
        record = GameRecord.from_state(hand)
        active = sitting.active()
        assert sitting.dealer not in active  # F1: the dealer sits out at four
        meta = GameMeta(players=(NAMES[active[0]], NAMES[active[1]], NAMES[active[2]]),
                        session_id="foster-1", hand_no=sitting.deals + 1)
        lines.append(write_jsonl(LogGame("s.jsonl", 1, "", "jsonl", meta=meta, record=record),
                                 result="computed"))
        sitting.enter(record.result.seat_values)
    log = tmp_path / "sitting.jsonl"
    log.write_text("\n".join(lines) + "\n")
    archive = tmp_path / "archive"
    summary = ingest_paths([log], archive, progress=False)
    assert summary.stored == len(lines) and summary.rejected == 0
    con = open_archive(archive)
    contracts = {c for (c,) in con.execute("SELECT DISTINCT contract FROM games").fetchall()}
    assert contracts <= {"ramsch", *(f"{k}" for k in (
        "tournee_diamonds", "tournee_hearts", "tournee_spades", "tournee_clubs",
        "turned_grand", "gucki_grand", "solo_diamonds", "solo_hearts", "solo_spades",
        "solo_clubs", "solo_grand", "open_grand", "gucki_nullo", "open_gucki_nullo",
        "solo_nullo", "open_solo_nullo"))} | {f"passt_mir_nicht_{s}" for s in (
        "diamonds", "hearts", "spades", "clubs", "grand")}
    assert con.execute("SELECT DISTINCT rules FROM games").fetchall() == [("foster",)]
    players, totals, size = con.execute(
        "SELECT players, totals, table_size FROM sessions").fetchone()
    assert size == 4
    expected = dict(zip(NAMES, sitting.scores, strict=True))
    assert dict(zip(players, totals, strict=True)) == expected
    frame = lazy_frames(archive)["sessions"].collect()
    assert dict(zip(frame["players"][0], frame["totals"][0], strict=True)) == expected
    settled = dict(zip(NAMES, sitting.settlement(), strict=True))
    assert sum(settled.values()) == 0
    out = tmp_path / "back.jsonl"
    export_archive(archive, out, "jsonl")
    back = sorted(out.read_text().splitlines(), key=lambda t: json.loads(t)["session"]["hand"])
    assert back == lines
    with pytest.raises(ExportError, match="cannot carry"):  # ISS has no Foster moves
        export_archive(archive, tmp_path / "back.sgf", "iss")
    assert not (tmp_path / "back.sgf").exists()
