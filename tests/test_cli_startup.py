"""What the ``skatlog`` command loads before it does anything: every command pays for it.

Loading the report's modules (DuckDB, polars, Plotly, and the simulator behind the strategy
pages) at start-up cost every command about 0.7 s, ``skatlog --help`` included; ingesting a
log in which no line claims a simulated hand imported the simulator too (0.3-0.6 s). These
tests hold the command line to loading them only when they are used (in a fresh
interpreter, by the modules it has loaded, not by a timing).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

#: Modules only some commands need; none may be loaded by the command line itself.
HEAVY = ("duckdb", "polars", "plotly", "skatlog.engine.batch", "skatlog.reports.build",
         "skatlog.analytics.connect", "distributed")


def _loaded(code: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", code + "\nimport json, sys\n"
                          "print(json.dumps(sorted(sys.modules)))"],
                         capture_output=True, text=True, check=True)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_the_command_line_loads_no_command_specific_library() -> None:
    loaded = _loaded("import skatlog.cli")
    assert "skatlog.commands.report" in loaded  # every command is registered
    assert not [name for name in HEAVY if name in loaded]


def test_ingesting_a_log_without_simulated_hands_does_not_load_the_simulator(
        tmp_path: Path) -> None:
    import random

    from skatlog.ingest.fast.synth import iss_line, random_record

    rng = random.Random(5)
    log = tmp_path / "club.sgf"
    log.write_text("\n".join(iss_line(random_record(rng), i, rng) for i in range(3)) + "\n")
    loaded = _loaded(
        "from skatlog.cli import app\n"
        f"try:\n    app([\"ingest\", {str(log)!r}, \"--archive\", {str(tmp_path / 'a')!r},"
        " \"-q\"])\nexcept SystemExit as stop:\n    assert not stop.code, stop.code")
    assert (tmp_path / "a").is_dir()
    assert "skatlog.engine.batch" not in loaded
    assert "skatlog.ingest.pipeline" in loaded
