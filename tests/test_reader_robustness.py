"""Issue 17, item 8: what the attacker broke in the readers.

* A bid of thousands of digits is a syntax error of its record (``int()`` refuses more
  than 4,300 digits; the ValueError used to abort the whole file).
* Lines end at ``\\n`` only, as editors and grep count them: a lone CR, a form feed,
  U+2028 and the other characters ``str.splitlines()`` breaks at are characters of the
  line, on the reference path (files and text) and on the compiled path alike.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skatlog.ingest.fast.runner import iter_validation_json
from skatlog.ingest.validate import iter_log_games, validate_text

SAMPLES = Path(__file__).resolve().parents[1] / "data" / "samples"
#: What ``str.splitlines()`` splits at besides \n and \r\n (and the lone CR of text mode).
ODD_BREAKS = ["\r", "\f", "\v", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]


def _iss_records(count: int = 3) -> list[str]:
    lines = (SAMPLES / "skatfreunde-nord.sgf").read_text(encoding="utf-8").split("\n")
    records = [line for line in lines if line.startswith("(;")][:count]
    assert len(records) == count and " 1 18 " in records[0]
    return records


def _verdicts(games: object) -> list[tuple[int, bool, str | None]]:
    return [(g.line, g.ok, g.errors[0].code if g.errors else None)  # type: ignore[attr-defined]
            for g in games]  # type: ignore[attr-defined]


def _every_path(tmp_path: Path, text: str, suffix: str = ".sgf"
                ) -> dict[str, list[tuple[int, bool, str | None]]]:
    """The verdicts on ``text`` read from a file, from memory and (ISS) by the compiled path."""
    log = tmp_path / f"log{suffix}"
    log.write_bytes(text.encode("utf-8"))
    out = {"file": _verdicts(iter_log_games([log])),
           "text": _verdicts(validate_text(text, str(log)))}
    if suffix == ".sgf":
        out["compiled"] = [(o["line"], o["ok"], o["errors"][0]["code"] if o["errors"] else None)
                           for o in iter_validation_json(log, workers=1)]
    return out


@pytest.mark.parametrize("digits", [5000, 10])
def test_an_overlong_bid_is_a_syntax_error_of_its_record_only(tmp_path: Path, digits: int
                                                              ) -> None:
    first, second, third = _iss_records()
    bad = second.replace(" 2 18 ", f" 2 {'1' * digits} ", 1)
    assert bad != second
    paths = _every_path(tmp_path, "\n".join([first, bad, third]) + "\n")
    for verdicts in paths.values():
        assert verdicts == [(1, True, None), (2, False, "syntax"), (3, True, None)]
    game = validate_text(bad)[0]
    assert f"{digits:,} digits" in game.errors[0].message and game.errors[0].move == 2


def test_a_bid_of_a_few_digits_is_still_an_illegal_bid() -> None:
    bad = _iss_records(2)[1].replace(" 2 18 ", " 2 1000 ", 1)
    game = validate_text(bad)[0]
    assert game.errors[0].code == "illegal_bid" and game.errors[0].move == 2


@pytest.mark.parametrize("char", ODD_BREAKS)
def test_no_odd_character_in_a_result_field_breaks_an_iss_line(tmp_path: Path, char: str
                                                                ) -> None:
    """The character inside ``R[...]``: two records, on lines 1 and 2, on every path."""
    first, second = _iss_records(2)
    assert " win " in first or " loss " in first
    odd = first.replace(" win ", f" win{char}", 1).replace(" loss ", f" loss{char}", 1)
    paths = _every_path(tmp_path, odd + "\n" + second + "\n")
    assert paths["file"] == paths["text"] == paths["compiled"]
    assert [line for line, _, _ in paths["file"]] == [1, 2]


@pytest.mark.parametrize("char", ODD_BREAKS)
def test_no_odd_character_between_two_iss_records_breaks_the_line(tmp_path: Path, char: str
                                                                   ) -> None:
    """Two records joined by the character are one line: one syntax error, on every path,
    and the record after them is on line 2."""
    first, second, third = _iss_records()
    paths = _every_path(tmp_path, first + char + second + "\n" + third + "\n")
    assert paths["file"] == paths["text"] == paths["compiled"]
    assert paths["file"] == [(1, False, "syntax"), (2, True, None)]


def test_crlf_line_ends_still_end_lines(tmp_path: Path) -> None:
    paths = _every_path(tmp_path, "\r\n".join(_iss_records()) + "\r\n")
    assert paths["file"] == paths["text"] == paths["compiled"] == [
        (1, True, None), (2, True, None), (3, True, None)]


@pytest.mark.parametrize("char", ["\r", "\u2028"])
def test_a_jsonl_line_holds_a_lone_cr_and_u2028(tmp_path: Path, char: str) -> None:
    """JSON allows a CR between tokens and a raw U+2028 inside a string: the record is one
    line and valid, and the next record is on line 2."""
    lines = (SAMPLES / "club-am-markt.jsonl").read_text(encoding="utf-8").split("\n")[:2]
    record = json.loads(lines[0])
    if char == "\r":
        odd = lines[0].replace(", ", ",\r ", 1)
    else:
        record["players"][0] = f"Karl{char}Heinz"
        odd = json.dumps(record, ensure_ascii=False)
    assert char in odd
    paths = _every_path(tmp_path, odd + "\n" + lines[1] + "\n", ".jsonl")
    assert paths["file"] == paths["text"] == [(1, True, None), (2, True, None)]
