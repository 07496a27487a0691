"""Plotly figures for the report as plain JSON-ready dicts, each from a small aggregated frame.

Rates are drawn in percent with their Wilson 95 % interval as whiskers and n in the hover.
The figures are dicts (``{"data": [...], "layout": {...}}``) for ``Plotly.newPlot`` rather
than ``plotly.graph_objects`` figures: building and serialising graph objects (with their
full template in every chart) cost more than all the report's queries together. The tests
check every figure against Plotly's own schema with ``plotly.graph_objects.Figure``.
"""

from __future__ import annotations

import html
from typing import Any

import polars as pl

from .html import percent

Figure = dict[str, Any]

#: A light theme in the spirit of Plotly's ``plotly_white`` (without the template's bulk).
_AXIS = {"gridcolor": "#EBF0F8", "linecolor": "#EBF0F8", "zerolinecolor": "#EBF0F8",
         "automargin": True}
LAYOUT: dict[str, Any] = {
    "height": 420, "margin": {"l": 70, "r": 30, "t": 60, "b": 70},
    "paper_bgcolor": "white", "plot_bgcolor": "white", "font": {"color": "#2a3f5f"},
    "hoverlabel": {"align": "left"},
}


def layout(title: str, x_title: str, y_title: str, **extra: Any) -> dict[str, Any]:
    """The report's layout with a title and axis titles; ``extra`` adds or overrides keys
    (``xaxis``/``yaxis`` dicts are merged into the theme's axes)."""
    xaxis = {**_AXIS, "title": {"text": x_title}, **extra.pop("xaxis", {})}
    yaxis = {**_AXIS, "title": {"text": y_title}, **extra.pop("yaxis", {})}
    return {**LAYOUT, "title": {"text": title, "x": 0.05}, "xaxis": xaxis, "yaxis": yaxis,
            **extra}


def labels(values: list[object]) -> list[str]:
    """Category labels; Plotly renders a few HTML tags in text, so names are escaped."""
    return [html.escape(str(v)) for v in values]


def pct(frame: pl.DataFrame, name: str) -> list[float | None]:
    """A rate column in percent (None stays None)."""
    return [None if v is None else 100 * v for v in frame[name].to_list()]


def whiskers(frame: pl.DataFrame) -> dict[str, Any]:
    """Asymmetric error bars from the ``rate``, ``lo`` and ``hi`` columns."""
    rate, lo, hi = pct(frame, "rate"), pct(frame, "lo"), pct(frame, "hi")
    return {"type": "data", "symmetric": False,
            "array": [None if r is None or h is None else h - r
                      for r, h in zip(rate, hi, strict=True)],
            "arrayminus": [None if r is None or low is None else r - low
                           for r, low in zip(rate, lo, strict=True)]}


def rate_trace(frame: pl.DataFrame, x: str, name: str = "", *, show_values: bool = False,
               x_values: list[str] | None = None) -> dict[str, Any]:
    """One bar trace of ``rate`` by ``x`` with whiskers; ``show_values`` writes each rate
    and its counts on the bar, so a zero bar is still seen (``0 %, 0 of 9,812``)."""
    counts = frame.select("n", "k").rows()
    trace: dict[str, Any] = {
        "type": "bar", "x": x_values or labels(frame[x].to_list()), "y": pct(frame, "rate"),
        "error_y": whiskers(frame), "name": html.escape(name or "rate"),
        "customdata": [[f"{n:,}", f"{k:,}"] for n, k in counts],
        "hovertemplate": "%{x}: %{y:.2f} % (%{customdata[1]} of %{customdata[0]})"
                         "<extra>" + html.escape(name) + "</extra>"}
    if show_values:
        trace["text"] = [f"{percent(r)}<br>{k:,} of {n:,}"
                         for r, (n, k) in zip(frame["rate"].to_list(), counts, strict=True)]
        trace["textposition"] = "outside"
        trace["cliponaxis"] = False
    return trace


