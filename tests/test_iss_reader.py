"""The ISS reader: generic properties, move numbers, and the quirks listed in ISS.md."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skatlog.engine import Card, Contract
from skatlog.engine.moves import Bid, Declare, Discard, PickUp, Play, Resign, ShowCards, TimeOut
from skatlog.ingest import iss
from skatlog.ingest.iss import parse_properties, parse_result, read_iss
from skatlog.ingest.model import LogSyntaxError
from skatlog.ingest.validate import replay_parsed, validate_text

DEAL = ("HA.SK.SJ.SA.CQ.S8.C9.H7.H9.DQ.CJ.S9.DJ.S7.D9.SQ.C8.HQ.DK.CA.D8.D7.DT.CT.ST.C7.HK.DA"
        ".HT.HJ.H8.CK")
PLAY = ("0 SA 1 S7 2 DA 2 HJ 0 SJ 1 D9 0 DQ 1 DJ 2 D7 1 CJ 2 D8 0 CQ 1 CA 2 C7 0 C9 1 S9 2 DT"
        " 0 S8 2 CT 0 H7 1 C8 2 CK 0 H9 1 HQ 2 HK 0 HA 1 SQ 0 SK 1 DK 2 HT")
RESULT = "d:2 loss v:-54 m:-2 bidok p:59 t:4 s:0 z:0 p0:0 p1:0 p2:0 l:-1 to:-1 r:0"


def record(moves: str = f"1 p 2 18 0 p 2 s w H8.CK 2 D.ST.H8 {PLAY}", result: str = RESULT,
           head: str = "GM[Skat]PC[International Skat Server]CO[]SE[24072]ID[541932]"
           "DT[2010-12-06/18:59:24/UTC]P0[zoot]P1[kermit]P2[foo]R0[]R1[]R2[0.0]") -> str:
    return f"(;{head}MV[w {DEAL} {moves} ]R[{result}] ;)"


def test_properties_generic_with_escapes_and_any_order() -> None:
    props, cut = parse_properties(r"(;P1[a\]b]GM[Skat]CO[x\\]ID[7] ;)")
    assert cut is None
    assert props == {"P1": "a]b", "GM": "Skat", "CO": "x\\", "ID": "7"}


def test_unclosed_value_is_reported_as_cut() -> None:
    props, cut = parse_properties("(;GM[Skat]MV[w CJ.S")
    assert cut == "MV" and props["MV"] == "w CJ.S"


def test_move_numbers_follow_iss_pairs() -> None:
    parsed = read_iss(record())
    assert not parsed.errors
    numbers = [n for n, _ in parsed.moves]
    # 1 p (1), 2 18 (2), 0 p (3), 2 s (4), w H8.CK (5, no engine move), 2 D.ST.H8 (6: two)
    assert numbers[:6] == [1, 2, 3, 4, 6, 6]
    assert isinstance(parsed.moves[3][1], PickUp)
    assert isinstance(parsed.moves[4][1], Discard) and isinstance(parsed.moves[5][1], Declare)
    assert parsed.moves[6] == (7, Play(0, Card.SA))
    assert parsed.last_move == 36


def test_tag_order_missing_tags_comments_and_multiple_lines() -> None:
    text = record(head="ID[541932]P2[foo]GM[Skat]P0[zoot]P1[kermit]")
    lines = text.replace(" 2 s ", " 2 s # the pick-up\n").replace("MV[", "\nMV[")
    games = validate_text("# a comment line\n\n" + lines + "\n" + text)
    assert [g.ok for g in games] == [True, True]
    assert [g.line for g in games] == [3, 6]
    assert games[0].meta.played_at is None and games[0].meta.session_id == ""
    assert games[0].record == games[1].record


def test_hash_inside_a_value_is_not_a_comment() -> None:
    game = validate_text(record(head="GM[Skat]P0[#1 zoot]"))[0]
    assert game.ok and game.meta.players[0] == "#1 zoot"


def test_split_discard_declares_then_discards() -> None:
    game = validate_text(record(moves=f"1 p 2 18 0 p 2 s w H8.CK 2 D 2 ST.H8 {PLAY}"))[0]
    assert game.ok and game.record is not None
    kinds = [type(m) for m in game.record.moves[4:6]]
    assert kinds == [Declare, Discard]
    assert game.record.result.value == -54


def test_ratings_null_empty_numbers_and_question_mark() -> None:
    for ratings in ("R0[]R1[null]R2[0.0]", "R0[?]R1[1012.8]R2[]"):
        game = validate_text(record(head="GM[Skat]" + ratings))[0]
        assert game.ok


def test_results() -> None:
    assert parse_result("passed").passed
    r = parse_result("d:-1 penalty v:0 m:0 bidok p:0 t:0 s:0 z:0 p0:0 p1:0 p2:1 l:2 to:-1")
    assert r.penalty and r.declarer is None and r.value == 0
    r = parse_result("d:2 loss v:-72 m:1 overbid p:41 t:4 s:0 z:0")
    assert (r.declarer, r.won, r.value, r.matadors, r.overbid) == (2, False, -72, 1, True)


def test_missing_result_is_not_recorded() -> None:
    text = record().replace(f"R[{RESULT}]", "")
    game = validate_text(text)[0]
    assert game.ok and game.recorded is None and game.value_check == "not_recorded"


def test_ouvert_with_and_without_open_cards() -> None:
    # Forehand takes the game at 18 and plays grand ouvert, showing its ten cards or not.
    hand0 = DEAL.split(".")[:10]
    for contract in ("GO", "GO." + ".".join(hand0)):
        parsed = read_iss(record(moves=f"1 p 2 p 0 18 0 {contract} 0 SA 1 S7 2 ST 0 RE",
                                 result="unknown"))
        assert not parsed.errors, parsed.errors
        declare = parsed.moves[3][1]
        assert isinstance(declare, Declare) and declare.declaration.ouvert
        assert declare.declaration.contract is Contract.GRAND and declare.declaration.hand
        game = replay_parsed(parsed)
        assert game.ok and game.record is not None
        assert game.record.result.ending.value == "declarer_resigned"


def test_show_cards_and_time_out_moves() -> None:
    parsed = read_iss(record(moves="1 p 2 18 0 p 2 CH 0 SA 2 SC 1 S7 w TI.2", result="unknown"))
    assert [type(m) for _, m in parsed.moves][-3:] == [ShowCards, Play, TimeOut]
    game = replay_parsed(parsed)
    assert game.ok and game.record is not None
    assert game.record.result.ending.value == "declarer_absent"


def test_off_ladder_iss_bid_is_accepted_with_a_warning() -> None:
    moves = "1 18 0 y 1 171 0 p 2 p 1 s w H8.CK 1 G.S9.S7"
    parsed = read_iss(record(moves=moves + " w LE.1", result="unknown"))
    game = replay_parsed(parsed)
    assert game.ok, game.errors
    assert Bid(1, 171) in game.record.moves  # type: ignore[union-attr]
    assert [(w.code, w.move) for w in game.warnings] == [("off_ladder_bid", 3)]


def test_null_ends_when_the_declarer_takes_a_trick() -> None:
    # R17/R9: a null game is over as soon as the declarer wins a trick.
    moves = "1 p 2 p 0 18 0 NH 0 HA 1 HQ 2 HK"
    game = validate_text(record(moves=moves, result="d:0 loss v:-70 m:0 bidok p:0 t:1"))[0]
    assert game.ok, game.errors
    assert game.record is not None and game.record.result.value == -70
    assert game.value_check == "ok"


def test_resign_by_the_declarer() -> None:
    game = validate_text(record(moves="1 p 2 18 0 p 2 CH 0 SA 1 S7 2 RE", result="unknown"))[0]
    assert game.ok and game.record is not None
    assert isinstance(game.record.moves[-1], Resign)
    assert not game.record.result.won


def test_player_view_deal_is_rejected_as_corrupt() -> None:
    hidden = "??.??.??.??.??.??.??.??.??.??|" + DEAL.split(".", 10)[10]
    text = record().replace(DEAL, hidden)
    game = validate_text(text)[0]
    assert [(e.code, e.move) for e in game.errors] == [("corrupt_card", 0)]


_PIECES = st.sampled_from(["(;", ";)", "GM", "MV", "P0", "DT", "[", "]", "\\", "\\]", "\\\\",
                           " ", "\n", "\t", ";", "x", "Skat", "w CJ.S7", "#", "ä", "()",
                           "(", ")", "2011-04-05/20:35:55/UTC", "1 p"])


_VALUES = st.text(st.sampled_from("ab]\\[ ;)\n#ä"), max_size=6)
_TAGS = st.sampled_from(["GM", "MV", "P0", "DT", "R", "x1", "SE", "ID", ";GM", " GM", "G M", "",
                         "\x0bGM", "\u00a0P0", "\u00e42"])
#: values as a writer escapes them: ] and \\ after a backslash
_ESCAPED = st.lists(st.sampled_from(["a", "b", " ", "[", "\\]", "\\\\", "\\x", ";)", "\n", "ä"]),
                    max_size=5).map("".join)


def _record(head: str, props: list[tuple[str, str]], gaps: list[str], tail: str) -> str:
    return head + "".join(f"{tag}[{value}]{gap}"
                          for (tag, value), gap in zip(props, gaps, strict=False)) + tail


_GAPS = st.lists(st.sampled_from(["", "", " ", "\n", "\t", ";", "\r", "\x0c", "\u2003"]),
                 min_size=5, max_size=5)
#: texts of a whole record's shape, (; TAG[value] ... ;): well formed (a tag may come twice),
#: or now and then slightly wrong
_RECORDS = st.one_of(
    st.builds(_record, st.just("(;"), st.lists(st.tuples(st.sampled_from(
        ["GM", "MV", "P0", "DT", "R", "ID"]), _ESCAPED), min_size=1, max_size=5),
        st.lists(st.sampled_from(["", " ", "\n\t "]), min_size=5, max_size=5),
        st.sampled_from([";)", " ;)"])),
    st.builds(_record, st.sampled_from(["(;", "(; ", "( ;", "(;\n"]),
              st.lists(st.tuples(_TAGS, _VALUES), max_size=5), _GAPS,
              st.sampled_from([";)", " ;)", "", ";", ")", "; )"])))


@settings(max_examples=3000, deadline=None)
@given(st.one_of(st.lists(_PIECES, max_size=24).map("".join), _RECORDS))
def test_the_tag_parsers_fast_path_reads_as_the_loop_does(text: str) -> None:
    """parse_properties' regular-expression path gives the loop's properties, cut tag and
    error for every text (the loop, iss._parse_properties_loop, is the reference)."""

    def outcome(parse: Callable[[str], tuple[dict[str, str], str | None]]) -> object:
        try:
            props, cut = parse(text)
            return list(props.items()), cut
        except LogSyntaxError as err:
            return err.code, err.message

    assert outcome(parse_properties) == outcome(iss._parse_properties_loop)


@settings(max_examples=500, deadline=None)
@given(st.datetimes(min_value=datetime(1000, 1, 1), max_value=datetime(9999, 12, 31)),
       st.sampled_from(["%Y-%m-%d/%H:%M:%S/UTC", "%Y-%-m-%-d/%H:%M:%S/UTC",
                        "%Y-%m-%d/%H:%M:%S/GMT", "%Y-%m-%d %H:%M:%S/UTC"]))
def test_dates_read_as_strptime_reads_them(when: datetime, form: str) -> None:
    text = when.replace(microsecond=0).strftime(form)

    def outcome(read: Callable[[str], datetime]) -> object:
        try:
            return read(text)
        except ValueError:
            return "refused"

    assert outcome(iss.read_date) == outcome(
        lambda t: datetime.strptime(t, iss.DATE_FORMAT).replace(tzinfo=UTC))


def test_dates_out_of_range_are_refused() -> None:
    for text in ("2011-13-05/20:35:55/UTC", "2011-02-30/20:35:55/UTC",
                 "2011-04-05/24:00:00/UTC", "2011-04-05/20:35:61/UTC"):
        with pytest.raises(ValueError):
            iss.read_date(text)
