"""The ``skatlog`` command: a thin typer front over the library.

Each module in :mod:`skatlog.commands` defines ``register(app)`` and adds its commands;
the CLI parses arguments and calls the same functions tests and notebooks call.
"""

from __future__ import annotations

import gc
import importlib
import pkgutil

import typer

from skatlog import commands

app = typer.Typer(
    name="skatlog",
    help="Archive, validate and analyse Skat games.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    """Archive, validate and analyse Skat games."""


for _module in sorted(m.name for m in pkgutil.iter_modules(commands.__path__)):
    if not _module.startswith("_"):  # _name: shared option helpers, no command
        importlib.import_module(f"skatlog.commands.{_module}").register(app)


def main() -> None:  # pragma: no cover - console entry point
    try:
        app()
    finally:
        # The interpreter's exit runs the cyclic garbage collector over every object
        # still alive (numba's and pyarrow's many): 0.15-0.2 s of an ingest's wall time.
        # Frozen objects are skipped; the OS reclaims their memory, and atexit handlers
        # (temporary directories, the process pool) still run.
        gc.freeze()
