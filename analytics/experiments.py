"""Paired effects of the archive's duplicate experiments (:mod:`skatlog.simulation.experiment`).

Every arm of an experiment played the same deals with its test bot at each table position
in turn. For each deal this takes the test bot's outcome averaged over the three positions,
per arm, and compares arm 0 (the bot that follows the advice) with each other arm deal by
deal: the mean of the paired differences with a normal 95 % interval over deals (deals are
independent; the pairing removes the luck of the cards). Three measures:

* list points a hand against the table: the test bot's list points (its signed list value
  when it declares, else 0: the scoring of skatlog's own games) minus the mean of its two
  opponents', so that defending, which scores nothing itself under list scoring, counts by
  what the opponents make;
* Seeger-Fabian points a hand (:func:`.scoring.total_expr` of one hand, a 3-player
  table), the test bot's own;
* declarer success: over the (deal, position) pairs where the test bot declared in both
  arms, won minus won, with a cluster-robust interval (pairs of one deal are not independent);
* defence success: the same over the pairs where an opponent declared in both arms, lost
  minus lost (the test bot defending).

The verdict follows from the list-points interval: *supported* when it lies above 0,
*refuted* when below, *not distinguishable* when it straddles 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import duckdb
import numpy as np
import polars as pl

from skatlog.engine.batch.config import ADVICE_SWITCHES
from skatlog.simulation.experiment import read_manifests

from .scoring import total_expr
from .stats import Z95

#: 2**64: ids of a run are ``id_base + hand index`` modulo this (ingest.sim_ids).
_WRAP = 1 << 64


@dataclass(frozen=True)
class PairedEffect:
    """The mean paired difference (arm 0 minus the other arm) with its 95 % interval."""

    metric: str
    effect: float
    low: float
    high: float
    n: int

    @property
    def verdict(self) -> str:
        if self.n < 2 or math.isnan(self.low):
            return "not distinguishable"
        if self.low > 0:
            return "supported"
        if self.high < 0:
            return "refuted"
        return "not distinguishable"


@dataclass(frozen=True)
class ArmRates:
    """The test bot's own figures in one arm: hands it declared, and won."""

    bot: str
    declared: int
    won: int
    hands: int


@dataclass(frozen=True)
class ExperimentResult:
    """One experiment's comparison of arm 0 with arm ``other``."""

    experiment_id: str
    label: str
    seed: int
    deals: int
    follow: ArmRates
    contrast: ArmRates
    list_points: PairedEffect
    seeger_fabian: PairedEffect
    declarer_success: PairedEffect
    defence_success: PairedEffect
    opponents: str = "rules"

    @property
    def verdict(self) -> str:
        return self.list_points.verdict

    def sentence(self) -> str:
        """What was compared and what came out, in one plain sentence."""
        advice = {a.key: a for a in ADVICE_SWITCHES}.get(self.label)
        if advice is not None and advice.does:
            who = (f"a bot that {advice.does} and, on the same {self.deals:,} deals with "
                   f"seats rotated, one that {advice.instead}")
        else:
            who = (f"{self.follow.bot} and, on the same {self.deals:,} deals with seats "
                   f"rotated, {self.contrast.bot}")
        e = self.list_points
        if self.verdict == "not distinguishable":
            outcome = (f"the difference, {e.effect:+.3f} list points a hand against the "
                       f"table (95 % interval {e.low:+.3f} to {e.high:+.3f}), cannot be told "
                       "from none")
        else:
            subject = "following the advice" if advice is not None else self.follow.bot
            outcome = (f"{subject} {'gains' if e.effect > 0 else 'loses'} "
                       f"{abs(e.effect):.3f} list points a hand against the table (95 % "
                       f"interval {e.low:+.3f} to {e.high:+.3f})")
        return f"Compared {who}, each beside two default rules bots: {outcome}."


def _mean_interval(metric: str, diffs: np.ndarray) -> PairedEffect:
    n = int(diffs.size)
    if n == 0:
        return PairedEffect(metric, math.nan, math.nan, math.nan, 0)
    mean = float(diffs.mean())
    half = Z95 * float(diffs.std(ddof=1)) / math.sqrt(n) if n > 1 else math.nan
    return PairedEffect(metric, mean, mean - half, mean + half, n)


def _ratio_interval(metric: str, sums: np.ndarray, counts: np.ndarray) -> PairedEffect:
    """Σ sums / Σ counts over clusters with a cluster-robust (delta method) interval."""
    keep = counts > 0
    sums, counts = sums[keep], counts[keep]
    total = int(counts.sum())
    if total == 0:
        return PairedEffect(metric, math.nan, math.nan, math.nan, 0)
    effect = float(sums.sum()) / total
    k = int(keep.sum())
    if k < 2:
        return PairedEffect(metric, effect, math.nan, math.nan, total)
    resid = sums - effect * counts
    se = math.sqrt(float((resid ** 2).sum()) * k / (k - 1)) / total
    return PairedEffect(metric, effect, effect - Z95 * se, effect + Z95 * se, total)


def _rotations(bots: list[str]) -> list[str]:
    """The ``bots`` values a run's games store: its line-up by seat (Forehand first) for
    each of the three dealers (:mod:`skatlog.ingest.sim_tables`)."""
    return [",".join(bots[(d + 1 + s) % 3] for s in range(3)) for d in range(3)]


