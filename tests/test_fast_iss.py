"""The compiled ISS fast path against the engine and the reference validator.

* differential: 3,000 random engine games (some with resign / show cards / time-out / leave)
  written as ISS: the kernel accepts every one with the engine's status, tricks and every
  scored field;
* the archive tables of the fast path equal, column by column, the ones the reference path
  (ISS reader + engine replay + schema row builder) gives, game_id included, for those games
  and for every real record in ../shared/data/iss;
* corrupted records (revoke, card not in hand, illegal bid, bad deal, wrong player, ``??``,
  truncation, wrong recorded value, random token mutations) are never accepted by the kernel
  unless the reference validator accepts them too, with the same row.
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import random
import re
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
import zstandard

from skatlog.engine import Card
from skatlog.ingest.fast import (
    STATUS_NAMES,
    fast_validate_iss,
    ingest_iss_fast,
    iter_validation_json,
)
from skatlog.ingest.fast import iss_kernel as K
from skatlog.ingest.fast.check import compare_with_engine
from skatlog.ingest.fast.columns import archive_tables, scan
from skatlog.ingest.fast.synth import iss_line, random_record
from skatlog.ingest.rows import GameRowsBuilder
from skatlog.ingest.validate import game_json, iter_text_games, validate_text

GAMES = 3_000


@pytest.fixture(scope="module")
def engine_games() -> tuple[list, list[str]]:
    """GAMES engine games under the recorded-log rules and their ISS lines."""
    records, lines = [], []
    for index in range(GAMES):
        rng = random.Random(424_242 + index)
        record = random_record(rng, concessions=0.02 if index % 3 == 0 else 0.0)
        records.append(record)
        lines.append(iss_line(record, index, rng))
    return records, lines


def _text(lines: list[str]) -> bytes:
    return ("\n".join(lines) + "\n").encode()


def _reference_tables(text: str, source: str) -> dict[str, pa.Table] | None:
    builder = GameRowsBuilder()
    for game in iter_text_games(text, source, "iss"):
        if game.ok:
            builder.add_log_game(game)
    return builder.tables() if len(builder) else None


def _fast_tables(data: bytes, source: str, workers: int = 1) -> dict[str, pa.Table]:
    parts: dict[str, list[pa.Table]] = {"games": [], "tricks": [], "auction": []}
    slow = GameRowsBuilder()
    for batch in fast_validate_iss(io.BytesIO(data), workers=workers, source=source,
                                   chunk_bytes=1 << 16):
        assert batch.tables is not None
        for name, table in batch.tables.items():
            parts[name].append(table)
        for game in batch.slow_games():
            if game.ok:
                slow.add_log_game(game)
    if len(slow):
        for name, table in slow.tables().items():
            parts[name].append(table)
    return {name: pa.concat_tables(tables) for name, tables in parts.items()}


def _assert_tables_equal(want: dict[str, pa.Table], got: dict[str, pa.Table]) -> None:
    keys = {"games": ["game_id"], "tricks": ["game_id", "trick_no"],
            "auction": ["game_id", "call_no"]}
    for name, key in keys.items():
        a = want[name].sort_by([(k, "ascending") for k in key])
        b = got[name].sort_by([(k, "ascending") for k in key])
        assert a.num_rows == b.num_rows, name
        assert a.schema.names == b.schema.names
        for column in a.schema.names:
            ca, cb = a.column(column).combine_chunks(), b.column(column).combine_chunks()
            if pa.types.is_dictionary(ca.type):
                ca, cb = ca.cast(pa.string()), cb.cast(pa.string())
            assert ca.type == cb.type, (name, column)
            assert ca.equals(cb), (name, column, ca.to_pylist()[:5], cb.to_pylist()[:5])


# ------------------------------------------------------------------ differential
def test_kernel_equals_engine_on_random_games(engine_games) -> None:
    records, lines = engine_games
    result = scan(_text(lines))
    assert len(result.rows) == GAMES
    problems = [(i, p) for i, (rec, row, deal, tricks) in enumerate(zip(
        records, result.rows, result.deals, result.tricks, strict=True))
        if (p := compare_with_engine(rec, row, deal, tricks))]
    assert problems == [], problems[:3]
    endings = {rec.result.ending.value for rec in records}
    # the sample covers the early and conceded endings the kernel implements (R9, R17)
    assert {"ten_tricks", "null_trick", "all_passed", "defenders_trick"} <= endings
    assert {"declarer_resigned", "defenders_resigned", "penalty"} & endings


def test_tables_equal_reference_on_random_games(engine_games) -> None:
    _, lines = engine_games
    sample = lines[:1_000]
    want = _reference_tables("\n".join(sample), "games.sgf")
    assert want is not None
    _assert_tables_equal(want, _fast_tables(_text(sample), "games.sgf"))


def test_real_records_match_reference(iss_dir: Path) -> None:
    files = sorted(iss_dir.glob("*.sgf"))
    assert files
    accepted = slow = 0
    for path in files:
        data = path.read_bytes()
        want = _reference_tables(data.decode(), str(path))
        got = _fast_tables(data, str(path))
        for batch in fast_validate_iss(path, workers=1):
            accepted += batch.accepted
            slow += len(batch.slow)
        if want is None:
            assert got["games"].num_rows == 0
        else:
            _assert_tables_equal(want, got)
    assert accepted >= 20 and slow >= 1


def test_corrupt_card_record_is_settled_by_the_kernel_as_the_reference_reads_it(
        iss_dir: Path) -> None:
    """A real record with a ``??`` card played: the kernel settles it (no slow path), and
    its verdict is the reference validator's, field for field."""
    path = iss_dir / "jskat__MessageParserTest.sgf"
    batches = list(fast_validate_iss(path, workers=1))
    assert not [raw for b in batches for raw in b.slow if "ID[18358]" in raw.text]
    corrupt = [game for b in batches for game in b.decided if "ID[18358]" in game.raw]
    assert len(corrupt) == 1 and corrupt[0].line == 10
    reference = [g for g in validate_text(path.read_text(), str(path), "iss") if g.line == 10]
    assert reference[0].errors[0].code == "corrupt_card" and reference[0].errors[0].move == 8
    assert corrupt == reference


