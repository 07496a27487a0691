"""The report's parts: one set of pages per bot line-up and rule set, never pooled.

Games from different sources answer different questions: a win rate of the ``rules`` bot
says nothing about the ``random`` bot, and neither about a club's logs; a rule set with
early endings (ISS) or other bids changes the numbers too. So the report splits the games
by origin, bot line-up (``bots``, as stored: seat 1, 2, 3) and, where the archive has the
column, rule set (``rules``), and builds the pages once per part.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import duckdb

from skatlog.analytics import queries as q


@dataclass(frozen=True, slots=True)
class Part:
    """One bot line-up and rule set: its games, a label, a folder name and a condition."""

    origin: str | None
    bots: str | None
    rules: str | None
    has_rules: bool  # whether the archive records a rule set (a ``rules`` column)
    hands: int
    played: int
    slug: str

    @property
    def simulated(self) -> bool:
        """Simulated by skatlog's bots (the strategy page is about these)."""
        return self.origin == "simulated"

    @property
    def label(self) -> str:
        """``Simulated by rules, rules, random`` / ``Logged games``, plus the rule set."""
        if self.simulated:
            text = "Simulated by " + (_spaced(self.bots) if self.bots else "unnamed bots")
        else:
            text = ("Logged games" if self.origin == "log"
                    else f"Games of origin {self.origin or '(none)'}")
            text += f", bots {_spaced(self.bots)}" if self.bots else ""
        if self.has_rules:
            text += f" · rules {self.rules}" if self.rules else " · rule set not recorded"
        return text

    @property
    def condition(self) -> str:
        """SQL over ``games`` selecting exactly this part's games."""
        parts = [f"origin::VARCHAR IS NOT DISTINCT FROM {_literal(self.origin)}",
                 f"bots::VARCHAR IS NOT DISTINCT FROM {_literal(self.bots)}"]
        if self.has_rules:
            parts.append(f"rules::VARCHAR IS NOT DISTINCT FROM {_literal(self.rules)}")
        return " AND ".join(parts)


def _spaced(bots: str) -> str:
    return ", ".join(bots.split(","))


def _literal(value: str | None) -> str:
    return "NULL" if value is None else "'" + value.replace("'", "''") + "'"


def _slug(origin: str | None, bots: str | None, rules: str | None) -> str:
    words = ["log" if origin == "log" else "sim" if origin == "simulated" else origin or "x"]
    if bots:
        words.append(bots)
    if rules:
        words.append(rules)
    return re.sub(r"[^a-z0-9]+", "-", " ".join(words).lower()).strip("-") or "games"


def find_parts(con: duckdb.DuckDBPyConnection, where: str | None) -> list[Part]:
    """The parts of the games ``where`` selects: logs first, then by number of hands."""
    frame = q.lineups(con, where)
    has_rules = "rules" in frame.columns
    parts: list[Part] = []
    seen: set[str] = set()
    for row in frame.iter_rows(named=True):
        rules = row["rules"] if has_rules else None
        slug = base = _slug(row["origin"], row["bots"], rules)
        suffix = 2
        while slug in seen:
            slug, suffix = f"{base}-{suffix}", suffix + 1
        seen.add(slug)
        parts.append(Part(row["origin"], row["bots"], rules, has_rules, int(row["hands"]),
                          int(row["played"]), slug))
    return parts
