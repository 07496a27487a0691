"""HTML for report pages: the page shell, navigation, escaped tables and embedded charts.

Every string that comes from data (player names, club names, filters) goes through
:func:`html.escape`; charts are Plotly divs without the library, which each page loads once
from ``plotly.min.js`` beside it (or, with ``inline_js``, carries inlined), so the report
works offline from the file system.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import plotly.graph_objects as go
import polars as pl

PLOTLY_FILE = "plotly.min.js"

STYLE = """
body { font-family: system-ui, sans-serif; margin: 0; color: #1b1b1b; background: #fafafa; }
header { background: #23395d; color: white; padding: 0.8rem 1.5rem; }
header a { color: #d6e4ff; margin-right: 1rem; text-decoration: none; }
header a.current { color: white; font-weight: bold; text-decoration: underline; }
main { padding: 1rem 1.5rem; max-width: 1200px; }
h1 { font-size: 1.5rem; margin: 0.3rem 0; }
h2 { font-size: 1.2rem; margin-top: 2rem; border-bottom: 1px solid #ccc; }
p.reading { font-style: italic; color: #333; margin: 0.2rem 0 0.6rem 0; }
p.note { color: #555; font-size: 0.9rem; }
table.data { border-collapse: collapse; margin: 0.5rem 0 1.5rem 0; font-size: 0.9rem; }
table.data th, table.data td { border: 1px solid #ddd; padding: 0.25rem 0.6rem; }
table.data th { background: #eef2f8; text-align: left; }
table.data td.num { text-align: right; font-variant-numeric: tabular-nums; }
.verdict-supported { color: #1a7f37; font-weight: bold; }
.verdict-not-supported { color: #b42318; font-weight: bold; }
.verdict-inconclusive { color: #8a6d00; font-weight: bold; }
figure.chart { margin: 0; background: white; border: 1px solid #e3e3e3; }
"""


def esc(value: object) -> str:
    """HTML-escaped text of a value."""
    return html.escape(str(value), quote=True)


def percent(value: object) -> str:
    """``62.1 %`` for a rate; an empty cell for a missing one."""
    if not isinstance(value, (int, float)) or math.isnan(value):
        return ""
    return f"{100 * value:.1f} %"


def number(value: object, digits: int = 1) -> str:
    """Integers as they are, floats rounded; empty for None/NaN."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


@dataclass(frozen=True, slots=True)
class Column:
    """A table column: source column, header, formatter and whether it is numeric."""

    name: str
    header: str
    fmt: Callable[[object], str] = str
    numeric: bool = True


RATE_COLUMNS = (
    Column("n", "n", number), Column("k", "won", number),
    Column("rate", "win rate", percent), Column("lo", "95 % low", percent),
    Column("hi", "95 % high", percent),
)


def table(frame: pl.DataFrame, columns: Sequence[Column], table_id: str,
          caption: str = "") -> str:
    """An escaped HTML table of ``frame`` with ``id`` (tests read the numbers back)."""
    head = "".join(f"<th>{esc(c.header)}</th>" for c in columns)
    rows = []
    for row in frame.iter_rows(named=True):
        cells = []
        for c in columns:
            cls = ' class="num"' if c.numeric else ""
            cells.append(f'<td{cls} data-col="{esc(c.name)}">{esc(c.fmt(row[c.name]))}</td>')
        rows.append("<tr>" + "".join(cells) + "</tr>")
    cap = f"<caption>{esc(caption)}</caption>" if caption else ""
    return (f'<table class="data" id="{esc(table_id)}">{cap}<thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>")


def chart(fig: go.Figure, chart_id: str, reading: str) -> str:
    """A Plotly chart (without the library) followed by its one-line reading."""
    div = fig.to_html(full_html=False, include_plotlyjs=False, div_id=chart_id,
                      config={"displaylogo": False, "responsive": True})
    return f'<figure class="chart">{div}</figure>\n<p class="reading">{esc(reading)}</p>'


def page(title: str, body: str, nav: Sequence[tuple[str, str]], current: str,
         subtitle: str = "", plotly_js: str | None = None) -> str:
    """A complete page; ``plotly_js`` inlines the library, else ``plotly.min.js`` is loaded."""
    links = "".join(
        f'<a href="{esc(href)}"{" class=current" if href == current else ""}>{esc(label)}</a>'
        for href, label in nav)
    script = (f"<script>{plotly_js}</script>" if plotly_js is not None
              else f'<script src="{PLOTLY_FILE}"></script>')
    sub = f'<p class="note">{esc(subtitle)}</p>' if subtitle else ""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(title)} - skatlog report</title>
<style>{STYLE}</style>
{script}
</head><body>
<header><h1>{esc(title)}</h1><nav>{links}</nav></header>
<main>{sub}
{body}
</main></body></html>
"""