# ------------------------------------------------------------------ corruption
def _mv(line: str) -> tuple[str, list[str], str]:
    m = re.search(r"MV\[([^\]]*)\]", line)
    assert m
    return line[:m.start(1)], m.group(1).split(), line[m.end(1):]


def _join(head: str, tokens: list[str], tail: str) -> str:
    return head + " ".join(tokens) + " " + tail


def _first_play(tokens: list[str], offset: int = 0) -> int | None:
    plays = [i for i in range(2, len(tokens), 2)
             if tokens[i] in "012" and len(tokens[i + 1]) == 2 and tokens[i + 1][1] in
             "789TJQKA"]
    return plays[offset] if len(plays) > offset else None


def _corruptions(line: str) -> dict[str, str]:
    """One corrupted variant of ``line`` per error class (when the game allows it)."""
    head, tokens, tail = _mv(line)
    out: dict[str, str] = {}
    deal = tokens[1].split(".")
    bad = deal.copy()
    bad[5] = bad[6]
    out["bad_deal"] = _join(head, [tokens[0], ".".join(bad), *tokens[2:]], tail)
    first = _first_play(tokens)
    if first is not None:
        t = tokens.copy()
        t[first + 1] = "??"
        out["corrupt_card"] = _join(head, t, tail)
        seat = int(t[first])
        held = set(deal[10 * seat:10 * seat + 10]) | set(deal[30:])
        t = tokens.copy()
        t[first + 1] = next(c.name for c in Card if c.name not in held)
        out["card_not_in_hand"] = _join(head, t, tail)
        t = tokens.copy()
        t[first] = str((seat + 1) % 3)
        out["wrong_player"] = _join(head, t, tail)
        second = _first_play(tokens, 1)
        if second is not None:  # a card of another suit, if the seat could follow
            t = tokens.copy()
            led = tokens[first + 1]
            s2 = int(t[second])
            hand = deal[10 * s2:10 * s2 + 10]
            other = [c for c in hand if c[0] != led[0] and c[1] != "J" and c != t[second + 1]]
            if other and led[1] != "J":
                t[second + 1] = other[0]
                out["revoke_or_other"] = _join(head, t, tail)
    t = tokens.copy()
    if len(t) > 3 and t[3].isdigit():
        t[3] = "19"  # not on the ladder (R3)
        out["illegal_bid"] = _join(head, t, tail)
    out["truncated"] = _join(head, tokens[:-2], tail)
    if "v:" in line:
        out["value"] = re.sub(r"v:(-?\d+)", lambda m: f"v:{int(m.group(1)) + 1}", line)
    out["extra_move"] = _join(head, [*tokens, "0", "CJ"], tail)
    return out


