"""Columns the archive's views compute from the stored ones instead of storing them.

Some columns of the query schema repeat what other stored columns already say:

``tricks.seat1`` .. ``seat3``   the seats in play order: the leader, then clockwise (R8)
``tricks.points``               the card points of the trick's three cards (R1)
``games.skat_cards``            the two cards no seat holds (the complement of the hands)
``games.deal``                  when each hand and the skat are in card order (every
                                simulated hand, see :meth:`skatlog.engine.Deal.sorted`):
                                stored null, and rebuilt from the three hands' masks
``games.rules``                 in partitions before schema version 3, which lack it:
                                ``isko+iss`` where ``recorded_rules``, else ``isko``
``games.kontra``, ``re``,       schema version 4 (the house options R19-R21): false where
``bock``                        null (older partitions, builders that play no option);
                                ``ramsch_points``/``ramsch_values`` as stored (null when
                                no partition stores them)

Storing them cost two fifths of a simulated archive's bytes and a third of the Parquet
writer's time (measured with ``bench/writer.py``). The seats, points and skat cost a scan
a few milliseconds per million rows; a deal in card order costs about two seconds per
million rows when a DuckDB query reads ``deal``, a fraction of that in polars and export
(:func:`deals_from_masks`); filters on cards are faster on the masks anyway
(``bit_count(forehand_cards & 0x10101010)``).

Partitions written with schema version 2 leave them out (:func:`storage_form` is what
the archive's writer does to a ``games`` batch before writing it); the DuckDB
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

import numpy as np
import pyarrow as pa

from skatlog.engine import CARD_POINTS

if TYPE_CHECKING:
    import polars as pl


@dataclass(frozen=True)
class ComputedColumn:
    """One column a view computes: its name and type, the stored column it follows in
    the query schema's column order (None for a ``fills`` column: one that is stored,
    but null where the expression gives its value), and its DuckDB and polars
    expressions."""

    name: str
    type: pa.DataType
    after: str | None
    sql: str
    polars: Callable[[], pl.Expr]
    #: For a ``fills`` column: the SQL when no partition stores the column at all (an
    #: archive older than the column), where ``sql`` could not name it.
    absent_sql: str | None = None
    #: Whether the view's column may hold nulls (a Ramsch column of a declared game).
    nullable: bool = False

    @property
    def fills(self) -> bool:
        return self.after is None


#: The deal's four parts in ISS order: Forehand's ten, Middlehand's, Rearhand's, the skat.
DEAL_PARTS = ((0, 10), (10, 20), (20, 30), (30, 32))
_MASKS = ("forehand_cards", "middlehand_cards", "rearhand_cards")
_SKAT_SQL = "(~(forehand_cards | middlehand_cards | rearhand_cards))::UINTEGER"


def _sorted_deal_sql() -> str:
    parts = [f"list_filter(range(32), lambda c: (({mask}) >> c) & 1 = 1)"
             for mask in (*_MASKS, _SKAT_SQL)]
    return f"coalesce(deal, ({' || '.join(parts)})::UTINYINT[])"


_BITS_SET = np.array([bin(b).count("1") for b in range(256)], dtype=np.uint8)
_PART_SIZES = np.array([hi - lo for lo, hi in DEAL_PARTS], dtype=np.int64)
_ROWS_AT_ONCE = 16_384


class NotADeal(ValueError):
    """Stored card masks that are not a deal (a damaged archive); ``row`` is the first such
    row of the masks given."""

    def __init__(self, row: int, message: str = "") -> None:
        super().__init__(message or f"row {row}: the card masks are not a deal "
                                    "(a hand without ten cards, or a card held twice)")
        self.row = row


def deals_from_masks(masks: np.ndarray) -> np.ndarray:
    """The deals (n x 32 card indices, each part in card order) of ``masks`` (n x 3: the
    three hands' 32-bit masks; the skat is the rest). :class:`NotADeal` when a row's
    masks are not a deal."""
    n = masks.shape[0]
    full = np.empty((n, 4), dtype="<u4")
    full[:, :3] = masks
    full[:, 3] = ~(full[:, 0] | full[:, 1] | full[:, 2])
    octets = full.view(np.uint8)  # little-endian: octet k of part p holds cards 8k .. 8k+7
    counts = _BITS_SET[octets].reshape(n, 4, 4).sum(axis=2)
    bad = np.flatnonzero(np.any(counts != _PART_SIZES, axis=1))
    if len(bad):
        raise NotADeal(int(bad[0]))
    # in slices, so that the temporaries stay in cache: the set bits of a row, in order,
    # are part 0's cards ascending, then part 1's, ...
    deals = np.empty((n, 32), dtype=np.uint8)
    for k in range(0, n, _ROWS_AT_ONCE):
        bits = np.unpackbits(octets[k:k + _ROWS_AT_ONCE], axis=1, bitorder="little")
        deals[k:k + _ROWS_AT_ONCE] = (np.flatnonzero(bits) & 31).reshape(-1, 32)
    return deals


def _deals_series(masks: pl.Series) -> pl.Series:
    import polars as pl

    columns = np.column_stack([masks.struct.field(m).to_numpy() for m in _MASKS])
    return pl.Series(deals_from_masks(columns)).cast(pl.List(pl.UInt8))


def _sorted_deal_polars() -> pl.Expr:
    import polars as pl

    rebuilt = pl.struct(_MASKS).map_batches(_deals_series, return_dtype=pl.List(pl.UInt8),
                                            is_elementwise=True)
    return pl.coalesce(pl.col("deal"), rebuilt)


def sorted_deal_rows(deals: np.ndarray) -> np.ndarray:
    """Which rows of ``deals`` (n x 32 card indices) have each part in card order
    (:meth:`skatlog.engine.Deal.sorted`): the deals the archive stores as null."""
    ascending = deals[:, 1:] > deals[:, :-1]
    inside = [k for a, b in DEAL_PARTS for k in range(a, b - 1)]  # pairs within a part
    return np.all(ascending[:, inside], axis=1)


def storage_form(table: str, data: pa.Table) -> pa.Table:
    """``data`` (rows of ``table`` as builders make them) as the partitions store it:
    a ``games.deal`` in card order becomes null (the views rebuild it from the masks).
    Rows already in that form (a partition's rows copied again) are left as they are."""
    if table != "games" or data.num_rows == 0:
        return data
    column = data.column("deal")
    if column.null_count:
        return data
    deals = column.combine_chunks()
    values = np.asarray(deals.flatten()).reshape(data.num_rows, 32)
    stored = ~sorted_deal_rows(values)
    if stored.all():
        return data
    index = data.schema.get_field_index("deal")
    if not stored.any():
        return data.set_column(index, "deal", pa.nulls(data.num_rows, deals.type))
    kept = pa.ListArray.from_arrays(deals.offsets, deals.values, mask=pa.array(~stored))
    return data.set_column(index, "deal", kept)


_RULES_BEFORE_3_SQL = "CASE WHEN recorded_rules THEN 'isko+iss' ELSE 'isko' END"
_RULES_SQL = f"coalesce(rules, {_RULES_BEFORE_3_SQL})"


def _rules_polars() -> pl.Expr:
    import polars as pl

    old = pl.when(pl.col("recorded_rules")).then(pl.lit("isko+iss")).otherwise(pl.lit("isko"))
    return pl.coalesce(pl.col("rules").cast(pl.String), old)


def _false_fill(name: str) -> ComputedColumn:
    """A house-option flag of schema 4 (``kontra``, ``re``, ``bock``): false where a
    partition before it, or a builder that plays no option, left it null."""
    def polars() -> pl.Expr:
        import polars as pl

        return pl.col(name).fill_null(False)
    return ComputedColumn(name, pa.bool_(), None, f"coalesce({name}, false)", polars,
                          absent_sql="false")


def _null_fill(name: str, sql_type: str, type_: pa.DataType) -> ComputedColumn:
    """A nullable column of schema 4 (``ramsch_points``, ``ramsch_values``): as stored, and
    null in an archive none of whose partitions stores it."""
    def polars() -> pl.Expr:
        import polars as pl

        return pl.col(name)
    return ComputedColumn(name, type_, None, name, polars, absent_sql=f"NULL::{sql_type}",
                          nullable=True)


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
        ComputedColumn("deal", pa.list_(pa.uint8()), None, _sorted_deal_sql(),
                       _sorted_deal_polars),
        ComputedColumn("skat_cards", pa.uint32(), "rearhand_cards", _SKAT_SQL, _skat_polars),
        ComputedColumn("rules", pa.string(), None, _RULES_SQL, _rules_polars,
                       absent_sql=_RULES_BEFORE_3_SQL),
        _false_fill("kontra"), _false_fill("re"), _false_fill("bock"),
        _null_fill("ramsch_points", "SMALLINT[]", pa.list_(pa.int16())),
        _null_fill("ramsch_values", "SMALLINT[]", pa.list_(pa.int16())),
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
        field = pa.field(column.name, column.type, nullable=column.nullable)
        if column.after is None:  # stored, and filled in
            schema = schema.set(schema.get_field_index(column.name), field)
        else:
            schema = schema.insert(schema.get_field_index(column.after) + 1, field)
    return schema


def select_sql(table: str, stored: pa.Schema, source: str,
               absent: frozenset[str] = frozenset()) -> str:
    """``SELECT`` of the query schema's columns from ``source`` (e.g. ``read_parquet(...)``
    over the table's partitions), each computed column by its expression; ``absent`` names
    the ``fills`` columns that no partition of ``source`` stores."""
    computed = {c.name: c for c in COMPUTED.get(table, ())}

    def column(name: str) -> str:
        if name not in computed:
            return f'"{name}"'
        spec = computed[name]
        sql = spec.absent_sql if name in absent and spec.absent_sql else spec.sql
        return f"{sql} AS {name}"

    columns = [column(name) for name in query_schema(table, stored).names]
    return f"SELECT {', '.join(columns)} FROM {source}"


def _absent_fills(table: str, paths: Sequence[object]) -> frozenset[str]:
    """The ``fills`` columns with an ``absent_sql`` that none of ``paths`` stores. Newest
    partitions are last and hold every column, so this usually reads one footer."""
    import pyarrow.parquet as pq

    wanted = {c.name for c in COMPUTED.get(table, ()) if c.fills and c.absent_sql}
    for path in reversed(paths):
        wanted -= set(pq.read_schema(str(path)).names)
        if not wanted:
            break
    return frozenset(wanted)


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
    return f"({select_sql(table, TABLES[table], source, _absent_fills(table, paths))})"


def insert_computed(table: str, stored: pa.Table, values: Mapping[str, object]) -> pa.Table:
    """``stored`` (a table of the stored columns) with the computed columns' ``values``
    (arrays, one per computed column) inserted at their place in the query schema."""
    schema = query_schema(table, stored.schema)

    def column(name: str) -> object:
        if name in stored.schema.names and name not in values:
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
    decoded = pa.Table.from_arrays(  # dictionary columns as plain strings (e.g. ``rules``)
        [column.cast(pa.string()) if pa.types.is_dictionary(column.type) else column
         for column in stored.columns], names=stored.schema.names)
    frame = pl.from_arrow(decoded)
    assert isinstance(frame, pl.DataFrame)
    values = frame.select(*(c.polars().alias(c.name) for c in computed))
    return insert_computed(table, stored, {c.name: values[c.name].to_arrow() for c in computed})


#: The stored ``games`` columns :func:`with_deals` reads: the deal and the masks.
DEAL_INPUTS = ("game_id", "deal", *_MASKS)


def with_deals(games: pa.RecordBatch) -> pa.RecordBatch:
    """``games`` (stored rows with :data:`DEAL_INPUTS`, e.g. a batch read straight from a
    partition) with every null ``deal`` rebuilt from the masks (:func:`deals_from_masks`,
    as the polars frames do). :class:`NotADeal` names the game whose masks are damaged."""
    index = games.schema.get_field_index("deal")
    stored = games.column(index)
    if stored.null_count == 0:
        return games
    missing = np.asarray(stored.is_null().to_numpy(zero_copy_only=False))
    masks = np.column_stack([games.column(m).to_numpy() for m in _MASKS])[missing]
    try:
        rebuilt = deals_from_masks(masks)
    except NotADeal as err:
        game_id = games.column("game_id")[int(np.flatnonzero(missing)[err.row])]
        raise NotADeal(err.row, f"game {game_id}: the card masks are not a deal "
                                "(a hand without ten cards, or a card held twice)") from None
    deals = np.empty((games.num_rows, 32), dtype=np.uint8)
    deals[missing] = rebuilt
    if not missing.all():
        kept = stored.filter(pa.array(~missing))
        deals[~missing] = np.asarray(kept.flatten()).reshape(-1, 32)
    offsets = pa.array(np.arange(0, 32 * games.num_rows + 1, 32, dtype=np.int32))
    values = pa.ListArray.from_arrays(offsets, pa.array(deals.reshape(-1)))
    return games.set_column(index, "deal", values.cast(stored.type))
