"""The compiled BLAKE2b-64 of the ISS path (ingest/fast/blake.py) against ``hashlib``.

The game ids of every game the compiled path accepts come from it, so it must give
``hashlib.blake2b(data, digest_size=8)`` byte for byte, for every length (empty, one byte,
a block boundary, several blocks) and every byte value.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from skatlog.ingest.fast.blake import BLOCK, blake2b64
from skatlog.ingest.ids import _hash64


def _ids(pieces: list[bytes]) -> list[int]:
    """blake2b64 over ``pieces`` laid end to end in one buffer."""
    lengths = np.array([len(p) for p in pieces], dtype=np.int64)
    ends = np.cumsum(lengths)
    starts = ends - lengths
    buf = np.frombuffer(b"".join(pieces) + b"\x00", dtype=np.uint8)  # never empty
    return blake2b64(buf, starts, ends).tolist()


def test_every_length_around_the_block_boundaries() -> None:
    rng = np.random.default_rng(7)
    lengths = [*range(0, 3 * BLOCK + 2), 1000, 4096]
    pieces = [rng.integers(0, 256, size=n, dtype=np.uint8).tobytes() for n in lengths]
    assert _ids(pieces) == [_hash64(p) for p in pieces]


def test_known_values() -> None:
    # hashlib's own answers, written out: the empty message and "abc" (RFC 7693's message)
    assert _ids([b"", b"abc"]) == [_hash64(b""), _hash64(b"abc")]
    assert _hash64(b"") == int.from_bytes(bytes.fromhex("e4a6a0577479b2b4"), "big",
                                          signed=True)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=400), max_size=12))
def test_any_bytes_equal_hashlib(pieces: list[bytes]) -> None:
    assert _ids(pieces) == [_hash64(p) for p in pieces]


def test_the_compiled_path_ids_equal_the_reference_ids() -> None:
    """A chunk's game ids (kernel key bytes, compiled hash) are the reference reader's."""
    import random

    from skatlog.ingest.fast.columns import archive_tables, scan
    from skatlog.ingest.fast.synth import iss_line, random_record
    from skatlog.ingest.rows import GameRowsBuilder
    from skatlog.ingest.sources import RawRecord
    from skatlog.ingest.validate import parse_raw, replay_parsed

    rng = random.Random(3)
    lines = [iss_line(random_record(rng), i, rng) for i in range(200)]
    fast = archive_tables(scan("\n".join(lines).encode()), "f", None)["games"]
    rows = GameRowsBuilder(None)
    for i, line in enumerate(lines):
        game = replay_parsed(parse_raw(RawRecord("f", i + 1, line, "iss")))
        assert game.ok
        rows.add_log_game(game)
    reference = rows.tables()["games"]
    assert fast.num_rows == 200
    assert fast.column("game_id").to_pylist() == reference.column("game_id").to_pylist()


def test_the_written_out_rounds_follow_the_schedule() -> None:
    """``_compress`` spells out its twelve rounds; each mixes the words RFC 7693's schedule
    (``SIGMA``) names, in order."""
    import inspect
    import re

    from skatlog.ingest.fast import blake

    source = inspect.getsource(blake._compress)
    words = [int(w) for w in re.findall(r"_mix\(v\d+, v\d+, v\d+, v\d+, m(\d+), m(\d+)\)",
                                         source) for w in w]
    assert words == blake.SIGMA.reshape(-1).tolist()