def _check_never_wrongly_accepted(lines: list[str]) -> tuple[int, int]:
    """Kernel-accepted lines must be accepted by the reference with the very same row."""
    result = scan(_text(lines))
    ok = result.accepted
    if ok.any():
        accepted = [line for line, good in zip(lines, ok, strict=True) if good]
        want = _reference_tables("\n".join(accepted), "x.sgf")
        assert want is not None, "the kernel accepted games the reference rejects"
        _assert_tables_equal(want, archive_tables(scan(_text(accepted)), "x.sgf"))
    return int(ok.sum()), len(lines)


def test_corrupted_records_are_never_accepted(engine_games, iss_dir: Path) -> None:
    _, lines = engine_games
    real = [ln for p in sorted(iss_dir.glob("*.sgf")) for ln in p.read_text().splitlines()
            if ln.startswith("(;")]
    seen: dict[str, int] = {}
    corrupted: list[str] = []
    for line in lines[:300] + real:
        for kind, bad in _corruptions(line).items():
            seen[kind] = seen.get(kind, 0) + 1
            corrupted.append(bad)
    result = scan(_text(corrupted))
    status = result.status
    # classes the engine always rejects: never accepted by the kernel
    for kind in ("bad_deal", "corrupt_card", "card_not_in_hand", "wrong_player",
                 "illegal_bid", "truncated", "value"):
        assert seen.get(kind, 0) > 50, kind
    always_bad = [bad for line in lines[:300] + real
                  for kind, bad in _corruptions(line).items()
                  if kind not in ("revoke_or_other", "extra_move")]
    assert not scan(_text(always_bad)).accepted.any()
    # (a real record cut after "SC ... RE" is valid by the ISS implied-resign convention)
    engine_bad = [bad for line in lines[:300] for kind, bad in _corruptions(line).items()
                  if kind not in ("revoke_or_other", "extra_move")]
    for game in validate_text("\n".join(engine_bad), "x.sgf", "iss"):
        assert not game.ok or game.value_check != "ok"
    # the rest: accepted only when the reference accepts the same game (e.g. a legal swap)
    _check_never_wrongly_accepted(corrupted)
    assert (status != K.OK).sum() >= len(always_bad)
    names = {STATUS_NAMES[int(s)] for s in status}
    assert {"bad_deal", "corrupt_card", "card_not_in_hand", "wrong_player", "illegal_bid",
            "truncated", "result_differs"} <= names
    assert "revoke" in names or "play_after_end" in names


