"""Fuzzing: mutated and random records never raise anything but typed errors-as-data.

Both readers return problems as GameError data; the whole pipeline (cutting text into
records, reading, replaying) must never let another exception escape.
"""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skatlog.ingest.iss import read_iss
from skatlog.ingest.jsonl import read_jsonl
from skatlog.ingest.model import ERROR_CODES
from skatlog.ingest.validate import validate_text

SLOW_OK = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
SHARED_LINES: list[str] = []
JSON_LINES: list[str] = []
ISS_PIECES = ["(;", ";)", "[", "]", "\\]", "MV", "R", " w ", " 0 ", " 1 ", " 2 ", "??", " s ",
              " RE", " SC", "TI.", "LE.", ".", " p", " y", " 18", " 171", "GO", "NOH", "CJ",
              "D.ST.H8", "#", "\n", "d:-1", "v:", "passed", "penalty", "|", "\u00b2", "1\u0661"]
JSON_PIECES = ['"', "{", "}", "[", "]", ",", ":", "null", "true", "0", "2", "-1", '"hold"',
               '"pass"', '"auction"', '"tricks"', '"at"', '"deal"', '"??"', "1e999", "[[[["]


def lines(iss_dir: Path) -> list[str]:
    if not SHARED_LINES:
        for path in sorted(iss_dir.glob("*.sgf")):
            SHARED_LINES.extend(path.read_text().splitlines())
    return SHARED_LINES


@st.composite
def mutated(draw: st.DrawFn, base: str, pieces: list[str]) -> str:
    text = base
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["delete", "insert", "replace", "duplicate", "truncate"]))
        at = draw(st.integers(0, len(text)))
        end = draw(st.integers(at, min(len(text), at + 40)))
        if op == "delete":
            text = text[:at] + text[end:]
        elif op == "insert":
            piece = draw(st.sampled_from(pieces) | st.text(max_size=5))
            text = text[:at] + piece + text[at:]
        elif op == "replace":
            text = text[:at] + draw(st.text(max_size=3)) + text[end:]
        elif op == "duplicate":
            text = text[:end] + text[at:end] + text[end:]
        else:
            text = text[:at]
    return text


def check(games_text: str, fmt: str = "auto") -> None:
    for game in validate_text(games_text, source="fuzz", fmt=fmt):
        for error in game.errors:
            assert error.code in ERROR_CODES
            assert error.line >= 1 and error.message
        if not game.errors:
            assert game.record is not None


@settings(max_examples=400, deadline=None, suppress_health_check=SLOW_OK)
@given(data=st.data())
def test_mutated_iss_records(iss_dir: Path, data: st.DataObject) -> None:
    base = data.draw(st.sampled_from(lines(iss_dir)))
    text = data.draw(mutated(base, ISS_PIECES))
    parsed = read_iss(text)
    assert all(e.code in ERROR_CODES for e in parsed.errors)
    check(text, "iss")
    check(text)


@settings(max_examples=300, deadline=None, suppress_health_check=SLOW_OK)
@given(data=st.data())
def test_mutated_jsonl_records(iss_dir: Path, data: st.DataObject) -> None:
    from skatlog.ingest.jsonl import write_jsonl

    if not JSON_LINES:
        JSON_LINES.extend(write_jsonl(g) for g in validate_text("\n".join(lines(iss_dir)))
                          if g.ok)
    base = data.draw(st.sampled_from(JSON_LINES))
    text = data.draw(mutated(base, JSON_PIECES))
    parsed = read_jsonl(text)
    assert all(e.code in ERROR_CODES for e in parsed.errors)
    check(text, "jsonl")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=4),
    max_leaves=20)
keys = st.sampled_from(["format", "deal", "auction", "declarer", "skat", "declaration",
                        "discard", "tricks", "concessions", "result", "players", "session",
                        "date", "dealer", "tags", "rules", "declared_first"])


@settings(max_examples=300, deadline=None)
@given(obj=st.dictionaries(keys, json_values, max_size=8))
def test_random_json_objects(obj: dict) -> None:
    obj["format"] = "skatlog/1"
    check(json.dumps(obj), "jsonl")


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=300) | st.lists(st.sampled_from(ISS_PIECES)).map("".join))
def test_random_text(text: str) -> None:
    check(text)
    check(text, "iss")
    check(text, "jsonl")
