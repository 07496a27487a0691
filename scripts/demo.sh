#!/usr/bin/env bash
# Set up skatlog in .venv and run the main job on the sample logs skatlog ships:
# a demo session, validation and ingest of the samples, 100,000 simulated hands, a replay
# check of every stored game, best-play analysis of the club's games, queries,
# and the HTML report built from the archive. Re-running it stores nothing twice.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e ".[fast]"
.venv/bin/skatlog warm-up   # pip install compiled the kernels: this loads them (compiles if not)
ARCHIVE="${SKATLOG_ARCHIVE:-data/archive}"
run() { echo; echo "\$ skatlog $*"; .venv/bin/skatlog "$@"; }

run demo --seed 1
# data/samples/damaged.sgf is broken on purpose: validation reports each error (exit 1).
run validate data/samples || echo "(exit $?: the damaged records above are reported, not hidden)"
run ingest data/samples --archive "$ARCHIVE"
run simulate --hands 100000 --seed 1 --bots rules,rules,rules --archive "$ARCHIVE"
run simulate --hands 6000 --seed 1 --rules foster --sessions --archive "$ARCHIVE"
run verify --archive "$ARCHIVE" --quiet
# Could the club's lost games have been won? Best play with every card known, per game.
run analyze --archive "$ARCHIVE" --where "origin = 'log'"
run query "SELECT g.contract, count(*) AS lost, sum(a.dd_won::int) AS winnable_with_best_play
           FROM games g JOIN analysis a USING (game_id) WHERE NOT g.won
           GROUP BY ALL ORDER BY lost DESC" --archive "$ARCHIVE"
run query "SELECT origin, contract, count(*) AS games, round(avg(won::int), 3) AS won
           FROM games WHERE outcome = 'played' GROUP BY ALL ORDER BY origin, games DESC" \
    --archive "$ARCHIVE"
run query "SELECT contract, count(*) AS games, round(avg(won::int), 3) AS won,
           round(avg(value), 1) AS mean_value FROM games
           WHERE rules = 'foster' AND outcome = 'played' GROUP BY ALL ORDER BY games DESC" \
    --archive "$ARCHIVE"
run report --archive "$ARCHIVE" --out reports/out
