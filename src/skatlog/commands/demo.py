"""``skatlog demo``: deal, bid, play and score a 12-hand session and print the score sheet."""

from __future__ import annotations

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from skatlog.engine import RandomPlayer, play_session
from skatlog.engine.moves import SEAT_NAMES


def register(app: typer.Typer) -> None:
    app.command("demo")(demo)


def demo(
    seed: int = typer.Option(1, min=0, help="Seed for the deals and the random players."),
    players: str = typer.Option("Anna,Ben,Clara", help="Three player names, comma-separated."),
) -> None:
    """Play a 12-hand session with random legal play and print the score sheet."""
    names = [p.strip() for p in players.split(",")]
    if len(names) != 3 or not all(names):
        raise typer.BadParameter("give exactly three player names", param_hint="--players")
    session = play_session(names, (RandomPlayer(step_bids=True),) * 3, seed)
    console = Console()
    names = [escape(n) for n in names]  # shown as typed, never read as rich markup
    table = Table(title=f"Skat session (seed {seed}): 12 hands")
    table.add_column("#", justify="right")
    table.add_column("dealer")
    table.add_column("declarer")
    table.add_column("bid", justify="right")
    table.add_column("game")
    table.add_column("mat.", justify="right")
    table.add_column("points", justify="right")
    table.add_column("result")
    for name in names:
        table.add_column(name, justify="right")
    running = [0, 0, 0]
    for hand in session.hands:
        result = hand.record.result
        position = hand.declarer_position
        if position is None:
            running_cells = [str(t) for t in running]
            table.add_row(str(hand.number), names[hand.dealer], "-", "-", "all passed", "",
                          "", "skipped", *running_cells)
            continue
        running[position] += result.value
        assert result.score is not None and result.declaration is not None
        seat = SEAT_NAMES[hand.seats.index(position)]
        verdict = "won" if result.won else ("overbid" if result.score.overbid else "lost")
        table.add_row(
            str(hand.number), names[hand.dealer], f"{names[position]} ({seat})",
            str(result.bid), str(result.declaration), f"{result.matadors:+d}",
            str(result.declarer_points), f"{verdict} {result.value:+d}",
            *[str(t) for t in running],
        )
    console.print(table)
    totals = session.totals()
    console.print("Totals: " + ", ".join(f"{n} {t:+d}" for n, t in zip(names, totals, strict=True)))
    console.print("Winner" + ("s" if len(session.winners()) > 1 else "") + ": "
                  + ", ".join(escape(w) for w in session.winners()))
