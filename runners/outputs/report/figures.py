"""The page's plots, with plotly: per-checkpoint curves per group, score against cost and tokens,
and the code-quality figures checkpoint by checkpoint.

A figure with a view per problem has a menu: "All problems" (the checkpoints at the same position
pooled over the problems) first, then one view per problem; every view has one trace per agent and
panel, so the number of traces shown is agents x panels. Repeats draw the mean with error bars
from the lowest to the highest repeat.
"""

from __future__ import annotations

from collections.abc import Callable
from statistics import mean
from typing import Any

import plotly.graph_objects as go
from plotly.colors import qualitative
from plotly.subplots import make_subplots

from runners.outputs.report.model import GROUPS, ReportData, ReportRow, pooled_group_rate, summarise

ALL = "All problems"
QUALITY_PANELS = (
    ("loc", "Lines of code"),
    ("complexity_max", "Highest cyclomatic complexity"),
    ("duplicate_blocks", "Duplicated blocks"),
    ("lint_findings", "Lint findings"),
)


def colours(agents: list[str]) -> dict[str, str]:
    palette = qualitative.Plotly
    return {agent: palette[i % len(palette)] for i, agent in enumerate(agents)}


def _series(
    data: ReportData,
    agent: str,
    problem: str | None,
    value: Callable[[list[ReportRow]], float | None],
) -> tuple[list[int], list[float | None], list[float], list[float]]:
    """x (checkpoint positions), y (the mean over repeats of `value` of each repeat's rows), and the
    distance down and up to the lowest and highest repeat."""
    xs: list[int] = []
    ys: list[float | None] = []
    lows: list[float] = []
    highs: list[float] = []
    problems = [problem] if problem else data.problems
    positions = sorted({i for p in problems for i in range(1, len(data.checkpoints(p)) + 1)})
    for position in positions:
        rows = [
            row
            for p in problems
            for row in data.select(agent, p)
            if position - 1 < len(data.checkpoints(p))
            and row.checkpoint == data.checkpoints(p)[position - 1]
        ]
        by_repeat: dict[int, list[ReportRow]] = {}
        for row in rows:
            by_repeat.setdefault(row.repeat, []).append(row)
        values = [v for group in by_repeat.values() if (v := value(group)) is not None]
        xs.append(position)
        if not values:
            ys.append(None)
            lows.append(0.0)
            highs.append(0.0)
            continue
        centre = mean(values)
        ys.append(centre)
        lows.append(centre - min(values))
        highs.append(max(values) - centre)
    return xs, ys, lows, highs


def _views(data: ReportData) -> list[str | None]:
    return (
        [None, *data.problems]
        if len(data.problems) > 1
        else [data.problems[0] if data.problems else None]
    )


def _menu(fig: go.Figure, views: list[str | None], per_view: int) -> None:
    if len(views) < 2:
        return
    buttons = []
    for index, view in enumerate(views):
        visible = [
            index * per_view <= t < (index + 1) * per_view for t in range(len(views) * per_view)
        ]
        buttons.append({"label": view or ALL, "method": "restyle", "args": [{"visible": visible}]})
    fig.update_layout(
        updatemenus=[
            {
                "buttons": buttons,
                "direction": "down",
                "x": 0,
                "xanchor": "left",
                "y": 1.25,
                "yanchor": "top",
                "showactive": True,
            }
        ]
    )


