"""The code-quality section of a batch's summary.md: per agent and problem, the figures of the
last checkpoint graded and how they grew since the first (docs/quality.md). Not part of any
solve rate."""

from __future__ import annotations

from runners.batch.report import Matrix
from runners.model.metrics import CheckpointScore
from runners.quality.model import CodeMetrics
from runners.quality.text import COLUMNS, delta


def _ordered(scores: list[CheckpointScore]) -> list[tuple[str, CodeMetrics]]:
    from runners.outputs.report.model import checkpoint_order

    measured = [
        (s.checkpoint, s.result.quality.metrics)
        for s in scores
        if s.result.quality is not None and s.result.quality.metrics is not None
    ]
    return sorted(measured, key=lambda item: checkpoint_order(item[0]))  # type: ignore[return-value]


def quality_markdown(matrix: Matrix) -> str:
    """`## Code quality` and its table, or "" when no cell has figures."""
    lines = []
    for agent in matrix.agents:
        for problem in matrix.problems:
            entry = matrix.entry(agent, problem)
            measured = _ordered(entry.scores) if entry else []
            if not measured:
                continue
            (first_name, first), (last_name, last) = measured[0], measured[-1]
            cells = []
            for _, name in COLUMNS:
                value, before = getattr(last, name), getattr(first, name)
                grown = (
                    value - before
                    if value is not None and before is not None and last_name != first_name
                    else None
                )
                cells.append("-" if value is None else f"{value:,}{delta(grown)}")
            lines.append(f"| {agent} | {problem} | {last_name} | " + " | ".join(cells) + " |")
    if not lines:
        return ""
    header = ["Agent", "Problem", "Last checkpoint", *(title for title, _ in COLUMNS)]
    return "\n".join(
        [
            "",
            "## Code quality",
            "",
            (
                "The figures of the code at the last checkpoint graded, and in brackets their "
                "growth since the first: lines of code, the highest cyclomatic complexity, "
                "duplicated blocks, lint findings (docs/quality.md). They are not part of any "
                "solve rate."
            ),
            "",
            "| " + " | ".join(header) + " |",
            "|---|---|---|" + "---:|" * len(COLUMNS),
            *lines,
            "",
        ]
    )
