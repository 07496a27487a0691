"""``skatlog validate``: replay every game of ISS or skatlog/1 logs through the rules.

Exit status: 0 when every game is valid, 1 otherwise, 2 on usage errors (missing file,
unknown format). Lenient by default (every game is checked); ``--strict`` stops at the
first bad game.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Annotated

import typer

from skatlog.ingest.model import LogGame
from skatlog.ingest.sources import FORMATS, SourceError, expand_paths
from skatlog.ingest.validate import game_json, iter_log_games


def register(app: typer.Typer) -> None:
    app.command("validate")(validate)


def validate(
    paths: Annotated[list[Path], typer.Argument(
        help="Log files or directories (plain, .gz, .bz2, .zst).", show_default=False)],
    fmt: Annotated[str, typer.Option("--format", help="auto, iss or jsonl.")] = "auto",
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per game.")] = False,
    strict: Annotated[bool, typer.Option("--strict", help="Stop at the first bad game.")]
    = False,
) -> None:
    """Check that every game replays legally and that its recorded value is right."""
    if fmt not in FORMATS:
        _usage(f"unknown format {fmt!r}: choose one of {', '.join(FORMATS)}")
    try:
        files = expand_paths(paths)
    except SourceError as err:
        _usage(str(err))
    out = sys.stdout
    games = valid = 0
    codes: Counter[str] = Counter()
    checks: Counter[str] = Counter()
    try:
        for game in iter_log_games(files, fmt):
            games += 1
            checks[game.value_check] += 1
            if as_json:
                out.write(json.dumps(game_json(game), ensure_ascii=False) + "\n")
            else:
                _report(game, out)
            if game.ok:
                valid += 1
                continue
            codes.update({e.code for e in game.errors})
            if strict:
                break
    except SourceError as err:
        _usage(str(err))
    summary = _summary(len(files), games, valid, codes, checks)
    print(summary, file=sys.stderr if as_json else out)
    raise typer.Exit(0 if valid == games else 1)


def _usage(message: str) -> None:
    print(f"skatlog validate: error: {message}", file=sys.stderr)
    raise typer.Exit(2)


def _report(game: LogGame, out: object) -> None:
    """Compiler-style lines: ``file:line: move N: message`` for errors and warnings."""
    write = out.write  # type: ignore[attr-defined]
    for error in game.errors:
        write(error.format(game.source) + f" [{error.code}]\n")
    for warning in game.warnings:
        where = f"{game.source}:{warning.line}:"
        if warning.move is not None:
            where += f" move {warning.move}:"
        write(f"{where} warning: {warning.message} [{warning.code}]\n")


def _summary(files: int, games: int, valid: int, codes: Counter[str],
             checks: Counter[str]) -> str:
    text = (f"{games} game{'s' * (games != 1)} in {files} file{'s' * (files != 1)}:"
            f" {valid} valid, {games - valid} invalid")
    if codes:
        text += " (" + ", ".join(f"{code} {n}" for code, n in sorted(codes.items())) + ")"
    if checks:
        text += "; values: " + ", ".join(f"{check} {n}" for check, n in sorted(checks.items()))
    return text
