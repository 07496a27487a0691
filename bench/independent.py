"""``bench/ingest.py --independent``: ingest speed on ISS records skatlog did not write.

On a file of :mod:`other_iss` (records in the style of other programs, a share damaged) it
measures, and prints:

1. the warm rate of ``skatlog validate --fast`` (the kernel in worker processes, every record
   it hands over validated by the reference path in this process) and of the full ingest into
   a fresh archive, with the CPU seconds of this process and of the workers (the kernel
   and the slow path both run in the workers), and the rate those allow on free cores
   (``--idle-before 6``: each ingest after 6 s of sleep, cold, as a run that follows no
   other meets it on a VM whose host takes idle memory back);
2. why records went to the slow path: the kernel's status counts, split by the reference
   path's verdict, and for ``unsure`` the feature of the record that the kernel leaves to
   the reference path (:func:`unsure_reason`);
3. the first run after install: the same ingest in a fresh process with an empty numba cache
   (``NUMBA_CACHE_DIR`` set to a new folder), with numba's compile time by function, and the
   ratio first/warm;
4. the wall time of ``skatlog ingest FILE --archive DIR`` as a user runs it, warm and cold;
5. with ``--profile``, a cProfile of one warm validation in one process: where the time goes
   per record, kernel-accepted and slow path;
6. with ``--fresh-install`` (only this part runs): the first run as a user meets it. A copy
   of this checkout is installed into a new venv (``pip install TREE[fast]`` and/or
   ``pip install -e TREE[fast]``, which compile the kernels at install time through
   ``build_support/skatlog_build.py``); then ``skatlog ingest FILE`` runs from that venv with
   numba's default cache, once right after the install and then warm: install time, the
   compile share of it, first and warm wall and CPU, and the ratio against the 2x target.
   ``--install-baseline`` adds the same with ``SKATLOG_COMPILE_AT_INSTALL=0`` (what a plain
   install gave before).

Not a test: no assertion on timings. The machine may be shared: the load average is printed.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import other_iss

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
TARGET_RATE = 150_000
TARGET_FIRST_RATIO = 2.0

# ---------------------------------------------------------------- slow-path reasons
_TAG = re.compile(r"([A-Z0-9]+)\[((?:\\.|[^\]\\])*)\]")
_ISS_DATE = re.compile(r"\d{4}-\d\d-\d\d/\d\d:\d\d:\d\d/UTC")
_KERNEL_TAGS = {"MV", "R", "DT", "GM", "P0", "P1", "P2", "ID", "SE"}


def unsure_reason(text: str) -> str:
    """Which feature of a record the kernel leaves to the reference path (status ``unsure``).

    A reading of the kernel's ``UNSURE`` branches (``ingest/fast/iss_kernel.py``) applied to
    the text: the first feature found, or ``other``.
    """
    tags = dict(_TAG.findall(text))
    if "\\" in text:
        return "escaped character in a value"
    if "OW" in tags or "RU" in tags:
        return "OW or RU tag"
    if "MV" not in tags:
        return "no MV tag"
    if tags.get("DT") and not _ISS_DATE.fullmatch(tags["DT"]):
        return "date not YYYY-MM-DD/HH:MM:SS/UTC"
    for tag, value in tags.items():
        if tag not in _KERNEL_TAGS and not value.isascii():
            return f"non-ASCII {tag}[...] (extra tag kept as JSON)"
    tokens = tags["MV"].split()
    pairs = list(zip(tokens[2::2], tokens[3::2], strict=False))
    for k, (who, action) in enumerate(pairs):
        if who == "w" and not action.startswith(("TI.", "LE.")):
            continue
        if action == "s" and (k + 1 >= len(pairs) or pairs[k + 1][0] != "w"):
            return "pick-up without the skat reveal"
        if action[0] in "GCSHDN" and action.count(".") >= 10:
            return "ouvert declaration listing the open cards"
        if action.isdigit() and int(action) in (171, 189, 190):
            return "off-ladder bid (R18)"
    return "other"


def slow_reason(status: str, text: str) -> str:
    """A short reason for a valid record the kernel did not accept."""
    if status == "unsure":
        return unsure_reason(text)
    if status == "syntax" and "|" in text:
        return "deal with '|' between the hands"
    if status == "truncated" and re.search(r"\d SC .*\d RE ;?\)?\s*\]", text):
        return "SC then one defender's RE (ISS: both resign)"
    return status


# ---------------------------------------------------------------- timing helpers
class Clock:
    """Seconds spent inside wrapped calls (this process only)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.calls = 0

    def wrap(self, func: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return func(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - start
                self.calls += 1
        return timed


def load() -> str:
    return f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"


# ---------------------------------------------------------------- measurements
def bench_validate(path: Path, workers: int) -> dict[str, Any]:
    """``skatlog validate --fast`` equivalent: kernel batches, slow records replayed here."""
    from skatlog.ingest.fast import STATUS_NAMES, fast_validate_iss
    from skatlog.ingest.fast import iss_kernel as K
    from skatlog.ingest.validate import parse_raw, replay_parsed

    statuses: Counter[str] = Counter()
    reasons: Counter[tuple[str, str, str]] = Counter()
    seconds_by: defaultdict[tuple[str, str, str], float] = defaultdict(float)  # by class
    slow_clock = Clock()
    accepted = slow = valid_slow = decided = 0
    start = time.perf_counter()
    for batch in fast_validate_iss(path, workers=workers, tables=False, settle=False):
        accepted += batch.accepted
        status_of = dict(zip(batch.lines.tolist(), batch.rows[:, K.F_STATUS].tolist(),
                             strict=True))
        for code in status_of.values():
            statuses[STATUS_NAMES[code]] += 1
        decided += len(batch.decided)  # rejects the kernel settled (verdicts built in the
        for raw in batch.slow:  # worker)
            begin = time.perf_counter()
            game = replay_parsed(parse_raw(raw, batch.rules))  # the reference reader, replay
            took = time.perf_counter() - begin
            slow_clock.seconds += took
            slow += 1
            status = STATUS_NAMES[status_of.get(raw.line, K.FRAGMENT)]
            verdict = "valid" if game.ok else "rejected"
            valid_slow += game.ok
            why = slow_reason(status, raw.text) if game.ok else (
                game.errors[0].code if game.errors else "rejected")
            reasons[(status, verdict, why)] += 1
            seconds_by[(status, verdict, why)] += took
    wall = time.perf_counter() - start
    games = accepted + decided + slow
    print(f"validate    {games:,} games in {wall:.2f} s = {games / wall:,.0f} games/s"
          f" (kernel accepted {accepted:,}, settled {decided:,} rejects itself; slow path"
          f" {slow:,} = {slow / games:.1%}, {valid_slow:,} of them valid)")
    print(f"            slow path {slow_clock.seconds:.2f} s in this process ="
          f" {slow_clock.seconds / wall:.0%} of the wall,"
          f" {slow_clock.seconds / max(slow, 1) * 1e3:.2f} ms a record; the kernel's part"
          f" ({workers} workers) {wall - slow_clock.seconds:.2f} s")
    print("            kernel status counts: " + ", ".join(
        f"{name} {count:,}" for name, count in statuses.most_common()))
    print("            slow path by kernel status, reference verdict and reason"
          " (records, share of the slow path's time, microseconds a record):")
    total = max(slow_clock.seconds, 1e-9)
    for key, count in sorted(reasons.items(), key=lambda x: -seconds_by[x[0]]):
        status, verdict, why = key
        print(f"              {count:>7,} {seconds_by[key] / total:>4.0%}"
              f" {seconds_by[key] / count * 1e6:>5.0f} us  {status:<16} {verdict:<8} {why}")
    start = time.perf_counter()
    settled = sum(batch.accepted + sum(1 for _ in batch.slow_games())
                  for batch in fast_validate_iss(path, workers=workers, tables=False))
    settled_wall = time.perf_counter() - start
    print(f"validate    {settled:,} games in {settled_wall:.2f} s ="
          f" {settled / settled_wall:,.0f} games/s with the slow path in the workers"
          " (as skatlog validate runs it; the figures above replay it in this process to time"
          " each class)")
    return {"games": games, "wall": wall, "slow": slow, "slow_s": slow_clock.seconds,
            "settled_wall": settled_wall}


def bench_ingest(path: Path, workers: int) -> dict[str, Any]:
    """The full ingest into a fresh archive: wall time, the CPU seconds of this process and
    of the worker processes (which run the kernel and the slow path), and the time this
    process spends storing what the workers hand back (rejects, prose, unmatched claims)."""
    from skatlog.ingest.fast import ingest as fast_ingest
    from skatlog.ingest.fast import ingest_iss_fast

    rows = Clock()
    sink = fast_ingest._SlowSink
    saved = (sink.add, sink.flush, sink.add_rejects)
    sink.add = rows.wrap(saved[0])  # type: ignore[method-assign]
    sink.flush = rows.wrap(saved[1])  # type: ignore[method-assign]
    sink.add_rejects = rows.wrap(saved[2])  # type: ignore[method-assign]
    archive = Path(tempfile.mkdtemp(prefix="skatlog-bench-archive-", dir=OUT))
    me0, kids0 = _cpu()
    try:
        start = time.perf_counter()
        summary = ingest_iss_fast([path], archive, workers=workers)
        wall = time.perf_counter() - start
    finally:
        sink.add, sink.flush, sink.add_rejects = saved  # type: ignore[method-assign]
        shutil.rmtree(archive, ignore_errors=True)
    me1, kids1 = _cpu()
    main_cpu, worker_cpu = me1 - me0, kids1 - kids0
    bound = max(main_cpu, (main_cpu + worker_cpu) / max(workers, 1))
    print(f"ingest      {summary.seen:,} games in {wall:.2f} s = {summary.seen / wall:,.0f}"
          f" games/s (stored {summary.stored:,}, rejected {summary.rejected:,},"
          f" duplicates {summary.duplicates:,})")
    print(f"            CPU: this process {main_cpu:.2f} s (of which storing rejects"
          f" {rows.seconds:.2f} s), workers {worker_cpu:.2f} s (kernel, slow path, Parquet);"
          f" on {workers} free cores at least {bound:.2f} s = {summary.seen / bound:,.0f}"
          " games/s")
    print("            rejected by code: " + ", ".join(
        f"{code} {n:,}" for code, n in sorted(summary.rejected_by_code.items())))
    return {"games": summary.seen, "wall": wall, "slow_s": rows.seconds,
            "cpu_bound": bound}


def _cpu() -> tuple[float, float]:
    """CPU seconds (user + system) of this process and of its finished children."""
    import resource

    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime


def child_ingest(path: Path, workers: int) -> int:
    """In a fresh process: import, load or compile the kernel, ingest; print JSON timings.

    numba's compile events give the compile time by function (only functions compiled in
    this process: the workers fork after the kernel is loaded)."""
    begin = time.perf_counter()
    from numba.core import event

    with event.install_recorder("numba:compile") as recorder:
        import skatlog.ingest.fast as fast
        from skatlog.ingest.fast.runner import warm_up

        imported = time.perf_counter()
        warm_up()
        warmed = time.perf_counter()
        archive = Path(tempfile.mkdtemp(prefix="skatlog-bench-first-", dir=OUT))
        try:
            summary = fast.ingest_iss_fast([path], archive, workers=workers)
        finally:
            shutil.rmtree(archive, ignore_errors=True)
        done = time.perf_counter()
    print(json.dumps({
        "import_s": imported - begin, "warm_up_s": warmed - imported,
        "ingest_s": done - warmed, "total_s": done - begin, "seen": summary.seen,
        "compiles": _compile_times(recorder.buffer),
    }))
    return 0


def _compile_times(buffer: list[tuple[float, Any]]) -> list[tuple[str, float, float]]:
    """(function, inclusive s, exclusive s) of each compile, nested compiles subtracted."""
    stack: list[list[Any]] = []
    done: list[tuple[str, float, float]] = []
    for stamp, ev in buffer:
        dispatcher = ev.data["dispatcher"]
        func = getattr(dispatcher, "py_func", None)
        name = f"{func.__module__}.{func.__qualname__}" if func else str(dispatcher)
        if ev.is_start:
            stack.append([name, stamp, 0.0])
        else:
            name, began, nested = stack.pop()
            took = stamp - began
            done.append((name, took, took - nested))
            if stack:
                stack[-1][2] += took
    return done


def first_run(path: Path, workers: int, cache: str) -> dict[str, Any]:
    """The ingest in a fresh process with the empty numba cache ``cache``
    (``NUMBA_CACHE_DIR``), which it fills."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, str(HERE / "ingest.py"), "--child-ingest",
                           str(path), "--workers", str(workers)], env=env,
                          capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    result["wall"] = wall
    compiles = result["compiles"]
    total = sum(exclusive for _, _, exclusive in compiles)
    print(f"first run   {result['seen']:,} games, fresh process, empty numba cache: wall"
          f" {wall:.1f} s = {result['seen'] / wall:,.0f} games/s (import"
          f" {result['import_s']:.1f} s, kernel compile {result['warm_up_s']:.1f} s,"
          f" ingest {result['ingest_s']:.1f} s)")
    print(f"            numba compiled {len(compiles)} functions in this process,"
          f" {total:.1f} s in all; the largest (exclusive of nested compiles):")
    by_name: Counter[str] = Counter()
    for name, _, exclusive in compiles:
        by_name[name] += exclusive
    for name, seconds in by_name.most_common(12):
        print(f"              {seconds:6.2f} s  {name}")
    return result


def cli_wall(path: Path, cache: str) -> float:
    """``skatlog ingest FILE --archive DIR -q`` in a fresh process with the numba cache
    ``cache`` (a private ``NUMBA_CACHE_DIR``: other work in the tree cannot make it stale)."""
    archive = tempfile.mkdtemp(prefix="skatlog-bench-cli-", dir=OUT)
    shutil.rmtree(archive)
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    exe = Path(sys.executable).with_name("skatlog")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "skatlog"]
    try:
        start = time.perf_counter()
        proc = subprocess.run([*cmd, "ingest", str(path), "--archive", archive, "-q"],
                              env=env, capture_output=True, text=True)
        wall = time.perf_counter() - start
    finally:
        shutil.rmtree(archive, ignore_errors=True)
    if proc.returncode not in (0, 1):
        print(proc.stdout[-2000:], proc.stderr[-2000:])
    return wall


def profile(path: Path, top: int) -> None:
    """cProfile of one warm validation in this process (one worker): time per stage."""
    from skatlog.ingest.fast import fast_validate_iss

    profiler = cProfile.Profile()
    accepted = slow = 0
    start = time.perf_counter()
    profiler.enable()
    for batch in fast_validate_iss(path, workers=1, tables=True):
        accepted += batch.accepted
        for _ in batch.slow_games():
            slow += 1
    profiler.disable()
    wall = time.perf_counter() - start
    stats = pstats.Stats(profiler)
    cum: dict[str, float] = {}
    for (filename, _, name), row in stats.stats.items():  # type: ignore[attr-defined]
        key = f"{Path(filename).name}:{name}"
        cum[key] = max(cum.get(key, 0.0), row[3])
    stages = (
        ("kernel scan (numba, all lines)", "columns.py:scan", accepted + slow),
        ("archive tables of accepted games", "columns.py:archive_tables", accepted),
        ("cutting slow records", "runner.py:_slow_records", slow),
        ("slow path: read ISS text", "iss.py:read_iss", slow),
        ("slow path: replay by GameState", "validate.py:replay_parsed", slow),
        ("  of which Trick.points (scoring each trick)", "game.py:points", slow),
    )
    print(f"profile     one process, tables built, cProfile on: {accepted + slow:,} records"
          f" in {wall:.1f} s (profiling slows Python code, not numba code)")
    for label, key, count in stages:
        seconds = cum.get(key, 0.0)
        print(f"              {label:<52} {seconds:7.2f} s  {seconds / max(count, 1) * 1e6:8.1f}"
              f" us a record ({count:,})")
    out = OUT / "independent-profile.txt"
    with out.open("w") as handle:
        pstats.Stats(profiler, stream=handle).sort_stats("cumulative").print_stats(top)
    print(f"            top {top} functions by cumulative time: {out}")


# ---------------------------------------------------------------- first run after install
_COMPILED = re.compile(r"skatlog build: kernels compiled in ([0-9.]+) s")


def copy_checkout(target: Path) -> None:
    """The checkout's files as git sees them (tracked and new, ignored ones left out: no
    ``__pycache__``, so no numba cache comes along), symbolic links kept."""
    root = HERE.parent
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], cwd=root, check=True,
                            capture_output=True).stdout.split(b"\0")
    for name in filter(None, (item.decode() for item in listed)):
        source, dest = root / name, target / name
        if not source.is_symlink() and not source.exists():
            continue  # deleted in the working tree, not yet in git
        dest.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            dest.symlink_to(os.readlink(source))
        else:
            shutil.copy2(source, dest)


def install(venv: Path, tree: Path, editable: bool, compile_at_install: bool) -> dict[str, Any]:
    """A new venv with skatlog[fast] installed from ``tree``: wall seconds of ``pip install``
    and the compile part of it (the build backend's own figure)."""
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", str(venv)], check=True)
    env = dict(os.environ, SKATLOG_COMPILE_AT_INSTALL="1" if compile_at_install else "0")
    env.pop("NUMBA_CACHE_DIR", None)
    cmd = [str(venv / "bin" / "pip"), "install", "-v",
           *(["-e"] if editable else []), f"{tree}[fast]"]
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=venv)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        print(proc.stdout[-3000:], proc.stderr[-3000:])
        raise RuntimeError(f"pip install failed ({proc.returncode})")
    found = _COMPILED.search(proc.stdout + proc.stderr)
    warnings = [line.strip() for line in (proc.stdout + proc.stderr).splitlines()
                if "skatlog build: warning" in line]
    return {"wall": wall, "compile": float(found.group(1)) if found else 0.0,
            "warnings": warnings}


def venv_cli(venv: Path, path: Path) -> tuple[float, float]:
    """``skatlog ingest FILE --archive DIR -q`` from ``venv`` into a new archive, numba's
    default cache (beside the installed sources): (wall s, CPU s of it and its workers)."""
    archive = Path(tempfile.mkdtemp(prefix="skatlog-bench-venv-", dir=OUT))
    shutil.rmtree(archive)
    env = dict(os.environ)
    env.pop("NUMBA_CACHE_DIR", None)
    _, kids0 = _cpu()
    try:
        start = time.perf_counter()
        proc = subprocess.run([str(venv / "bin" / "skatlog"), "ingest", str(path),
                               "--archive", str(archive), "-q"],
                              env=env, capture_output=True, text=True)
        wall = time.perf_counter() - start
    finally:
        shutil.rmtree(archive, ignore_errors=True)
    _, kids1 = _cpu()
    if proc.returncode not in (0, 1):
        print(proc.stdout[-2000:], proc.stderr[-2000:])
        raise RuntimeError(f"skatlog ingest failed ({proc.returncode})")
    return wall, kids1 - kids0


def fresh_install(args: argparse.Namespace, path: Path) -> int:
    """Install into new venvs, then time the first and the warm ``skatlog ingest``."""
    kinds = [kind.strip() for kind in args.install_kinds.split(",") if kind.strip()]
    runs = [(kind, True) for kind in kinds]
    if args.install_baseline:
        runs += [(kind, False) for kind in kinds]
    games = args.games or 200_000
    for kind, compiled in runs:
        if kind not in ("wheel", "editable"):
            raise SystemExit(f"--install-kinds: wheel or editable, not {kind!r}")
        with tempfile.TemporaryDirectory(prefix="skatlog-fresh-") as tmp:
            tree, venv = Path(tmp) / "tree", Path(tmp) / "venv"
            copy_checkout(tree)
            label = ("pip install -e TREE[fast]" if kind == "editable"
                     else "pip install TREE[fast]")
            label += "" if compiled else " with SKATLOG_COMPILE_AT_INSTALL=0"
            print(f"install     {label}: {load()}", flush=True)
            done = install(venv, tree, kind == "editable", compiled)
            print(f"            {done['wall']:.1f} s, of which compiling the kernels"
                  f" {done['compile']:.1f} s" + "".join(
                      f"\n            {line}" for line in done["warnings"]), flush=True)
            first = venv_cli(venv, path)
            warm = [venv_cli(venv, path) for _ in range(max(1, args.warm_runs))]
            warm_wall = sorted(w for w, _ in warm)[len(warm) // 2]
            warm_cpu = sorted(c for _, c in warm)[len(warm) // 2]
            print(f"            skatlog ingest FILE, first run after the install: wall"
                  f" {first[0]:.2f} s = {games / first[0]:,.0f} games/s, CPU {first[1]:.2f} s")
            print(f"            warm (median of {len(warm)}): wall {warm_wall:.2f} s ="
                  f" {games / warm_wall:,.0f} games/s, CPU {warm_cpu:.2f} s")
            print(f"            first / warm = {first[0] / warm_wall:.2f}x wall,"
                  f" {first[1] / warm_cpu:.2f}x CPU (target <= {TARGET_FIRST_RATIO:.0f}x);"
                  f" {load()}", flush=True)
    return 0


# ---------------------------------------------------------------- the mode
def run(args: argparse.Namespace) -> int:
    games = args.games or 200_000
    OUT.mkdir(parents=True, exist_ok=True)
    path = other_iss.cached_file(games, seed=args.seed, damaged=args.damaged,
                                 workers=args.workers)
    if args.fresh_install:
        print(f"file        {path}, {games:,} records; {load()}")
        return fresh_install(args, path)
    stats = other_iss.load_stats(path)
    size = path.stat().st_size
    print(f"file        {size / 2**20:,.0f} MB, {games:,} records, {args.damaged:.0%} damaged;"
          f" {load()} (other processes share the cores)")
    print("            " + ", ".join(f"{k} {v:,}" for k, v in stats.items()
                                     if not k.startswith("damage ")))
    print("            " + ", ".join(f"{k} {v:,}" for k, v in stats.items()
                                     if k.startswith("damage ")))
    from skatlog.ingest.fast.runner import warm_up

    start = time.perf_counter()
    warm_up()  # load the compiled kernel from numba's cache (compile it if stale)
    print(f"warm-up     kernel loaded in {time.perf_counter() - start:.1f} s")
    validated = bench_validate(path, args.workers)
    runs = []
    for _ in range(max(1, args.ingest_runs)):
        if args.idle_before > 0:  # cold: the host has taken the idle memory back meanwhile
            time.sleep(args.idle_before)
        runs.append(bench_ingest(path, args.workers))
    ingested = sorted(runs, key=lambda run: run["wall"])[len(runs) // 2]  # the median run
    warm_rate = ingested["games"] / ingested["wall"]
    if len(runs) > 1:
        print(f"            {len(runs)} warm ingests: " + ", ".join(
            f"{run['games'] / run['wall']:,.0f}" for run in runs)
            + f" games/s; median {warm_rate:,.0f}")
    print(f"            {load()}")
    filled = tempfile.mkdtemp(prefix="numba-first-")  # filled by the first run
    empty = tempfile.mkdtemp(prefix="numba-empty-")
    try:
        first = first_run(path, args.workers, filled)
        cli_cold = cli_wall(path, empty) if args.cli_cold else float("nan")
        cli_warm = cli_wall(path, filled)
    finally:
        shutil.rmtree(filled, ignore_errors=True)
        shutil.rmtree(empty, ignore_errors=True)
    first_ratio = first["wall"] / ingested["wall"]
    print(f"CLI         skatlog ingest FILE --archive DIR -q, fresh process: empty numba cache"
          f" {cli_cold:.1f} s = {games / cli_cold:,.0f} games/s; then warm (the cache the"
          f" first run filled) {cli_warm:.1f} s = {games / cli_warm:,.0f} games/s")
    print(f"targets     warm ingest {warm_rate:,.0f} games/s = {warm_rate / TARGET_RATE:.2f}x"
          f" the {TARGET_RATE:,} target (validate {validated['games'] / validated['wall']:,.0f});"
          f" first run / warm = {first_ratio:.1f}x (target <= {TARGET_FIRST_RATIO:.0f}x);"
          f" CLI cold / warm = {cli_cold / cli_warm:.1f}x")
    print(f"            the CPU-bound rate on free cores (see above):"
          f" {ingested['games'] / ingested['cpu_bound']:,.0f} games/s; {load()}")
    if args.profile:
        profile(path, 40)
    return 0
