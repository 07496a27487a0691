"""Plotly figures for the report, each from a small aggregated frame (never raw rows).

Rates are drawn in percent with their Wilson 95 % interval as whiskers and n in the hover.
"""

from __future__ import annotations

import html

import plotly.graph_objects as go
import polars as pl

LAYOUT = {"template": "plotly_white", "height": 420, "margin": {"l": 70, "r": 30, "t": 60,
                                                               "b": 70}}


def _label(values: list[object]) -> list[str]:
    # Plotly renders a few HTML tags in text; escaped names show literally.
    return [html.escape(str(v)) for v in values]


def _pct(frame: pl.DataFrame, name: str) -> list[float | None]:
    return [None if v is None else 100 * v for v in frame[name].to_list()]


def _whiskers(frame: pl.DataFrame) -> dict[str, object]:
    rate, lo, hi = _pct(frame, "rate"), _pct(frame, "lo"), _pct(frame, "hi")
    return {"type": "data", "symmetric": False,
            "array": [None if r is None or h is None else h - r
                      for r, h in zip(rate, hi, strict=True)],
            "arrayminus": [None if r is None or low is None else r - low
                           for r, low in zip(rate, lo, strict=True)]}


def rate_bars(frame: pl.DataFrame, x: str, title: str, x_title: str,
              y_title: str = "declarer win rate (%)", name: str = "",
              full_scale: bool = True) -> go.Figure:
    """Bars of ``rate`` by ``x`` with Wilson whiskers; ``full_scale=False`` zooms the y axis
    to the data (for small rates such as overbids)."""
    fig = go.Figure()
    add_rate_bars(fig, frame, x, name)
    fig.update_layout(title=title, xaxis_title=x_title, yaxis_title=y_title, **LAYOUT)
    highs = [h for h in _pct(frame, "hi") if h is not None]
    top = 100 if full_scale or not highs else min(100, max(1.0, 1.1 * max(highs)))
    fig.update_yaxes(range=[0, top])
    return fig


def add_rate_bars(fig: go.Figure, frame: pl.DataFrame, x: str, name: str = "") -> None:
    """Add one bar trace of ``rate`` by ``x`` with whiskers (for grouped bars)."""
    fig.add_trace(go.Bar(
        x=_label(frame[x].to_list()), y=_pct(frame, "rate"), error_y=_whiskers(frame),
        name=name or "rate", customdata=frame.select("n", "k").rows(),
        hovertemplate="%{x}: %{y:.1f} % (won %{customdata[1]} of %{customdata[0]})"
                      "<extra>" + html.escape(name) + "</extra>"))


def rate_lines(frame: pl.DataFrame, x: str, group: str, title: str, x_title: str,
               y_title: str = "declarer win rate (%)") -> go.Figure:
    """One line per ``group`` of ``rate`` by numeric ``x`` with whiskers."""
    fig = go.Figure()
    for key in frame[group].unique(maintain_order=True).to_list():
        part = frame.filter(pl.col(group) == key)
        fig.add_trace(go.Scatter(
            x=part[x].to_list(), y=_pct(part, "rate"), error_y=_whiskers(part),
            mode="lines+markers", name=html.escape(str(key)),
            customdata=part.select("n", "k").rows(),
            hovertemplate="%{x}: %{y:.1f} % (won %{customdata[1]} of %{customdata[0]})"))
    fig.update_layout(title=title, xaxis_title=x_title, yaxis_title=y_title, **LAYOUT)
    fig.update_yaxes(range=[0, 100])
    fig.update_xaxes(dtick=1)  # matadors and jacks are whole numbers
    return fig


def count_bars(frame: pl.DataFrame, x: str, y: str, title: str, x_title: str, y_title: str,
               *, group: str | None = None, categorical: bool = False) -> go.Figure:
    """Bars of a count ``y`` by ``x``, optionally one trace per ``group``."""
    fig = go.Figure()
    groups = [None] if group is None else frame[group].unique(maintain_order=True).to_list()
    for key in groups:
        part = frame if group is None else frame.filter(pl.col(group) == key)
        xs = part[x].to_list()
        fig.add_trace(go.Bar(x=_label(xs) if categorical else xs, y=part[y].to_list(),
                             name=html.escape(str(key)) if key is not None else y))
    fig.update_layout(title=title, xaxis_title=x_title, yaxis_title=y_title,
                      barmode="group", **LAYOUT)
    if categorical:
        fig.update_xaxes(type="category")
    return fig


def bubble(frame: pl.DataFrame, x: str, y: str, size: str, title: str, x_title: str,
           y_title: str) -> go.Figure:
    """A bubble chart of counts over two numeric axes, plus the diagonal y = x."""
    sizes = frame[size].to_list()
    biggest = max(sizes) if sizes else 1
    fig = go.Figure(go.Scatter(
        x=frame[x].to_list(), y=frame[y].to_list(), mode="markers", name="games",
        marker={"size": [6 + 34 * (s / biggest) ** 0.5 for s in sizes], "opacity": 0.6},
        customdata=sizes, hovertemplate="bid %{x}, value %{y}: %{customdata} games"))
    if sizes:
        top = max(frame[x].max(), frame[y].max())  # type: ignore[type-var]
        fig.add_trace(go.Scatter(x=[18, top], y=[18, top], mode="lines", name="value = bid",
                                 line={"dash": "dash", "color": "grey"}))
    fig.update_layout(title=title, xaxis_title=x_title, yaxis_title=y_title, **LAYOUT)
    return fig
