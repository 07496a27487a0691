"""The ``--scoring list|seeger-fabian`` option of query, report and serve."""

from __future__ import annotations

import typer

from skatlog.analytics.scoring import SCORINGS, Scoring, ScoringError, parse_scoring

SCORING_HELP = ("How player and session totals are scored: " + " or ".join(SCORINGS)
                + " (plain list points, the default; or Seeger-Fabian, docs/rules.md).")


def parse_scoring_option(text: str) -> Scoring:
    """The scoring ``--scoring`` names; a usage error (exit 2, one line) for another name."""
    try:
        return parse_scoring(text)
    except ScoringError as err:
        raise typer.BadParameter(str(err), param_hint="--scoring") from None
