"""``skatlog validate``: replay every game of ISS or skatlog/1 logs through the rules.

Exit status: 0 when every game is valid, 1 otherwise, 2 on usage errors (missing file,
unknown format, a named file that is not a log or holds no game: :mod:`skatlog.ingest.sniff`;
files of a named folder that are not logs are skipped and named). Lenient by default
(every game is checked); ``--strict`` stops at the first bad game.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Annotated, TextIO

import typer

from skatlog.engine.rules import ISKO_ISS, Rules
from skatlog.ingest.model import LogGame
from skatlog.ingest.pipeline import use_fast_path
from skatlog.ingest.sniff import find_logs
from skatlog.ingest.sources import FORMATS, SourceError, open_text, reading
from skatlog.ingest.validate import game_json, iter_log_games

from ._rules_option import RULES_HELP, parse_rules


def register(app: typer.Typer) -> None:
    app.command("validate")(validate)


def validate(
    paths: Annotated[list[Path], typer.Argument(
        help="Log files or directories (plain, .gz, .bz2, .zst).", show_default=False)],
    fmt: Annotated[str, typer.Option("--format", help="auto, iss or jsonl.")] = "auto",
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per game.")] = False,
    strict: Annotated[bool, typer.Option("--strict", help="Stop at the first bad game.")]
    = False,
    fast: Annotated[bool | None, typer.Option(
        "--fast/--no-fast",
        help="Compiled ISS path (same verdicts); default: on for inputs of 32 MB or more.")
    ] = None,
    rules_text: Annotated[str | None, typer.Option(
        "--rules", metavar="NAME[+OPTION]", help=RULES_HELP)] = None,
) -> None:
    """Check that every game replays legally and that its recorded value is right."""
    rules = parse_rules(rules_text)
    if fmt not in FORMATS:
        _usage(f"unknown format {fmt!r}: choose one of {', '.join(FORMATS)}")
    try:
        inputs = find_logs(paths, fmt)  # a named file that is not a log: exit 2
    except SourceError as err:
        _usage(str(err))
    files = inputs.files
    out = sys.stdout
    for line in inputs.skipped_lines():  # every file of a folder that is not read
        print(line, file=sys.stderr if as_json else out)
    games = valid = 0
    codes: Counter[str] = Counter()
    checks: Counter[str] = Counter()
    if not strict and use_fast_path(fast, fmt, files, rules):
        _validate_fast(files, fmt, as_json, out, rules)
    try:
        for game in iter_log_games(files, fmt, rules):
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


def _is_iss(path: Path, fmt: str) -> bool:
    if fmt != "auto":
        return fmt == "iss"
    with reading(path), open_text(path) as handle:
        for line in handle:
            text = line.strip()
            if text and not text.startswith("#"):
                return text.startswith("(;")
    return False


def _validate_fast(files: list[Path], fmt: str, as_json: bool, out: TextIO,
                   rules: Rules | None) -> None:
    """The same report through the compiled ISS path (:mod:`skatlog.ingest.fast`): the
    kernel's accepted games, and the reference validator's verdict on every other record."""
    from skatlog.ingest.fast import fast_validate_iss

    write = out.write
    games = valid = 0
    codes: Counter[str] = Counter()
    checks: Counter[str] = Counter()
    try:
        for path in files:
            if not _is_iss(path, fmt):
                for game in iter_log_games([path], fmt, rules):
                    games, valid = games + 1, valid + game.ok
                    _tally(game, codes, checks, as_json, out)
                    if as_json:
                        write(json.dumps(game_json(game), ensure_ascii=False) + "\n")
                continue
            for batch in fast_validate_iss(path, source=str(path), tables=as_json,
                                           rules=rules or ISKO_ISS):
                accepted = batch.json_objects() if as_json else []
                slow = list(batch.slow_games())
                if not as_json and batch.accepted:  # accepted only when its value matches
                    checks["ok"] += batch.accepted
                    games, valid = games + batch.accepted, valid + batch.accepted
                for obj in accepted:
                    checks[obj["value_check"]] += 1
                games, valid = games + len(accepted), valid + len(accepted)
                for game in slow:
                    games, valid = games + 1, valid + game.ok
                    _tally(game, codes, checks, as_json, out)
                if as_json:  # in file order, like the reference path
                    for obj in sorted(accepted + [game_json(g) for g in slow],
                                      key=lambda o: o["line"]):
                        write(json.dumps(obj, ensure_ascii=False) + "\n")
    except SourceError as err:
        _usage(str(err))
    summary = _summary(len(files), games, valid, codes, checks)
    print(summary, file=sys.stderr if as_json else out)
    raise typer.Exit(0 if valid == games else 1)


def _tally(game: LogGame, codes: Counter[str], checks: Counter[str], as_json: bool,
           out: TextIO) -> None:
    """Count a reference-path game; report its errors unless the output is JSON."""
    checks[game.value_check] += 1
    codes.update({e.code for e in game.errors})
    if not as_json:
        _report(game, out)


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
