"""Forms other programs write that the compiled ISS kernel decides itself, exactly as the
reference reader does: '|' between the hands of the deal, an ouvert declaration listing its
ten open cards, a pick-up the world does not answer with the skat, and tag values with
non-ASCII or control characters (kept as json.dumps escapes them), and another program's
tags with ISS backslash escapes (undone before the JSON is written). Each record is accepted
by the kernel (nothing goes to the slow path) and gives the reference path's rows."""

from __future__ import annotations

import importlib.util
import io
from pathlib import Path

import pytest

from skatlog.ingest.fast import fast_validate_iss

HERE = Path(__file__).resolve().parent


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


r17 = _load("test_r17_play_on")
fast_iss = _load("test_fast_iss")

DEAL = ".".join((r17.FOREHAND, r17.MIDDLEHAND, r17.REARHAND, r17.SKAT))
PLAY = " ".join(f"{(leader + k) % 3} {card}" for leader, cards in r17.CLUBS_TRICKS
                for k, card in enumerate(cards.split()))


def _line(moves: str, result: str, tags: str = "") -> str:
    return (f"(;GM[Skat]PC[Other]{tags}ID[9]P0[a]P1[b]P2[c]MV[w {moves}]R[{result}] ;)")


FORMS = {
    "pipes_between_hands": _line(
        f"{r17.FOREHAND}|{r17.MIDDLEHAND}|{r17.REARHAND}|{r17.SKAT} 1 p 2 p 0 18 0 CO"
        f" {PLAY}", "d:0 loss v:-360 m:8 bidok p:78 t:8 s:0 z:0"),
    "ouvert_lists_its_open_cards": _line(
        f"{DEAL} 1 p 2 p 0 18 0 CO.{r17.FOREHAND} {PLAY}",
        "d:0 loss v:-360 m:8 bidok p:78 t:8 s:0 z:0"),
    "pick_up_without_the_skat_shown": _line(
        f"{DEAL} 1 p 2 p 0 18 0 s 0 C.D7.D8 {PLAY}",
        "d:0 win v:108 m:8 bidok p:78 t:8 s:0 z:0"),
    "pick_up_discard_and_open_cards": _line(
        f"{DEAL} 1 p 2 p 0 18 0 s w D8.D7 0 NO.D7.D8.{r17.FOREHAND}"
        " 0 CA 1 C9 2 C7", "d:0 loss v:-92 m:0 bidok p:11 t:1 s:0 z:0"),  # R9: null lost
    "non_ascii_and_control_characters_in_tags": _line(
        f"{DEAL} 1 p 2 p 0 18 0 CHS {PLAY}", "d:0 loss v:-288 m:8 bidok p:78 t:8 s:0 z:0",
        tags="CO[Grüße ☃ 😀]XX[tab\there]"),
    "escapes_in_other_programs_tags": _line(
        f"{DEAL} 1 p 2 p 0 18 0 CHS {PLAY}", "d:0 loss v:-288 m:8 bidok p:78 t:8 s:0 z:0",
        tags=r'CO[a \] b \\ "c" \é \\\] end]GC[x\y]'),
}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_the_kernel_decides_the_form_as_the_reference_does(form: str) -> None:
    line = FORMS[form]
    data = (line + "\n").encode()
    batches = list(fast_validate_iss(io.BytesIO(data), workers=1, source="other.sgf"))
    assert [raw.text for b in batches for raw in b.slow] == []  # the kernel itself decided
    want = fast_iss._reference_tables(line, "other.sgf")
    assert want is not None, "the reference path accepts the record"
    fast_iss._assert_tables_equal(want, fast_iss._fast_tables(data, "other.sgf"))


def test_a_listed_card_that_is_not_a_card_still_goes_to_the_reference_path() -> None:
    line = _line(f"{DEAL} 1 p 2 p 0 18 0 CO.CJ.SJ.XX {PLAY}", "d:0 loss v:-360 m:8")
    batch = next(iter(fast_validate_iss(io.BytesIO((line + "\n").encode()), workers=1)))
    assert len(batch.slow) == 1


