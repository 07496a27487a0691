"""The rejects the compiled kernel settles itself (ingest/fast/verdicts.py).

A revoke, a card not held or a ``??`` card in the card play is settled by the kernel when the
reference validator is sure to say the same, and so is a played game whose recorded value
the replay contradicts (``score_mismatch``); the verdict must then be the reference's
``LogGame`` field for field (error, message, move, rule, metadata, recorded result, extra
tags, and the replayed result the ``--json`` object shows). A fault that reading finds later
in the record wins over the rule error, as in the reference; anything the kernel cannot be
sure of (a later resignation, an odd token, an off-ladder bid before, a comment in the line)
goes to the slow path.
"""

from __future__ import annotations

import io
import random
import re

import pytest

from skatlog.engine import Card
from skatlog.ingest.fast import fast_validate_iss
from skatlog.ingest.fast.synth import iss_line, random_record
from skatlog.ingest.model import LogGame
from skatlog.ingest.validate import game_json, iter_text_games


def _lines(count: int, seed: int) -> list[str]:
    out = []
    for index in range(count):
        rng = random.Random(seed + index)
        out.append(iss_line(random_record(rng), index, rng))
    return out


def _split(line: str) -> tuple[str, list[str], str]:
    start = line.index("MV[") + 3
    end = line.index("]", start)
    return line[:start], line[start:end].split(), line[end:]


def _plays(tokens: list[str]) -> list[int]:
    """Token indices of the card plays (``<seat> <card>``)."""
    return [i for i in range(2, len(tokens) - 1, 2)
            if tokens[i] in ("0", "1", "2") and len(tokens[i + 1]) == 2
            and tokens[i + 1][0] in "CSHD" and tokens[i + 1][1] in "789TJQKA"]


def _revoke(tokens: list[str]) -> tuple[list[str], int] | None:
    """The moves with the second card of the first trick swapped for a card of another suit
    that seat holds (a revoke, or a legal play when it cannot follow), and that index."""
    deal = tokens[1].split(".")
    plays = _plays(tokens)
    if len(plays) < 2:
        return None
    led, second = tokens[plays[0] + 1], plays[1]
    seat = int(tokens[second])
    hand = deal[10 * seat:10 * seat + 10]
    other = [c for c in hand if c[0] != led[0] and c[1] != "J"
             and c not in (tokens[second + 1],)]
    if not other or led[1] == "J":
        return None
    out = tokens.copy()
    out[second + 1] = other[0]
    return out, second


def _variants(line: str) -> dict[str, str]:
    """Faulty copies of ``line``: the kernel settles the first four kinds itself."""
    head, tokens, tail = _split(line)
    out: dict[str, str] = {}

    def put(kind: str, moves: list[str]) -> None:
        out[kind] = head + " ".join(moves) + tail

    plays = _plays(tokens)
    if not plays:
        return out
    value = re.search(r"\bv:-?[0-9]+", tail)
    if value and (" win " in tail or " loss " in tail):  # a value no rule explains
        out["value_differs"] = head + " ".join(tokens) + tail.replace(value[0], "v:999")
        out["value_differs_with_comment"] = out["value_differs"].replace("(;", "(;C[#]", 1)
    first = plays[0]
    seat = int(tokens[first])
    deal = tokens[1].split(".")
    held = set(deal[10 * seat:10 * seat + 10]) | set(deal[30:])
    moves = tokens.copy()
    moves[first + 1] = next(c.name for c in Card if c.name not in held)
    put("not_held", moves)
    moves = tokens.copy()
    moves[first + 1] = "??"
    put("unknown_card", moves)
    revoked = _revoke(tokens)
    if revoked is not None:
        moves, at = revoked
        put("revoke", moves)
        later = [i for i in plays if i > at + 4]
        if later:
            worse = moves.copy()
            worse[later[0] + 1] = "??"  # reading stops there first: corrupt_card wins
            put("revoke_then_unknown", worse)
            worse = moves.copy()
            worse[later[0] + 1] = "X9"  # not a card: the reader's syntax error wins
            put("revoke_then_not_a_card", worse)
        put("revoke_then_resign", [*moves, moves[at], "RE"])
        put("revoke_then_dangling", [*moves, "1"])
        out["revoke_with_comment"] = out["revoke"].replace("(;", "(;C[a # b]", 1)
    if len(tokens) > 3 and tokens[3] == "18":
        moves = tokens.copy()
        moves[3] = "19"  # an off-ladder bid ISS accepts: the reader warns of it (R18)
        bad = moves.copy()
        bad[first + 1] = "??"
        put("off_ladder_then_unknown", bad)
    return out


#: Kinds the kernel settles; the others must reach the reference validator.
SETTLED = {"not_held", "unknown_card", "revoke", "revoke_then_unknown", "value_differs"}