def test_random_token_mutations(engine_games) -> None:
    _, lines = engine_games
    rng = random.Random(7)
    vocabulary = ["0", "1", "2", "w", "p", "y", "s", "18", "20", "RE", "SC", "TI.1", "LE.0",
                  "G", "NO", "CHS", "D.ST.H8", "??", "CJ", "HA", "D7", "ST", "S7.S8"]
    mutated = []
    for line in lines[:1500]:
        head, tokens, tail = _mv(line)
        t = tokens.copy()
        i = rng.randrange(2, len(t)) if len(t) > 2 else 1
        op = rng.randrange(3)
        if op == 0:
            t[i] = rng.choice(vocabulary)
        elif op == 1:
            del t[i]
        else:
            t.insert(i, rng.choice(vocabulary))
        mutated.append(_join(head, t, tail))
    accepted, total = _check_never_wrongly_accepted(mutated)
    assert total == 1500 and accepted < total


# ------------------------------------------------------------------ streaming
def test_chunks_workers_and_compression_give_the_same_result(engine_games, tmp_path) -> None:
    _, lines = engine_games
    body = "\n".join(lines[:400])
    # a comment, a blank line, a multi-line record, CRLF endings, junk
    multi = lines[0].replace("MV[", "\nMV[")
    text = f"# header\n\n{body}\n{multi}\nnot a record\n{lines[1]}\r\n"
    data = text.encode()
    expected_slow = None
    for name, writer in (("g.sgf", bytes), ("g.sgf.gz", gzip.compress),
                         ("g.sgf.bz2", bz2.compress),
                         ("g.sgf.zst", lambda d: zstandard.ZstdCompressor().compress(d))):
        path = tmp_path / name
        path.write_bytes(writer(data))
        for workers, chunk in ((1, 1 << 12), (2, 1 << 14)):
            batches = list(fast_validate_iss(path, workers=workers, chunk_bytes=chunk,
                                             source="g.sgf"))
            accepted = sum(b.accepted for b in batches)
            slow = [(r.line, r.text) for b in batches for r in b.slow]
            lines_ok = np.concatenate([b.lines[b.rows[:, K.F_STATUS] == K.OK]
                                       for b in batches])
            assert accepted == 401  # 400 + the CRLF line
            assert list(lines_ok[:3]) == [3, 4, 5] and lines_ok[-1] == 406
            if expected_slow is None:
                expected_slow = slow
            assert slow == expected_slow
    reference = {(g.line, g.raw) for g in iter_text_games(text, "g.sgf", "iss")
                 if not (g.ok and g.value_check == "ok")}
    assert {(line, raw) for line, raw in expected_slow} >= reference
    assert [line for line, _ in expected_slow] == [403, 405]


def test_a_lone_carriage_return_ends_no_line(engine_games) -> None:
    """Lines end at \\n only, as grep counts them, on both paths (issue 17): two records
    joined by a lone CR are one line, a syntax error on both; the next line is line 2."""
    _, lines = engine_games
    text = lines[0] + "\r" + lines[1] + "\n" + lines[2] + "\n"
    batches = list(fast_validate_iss(io.BytesIO(text.encode()), workers=1, source="cr.sgf"))
    slow = [game for b in batches for game in b.slow_games()]
    assert [(g.line, [e.code for e in g.errors]) for g in slow] == [(1, ["syntax"])]
    assert [int(line) for b in batches for line in b.lines[b.rows[:, K.F_STATUS] == K.OK]
            ] == [2]
    reference = iter_text_games(text, "cr.sgf", "iss")
    assert [(g.line, g.ok) for g in reference] == [(1, False), (2, True)]


def test_ingest_into_archive_and_again(engine_games, iss_dir: Path, tmp_path) -> None:
    from skatlog.ingest.archive import read_table

    _, lines = engine_games
    log = tmp_path / "games.sgf"
    log.write_text("\n".join(lines[:500]) + "\n")
    archive = tmp_path / "archive"
    first = ingest_iss_fast([log, iss_dir], archive, workers=1)
    real = sum(1 for p in iss_dir.glob("*.sgf") for ln in p.read_text().splitlines()
               if ln.strip())
    assert first.seen == 500 + real
    assert first.rejected >= 1 and first.rejected_by_code.get("corrupt_card") == 1
    assert first.stored == first.seen - first.rejected - first.duplicates
    second = ingest_iss_fast([log], archive, workers=1)
    assert second.stored == 0 and second.duplicates == 500
    games = read_table(archive, "games")
    assert games.num_rows == first.stored
    assert len(set(games.column("game_id").to_pylist())) == games.num_rows


