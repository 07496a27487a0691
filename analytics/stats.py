"""Proportions with honest uncertainty: Wilson score intervals and Newcombe differences.

Every rate skatlog reports carries its n and a 95 % Wilson interval. The Wilson interval is
used instead of the textbook normal (Wald) interval because it stays inside [0, 1] and keeps
its coverage for small n and for rates near 0 or 1 (few overbids, almost-certain grands).
The same formula is registered as DuckDB macros so that aggregation stays in the database.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import duckdb
import polars as pl

#: Two-sided 95 % normal quantile.
Z95 = 1.959963984540054


@dataclass(frozen=True, slots=True)
class Proportion:
    """k successes out of n, the rate and its Wilson interval (NaN when n is 0)."""

    k: int
    n: int
    rate: float
    lo: float
    hi: float

    def format(self) -> str:
        """``62.1 % [58.0, 66.0] (n=540)``, the form used in reports."""
        if self.n == 0:
            return "no games (n=0)"
        return f"{100 * self.rate:.1f} % [{100 * self.lo:.1f}, {100 * self.hi:.1f}] (n={self.n})"


def wilson_interval(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for k successes in n trials; (nan, nan) when n is 0."""
    if n < 0 or k < 0 or k > n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return (math.nan, math.nan)
    p = k / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    # k = 0 and k = n give exactly 0 and 1; clamp the rounding noise there.
    lo = 0.0 if k == 0 else max(0.0, centre - half)
    hi = 1.0 if k == n else min(1.0, centre + half)
    return (lo, hi)


def proportion(k: int, n: int, z: float = Z95) -> Proportion:
    """k out of n with its rate and Wilson interval."""
    lo, hi = wilson_interval(k, n, z)
    return Proportion(k, n, k / n if n else math.nan, lo, hi)


def difference_interval(a: Proportion, b: Proportion) -> tuple[float, float, float]:
    """Newcombe's hybrid score interval (method 10) for the difference a.rate - b.rate.

    Returns (difference, lo, hi); NaNs when either side has n = 0.
    """
    if a.n == 0 or b.n == 0:
        return (math.nan, math.nan, math.nan)
    d = a.rate - b.rate
    lo = d - math.sqrt((a.rate - a.lo) ** 2 + (b.hi - b.rate) ** 2)
    hi = d + math.sqrt((a.hi - a.rate) ** 2 + (b.rate - b.lo) ** 2)
    return (d, lo, hi)


def with_wilson(df: pl.DataFrame, k: str = "k", n: str = "n", z: float = Z95) -> pl.DataFrame:
    """Add ``rate``, ``lo`` and ``hi`` columns (Wilson) to a polars frame of counts."""
    kk = pl.col(k).cast(pl.Float64)
    nn = pl.col(n).cast(pl.Float64)
    p = kk / nn
    denom = 1 + z * z / nn
    centre = (p + z * z / (2 * nn)) / denom
    half = z / denom * ((p * (1 - p) / nn + z * z / (4 * nn * nn)).sqrt())
    return df.with_columns(
        rate=pl.when(nn > 0).then(p),
        lo=pl.when(nn > 0).then(pl.when(kk == 0).then(0.0).otherwise(
            (centre - half).clip(0.0, 1.0))),
        hi=pl.when(nn > 0).then(pl.when(kk == nn).then(1.0).otherwise(
            (centre + half).clip(0.0, 1.0))),
    )


#: DuckDB macros with the same formula, so ``wilson_lo(k, n)`` can sit in any aggregate query.
WILSON_MACROS = f"""
CREATE OR REPLACE TEMP MACRO wilson_centre(k, n) AS
    CASE WHEN n > 0 THEN (k / n + {Z95}^2 / (2 * n)) / (1 + {Z95}^2 / n) END;
CREATE OR REPLACE TEMP MACRO wilson_half(k, n) AS
    CASE WHEN n > 0 THEN {Z95} / (1 + {Z95}^2 / n)
        * sqrt((k / n) * (1 - k / n) / n + {Z95}^2 / (4 * n * n)) END;
CREATE OR REPLACE TEMP MACRO wilson_lo(k, n) AS
    CASE WHEN n IS NULL OR n <= 0 THEN NULL WHEN k = 0 THEN 0.0
         ELSE greatest(0.0, wilson_centre(k, n) - wilson_half(k, n)) END;
CREATE OR REPLACE TEMP MACRO wilson_hi(k, n) AS
    CASE WHEN n IS NULL OR n <= 0 THEN NULL WHEN k = n THEN 1.0
         ELSE least(1.0, wilson_centre(k, n) + wilson_half(k, n)) END;
"""


def register_wilson(con: duckdb.DuckDBPyConnection) -> None:
    """Define the ``wilson_lo(k, n)`` / ``wilson_hi(k, n)`` macros on a connection."""
    con.execute(WILSON_MACROS)
