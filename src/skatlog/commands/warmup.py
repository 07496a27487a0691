"""``skatlog warm-up``: compile the numba kernels ahead of their first use."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console


def register(app: typer.Typer) -> None:
    app.command("warm-up")(warm_up)


def warm_up(
    workers: Annotated[int, typer.Option(
        "--workers", min=1, help="Processes compiling at once.")] = 2,
) -> None:
    """Compile the compiled paths (ISS kernel, batch simulator, rules core) into numba's cache.

    ``pip install`` already compiles them (build_support/skatlog_build.py); run this after an
    install with SKATLOG_COMPILE_AT_INSTALL=0, a numba upgrade or an edit of the compiled
    sources: the first ingest, validation or simulation then starts at full speed instead of
    spending a minute or two compiling. Safe to run again (it only loads).
    """
    from skatlog.ingest.warmup import warm_up as compile_all

    console = Console(stderr=True, soft_wrap=True)
    seconds = compile_all(workers, lambda name, took: console.print(
        f"compiled {name} in {took:.1f} s", highlight=False, markup=False))
    if seconds == 0.0:
        console.print("numba is not installed: nothing to compile (plain-Python paths)",
                      highlight=False, markup=False)
        return
    console.print(f"warm-up done in {seconds:.1f} s", highlight=False, markup=False)
