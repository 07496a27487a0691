#!/usr/bin/env bash
# Set up a virtual environment with every extra, then run ruff, mypy and the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e ".[dev]"
.venv/bin/skatlog warm-up   # pip install compiled the kernels: this loads them (compiles if not)
.venv/bin/ruff check .
.venv/bin/mypy
.venv/bin/python -m pytest -q --durations=15 "$@"
