"""Columns the archive's views compute from the stored ones instead of storing them.

Some columns of the query schema repeat what other stored columns already say:

``tricks.seat1`` .. ``seat3``   the seats in play order: the leader, then clockwise (R8)
``tricks.points``               the card points of the trick's three cards (R1)
``games.skat_cards``            the two cards no seat holds (the complement of the hands)

Storing them cost a fifth of a simulated archive's bytes and of the Parquet writer's time
(measured with ``bench/writer.py``), for values a scan recomputes in a few milliseconds
per million rows. Partitions written with schema version 2 leave them out; the DuckDB
views and polars frames of :mod:`skatlog.analytics.views` (and every internal reader:
verify, export) compute them here, at their old place in the column order, with their
old names and types, so a query cannot tell the difference. Partitions of schema
version 1 still hold them; readers ignore the stored copies and compute the same values.

The rules behind the values live in the engine (:data:`skatlog.engine.CARD_POINTS`, play
order R8); the expressions are built from those tables, and ``skatlog verify`` compares
the computed columns with the engine's replay of every game.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pyarrow as pa

from skatlog.engine import CARD_POINTS

if TYPE_CHECKING:
    import polars as pl


@dataclass(frozen=True)
class ComputedColumn:
    """One column a view computes: its name and type, the stored column it follows in
    the query schema's column order, and its DuckDB and polars expressions."""

    name: str
    type: pa.DataType
    after: str
    sql: str
    polars: Callable[[], pl.Expr]


def _points_sql() -> str:
    table = "([" + ", ".join(str(p) for p in CARD_POINTS) + "]::UTINYINT[])"
    return "(" + " + ".join(f"{table}[card{k} + 1]" for k in (1, 2, 3)) + ")::UTINYINT"


def _points_polars() -> pl.Expr:
    import polars as pl

    def points(column: str) -> pl.Expr:
        return pl.col(column).replace_strict(list(range(32)), list(CARD_POINTS),
                                             return_dtype=pl.UInt8)

    return points("card1") + points("card2") + points("card3")


def _seat_sql(offset: int) -> str:
    return "leader" if offset == 0 else f"((leader + {offset}) % 3)::UTINYINT"


def _seat_polars(offset: int) -> Callable[[], pl.Expr]:
    def expr() -> pl.Expr:
        import polars as pl

        return ((pl.col("leader") + offset) % 3).cast(pl.UInt8)
    return expr


def _skat_polars() -> pl.Expr:
    import polars as pl

    hands = pl.col("forehand_cards") | pl.col("middlehand_cards") | pl.col("rearhand_cards")
    return (~hands).cast(pl.UInt32)


#: The computed columns of each table, in query-schema order.
COMPUTED: dict[str, tuple[ComputedColumn, ...]] = {
    "games": (
        ComputedColumn("skat_cards", pa.uint32(), "rearhand_cards",
                       "(~(forehand_cards | middlehand_cards | rearhand_cards))::UINTEGER",
                       _skat_polars),
    ),
    "tricks": (
        ComputedColumn("seat1", pa.uint8(), "card3", _seat_sql(0), _seat_polars(0)),
        ComputedColumn("seat2", pa.uint8(), "seat1", _seat_sql(1), _seat_polars(1)),
        ComputedColumn("seat3", pa.uint8(), "seat2", _seat_sql(2), _seat_polars(2)),
        ComputedColumn("points", pa.uint8(), "winner", _points_sql(), _points_polars),
    ),
}


def query_schema(table: str, stored: pa.Schema) -> pa.Schema:
    """``stored`` (a table's partition schema) with the table's computed columns inserted
    at their place: the schema of the view."""
    schema = stored
    for column in COMPUTED.get(table, ()):
        schema = schema.insert(schema.get_field_index(column.after) + 1,
                               pa.field(column.name, column.type, nullable=False))
    return schema


def select_sql(table: str, stored: pa.Schema, source: str) -> str:
    """``SELECT`` of the query schema's columns from ``source`` (e.g. ``read_parquet(...)``
    over the table's partitions), each computed column by its expression."""
    computed = {c.name: c for c in COMPUTED.get(table, ())}
    columns = [f"{computed[name].sql} AS {name}" if name in computed else f'"{name}"'
               for name in query_schema(table, stored).names]
    return f"SELECT {', '.join(columns)} FROM {source}"


def with_computed(table: str, frame: pl.LazyFrame, stored: pa.Schema) -> pl.LazyFrame:
    """``frame`` (a scan of the table's stored columns) with the computed columns added,
    in the query schema's order."""
    computed = COMPUTED.get(table, ())
    if not computed:
        return frame
    return (frame.with_columns(*(c.polars().alias(c.name) for c in computed))
            .select(query_schema(table, stored).names))


def parquet_list_sql(paths: Sequence[object]) -> str:
    """A DuckDB list literal of file paths, quoted, for ``read_parquet(...)``."""
    return "[" + ", ".join("'" + str(p).replace("'", "''") + "'" for p in paths) + "]"


def table_sql(table: str, paths: Sequence[object]) -> str:
    """A DuckDB subquery giving ``table``'s rows in the query schema from its partition
    files ``paths`` (at least one): read by column name, so that partitions of schema
    version 1 (which hold the computed columns) and 2 (which do not) mix, with the
    computed columns computed for both."""
    from .schema import TABLES

    source = f"read_parquet({parquet_list_sql(paths)}, union_by_name = true)"
    return f"({select_sql(table, TABLES[table], source)})"


def insert_computed(table: str, stored: pa.Table, values: Mapping[str, object]) -> pa.Table:
    """``stored`` (a table of the stored columns) with the computed columns' ``values``
    (arrays, one per computed column) inserted at their place in the query schema."""
    schema = query_schema(table, stored.schema)

    def column(name: str) -> object:
        if name in stored.schema.names:
            return stored.column(name)
        value, type_ = values[name], schema.field(name).type
        if isinstance(value, pa.Array | pa.ChunkedArray):
            return value.cast(type_)
        return pa.array(value, type_)

    return pa.Table.from_arrays([column(name) for name in schema.names], schema=schema)


def query_table(table: str, stored: pa.Table) -> pa.Table:
    """An in-memory table of the stored columns as the views show it: with the computed
    columns, computed by the same (polars) expressions."""
    import polars as pl

    computed = COMPUTED.get(table, ())
    if not computed:
        return stored
    inputs = [name for name in stored.schema.names if not pa.types.is_dictionary(
        stored.schema.field(name).type)]
    frame = pl.from_arrow(stored.select(inputs))
    assert isinstance(frame, pl.DataFrame)
    values = frame.select(*(c.polars().alias(c.name) for c in computed))
    return insert_computed(table, stored, {c.name: values[c.name].to_arrow() for c in computed})
