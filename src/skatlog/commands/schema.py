"""``skatlog schema``: every column of every archive view, its DuckDB type and its meaning.

The descriptions are :mod:`skatlog.ingest.column_docs`, read back here from the views'
``COMMENT ON COLUMN`` (``duckdb_columns()``), the same place a SQL session finds them; the
types are DuckDB's, as ``skatlog query`` sees them. No archive is needed.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Annotated, Any

import typer

from skatlog.commands.archive import _fail


def register(app: typer.Typer) -> None:
    app.command("schema")(schema)


def view_columns(views: list[str]) -> dict[str, dict[str, Any]]:
    """``{view: {"description": ..., "columns": [{name, type, description}, ...]}}`` from
    the views of an empty archive."""
    from skatlog.analytics.views import open_archive

    with tempfile.TemporaryDirectory(prefix="skatlog-schema-") as tmp:
        con = open_archive(Path(tmp) / "archive")
        try:
            described = dict(con.execute(
                "SELECT view_name, comment FROM duckdb_views() WHERE NOT internal").fetchall())
            rows = con.execute(
                "SELECT table_name, column_name, data_type, comment FROM duckdb_columns() "
                "WHERE table_name IN (SELECT unnest(?::VARCHAR[])) "
                "ORDER BY table_name, column_index", [views]).fetchall()
        finally:
            con.close()
    out: dict[str, dict[str, Any]] = {
        view: {"description": described.get(view) or "", "columns": []} for view in views}
    for view, name, type_, comment in rows:
        out[view]["columns"].append({"name": name, "type": type_, "description": comment or ""})
    return out


def schema(
    view: Annotated[str | None, typer.Argument(
        help="One view: games, tricks, auction, sessions, rejects or ingests (default: all).",
        show_default=False)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON: per view, its columns with "
                                          "type and description.")] = False,
) -> None:
    """Describe the archive's views: every column, its type and what it means.

    SQL sessions see the same text: SELECT column_name, comment FROM duckdb_columns()
    WHERE table_name = 'games'.
    """
    from skatlog.analytics.views import VIEWS

    views = list(VIEWS)
    if view is not None:
        if view not in views:
            raise _fail(f"unknown view {view!r}: one of {', '.join(views)}")
        views = [view]
    docs = view_columns(views)
    if as_json:
        sys.stdout.write(json.dumps(docs, indent=1, ensure_ascii=False) + "\n")
        return
    width = max(60, min(shutil.get_terminal_size((100, 24)).columns, 120))
    lines: list[str] = []
    for name, doc in docs.items():
        lines.append(f"{name}: {doc['description']}")
        columns = doc["columns"]
        pad = max(len(c["name"]) for c in columns)
        type_pad = min(max(len(c["type"]) for c in columns), 14)
        indent = " " * (2 + pad + 2 + type_pad + 2)
        for column in columns:
            head = f"  {column['name']:<{pad}}  {column['type']:<{type_pad}}  "
            text = column["description"] or "(undocumented)"
            wrapped = textwrap.wrap(text, max(30, width - len(indent)))
            if len(head) > len(indent):  # a long type: the text starts on the next line
                lines.append(head.rstrip())
                lines.extend(indent + part for part in wrapped)
            else:
                lines.append(head + wrapped[0])
                lines.extend(indent + part for part in wrapped[1:])
        lines.append("")
    lines.append("Cards are integers 0..31 (card_name(c) gives the ISS name, e.g. 'CJ'); "
                 "seats 0 Forehand, 1 Middlehand, 2 Rearhand; rules R1-R18: docs/rules.md.")
    sys.stdout.write("\n".join(lines) + "\n")
