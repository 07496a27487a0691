"""The compiled path's processes use no transparent huge pages while they work, and an
ingest leaves its caller's policy as it found it (:mod:`skatlog.ingest.fast.pages`)."""

from __future__ import annotations

import multiprocessing as mp
import os
import random
import sys

import pytest

from skatlog.ingest.fast import ingest_iss_fast, pages, parts
from skatlog.ingest.fast.synth import iss_line, random_record

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl: Linux")


@pytest.fixture(autouse=True)
def _huge_pages_allowed() -> None:
    """These tests start from the usual policy; a runner that forbids huge pages to every
    process already (inherited flag) has nothing to show here."""
    if pages._prctl(pages._PR_GET_THP_DISABLE) != 0:
        pytest.skip("this process runs without transparent huge pages already")


def _flag() -> int:
    return pages._prctl(pages._PR_GET_THP_DISABLE)


def _child_flag(queue: mp.Queue) -> None:  # type: ignore[type-arg]
    queue.put(_flag())


def test_without_huge_pages_sets_the_flag_for_the_block_and_its_children() -> None:
    assert _flag() == 0
    with pages.without_huge_pages():
        assert _flag() == 1
        queue: mp.Queue = mp.get_context("fork").Queue()  # type: ignore[type-arg]
        child = mp.get_context("fork").Process(target=_child_flag, args=(queue,))
        child.start()
        assert queue.get(timeout=30) == 1  # a process forked here inherits it
        child.join()
    assert _flag() == 0


def test_a_policy_set_before_is_left_alone() -> None:
    pages.disable_huge_pages()
    try:
        with pages.without_huge_pages():
            assert _flag() == 1
        assert _flag() == 1  # it was set before the block: the block does not clear it
    finally:
        pages._prctl(pages._PR_SET_THP_DISABLE, 0)
    assert _flag() == 0


@pytest.mark.parametrize("workers", [1, 2])
def test_an_ingest_works_without_huge_pages_and_restores_the_policy(tmp_path, monkeypatch,
                                                                    workers: int) -> None:
    """Every task (in this process, or in a forked worker) runs with the flag set; after
    the ingest this process's policy is what it was."""
    rng = random.Random(5)
    log = tmp_path / "a.sgf"
    log.write_text("\n".join(iss_line(random_record(rng), k, rng) for k in range(300)) + "\n")
    flags = tmp_path / "flags"
    flags.mkdir()
    original = parts.write_task

    def write_task(number: int, *args: object, **kwargs: object) -> parts.PartBatch:
        (flags / f"{number}-{os.getpid()}").write_text(str(_flag()))
        return original(number, *args, **kwargs)  # type: ignore[arg-type]

    write_task.__module__, write_task.__qualname__ = parts.__name__, "write_task"
    monkeypatch.setattr(parts, "write_task", write_task)  # forked workers inherit it
    summary = ingest_iss_fast([log], tmp_path / "archive", workers=workers,
                              chunk_bytes=1 << 13)
    assert summary.seen == 300
    seen = {path.read_text() for path in flags.iterdir()}
    assert seen == {"1"} and len(list(flags.iterdir())) > 2
    if workers > 1:
        assert {path.name.split("-")[1] for path in flags.iterdir()} != {str(os.getpid())}
    assert _flag() == 0