def _panels(
    data: ReportData,
    titles: list[str],
    value_of: list[Callable[[list[ReportRow]], float | None]],
    y_title: str,
    percent: bool,
) -> go.Figure:
    agents = data.agents
    palette = colours(agents)
    views = _views(data)
    fig = make_subplots(
        rows=1,
        cols=len(titles),
        subplot_titles=titles,
        shared_yaxes=percent,
        horizontal_spacing=0.05,
    )
    for v_index, view in enumerate(views):
        for panel, value in enumerate(value_of, start=1):
            for agent in agents:
                xs, ys, lows, highs = _series(data, agent, view, value)
                repeats = any(lows) or any(highs)
                fig.add_trace(
                    go.Scatter(
                        x=xs,
                        y=ys,
                        mode="lines+markers",
                        name=agent,
                        legendgroup=agent,
                        showlegend=v_index == 0 and panel == 1,
                        visible=v_index == 0,
                        line={"color": palette[agent]},
                        marker={"color": palette[agent]},
                        connectgaps=False,
                        error_y={
                            "type": "data",
                            "symmetric": False,
                            "array": highs,
                            "arrayminus": lows,
                            "visible": repeats,
                        },
                        hovertemplate="%{fullData.name}<br>checkpoint "
                        f"%{{x}}<br>%{{y{':.0%' if percent else ':,.1f'}}}<extra></extra>",
                    ),
                    row=1,
                    col=panel,
                )
    _menu(fig, views, len(value_of) * len(agents))
    fig.update_xaxes(title_text="checkpoint", dtick=1)
    fig.update_yaxes(title_text=y_title, row=1, col=1)
    if percent:
        fig.update_yaxes(range=[-0.05, 1.05], tickformat=".0%")
    fig.update_layout(
        height=380,
        margin={"t": 90, "l": 60, "r": 20, "b": 50},
        template="plotly_white",
        legend={"orientation": "h", "y": -0.2},
    )
    return fig


def group_curves(data: ReportData) -> go.Figure:
    """Tests passed per group, checkpoint by checkpoint, one line per agent."""

    def rate(group: str) -> Callable[[list[ReportRow]], float | None]:
        return lambda rows: pooled_group_rate(rows, group)

    return _panels(
        data, list(GROUPS), [rate(group) for group in GROUPS], "tests passed", percent=True
    )


def quality_curves(data: ReportData) -> go.Figure:
    """The code-quality figures checkpoint by checkpoint (all problems: the mean per problem)."""

    def figure(name: str) -> Callable[[list[ReportRow]], float | None]:
        def value(rows: list[ReportRow]) -> float | None:
            values = [getattr(row.quality, name) for row in rows if row.quality is not None]
            values = [v for v in values if v is not None]
            return mean(values) if values else None

        return value

    return _panels(
        data,
        [title for _, title in QUALITY_PANELS],
        [figure(name) for name, _ in QUALITY_PANELS],
        "per problem",
        percent=False,
    )


def score_against_usage(data: ReportData) -> go.Figure:
    """Each agent's mean pass rate against its total cost and its total tokens."""
    agents = data.agents
    palette = colours(agents)
    fig = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=["Score against cost", "Score against tokens"],
        shared_yaxes=True,
        horizontal_spacing=0.08,
    )
    for agent in agents:
        rows = data.select(agent)
        cell = summarise(rows, data.repeats)
        costs = [row.cost_usd for row in rows if row.cost_usd is not None]
        tokens = [row.tokens for row in rows if row.tokens is not None]
        score = cell.mean_rate
        common: dict[str, Any] = {
            "mode": "markers+text",
            "text": [agent],
            "textposition": "middle right",
            "marker": {"size": 14, "color": palette[agent]},
            "name": agent,
            "legendgroup": agent,
        }
        fig.add_trace(
            go.Scatter(
                x=[sum(costs)] if costs else [None],
                y=[score],
                showlegend=True,
                hovertemplate="%{fullData.name}<br>$%{x:.4f}<br>%{y:.0%}<extra></extra>",
                **common,
            ),
            row=1,
            col=1,
        )
        fig.add_trace(
            go.Scatter(
                x=[sum(tokens)] if tokens else [None],
                y=[score],
                showlegend=False,
                hovertemplate="%{fullData.name}<br>%{x:,} tokens<br>%{y:.0%}<extra></extra>",
                **common,
            ),
            row=1,
            col=2,
        )
    fig.update_xaxes(title_text="cost (USD, all rows)", row=1, col=1)
    fig.update_xaxes(title_text="tokens (all rows)", row=1, col=2)
    fig.update_yaxes(
        title_text="mean pass rate", range=[-0.05, 1.1], tickformat=".0%", row=1, col=1
    )
    fig.update_layout(
        height=360,
        margin={"t": 50, "l": 60, "r": 20, "b": 50},
        template="plotly_white",
        legend={"orientation": "h", "y": -0.25},
    )
    return fig
