"""One self-contained HTML page from `ReportData`: plotly's JavaScript inlined once, every figure's
data in the page, no request to any server when it is viewed (it opens from a file, offline).

The page (docs/report.md): the agent x problem matrix coloured by the mean pass rate; the
per-checkpoint curves per group; score against cost and tokens (when the rows have them); the
code-quality figures (when measured); one line per row, whose id the Promptfoo rows link to.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jinja2
import plotly.io as pio
from plotly.colors import sample_colorscale
from plotly.offline import get_plotlyjs

from runners.outputs.report import figures
from runners.outputs.report.model import GROUPS, ReportData, ReportRow, summarise
from runners.quality.text import COLUMNS as QUALITY_COLUMNS
from runners.quality.text import delta

TEMPLATE = "page.html.j2"
# Light red (0 % of tests passed) through yellow to light green (100 %): dark text stays readable.
COLOURSCALE = [[0.0, "#f87171"], [0.5, "#fde047"], [1.0, "#4ade80"]]
PLOT_CONFIG = {"displaylogo": False, "responsive": True}


def _colour(rate: float | None) -> str:
    return (
        "#e5e7eb" if rate is None else sample_colorscale(COLOURSCALE, [min(max(rate, 0.0), 1.0)])[0]
    )


def _pct(rate: float | None) -> str:
    return "-" if rate is None else f"{rate:.0%}"


def matrix(data: ReportData) -> list[dict[str, Any]]:
    """Rows of the matrix: an agent, then one cell per problem and one for all problems."""
    k = data.repeats
    lines = []
    for agent in data.agents:
        cells = []
        for problem in [*data.problems, None]:
            rows = data.select(agent, problem)
            if not rows:
                cells.append({"problem": problem or "all", "empty": True})
                continue
            cell = summarise(rows, k)
            detail = [f"passed {cell.passed}/{cell.checkpoints}"]
            if cell.pass_at_k is not None:
                detail.append(f"pass@{k} {cell.pass_at_k:.0%}")
            if cell.spread is not None:
                detail.append(f"spread {cell.spread:.0%}")
            infra = sum(row.status == "infrastructure" for row in rows)
            if infra:
                detail.append(f"{infra} infra")
            if cell.errors:
                detail.append(f"{cell.errors} error{'s' if cell.errors > 1 else ''}")
            cells.append(
                {
                    "problem": problem or "all",
                    "rate": _pct(cell.mean_rate),
                    "detail": detail,
                    "colour": _colour(cell.mean_rate),
                    "total": problem is None,
                    "empty": False,
                }
            )
        lines.append({"agent": agent, "cells": cells})
    return lines


def _status(row: ReportRow) -> tuple[str, str]:
    if row.status == "error":
        return "ERROR", "error"
    if row.status == "infrastructure":
        return "INFRA", "infra"
    return ("PASS", "pass") if row.passed else ("FAIL", "fail")


def table(data: ReportData) -> list[dict[str, Any]]:
    lines = []
    for row in sorted(
        data.rows, key=lambda r: (data.agents.index(r.agent), r.problem, r.order, r.repeat)
    ):
        word, style = _status(row)
        metrics = row.quality
        quality = []
        for _, name in QUALITY_COLUMNS:
            value = getattr(metrics, name) if metrics else None
            quality.append(
                "-" if value is None else f"{value:,}{delta(row.quality_growth.get(name))}"
            )
        lines.append(
            {
                "id": row.anchor if row.repeat == 0 else f"{row.anchor}--repeat-{row.repeat}",
                "agent": row.agent,
                "problem": row.problem,
                "checkpoint": row.checkpoint,
                "repeat": row.repeat,
                "status": word,
                "style": style,
                "rate": _pct(row.pass_rate),
                "colour": _colour(row.pass_rate),
                "groups": [
                    f"{p}/{t}" if t else "-" for p, t in (row.groups.get(g, (0, 0)) for g in GROUPS)
                ],
                "cost": f"${row.cost_usd:.4f}" if row.cost_usd is not None else "-",
                "tokens": f"{row.tokens:,}" if row.tokens is not None else "-",
                "seconds": f"{row.seconds:.1f} s" if row.seconds is not None else "-",
                "quality": quality,
                "hotspots": "; ".join(metrics.hotspots) if metrics else "",
                "why": _clip(
                    row.agent_failure
                    and f"agent step failed: {row.agent_failure}"
                    or row.reason
                    or ""
                ),
                "link": Path(row.link).as_uri() if row.link and os.path.isabs(row.link) else None,
            }
        )
    return lines


def _clip(text: str, limit: int = 600) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _plot(figure: Any, div_id: str) -> str:
    return pio.to_html(
        figure, full_html=False, include_plotlyjs=False, div_id=div_id, config=PLOT_CONFIG
    )


def render(data: ReportData) -> str:
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).parent),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
    plots = {"curves": _plot(figures.group_curves(data), "curves")}
    if data.has_usage:
        plots["usage"] = _plot(figures.score_against_usage(data), "usage")
    if data.has_quality:
        plots["quality"] = _plot(figures.quality_curves(data), "quality")
    return environment.get_template(TEMPLATE).render(
        data=data,
        plotly_js=get_plotlyjs(),
        plots=plots,
        matrix=matrix(data),
        table=table(data),
        groups=GROUPS,
        quality_headers=[header for header, _ in QUALITY_COLUMNS],
        repeats=data.repeats,
        generated=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
    )


def write(data: ReportData, output: Path) -> Path:
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    partial = output.with_name(f".{output.name}.partial")
    partial.write_text(render(data), encoding="utf-8")
    partial.replace(output)
    return output