def rate_bars(frame: pl.DataFrame, x: str, title: str, x_title: str,
              y_title: str = "declarer win rate (%)", name: str = "",
              full_scale: bool = True) -> Figure:
    """Bars of ``rate`` by ``x`` with Wilson whiskers; ``full_scale=False`` zooms the y axis
    to the data (for small rates such as overbids) and labels every bar with its value."""
    highs = [h for h in pct(frame, "hi") if h is not None]
    top = 100.0 if full_scale or not highs else min(100.0, max(0.01, 1.25 * max(highs)))
    return {"data": [rate_trace(frame, x, name, show_values=not full_scale)],
            "layout": layout(title, x_title, y_title, yaxis={"range": [0, top]},
                             xaxis={"type": "category"})}


def rate_lines(frame: pl.DataFrame, x: str, group: str, title: str, x_title: str,
               y_title: str = "declarer win rate (%)") -> Figure:
    """One line per ``group`` of ``rate`` by numeric ``x`` with whiskers."""
    traces = []
    for key in frame[group].unique(maintain_order=True).to_list():
        part = frame.filter(pl.col(group) == key)
        traces.append({
            "type": "scatter", "x": part[x].to_list(), "y": pct(part, "rate"),
            "error_y": whiskers(part), "mode": "lines+markers",
            "name": html.escape(str(key)),
            "customdata": [[f"{n:,}", f"{k:,}"] for n, k in part.select("n", "k").rows()],
            "hovertemplate": "%{x}: %{y:.1f} % (won %{customdata[1]} of %{customdata[0]})"})
    # matadors and jacks are whole numbers
    return {"data": traces, "layout": layout(title, x_title, y_title,
                                             yaxis={"range": [0, 100]}, xaxis={"dtick": 1})}


def count_bars(frame: pl.DataFrame, x: str, y: str, title: str, x_title: str, y_title: str,
               *, group: str | None = None, categorical: bool = False,
               stacked: bool = False) -> Figure:
    """Bars of a count ``y`` by ``x``, optionally one trace per ``group``."""
    traces = []
    groups = [None] if group is None else frame[group].unique(maintain_order=True).to_list()
    for key in groups:
        part = frame if group is None else frame.filter(pl.col(group) == key)
        xs = part[x].to_list()
        traces.append({"type": "bar", "x": labels(xs) if categorical else xs,
                       "y": part[y].to_list(),
                       "name": html.escape(str(key)) if key is not None else y})
    extra: dict[str, Any] = {"barmode": "stack", "bargap": 0} if stacked else \
        {"barmode": "group"}
    if categorical:
        extra["xaxis"] = {"type": "category"}
    return {"data": traces, "layout": layout(title, x_title, y_title, **extra)}


def error_bars(xs: list[Any], ys: list[Any], errors: list[Any], name: str, title: str,
               x_title: str, y_title: str) -> Figure:
    """Bars with symmetric whiskers (e.g. a mean and one standard deviation)."""
    return {"data": [{"type": "bar", "x": xs, "y": ys, "name": name,
                      "error_y": {"type": "data", "array": errors}}],
            "layout": layout(title, x_title, y_title)}


def bubble(frame: pl.DataFrame, x: str, y: str, size: str, title: str, x_title: str,
           y_title: str) -> Figure:
    """A bubble chart of counts over two numeric axes, plus the diagonal y = x."""
    sizes = frame[size].to_list()
    biggest = max(sizes) if sizes else 1
    traces: list[dict[str, Any]] = [{
        "type": "scatter", "x": frame[x].to_list(), "y": frame[y].to_list(),
        "mode": "markers", "name": "games",
        "marker": {"size": [6 + 34 * (s / biggest) ** 0.5 for s in sizes], "opacity": 0.6},
        "customdata": [f"{s:,}" for s in sizes],
        "hovertemplate": "bid %{x}, value %{y}: %{customdata} games"}]
    if sizes:
        top = max(frame[x].max(), frame[y].max())  # type: ignore[type-var]
        traces.append({"type": "scatter", "x": [18, top], "y": [18, top], "mode": "lines",
                       "name": "value = bid", "line": {"dash": "dash", "color": "grey"}})
    return {"data": traces, "layout": layout(title, x_title, y_title)}
