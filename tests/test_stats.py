"""Wilson intervals and Newcombe differences against published values, in Python, polars
and the DuckDB macros."""

from __future__ import annotations

import math

import duckdb
import polars as pl
import pytest

from skatlog.analytics.stats import (
    difference_interval,
    proportion,
    register_wilson,
    wilson_interval,
    with_wilson,
)

# (k, n, lo, hi): Wilson 95 % intervals as tabulated by Newcombe (1998, Table I) and
# textbook examples (Agresti & Coull 1998).
KNOWN = [
    (0, 10, 0.0, 0.2775),
    (1, 10, 0.0179, 0.4042),
    (5, 10, 0.2366, 0.7634),
    (10, 10, 0.7225, 1.0),
    (50, 100, 0.4038, 0.5962),
    (81, 263, 0.2553, 0.3662),
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0, 0.1611),
]


@pytest.mark.parametrize(("k", "n", "lo", "hi"), KNOWN)
def test_wilson_known_values(k: int, n: int, lo: float, hi: float) -> None:
    got_lo, got_hi = wilson_interval(k, n)
    assert got_lo == pytest.approx(lo, abs=1e-4)
    assert got_hi == pytest.approx(hi, abs=1e-4)


def test_wilson_edges_and_errors() -> None:
    assert all(math.isnan(x) for x in wilson_interval(0, 0))
    assert wilson_interval(0, 5)[0] == 0.0 and wilson_interval(5, 5)[1] == 1.0
    with pytest.raises(ValueError):
        wilson_interval(3, 2)
    with pytest.raises(ValueError):
        wilson_interval(-1, 2)
    assert proportion(0, 0).format() == "no games (n=0)"
    assert proportion(5, 10).format() == "50.0 % [23.7, 76.3] (n=10)"


def test_newcombe_difference_published_example() -> None:
    # Newcombe (1998b), example (a): 56/70 - 48/80 = 0.2000, method 10: 0.0524 to 0.3339.
    d, lo, hi = difference_interval(proportion(56, 70), proportion(48, 80))
    assert d == pytest.approx(0.2)
    assert lo == pytest.approx(0.0524, abs=1e-4)
    assert hi == pytest.approx(0.3339, abs=1e-4)
    assert all(math.isnan(x) for x in difference_interval(proportion(0, 0), proportion(1, 2)))


def test_polars_and_duckdb_agree_with_python() -> None:
    pairs = [(k, n) for n in (0, 1, 2, 7, 30, 263, 1000) for k in {0, 1, n // 3, n - 1, n}
             if 0 <= k <= n]
    frame = with_wilson(pl.DataFrame({"k": [k for k, _ in pairs], "n": [n for _, n in pairs]}))
    con = duckdb.connect()
    register_wilson(con)
    rows = con.execute("SELECT wilson_lo(k, n), wilson_hi(k, n) FROM (SELECT unnest(?) AS k, "
                       "unnest(?) AS n)", [[k for k, _ in pairs], [n for _, n in pairs]]
                       ).fetchall()
    for (k, n), (lo_pl, hi_pl), (lo_db, hi_db) in zip(
            pairs, frame.select("lo", "hi").rows(), rows, strict=True):
        lo, hi = wilson_interval(k, n)
        if n == 0:
            assert lo_pl is None and hi_pl is None and lo_db is None and hi_db is None
            continue
        assert lo_pl == pytest.approx(lo, abs=1e-12) and hi_pl == pytest.approx(hi, abs=1e-12)
        assert lo_db == pytest.approx(lo, abs=1e-12) and hi_db == pytest.approx(hi, abs=1e-12)
        assert 0.0 <= lo <= k / n <= hi <= 1.0