@pytest.mark.parametrize("workers", [1, 2])
def test_validation_json_equals_reference(engine_games, iss_dir: Path, workers: int) -> None:
    """In one process and with two workers (which validate the records they hand over
    themselves, ``FastBatch.settled``)."""
    _, lines = engine_games
    texts = {"games.sgf": "\n".join(lines[:200]) + "\n"}
    texts.update({p.name: p.read_text() for p in sorted(iss_dir.glob("*.sgf"))})
    for name, text in texts.items():
        want = [game_json(g) for g in iter_text_games(text, name, "iss")]
        got = list(iter_validation_json(io.BytesIO(text.encode()), workers=workers,
                                        source=name))
        assert got == want, name
        # as printed, key order included: `validate --json` prints the same bytes either way
        assert [json.dumps(o) for o in got] == [json.dumps(o) for o in want], name
    batches = list(fast_validate_iss(io.BytesIO(texts["games.sgf"].encode()),
                                     workers=workers, source="games.sgf"))
    assert all((b.settled is not None) == (workers > 1) for b in batches)


def _archive_tables(archive: Path) -> dict[str, pa.Table]:
    from skatlog.ingest.archive import read_table

    tables = {name: read_table(archive, name) for name in ("games", "tricks", "auction")}
    return {name: t.drop_columns([c for c in ("ingest_id",) if c in t.schema.names])
            for name, t in tables.items()}


def test_worker_written_partitions_equal_reference_ingest(engine_games, iss_dir: Path,
                                                          tmp_path) -> None:
    """Workers write the partitions (several tasks, two processes); games repeated across
    tasks and within a task are stored once, the rows equal the reference ingest's, nothing
    but committed files stays on disk, and a re-ingest stores nothing."""
    from skatlog.ingest.archive import MANIFEST, read_manifest
    from skatlog.ingest.pipeline import ingest_paths

    _, lines = engine_games
    real = sorted(iss_dir.glob("*.sgf"))[0].read_text().splitlines()
    # repeats: within the first chunks, across tasks, and a whole early stretch at the end
    body = lines[:300] + lines[10:20] + real + lines[300:600] + lines[100:250] + lines[:40]
    log = tmp_path / "dups.sgf"
    log.write_text("\n".join(body) + "\n")
    fast_archive, ref_archive = tmp_path / "fast", tmp_path / "ref"
    fast = ingest_iss_fast([log], fast_archive, workers=2, chunk_bytes=1 << 14)
    ref = ingest_paths([log], ref_archive, progress=False, fast=False)
    assert (fast.seen, fast.stored, fast.duplicates, fast.rejected) == \
        (ref.seen, ref.stored, ref.duplicates, ref.rejected)
    assert fast.duplicates >= 10 + 150 + 40
    _assert_tables_equal(_archive_tables(ref_archive), _archive_tables(fast_archive))
    manifest = read_manifest(fast_archive)
    committed = {p for name in manifest.tables for p in manifest.files(name)}
    assert {f"{p.parent.name}/{p.name}" for p in fast_archive.glob("*/*.parquet")} == committed
    assert len(manifest.files("games")) > 2  # several worker tasks were adopted
    digest = manifest.files("ingests")
    assert digest and (fast_archive / MANIFEST).exists()
    again = ingest_iss_fast([log], fast_archive, workers=2, chunk_bytes=1 << 14)
    assert again.stored == 0 and again.duplicates == fast.stored + fast.duplicates
    after = read_manifest(fast_archive)
    for name in ("games", "tricks", "auction"):
        assert after.files(name) == manifest.files(name)
    assert len(list(fast_archive.glob("games/*.parquet"))) == len(manifest.files("games"))


