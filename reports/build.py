"""Build the HTML report: an index of the parts, and each part's pages, all from DuckDB.

:func:`build_report` opens the archive, checks the user's ``where`` filter, splits the
selected games into parts (:mod:`.parts`: one per origin, bot line-up and rule set, never
pooled) and writes, into a staged folder that replaces the output only when complete
(:mod:`.output`)::

    index.html           the archive's counts and the parts
    plotly.min.js        one copy of Plotly's JavaScript, so the report works offline
    <part>/index.html    a part's counts; then contracts.html, bidding.html, ... and the
    <part>/*.csv         full rows of its long tables
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import polars as pl
from plotly.offline import get_plotlyjs

from skatlog.analytics import queries as q
from skatlog.analytics.connect import check_where, connect
from skatlog.analytics.scoring import DEFAULT_SCORING, LABELS, Scoring

from . import figures as fg
from .html import PLOTLY_FILE, Column, chart, esc, number, page, plural, table
from .output import DEFAULT_OUT, check_target, staged_folder, writer
from .pages import Context, overview_reading, overview_table, pages_for
from .parts import Part, find_parts

REPORT_TITLE = "skatlog report"

#: Called as ``progress(done, total, what)`` while the report is built.
Progress = Callable[[int, int, str], None]


@dataclass(frozen=True, slots=True)
class ReportResult:
    """Where the report went, how long it took and how big it is."""

    index: Path
    pages: tuple[Path, ...]
    seconds: float
    overview: dict[str, int]
    parts: tuple[Part, ...]
    bytes: int


def _and(where: str | None, condition: str) -> str:
    """Both conditions; the user's on lines of its own, so a trailing ``--`` comment in it
    ends there (as in :func:`~skatlog.analytics.connect.where_clause`)."""
    return condition if not where or not where.strip() else f"(\n{where}\n) AND ({condition})"


def _index(parts: Sequence[Part], overviews: Sequence[dict[str, int]],
           overview: dict[str, int], where: str | None,
           scoring: Scoring = DEFAULT_SCORING) -> str:
    """The report's front page: the archive's counts and a link list per part."""
    items = []
    for part in parts:
        links = " · ".join(f'<a href="{esc(part.slug)}/{esc(p.file)}">{esc(p.nav)}</a>'
                           for p in pages_for(part)[1:])
        items.append(f'<li><a href="{esc(part.slug)}/index.html"><b>{esc(part.label)}</b></a>'
                     f" ({plural(part.hands, 'hand')}, {part.played:,} played): {links}</li>")
    parts_html = (f"<ul class=\"parts\">{''.join(items)}</ul>" if items
                  else '<p class="reading">No games selected.</p>')
    notes = [] if not where else [f"Filter: {where}"]
    notes.append(f"Player and session totals: {LABELS[scoring]} (--scoring {scoring}).")
    if not any(p.simulated for p in parts):
        notes.append("No simulated games selected, so there is no strategy page.")
    frame = pl.DataFrame({"part": [p.label for p in parts], "hands": [p.hands for p in parts],
                          "played": [p.played for p in parts]},
                         schema={"part": pl.String, "hands": pl.Int64, "played": pl.Int64})
    rows = [(p.label, what, n) for p, o in zip(parts, overviews, strict=True)
            for what, n in (("played", o["played"]), ("skipped", o["skipped"]),
                            ("penalty or aborted", o["penalty"]),
                            ("other", o["hands"] - o["played"] - o["skipped"] - o["penalty"]))
            if n]
    outcomes = pl.DataFrame(rows, schema={"part": pl.String, "outcome": pl.String,
                                          "n": pl.Int64}, orient="row")
    fig = fg.count_bars(outcomes, "part", "n", "Hands by line-up and outcome", "games",
                        "hands", group="outcome", categorical=True, stacked=True)
    return ("<h2>Line-ups and rule sets</h2><p class=\"note\">Games of different origins, bot "
            "line-ups and rule sets answer different questions, so each has its own pages; "
            "nothing below pools them.</p>" + parts_html
            + "".join(f'<p class="note">{esc(n)}</p>' for n in notes)
            + table(frame, [Column("part", "games", str, False),
                            Column("hands", "hands", number),
                            Column("played", "played", number)], "t-parts")
            + "<h2>The archive</h2>" + chart(fig, "chart-overview", overview_reading(overview))
            + overview_table(overview))


def build_report(archive: Path | str, out: Path | str = DEFAULT_OUT, where: str | None = None,
                 *, inline_js: bool = False, progress: Progress | None = None,
                 title: str = REPORT_TITLE, links: Sequence[tuple[str, str]] = (),
                 scoring: Scoring = DEFAULT_SCORING) -> ReportResult:
    """Write the report for ``archive`` (games selected by ``where``) into ``out``.

    ``inline_js`` puts Plotly into every page instead of one ``plotly.min.js``; ``title``
    names the report (e.g. a club's); ``links`` are (href, label) pairs added to every
    page's navigation (e.g. back to a web app); ``scoring`` totals players and sessions
    (``list`` or ``seeger-fabian``, :mod:`skatlog.analytics.scoring`). ``out`` is replaced
    whole at the end, or, on any error, left as it was.
    """
    started = time.perf_counter()
    out_dir = Path(out)
    check_target(out_dir)  # before the long work: a folder of other files is refused
    con = connect(archive, scoring)
    try:
        check_where(con, where)
        overview = q.overview(con, where)
        parts = find_parts(con, where)
        wheres = [_and(where, part.condition) for part in parts]
        overviews = [q.overview(con, w) for w in wheres]
        total = 2 + sum(len(pages_for(p)) for p in parts)
        done = 0

        def step(what: str) -> None:
            nonlocal done
            if progress is not None:
                progress(done, total, what)
            done += 1

        written: list[Path] = []
        js = get_plotlyjs()
        with staged_folder(out_dir) as root:
            write, size = writer(root)
            step("plotly.min.js")
            if not inline_js:
                write(PLOTLY_FILE, js)
            for part, part_where, part_overview in zip(parts, wheres, overviews, strict=True):
                ctx = Context(con, part_where, part, part_overview, scoring=scoring,
                              root=Path(archive))
                nav = [("../index.html", "All line-ups"),
                       *((p.file, p.nav) for p in pages_for(part)), *links]
                subtitle = plural(part.hands, "hand") + (f" where {where}" if where else "")
                for spec in pages_for(part):
                    step(f"{part.label}: {spec.nav}")
                    name = f"{part.slug}/{spec.file}"
                    write(name, page(spec.title, spec.build(ctx), nav, spec.file, subtitle,
                                     part=part.label, plotly_src=f"../{PLOTLY_FILE}",
                                     plotly_js=js if inline_js else None, report_title=title))
                    written.append(out_dir / name)
                for file, data in ctx.files.items():
                    write(f"{part.slug}/{file}", data)
            step("index")
            subtitle = plural(overview["hands"], "hand") + (f" where {where}" if where else "")
            write("index.html", page(title, _index(parts, overviews, overview, where,
                                                   scoring),
                                     [("index.html", "All line-ups"), *links], "index.html",
                                     subtitle, plotly_js=js if inline_js else None,
                                     report_title=title))
            written.insert(0, out_dir / "index.html")
            if progress is not None:
                progress(total, total, "done")
            bytes_written = size()
    finally:
        con.close()
    return ReportResult(out_dir / "index.html", tuple(written), time.perf_counter() - started,
                        overview, tuple(parts), bytes_written)
