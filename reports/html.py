"""HTML for report pages: the page shell, navigation, number formats, tables and charts.

Every string that comes from data (player names, club names, filters) goes through
:func:`html.escape`. Charts are plain Plotly.js calls (``Plotly.newPlot`` on a JSON figure
from :mod:`.figures`); the library itself is loaded once per page from ``plotly.min.js`` at
the report's root (or, with ``inline_js``, inlined), so the report works offline from the
file system. Long tables are collapsed in ``<details>`` and offered as CSV.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

PLOTLY_FILE = "plotly.min.js"
#: Tables longer than this are collapsed and offered as CSV.
COLLAPSE_ROWS = 15
#: Rows a collapsed table shows at most; the CSV has them all.
MAX_HTML_ROWS = 200

STYLE = """
body { font-family: system-ui, sans-serif; margin: 0; color: #1b1b1b; background: #fafafa; }
header { background: #23395d; color: white; padding: 0.8rem 1.5rem; }
header a { color: #d6e4ff; margin-right: 1rem; text-decoration: none; }
header a.current { color: white; font-weight: bold; text-decoration: underline; }
header p.part { margin: 0.2rem 0 0.4rem 0; color: #d6e4ff; }
main { padding: 1rem 1.5rem; max-width: 1200px; }
h1 { font-size: 1.5rem; margin: 0.3rem 0; }
h2 { font-size: 1.2rem; margin-top: 2rem; border-bottom: 1px solid #ccc; }
p.reading { font-style: italic; color: #333; margin: 0.2rem 0 0.6rem 0; }
p.note { color: #555; font-size: 0.9rem; }
details.table { margin: 0.3rem 0 1.5rem 0; }
details.table summary { cursor: pointer; color: #23395d; }
table.data { border-collapse: collapse; margin: 0.5rem 0 1.5rem 0; font-size: 0.9rem; }
table.data th, table.data td { border: 1px solid #ddd; padding: 0.25rem 0.6rem; }
table.data th { background: #eef2f8; text-align: left; }
table.data td.num { text-align: right; font-variant-numeric: tabular-nums; }
.verdict-supported { color: #1a7f37; font-weight: bold; }
.verdict-not-supported { color: #b42318; font-weight: bold; }
.verdict-inconclusive { color: #8a6d00; font-weight: bold; }
.verdict-refuted { color: #b42318; font-weight: bold; }
.verdict-not-distinguishable { color: #8a6d00; font-weight: bold; }
figure.chart { margin: 0; background: white; border: 1px solid #e3e3e3; }
"""


def esc(value: object) -> str:
    """HTML-escaped text of a value."""
    return html.escape(str(value), quote=True)


def percent(value: object) -> str:
    """``62.1 %`` for a rate (two significant digits below 0.1 %, so a small rate never
    reads ``0.0 %``); an empty cell for a missing one."""
    if not isinstance(value, (int, float)) or math.isnan(value):
        return ""
    if value == 0:
        return "0 %"
    if abs(value) < 0.001:
        return f"{100 * value:.2g} %"
    return f"{100 * value:.1f} %"


def number(value: object, digits: int = 1) -> str:
    """Integers with thousands separators (``801,948``), floats rounded; empty for None/NaN."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def plural(n: int, word: str, words: str | None = None) -> str:
    """``1 hand``, ``1,000,000 hands``: the count with separators and the right noun."""
    return f"{n:,} {word if n == 1 else words or word + 's'}"


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

#: Writes a table's full CSV under a file name (given by the page builder's context).
CsvSink = Callable[[str, pl.DataFrame], None]


def table(frame: pl.DataFrame, columns: Sequence[Column], table_id: str,
          caption: str = "", *, csv: CsvSink | None = None,
          cell_class: Callable[[str, object], str] | None = None) -> str:
    """An escaped HTML table of ``frame`` with ``id`` (tests read the numbers back).

    A table of more than :data:`COLLAPSE_ROWS` rows is collapsed in ``<details>``, shows at
    most :data:`MAX_HTML_ROWS` rows and, given ``csv``, links ``<table_id>.csv`` with every
    row. ``cell_class(column, value)`` may add a CSS class to a cell.
    """
    head = "".join(f"<th>{esc(c.header)}</th>" for c in columns)
    rows = []
    for row in frame.head(MAX_HTML_ROWS).iter_rows(named=True):
        cells = []
        for c in columns:
            classes = " ".join(x for x in ("num" if c.numeric else "",
                                           cell_class(c.name, row[c.name]) if cell_class
                                           else "") if x)
            cls = f' class="{esc(classes)}"' if classes else ""
            cells.append(f'<td{cls} data-col="{esc(c.name)}">{esc(c.fmt(row[c.name]))}</td>')
        rows.append("<tr>" + "".join(cells) + "</tr>")
    cap = f"<caption>{esc(caption)}</caption>" if caption else ""
    body = (f'<table class="data" id="{esc(table_id)}">{cap}<thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>")
    if frame.height <= COLLAPSE_ROWS:
        return body
    link = ""
    if csv is not None:
        name = f"{table_id}.csv"
        csv(name, frame.select([c.name for c in columns]))
        link = (f'<p class="note"><a href="{esc(name)}" download>All {frame.height:,} rows '
                "as CSV</a></p>")
    shown = (f"{frame.height:,} rows" if frame.height <= MAX_HTML_ROWS
             else f"the first {MAX_HTML_ROWS:,} of {frame.height:,} rows")
    return (f'<details class="table" data-table="{esc(table_id)}"><summary>Table: {shown}'
            f"</summary>{body}</details>{link}")


def _finite(value: Any) -> Any:
    """``value`` with NaN and infinities as None (JSON has no NaN; Plotly skips nulls)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def _script_json(value: Any) -> str:
    """JSON safe inside ``<script>``: no ``</script>`` or ``<!--`` can end it early."""
    text = json.dumps(_finite(value), separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def chart(fig: dict[str, Any], chart_id: str, reading: str) -> str:
    """A Plotly chart (``fig`` from :mod:`.figures`) followed by its one-line reading."""
    config = {"displaylogo": False, "responsive": True}
    height = fig.get("layout", {}).get("height", 420)
    return (f'<figure class="chart"><div id="{esc(chart_id)}" class="plot" '
            f'style="height:{int(height)}px"></div><script>Plotly.newPlot('
            f'{_script_json(chart_id)},{_script_json(fig["data"])},'
            f'{_script_json(fig["layout"])},{_script_json(config)});</script></figure>\n'
            f'<p class="reading">{esc(reading)}</p>')


def page(title: str, body: str, nav: Sequence[tuple[str, str]], current: str,
         subtitle: str = "", *, part: str = "", plotly_src: str = PLOTLY_FILE,
         plotly_js: str | None = None, report_title: str = "skatlog report") -> str:
    """A complete page; ``plotly_js`` inlines the library, else ``plotly_src`` is loaded.

    ``part`` names the bot line-up and rule set the page is about (empty for the index).
    """
    links = "".join(
        f'<a href="{esc(href)}"{" class=current" if href == current else ""}>{esc(label)}</a>'
        for href, label in nav)
    script = (f"<script>{plotly_js}</script>" if plotly_js is not None
              else f'<script src="{esc(plotly_src)}"></script>')
    sub = f'<p class="note">{esc(subtitle)}</p>' if subtitle else ""
    part_line = f'<p class="part">{esc(part)}</p>' if part else ""
    full_title = title if title == report_title else f"{title} - {report_title}"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(full_title)}</title>
<style>{STYLE}</style>
{script}
</head><body>
<header><h1>{esc(title)}</h1>{part_line}<nav>{links}</nav></header>
<main>{sub}
{body}
</main></body></html>
"""