@pytest.mark.parametrize("packed", [False, True])
def test_a_game_twice_in_one_chunk_has_its_child_rows_once(engine_games, tmp_path,
                                                           packed: bool) -> None:
    """Repeats inside one chunk at the default sizes (a plain file and a .gz stream):
    tricks and auction rows equal the reference ingest's, not one copy a repeat (a child
    row's game_id cannot tell the copies apart)."""
    from skatlog.ingest.pipeline import ingest_paths

    _, lines = engine_games
    body = lines[:50] + lines[:50] + lines[20:30] + lines[50:80] + lines[75:80]
    text = "\n".join(body) + "\n"
    log = tmp_path / ("twice.sgf.gz" if packed else "twice.sgf")
    if packed:
        log.write_bytes(gzip.compress(text.encode()))
    else:
        log.write_text(text)
    fast = ingest_iss_fast([log], tmp_path / "fast", workers=2)
    ref = ingest_paths([log], tmp_path / "ref", progress=False, fast=False)
    assert (fast.stored, fast.duplicates) == (ref.stored, ref.duplicates) == (80, 65)
    _assert_tables_equal(_archive_tables(tmp_path / "ref"), _archive_tables(tmp_path / "fast"))


def test_no_worker_outlives_the_ingest(engine_games, tmp_path) -> None:
    """Each file's workers exit while the run goes on, and are joined before it returns:
    no exit thread is left, every worker is reaped (its CPU counted to this process's
    children), and no worker process of the run is still there."""
    import multiprocessing
    import resource
    import threading

    _, lines = engine_games
    logs = []
    for name, part in (("a.sgf", lines[:200]), ("b.sgf", lines[200:400])):
        logs.append(tmp_path / name)
        logs[-1].write_text("\n".join(part) + "\n")
    before = {p.pid for p in multiprocessing.active_children()}
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    summary = ingest_iss_fast(logs, tmp_path / "archive", workers=2, chunk_bytes=1 << 13)
    assert summary.stored == 400
    assert not [t for t in threading.enumerate() if t.name == "skatlog-workers-exit"]
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert after.ru_utime + after.ru_stime > children.ru_utime + children.ru_stime
    assert {p.pid for p in multiprocessing.active_children()} <= before


def test_the_summary_says_how_long_loading_the_kernels_took(engine_games, tmp_path) -> None:
    """The run's time includes loading the compiled code once; the summary says how much
    of it that was, so the rate it prints can be read."""
    _, lines = engine_games
    log = tmp_path / "a.sgf"
    log.write_text("\n".join(lines[:50]) + "\n")
    summary = ingest_iss_fast([log], tmp_path / "archive", workers=1)
    assert 0 < summary.load_seconds <= summary.seconds
    summary.seconds, summary.load_seconds = 1.5, 0.31
    assert summary.lines()[-1] == (
        "time        1.50 s (33 games/s; 0.31 s of it loading or compiling the kernels)")
    summary.load_seconds = 0.001  # already loaded in this process: not worth a word
    assert summary.lines()[-1] == "time        1.50 s (33 games/s)"


def test_ingest_records_the_sha256_of_every_file(engine_games, tmp_path) -> None:
    import hashlib

    from skatlog.ingest.archive import read_table

    _, lines = engine_games
    plain = tmp_path / "a.sgf"
    plain.write_text("\n".join(lines[:100]) + "\n")
    packed = tmp_path / "b.sgf.gz"
    packed.write_bytes(gzip.compress(("\n".join(lines[100:200]) + "\n").encode()))
    ingest_iss_fast([plain, packed], tmp_path / "archive", workers=2, chunk_bytes=1 << 12)
    files = read_table(tmp_path / "archive", "ingests").column("files").to_pylist()[0]
    assert [(f["path"], f["sha256"], f["bytes"]) for f in files] == [
        (str(p), hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_size)
        for p in (plain, packed)]
