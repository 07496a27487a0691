"""``python -m skatlog`` runs the command-line interface."""

from skatlog.cli import app

app()
