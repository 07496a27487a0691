"""``skatlog solve``: best play with every card known, for one game of a log or the archive.

Prints the game as declared, what was played, the declarer's card points (null: whether he
could avoid every trick) with best play by both sides from the position after the discard
(or ``--after N`` cards into the play), whether that wins the game, and one best line.
User mistakes are one line on stderr, exit 2.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from .archive import ARCHIVE_HELP, _fail

SEATS = ("Forehand", "Middlehand", "Rearhand")


def register(app: typer.Typer) -> None:
    app.command("solve")(solve)


def solve(
    path: Annotated[Path | None, typer.Argument(
        help="An ISS or skatlog/1 log (plain, .gz, .bz2, .zst); leave out with --id.",
        show_default=False)] = None,
    game: Annotated[int, typer.Option("--game", min=1, help="Which game of the log, 1 first.")
                    ] = 1,
    game_id: Annotated[int | None, typer.Option(
        "--id", help="The archive's game_id of the game (instead of a log).")] = None,
    archive: Annotated[Path | None, typer.Option("--archive", help=ARCHIVE_HELP)] = None,
    after: Annotated[int, typer.Option(
        "--after", min=0, help="Solve from this many cards into the play (0: after the "
                               "discard).")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object.")] = False,
) -> None:
    """Solve one game with every card known: the value with best play and a best line."""
    from skatlog.engine.solver import (
        NEED_ALL_TRICKS,
        NEED_NO_TRICK,
        NEED_POINTS,
        Position,
        card_line,
        default_solver,
        state_at,
        target,
    )

    label, record = _load(path, game, game_id, archive)
    try:
        state = state_at(record, after)
    except ValueError as err:
        raise _fail(f"{label}: {err}") from None
    assert state.declaration is not None and state.declarer is not None
    pos = Position.from_state(state)
    solver = default_solver()
    solution = solver.solve(pos)
    need = target(state.declaration, state.bid, state.matadors())
    won = solver.wins(pos, need)
    result = record.result
    decl = state.declaration
    if pos.null:
        best = ("the declarer cannot avoid a trick" if solution.value else
                "the declarer avoids every trick")
    else:
        best = f"{solution.value} points for the declarer, {120 - solution.value} for the " \
               f"defenders"
    needs = {NEED_POINTS: f"needs {need[1]} points", NEED_ALL_TRICKS: "needs every trick",
             NEED_NO_TRICK: "needs no trick"}.get(need[0], "cannot be won: overbid")
    where = "after the discard" if after == 0 else f"after {after} cards of play"
    if as_json:
        out: dict[str, Any] = {
            "game": label, "declaration": str(decl), "declarer": state.declarer,
            "bid": state.bid, "after_cards": after, "dd_value": solution.value,
            "dd_won": won, "need": list(need), "played_points": result.declarer_points,
            "played_won": result.won,
            "line": [[seat, str(card)] for seat, card in solution.line],
        }
        typer.echo(json.dumps(out))
        return
    typer.echo(f"{label}: {decl}, declarer {SEATS[state.declarer]}, bid {state.bid}")
    played = "won" if result.won else "lost"
    typer.echo(f"played: {result.declarer_points} points, {played}")
    typer.echo(f"best play {where}: {best}: {'won' if won else 'lost'} ({needs})")
    typer.echo("best line:")
    for line in card_line(solution, pos):
        typer.echo(f"  {line}")


def _load(path: Path | None, game: int, game_id: int | None, archive: Path | None
          ) -> tuple[str, Any]:
    """The game's label and its :class:`~skatlog.engine.GameRecord`, or a one-line exit."""
    if (path is None) == (game_id is None):
        raise _fail("name a log file, or give --id GAME_ID for a game of the archive")
    if game_id is not None:
        return _from_archive(game_id, archive)
    assert path is not None
    from skatlog.ingest.sources import SourceError
    from skatlog.ingest.validate import iter_log_games

    if not path.is_file():
        raise _fail(f"{path}: no such file")
    try:
        for number, logged in enumerate(iter_log_games([path]), start=1):
            if number < game:
                continue
            where = f"{path}:{logged.line}"
            if not logged.ok or logged.record is None:
                first = logged.errors[0].message if logged.errors else "not valid"
                raise _fail(f"{where}: game {game} does not replay: {first}")
            return f"{where} (game {game})", logged.record
    except SourceError as err:
        raise _fail(str(err)) from None
    raise _fail(f"{path}: has fewer than {game} games")


def _from_archive(game_id: int, archive: Path | None) -> tuple[str, Any]:
    from skatlog.ingest.archive import MANIFEST, ArchiveError, archive_path
    from skatlog.ingest.export import iter_archive_games

    root = archive_path(archive)
    if not (root / MANIFEST).is_file():
        raise _fail(f"no archive at {root}: it has no {MANIFEST} (pass --archive DIR)")
    try:
        for logged in iter_archive_games(root, game_ids=[game_id]):
            if logged.record is not None:
                return f"{root}: game {game_id}", logged.record
    except (ArchiveError, OSError) as err:
        raise _fail(f"cannot read the archive {root}: {err}") from None
    raise _fail(f"{root}: no game with game_id {game_id}")
