"""Paired effects of the archive's duplicate experiments (:mod:`skatlog.simulation.experiment`).

Every arm of an experiment played the same deals with its test bot at each table position
in turn. For each deal this takes the test bot's outcome averaged over the three positions,
per arm, and compares arm 0 (the bot that follows the advice) with each other arm deal by
deal: the mean of the paired differences with a normal 95 % interval over deals (deals are
independent; the pairing removes the luck of the cards). Three measures:

* list points a hand (the declarer's signed list value when the test bot declares, else 0:
  the scoring of skatlog's own games);
* Seeger-Fabian points a hand (:mod:`.scoring`, a 3-player table);
* declarer success: over the (deal, position) pairs where the test bot declared in both
  arms, won minus won, with a cluster-robust interval (pairs of one deal are not independent).

The verdict follows from the list-points interval: *supported* when it lies above 0,
*refuted* when below, *not distinguishable* when it straddles 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import duckdb
import numpy as np

from skatlog.engine.batch.config import ADVICE_SWITCHES
from skatlog.simulation.experiment import read_manifests

from .scoring import points_sql
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
            outcome = (f"the difference, {e.effect:+.2f} list points a hand (95 % interval "
                       f"{e.low:+.2f} to {e.high:+.2f}), cannot be told from none")
        else:
            outcome = (f"following the advice {'gains' if e.effect > 0 else 'loses'} "
                       f"{abs(e.effect):.2f} list points a hand (95 % interval {e.low:+.2f} "
                       f"to {e.high:+.2f})")
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


def _run_outcomes(con: duckdb.DuckDBPyConnection, seed: int, id_base: int, position: int,
                  deals: int) -> dict[str, np.ndarray]:
    """The test bot's outcome in every stored hand of one run (arrays by hand index;
    ``present`` says which hands the archive holds)."""
    index = (f"((game_id::HUGEINT - ({id_base})::HUGEINT) % {_WRAP} + {_WRAP}) % {_WRAP}")
    seat = f"(({position} - (idx % 3)::INTEGER - 1 + 6) % 3)"
    declaring = f"(NOT passed AND declarer = {seat})"
    sf = points_sql("seeger-fabian", played="NOT passed", declaring=declaring,
                    won="coalesce(won, FALSE)", value="coalesce(value, 0)", table_size="3")
    rows = con.execute(
        f"SELECT idx::BIGINT AS idx, {declaring} AS declares, coalesce(won, FALSE) AS won, "
        f"CASE WHEN {declaring} THEN value ELSE 0 END AS lp, {sf} AS sf "
        f"FROM (SELECT *, {index} AS idx FROM games WHERE seed = {seed}) WHERE idx < {deals}"
    ).fetchnumpy()
    out = {"present": np.zeros(deals, dtype=bool), "declares": np.zeros(deals, dtype=bool),
           "won": np.zeros(deals, dtype=bool), "lp": np.zeros(deals), "sf": np.zeros(deals)}
    idx = np.asarray(rows["idx"], dtype=np.int64)
    out["present"][idx] = True
    for name in ("declares", "won", "lp", "sf"):
        out[name][idx] = np.asarray(rows[name])
    return out


def experiment_results(con: duckdb.DuckDBPyConnection, root: Path
                       ) -> list[ExperimentResult]:
    """Every recorded experiment of the archive at ``root`` (arm 0 against each other
    arm), over the deals every run of it holds."""
    results = []
    for record in read_manifests(root):
        deals = int(record["deals"])  # type: ignore[call-overload]
        seed = int(record["seed"])  # type: ignore[call-overload]
        arms = record["arms"]
        assert isinstance(arms, list)
        outcomes = [[_run_outcomes(con, seed, int(run["id_base"]), int(run["position"]),
                                   deals) for run in arm["runs"]] for arm in arms]
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
            both = [pa["declares"] & pb["declares"] & present for pa, pb in zip(a, b, strict=True)]
            sums = sum(np.where(m, pa["won"].astype(float) - pb["won"].astype(float), 0.0)
                       for m, pa, pb in zip(both, a, b, strict=True))
            counts = sum(m.astype(float) for m in both)
            results.append(ExperimentResult(
                str(record["experiment_id"]), str(record.get("label", "")), seed,
                int(present.sum()), rates[0], rates[other],
                _mean_interval("list points a hand", lp[present]),
                _mean_interval("Seeger-Fabian points a hand", sf[present]),
                _ratio_interval("declarer success", np.asarray(sums), np.asarray(counts)),
                str(record.get("opponents", "rules"))))
    return results


__all__ = ["ArmRates", "ExperimentResult", "PairedEffect", "experiment_results"]
