"""skatlog/1 JSON Lines: write -> read is lossless, lines match the JSON Schema, errors are data."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skatlog.engine import (
    RandomPlayer,
    play_session,
)
from skatlog.ingest.jsonl import read_jsonl, write_jsonl
from skatlog.ingest.model import GameMeta, LogGame
from skatlog.ingest.validate import iter_log_games, replay_parsed, validate_text

from .enginekit import random_record

SCHEMA = json.loads((Path(__file__).parent.parent / "docs" / "skatlog-1.schema.json")
                    .read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def reread(line: str) -> LogGame:
    VALIDATOR.validate(json.loads(line))
    game = replay_parsed(read_jsonl(line))
    assert game.ok, (line, game.errors)
    return game


def same_game(a: LogGame, b: LogGame) -> None:
    assert a.record is not None and b.record is not None
    assert (a.record.deal, a.record.moves, a.record.recorded) == (b.record.deal,
                                                                  b.record.moves,
                                                                  b.record.recorded)
    assert a.record.result == b.record.result
    assert a.meta == b.meta
    assert a.recorded == b.recorded


def test_schema_is_a_valid_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def test_iss_records_round_trip_through_jsonl(iss_dir: Path) -> None:
    count = 0
    for game in iter_log_games([iss_dir]):
        if not game.ok:
            continue
        line = write_jsonl(game)
        again = reread(line)
        same_game(game, again)
        assert again.value_check == game.value_check
        assert again.extra.get("tags") == game.extra["tags"]
        assert json.loads(line)["rules"] == "isko+iss"  # R17 early endings survive the trip
        assert write_jsonl(again) == line
        count += 1
    assert count == 25


names = st.text(max_size=12)
zones = st.sampled_from([UTC, timezone(timedelta(hours=1)), timezone(timedelta(hours=-5))])
dates = st.builds(lambda d, z: d.replace(tzinfo=z),
                  st.datetimes(min_value=datetime(1990, 1, 1),
                               max_value=datetime(2100, 1, 1)), zones)
metas = st.builds(
    GameMeta, players=st.tuples(names, names, names), played_at=st.none() | dates,
    record_id=names, session_id=names, hand_no=st.none() | st.integers(1, 12), club=names,
    table=names, dealer=st.none() | st.integers(0, 2))


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32), meta=metas,
       result=st.sampled_from(["computed", "none"]),
       tags=st.dictionaries(st.text(max_size=4), st.text(max_size=6), max_size=2))
def test_engine_games_round_trip(seed: int, meta: GameMeta, result: str,
                                 tags: dict[str, str]) -> None:
    record = random_record(seed)
    game = LogGame(source="", line=1, raw="", format="jsonl", meta=meta, record=record,
                   extra={"tags": tags} if tags else {})
    line = write_jsonl(game, result=result)
    assert "\n" not in line
    again = reread(line)
    same_game(LogGame(source="", line=1, raw="", format="jsonl", meta=meta, record=record,
                      recorded=again.recorded), again)
    assert again.extra.get("tags", {}) == tags
    if result == "computed":
        assert again.value_check == "ok"
    else:
        assert again.recorded is None and again.value_check == "not_recorded"


def test_a_twelve_hand_session() -> None:
    session = play_session(["Anna", "Ben", "Clara"], (RandomPlayer(step_bids=True),) * 3, 5)
    lines = []
    for hand in session.hands:
        names = tuple(session.players[p] for p in hand.seats)
        meta = GameMeta(players=names, session_id="s-5", hand_no=hand.number, club="SF 1990",
                        table="2", dealer=2)  # type: ignore[arg-type]
        lines.append(write_jsonl(LogGame(source="", line=0, raw="", format="jsonl",
                                         meta=meta, record=hand.record)))
    games = validate_text("\n".join(lines), source="s.jsonl")
    assert [g.meta.hand_no for g in games] == list(range(1, 13))
    assert all(g.ok and g.value_check == "ok" for g in games)
    assert [g.record.result.value for g in games] == [  # type: ignore[union-attr]
        h.record.result.value for h in session.hands]


def valid_line() -> dict:
    record = next(r for r in map(lambda s: random_record(s, False), range(100))
                  if r.result.outcome == "played")
    return json.loads(write_jsonl(LogGame(source="", line=0, raw="", format="jsonl",
                                          record=record)))


@pytest.mark.parametrize("change, code", [
    (lambda o: o.pop("deal"), "syntax"),
    (lambda o: o.update(format="skatlog/2"), "syntax"),
    (lambda o: o["deal"].update(skat=o["deal"]["forehand"][:5]), "bad_deal"),
    (lambda o: o["deal"].update(skat="??.??"), "corrupt_card"),
    (lambda o: o["auction"].insert(0, [2, 18]), "wrong_player"),
    (lambda o: o["auction"].__setitem__(0, [o["auction"][0][0], 19]), "illegal_bid"),
    (lambda o: o.update(session={"id": "x", "hand": 13}), "syntax"),
    (lambda o: o.update(concessions=[{"type": "sulk", "seat": 0, "at": 0}]), "syntax"),
    (lambda o: o.update(tricks=[]), "truncated"),
])
def test_errors_are_data(change, code: str) -> None:  # type: ignore[no-untyped-def]
    obj = valid_line()
    change(obj)
    text = "\n" + json.dumps(obj)
    (game,) = validate_text(text, source="x.jsonl")
    assert not game.ok
    assert game.errors[0].code == code and game.errors[0].line == 2


def test_not_json_is_a_syntax_error() -> None:
    (game,) = validate_text('{"format": "skatlog/1", "deal": ', fmt="jsonl")
    assert [e.code for e in game.errors] == ["syntax"]


DOC = Path(__file__).parent.parent / "docs" / "skatlog-format.md"


def doc_example() -> dict:
    """The example line of docs/skatlog-format.md (shown there over several lines)."""
    import re

    found = re.search(r"## Example\n\n```json\n(.*?)\n```", DOC.read_text(), re.S)
    assert found is not None, "docs/skatlog-format.md has no example block"
    return json.loads(found.group(1))


def test_the_documented_example_is_valid() -> None:
    obj = doc_example()
    VALIDATOR.validate(obj)
    (game,) = validate_text(json.dumps(obj), source="example.jsonl", fmt="jsonl")
    assert game.errors == () and game.ok
    assert game.value_check == "ok" and game.record is not None
    assert game.record.result.value == obj["result"]["value"] == 30


@pytest.mark.parametrize("path, value", [
    ("later_field", 1), ("session.later", 1), ("deal.later", 1), ("declaration.later", 1),
    ("tricks.later", 1), ("concessions.later", 1), ("result.later", 1),
    ("result.matadors", 12), ("result.declarer_points", 130), ("result.declarer_tricks", 11),
    ("result.raw", None), ("result.passed", None), ("result.penalty", None),
    ("tags.hand", "7"),
])
def test_the_schema_accepts_what_the_reader_accepts(path: str, value: object) -> None:
    """Unknown fields anywhere and the recorded result's numbers as a source wrote them:
    the reader reads them, and the schema allows them too (docs/skatlog-format.md lists
    where the two differ; these are not among them)."""
    obj = doc_example()
    *parents, key = path.split(".")
    node = obj
    for part in parents:
        node = node.setdefault(part, {})
        node = node[0] if isinstance(node, list) else node
    node[key] = value
    VALIDATOR.validate(obj)
    game = replay_parsed(read_jsonl(json.dumps(obj)))
    assert game.ok, game.errors


def test_simulated_hands_carry_their_tags_and_fit_the_schema() -> None:
    from skatlog.engine.batch import simulate_batch
    from skatlog.simulation import SimulationOptions, log_games

    options = SimulationOptions(hands=14, seed=3, bots=("rules", "random", "rules"),
                                sessions=True)
    games = list(log_games(simulate_batch(3, 0, 14, options.bots), options))
    for index, game in enumerate(games):
        obj = json.loads(write_jsonl(game, result="computed"))  # type: ignore[arg-type]
        VALIDATOR.validate(obj)
        assert obj["id"] == f"sim-3-{index}"
        assert obj["session"] == {"id": f"sim-3-{index // 12}", "hand": index % 12 + 1}
        dealer = index % 3
        assert obj["tags"] == {"seed": "3", "hand": str(index), "sessions": "1",
                               "bots": ",".join(options.bots[(dealer + 1 + s) % 3]
                                                for s in range(3))}


@pytest.mark.parametrize("date", ["2026-10-06T19:00:00", "2026-10-06", "2026-10-06T19:00:00.250"])
def test_a_date_without_utc_offset_is_written_back_as_the_log_wrote_it(
        tmp_path: Path, date: str) -> None:
    """Stored as if UTC (the archive's column is UTC), with the text kept: export writes the
    date the log had, not an invented +00:00, and ingesting that again finds the game."""
    from skatlog.ingest.export import export_archive
    from skatlog.ingest.pipeline import ingest_paths

    record = random_record(5)
    line = json.loads(write_jsonl(LogGame("x", 1, "", "jsonl", meta=GameMeta(
        ("a", "b", "c"), record_id="g1"), record=record)))
    line["date"] = date
    log = tmp_path / "one.jsonl"
    log.write_text(json.dumps(line) + "\n")
    game = next(iter(iter_log_games([log])))
    assert game.ok and game.extra["date"] == date
    assert game.meta.played_at == datetime.fromisoformat(date)
    assert ingest_paths([log], tmp_path / "arc", progress=False).stored == 1
    out = tmp_path / "back.jsonl"
    export_archive(tmp_path / "arc", out, "jsonl")
    assert json.loads(out.read_text())["date"] == date
    assert ingest_paths([out], tmp_path / "arc", progress=False).duplicates == 1
    aware = dict(line, date="2026-10-06T19:00:00+02:00")  # an offset: no text kept
    log.write_text(json.dumps(aware) + "\n")
    assert "date" not in next(iter(iter_log_games([log]))).extra


def test_rules_field_reads_old_and_new_spellings_and_refuses_unknown() -> None:
    """``rules`` is NAME[+OPTION]; the older "skatlog"/"iss" still read; others are errors."""
    from skatlog.engine import ISKO, ISKO_ISS
    from skatlog.ingest.jsonl import read_jsonl

    base = {"format": "skatlog/1", "deal": {
        "forehand": "CJ.SJ.HJ.DJ.CA.CT.CK.CQ.H7.H8", "middlehand": "C9.C8.HA.HT.HK.HQ.H9.SA.ST.SK",
        "rearhand": "C7.SQ.S9.S8.S7.DA.DT.DK.DQ.D9", "skat": "D7.D8"}, "auction": []}
    for spelling, rules in (("isko", ISKO), ("skatlog", ISKO), ("iss", ISKO_ISS),
                            ("isko+iss", ISKO_ISS), (None, ISKO)):
        obj = dict(base, rules=spelling) if spelling else base
        parsed = read_jsonl(json.dumps(obj), source="x.jsonl")
        assert parsed.rules == rules and not parsed.errors, spelling
    for bad in ("isko+turbo", "ramschpoker", "isko++iss", "isko+iss+iss"):
        parsed = read_jsonl(json.dumps(dict(base, rules=bad)), source="x.jsonl")
        assert [e.code for e in parsed.errors] == ["syntax"], bad
        assert '"rules"' in parsed.errors[0].message
