#!/usr/bin/env bash
# Set up skatlog in .venv and run the main job on the sample data skatlog ships.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e .
.venv/bin/skatlog demo --seed 1
