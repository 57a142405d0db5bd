"""The code-quality figures as text: one line (`runners run`, the Promptfoo row) or table cells
(`runners evaluate`, `runners solve`)."""

from __future__ import annotations

from runners.quality.model import COMPLEX_ABOVE, CodeMetrics, QualityReport

#: Table columns: header, figure.
COLUMNS = (
    ("LOC", "loc"),
    ("CC max", "complexity_max"),
    ("Dup", "duplicate_blocks"),
    ("Lint", "lint_findings"),
)


def delta(value: float | None) -> str:
    if value is None:
        return ""
    text = f"{value:+.2f}".rstrip("0").rstrip(".") if value != int(value) else f"{int(value):+d}"
    return f" ({text})"


def summary_line(metrics: CodeMetrics | None, changes: dict[str, float], notes: list[str]) -> str:
    if metrics is None:
        return f"code: not measured ({notes[0] if notes else 'unknown'})"
    parts = [
        f"{metrics.loc:,} LOC{delta(changes.get('loc'))}",
        f"{metrics.functions} functions{delta(changes.get('functions'))}",
        (
            f"CC max {metrics.complexity_max}{delta(changes.get('complexity_max'))}, "
            f"{metrics.complex_functions} over "
            f"{COMPLEX_ABOVE}{delta(changes.get('complex_functions'))}"
        ),
    ]
    if metrics.duplicate_blocks is not None:
        parts.append(
            f"{metrics.duplicate_blocks} duplicated blocks{delta(changes.get('duplicate_blocks'))}"
        )
    if metrics.lint_findings is not None:
        parts.append(f"{metrics.lint_findings} lint findings{delta(changes.get('lint_findings'))}")
    return "code: " + " · ".join(parts)


def line(report: QualityReport) -> str:
    """One readable line: `code: 158 LOC (+40) · 12 functions (+3) · CC max 14 (+3) ...`."""
    return summary_line(report.metrics, report.growth, report.notes)


def cells(report: QualityReport | None) -> list[str]:
    """One cell per COLUMNS entry: `170 (+82)`, `-` when not measured."""
    metrics = report.metrics if report else None
    if report is None or metrics is None:
        return ["-"] * len(COLUMNS)
    out = []
    for _, name in COLUMNS:
        value = getattr(metrics, name)
        out.append("-" if value is None else f"{value:,}{delta(report.growth.get(name))}")
    return out