@pytest.fixture(scope="module")
def variants() -> list[tuple[str, str]]:
    out = []
    for line in _lines(160, 90_210):
        out += list(_variants(line).items())
    return out


def _verdicts(text: str, workers: int) -> tuple[list[LogGame], set[int], set[int]]:
    """The fast path's verdicts on the records it did not accept, with the lines it
    settled itself and the lines it handed to the slow path."""
    games: list[LogGame] = []
    settled: set[int] = set()
    slow: set[int] = set()
    for batch in fast_validate_iss(io.BytesIO(text.encode()), workers=workers,
                                   source="v.sgf", chunk_bytes=1 << 15):
        games += batch.slow_games()
        settled |= {g.line for g in batch.decided}
        slow |= {r.line for r in batch.slow}
    return games, settled, slow


@pytest.mark.parametrize("workers", [1, 2])
def test_settled_rejects_are_the_reference_verdicts(variants, workers: int) -> None:
    text = "\n".join(line for _, line in variants) + "\n"
    reference = list(iter_text_games(text, "v.sgf", "iss"))
    got, settled, slow = _verdicts(text, workers)
    # every record the kernel did not accept, in file order, equal to the reference's
    assert got == [g for g in reference if g.line in {x.line for x in got}]
    # (a game record compares without its result: the --json objects show the results)
    assert [game_json(g) for g in got] == \
        [game_json(g) for g in reference if g.line in {x.line for x in got}]
    assert {g.line for g in reference if not g.ok} <= {g.line for g in got}
    kinds = {line: kind for line, (kind, _) in enumerate(variants, 1)}
    codes = {g.line: g.errors[0].code for g in got if g.errors}
    for line in settled:
        assert kinds[line] in SETTLED, (kinds[line], codes.get(line))
    by_kind: dict[str, set[str]] = {}
    for line, kind in kinds.items():
        if line in settled or line in slow:
            by_kind.setdefault(kind, set()).add("settled" if line in settled else "slow")
    for kind in ("revoke_then_resign", "revoke_then_dangling", "revoke_then_not_a_card",
                 "revoke_with_comment", "off_ladder_then_unknown",
                 "value_differs_with_comment"):
        assert by_kind.get(kind) == {"slow"}, (kind, by_kind.get(kind))
    for kind in ("not_held", "unknown_card", "revoke_then_unknown", "value_differs"):
        assert by_kind.get(kind) == {"settled"}, (kind, by_kind.get(kind))
    assert "settled" in by_kind["revoke"]  # (a swap that is a legal play is accepted)
    later = [g for g in got if kinds[g.line] == "revoke_then_unknown"]
    assert later and all(g.errors[0].code == "corrupt_card" for g in later)
    assert {codes[line] for line in settled} == {"revoke", "card_not_in_hand", "corrupt_card",
                                                 "score_mismatch"}
    differs = [g for g in got if kinds[g.line] == "value_differs"]
    assert differs and all(g.value_check == "score_mismatch" and g.record is not None
                           for g in differs)


def test_a_fast_ingest_stores_the_reference_ingests_rejects(variants, tmp_path) -> None:
    """Settled rejects reach the archive's ``rejects`` table as the reference ingest's;
    the workers build those rows and the summary's share of them (counts, examples)."""
    from skatlog.ingest.archive import read_table
    from skatlog.ingest.fast import ingest_iss_fast
    from skatlog.ingest.pipeline import ingest_paths

    log = tmp_path / "v.sgf"
    valid = _lines(70, 4_000)
    # the first task holds one reject and a line of prose, so the summary's examples are
    # gathered across the workers' tasks in file order
    body = [*valid[:60], variants[0][1], "this line is prose, not a record", *valid[60:],
            *(line for _, line in variants)]
    log.write_text("\n".join(body) + "\n")
    fast = ingest_iss_fast([log], tmp_path / "fast", workers=2, chunk_bytes=1 << 14)
    ref = ingest_paths([log], tmp_path / "ref", progress=False, fast=False)
    assert (fast.seen, fast.stored, fast.rejected, fast.rejected_by_code) == \
        (ref.seen, ref.stored, ref.rejected, ref.rejected_by_code)
    assert (fast.examples, fast.not_records, fast.not_record_examples) == \
        (ref.examples, ref.not_records, ref.not_record_examples)
    assert fast.not_records == 1 and len(fast.examples) == 5
    assert (fast.rejects_stored, fast.reject_duplicates) == \
        (ref.rejects_stored, ref.reject_duplicates)
    tables = [read_table(tmp_path / name, "rejects").drop_columns(["ingest_id"]).to_pylist()
              for name in ("fast", "ref")]
    assert tables[0] == tables[1]
    assert len(tables[0]) > 500  # (one row per distinct raw record)
