"""The comment cutter's find-by-find path reads a line as its character loop does."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from skatlog.ingest.sources import _strip_comment_loop, strip_comment

_TAGS = st.sampled_from([None, "MV", "P0", "R", "GM"])
# record-like text: brackets, tag names, separators, and now and then '#' or '\'
_LINES = st.text(alphabet="[]()#;\\ MVPR0w.HAS7", max_size=80)


@given(_LINES, _TAGS)
@settings(max_examples=2000, deadline=None)
def test_strip_comment_equals_the_character_loop(line: str, open_tag: str | None) -> None:
    assert strip_comment(line, open_tag) == _strip_comment_loop(line, open_tag)


def test_a_cut_off_record_line_leaves_its_move_list_open() -> None:
    line = "(;GM[Skat]P0[a b]MV[w HA.SA.CA 0 18 1 p"
    assert strip_comment(line) == (line, "MV")
    assert strip_comment("1 p 2 p 0 HA]R[d:0 win];)", "MV") == (
        "1 p 2 p 0 HA]R[d:0 win];)", None)
    assert strip_comment("P1[#7 club] # a comment") == ("P1[#7 club] ", None)
