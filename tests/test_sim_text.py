"""``simulate --out`` writes its lines straight from the batch simulator's arrays
(:mod:`skatlog.ingest.sim_text`): byte for byte the lines of replaying every hand through the
engine and its writers (:func:`skatlog.simulation.to_file.reference_lines`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from skatlog.engine.batch import simulate_batch
from skatlog.ingest.sim_text import batch_lines, program
from skatlog.simulation import SimulationOptions, simulate_to_file
from skatlog.simulation.to_file import reference_lines

HANDS = 2_000
LINEUPS = {"random": ("random", "random", "random"), "rules": ("rules", "rules", "rules"),
           "mixed": ("rules", "random", "rules")}


@pytest.mark.parametrize("sessions", [False, True], ids=["plain", "sessions"])
@pytest.mark.parametrize("lineup", list(LINEUPS))
def test_compiled_lines_are_the_reference_lines(lineup: str, sessions: bool) -> None:
    bots = LINEUPS[lineup]
    options = SimulationOptions(hands=HANDS + 7, seed=11, bots=bots, sessions=sessions)
    batch = simulate_batch(11, 7, HANDS, bots)  # not from 0: indexes, dealers and sessions
    for kind in ("sgf", "jsonl"):
        want = reference_lines(batch, options, kind)
        got = batch_lines(batch, program(kind, 11, bots, sessions))
        if got != want:  # name the first line that differs, not two megabytes
            pairs = zip(got.split(b"\n"), want.split(b"\n"), strict=False)
            first = next((g, w) for g, w in pairs if g != w)
            pytest.fail(f"{kind}: compiled\n{first[0]!r}\nreference\n{first[1]!r}")
        assert got.count(b"\n") == HANDS


def test_the_lines_cover_every_kind_of_hand() -> None:
    """The hands above hold what the compiled pass writes differently: passed hands, hand
    games, a skat taken with the discard before and after the declaration, early endings."""
    batches = [simulate_batch(11, 7, HANDS, LINEUPS[name]) for name in ("random", "rules")]
    decl, pickup, first, n_cards = (np.concatenate([b.column(c) for b in batches])
                                    for c in ("decl", "pickup", "declare_first", "n_cards"))
    assert (decl < 0).any() and ((decl >= 0) & (pickup == 0)).any()
    assert ((pickup != 0) & (first != 0)).any() and ((pickup != 0) & (first == 0)).any()
    assert ((decl >= 0) & (n_cards < 30)).any()


@pytest.mark.parametrize("ext", ["sgf", "jsonl"])
def test_simulate_to_file_writes_the_reference_bytes(ext: str, tmp_path: Path) -> None:
    options = SimulationOptions(hands=700, seed=3, bots=LINEUPS["mixed"], sessions=True)
    out = tmp_path / f"run.{ext}"
    summary = simulate_to_file(out, options, chunk=300)  # three chunks, the last short
    assert summary.stored == 700
    want = b"".join(reference_lines(simulate_batch(3, start, count, options.bots), options, ext)
                    for start, count in ((0, 300), (300, 300), (600, 100)))
    assert out.read_bytes() == want