def _run_rows(con: duckdb.DuckDBPyConnection, seed: int, id_base: int, bots: list[str],
              deals: int) -> dict[str, np.ndarray]:
    """One run's stored hands ``0 .. deals - 1``: each hand's declarer seat, outcome and
    list value, and every seat's Seeger-Fabian points (arrays by hand index; ``present``
    says which hands the archive holds)."""
    lineups = ", ".join("'" + b.replace("'", "''") + "'" for b in _rotations(bots))
    rows = con.execute(
        f"SELECT game_id, passed, coalesce(declarer, -1) AS declarer, "
        f"coalesce(won, FALSE) AS won, coalesce(value, 0) AS value "
        f"FROM games WHERE seed = {seed} AND bots::VARCHAR IN ({lineups})"
    ).fetchnumpy()
    # hand index = id - id base, modulo 2**64 (unsigned arithmetic wraps exactly so)
    with np.errstate(over="ignore"):
        offset = (np.asarray(rows["game_id"], dtype=np.int64).view(np.uint64)
                  - np.uint64(id_base % _WRAP))
    keep = offset < np.uint64(deals)
    idx = offset[keep].astype(np.int64)
    rows = {name: np.asarray(column)[keep] for name, column in rows.items()}
    out = {"present": np.zeros(deals, dtype=bool), "passed": np.ones(deals, dtype=bool),
           "declarer": np.full(deals, -1, dtype=np.int64), "won": np.zeros(deals, dtype=bool),
           "value": np.zeros(deals)}
    out["present"][idx] = True
    for name in ("passed", "declarer", "won", "value"):
        out[name][idx] = np.asarray(rows[name])
    return out


def _position_outcomes(run: dict[str, np.ndarray], position: int) -> dict[str, np.ndarray]:
    """The test bot's outcome in every hand of a run where it sits at ``position``: the
    seat of a table position is ``(position - dealer - 1) mod 3``, the dealer ``i mod 3``."""
    deals = run["present"].size
    seat = (position - np.arange(deals) % 3 - 1) % 3
    declares = ~run["passed"] & (run["declarer"] == seat)
    defends = ~run["passed"] & ~declares
    # own list points minus the opponents' mean: the declarer's value, or half of it against
    won = run["won"]
    hand = pl.DataFrame({"value": np.where(declares, run["value"], 0.0),
                         "won": declares & won, "lost": declares & ~won,
                         "table_lost": ~run["passed"] & ~won})
    sf = hand.select(total_expr("seeger-fabian", value_sum=pl.col("value"),
                                won_games=pl.col("won"), lost_games=pl.col("lost"),
                                lost_at_table=pl.col("table_lost"), table_size=pl.lit(3)))
    return {"present": run["present"], "declares": declares, "defends": defends, "won": won,
            "lp": np.where(declares, run["value"], np.where(defends, -run["value"] / 2, 0.0)),
            "sf": sf.to_series().to_numpy().astype(np.float64)}


def _paired_wins(a: list[dict[str, np.ndarray]], b: list[dict[str, np.ndarray]],
                 present: np.ndarray, role: str) -> tuple[np.ndarray, np.ndarray]:
    """Per deal: the sum over positions of arm a's declarer win minus arm b's, where the
    test bot had ``role`` (declares, defends) in both arms, and the number of such pairs."""
    sums = np.zeros(present.size)
    counts = np.zeros(present.size)
    for pa, pb in zip(a, b, strict=True):
        both = pa[role] & pb[role] & present
        sums += np.where(both, pa["won"].astype(float) - pb["won"].astype(float), 0.0)
        counts += both
    return sums, counts


def experiment_results(con: duckdb.DuckDBPyConnection, root: Path
                       ) -> list[ExperimentResult]:
    """Every recorded experiment of the archive at ``root`` (arm 0 against each other
    arm), over the deals every run of it holds."""
    results = []
    cache: dict[tuple[int, int, int], dict[str, np.ndarray]] = {}
    for record in read_manifests(root):
        deals = int(record["deals"])  # type: ignore[call-overload]
        seed = int(record["seed"])  # type: ignore[call-overload]
        arms = record["arms"]
        assert isinstance(arms, list)
        outcomes = []
        for arm in arms:
            positions = []
            for run in arm["runs"]:
                key = (seed, int(run["id_base"]), deals)
                if key not in cache:  # a line-up shared by experiments is read once
                    cache[key] = _run_rows(con, seed, key[1], list(run["bots"]), deals)
                positions.append(_position_outcomes(cache[key], int(run["position"])))
            outcomes.append(positions)
        present = np.logical_and.reduce([o["present"] for arm in outcomes for o in arm])
        rates = []
        for arm, out in zip(arms, outcomes, strict=True):
            declared = sum(int((o["declares"] & present).sum()) for o in out)
            won = sum(int((o["declares"] & o["won"] & present).sum()) for o in out)
            rates.append(ArmRates(str(arm["bot"]), declared, won, 3 * int(present.sum())))
        for other in range(1, len(arms)):
            a, b = outcomes[0], outcomes[other]
            lp = (np.sum([o["lp"] for o in a], axis=0) - np.sum([o["lp"] for o in b], axis=0)) / 3
            sf = (np.sum([o["sf"] for o in a], axis=0) - np.sum([o["sf"] for o in b], axis=0)) / 3
            sums, counts = _paired_wins(a, b, present, "declares")
            d_sums, d_counts = _paired_wins(a, b, present, "defends")
            results.append(ExperimentResult(
                str(record["experiment_id"]), str(record.get("label", "")), seed,
                int(present.sum()), rates[0], rates[other],
                _mean_interval("list points a hand", lp[present]),
                _mean_interval("Seeger-Fabian points a hand", sf[present]),
                _ratio_interval("declarer success", sums, counts),
                _ratio_interval("defence success", -d_sums, d_counts),
                str(record.get("opponents", "rules"))))
    return results


__all__ = ["ArmRates", "ExperimentResult", "PairedEffect", "experiment_results"]