@pytest.mark.parametrize("tag", ["P0", "ID", "SE", "PC", "DT"])
def test_an_escape_in_a_value_the_game_reads_goes_to_the_reference_path(tag: str) -> None:
    line = _line(f"{DEAL} 1 p 2 p 0 18 0 CHS {PLAY}",
                 "d:0 loss v:-288 m:8 bidok p:78 t:8 s:0 z:0", tags="")
    line = line.replace("(;GM[Skat]", f"(;GM[Skat]{tag}[x\\]y]", 1) if tag not in (
        "P0", "ID", "PC") else line.replace(f"{tag}[", f"{tag}[x\\]", 1)
    batch = next(iter(fast_validate_iss(io.BytesIO((line + "\n").encode()), workers=1)))
    assert len(batch.slow) == 1, line


@pytest.mark.parametrize("shift", range(9))
def test_escapes_and_tag_ends_at_every_byte_of_a_word(shift: int) -> None:
    """The kernel finds a value's ``]`` eight bytes at a time: shifted by 0..8 bytes, the
    escapes and ends of the escaped form fall on every byte of a word, and on a word's
    edge; the lines before it shift where the record starts in the chunk too."""
    line = FORMS["escapes_in_other_programs_tags"].replace(
        "PC[Other]", "PC[Other" + "x" * shift + "]")
    data = ("\n" * shift + line + "\n").encode()
    batches = list(fast_validate_iss(io.BytesIO(data), workers=1, source="other.sgf"))
    assert [raw.text for b in batches for raw in b.slow] == []
    want = fast_iss._reference_tables(line, "other.sgf")
    assert want is not None
    got = fast_iss._fast_tables(data, "other.sgf")
    for table in (want, got):  # the blank lines shift the record's line, nothing else
        table["games"] = table["games"].drop_columns(["source_line"])
    fast_iss._assert_tables_equal(want, got)


@pytest.mark.parametrize("result", [
    "d:0 loss v:-300 m:8 bidok p:78 t:8 s:0 z:0",  # another value: a score mismatch
    "d:0 loss v:-360 m:7 bidok p:78 t:8 s:0 z:0",  # the value right, a field wrong: valid
])
def test_a_result_that_differs_is_replayed_unchecked_with_the_reference_verdict(
        result: str) -> None:
    """A record the kernel replayed legally whose recorded result differs: a value no rule
    explains is settled by the kernel's verdict (``score_mismatch``, .verdicts); a difference
    that leaves the game valid reaches the reference validator marked ``replayed``, whose
    moves take the engine's unchecked path. Either verdict is the checked replay's, JSON
    field for field."""
    from skatlog.ingest.sources import RawRecord
    from skatlog.ingest.validate import game_json, parse_raw, replay_parsed

    line = _line(f"{DEAL} 1 p 2 p 0 18 0 CO {PLAY}", result)
    batch = next(iter(fast_validate_iss(io.BytesIO((line + "\n").encode()), workers=1)))
    checked = replay_parsed(parse_raw(RawRecord("<stream>", 1, line, "iss")))
    if checked.ok:
        [raw] = batch.slow
        assert raw.replayed and not batch.decided
        trusted = replay_parsed(parse_raw(raw), checked=False)
        assert game_json(trusted) == game_json(checked)
        assert trusted.record == checked.record and trusted.record is not None
    else:
        assert [e.code for e in checked.errors] == ["score_mismatch"]
        assert not batch.slow and [g.line for g in batch.decided] == [1]
        assert batch.decided[0].record == checked.record
    assert [game_json(g) for g in batch.slow_games()] == [game_json(checked)]
    assert list(batch.slow_games()) == [checked]


def test_an_unchecked_replay_that_does_not_finish_is_replayed_checked() -> None:
    """Marked ``replayed`` by mistake, a record cut short still gets the checked verdict."""
    from skatlog.ingest.sources import RawRecord
    from skatlog.ingest.validate import parse_raw, replay_parsed

    first_two_cards = " ".join(PLAY.split()[:4])
    line = _line(f"{DEAL} 1 p 2 p 0 18 0 CO {first_two_cards}", "d:0 loss v:-360")
    raw = RawRecord("other.sgf", 1, line, "iss", replayed=True)
    trusted = replay_parsed(parse_raw(raw), checked=False)
    assert [e.code for e in trusted.errors] == ["truncated"]
    assert trusted.errors == replay_parsed(parse_raw(raw)).errors
