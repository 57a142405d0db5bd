"""The code-quality figures of one submission, and how they grew since the previous checkpoint.

They describe the code an agent left, never its grade: no pass policy, score or solve rate reads
them (docs/quality.md). This module imports only pydantic: `runners.model.results` holds a
`QualityReport`, and the Promptfoo assertion reads the same fields from plain JSON.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

#: A function whose cyclomatic complexity is above this is counted in `complex_functions`
#: (lizard's own warning threshold, and radon's boundary between ratings B and C).
COMPLEX_ABOVE = 10

#: The figures whose growth is reported, in the order they are shown.
GROWING = (
    "loc",
    "functions",
    "complexity_total",
    "complexity_mean",
    "complexity_max",
    "complex_functions",
    "duplicate_blocks",
    "duplicated_lines",
    "lint_findings",
)


class CodeMetrics(BaseModel):
    """Figures of one submission's source files (docs/quality.md says where each comes from)."""

    model_config = ConfigDict(extra="forbid")

    files: int = Field(0, description="source files measured")
    languages: dict[str, int] = Field(default_factory=dict, description="source files per language")
    loc: int = Field(0, description="lines of code without blank and comment lines (lizard's NLOC)")
    functions: int = Field(0, description="functions and methods (lizard)")
    complexity_total: int = Field(0, description="sum of every function's cyclomatic complexity")
    complexity_mean: float = Field(0.0, description="mean cyclomatic complexity per function")
    complexity_max: int = Field(0, description="the highest cyclomatic complexity of a function")
    complex_functions: int = Field(
        0, description=f"functions of cyclomatic complexity over {COMPLEX_ABOVE}"
    )
    hotspots: list[str] = Field(
        default_factory=list, description="the most complex functions: `file:line name (CC n)`"
    )
    duplicate_blocks: int | None = Field(
        None, description="duplicated blocks (jscpd clones); None: not measured"
    )
    duplicated_lines: int | None = Field(None, description="lines inside duplicated blocks (jscpd)")
    lint_findings: int | None = Field(
        None,
        description="findings of ruff (Python) and ESLint (JavaScript, "
        "TypeScript); None: no linter for these languages",
    )
    lint_rules: dict[str, int] = Field(
        default_factory=dict, description="the most frequent lint rules"
    )


class QualityReport(BaseModel):
    """What `ExecutionResult.quality` holds: this submission's figures, the previous checkpoint's,
    and the growth (this minus previous) of every figure both have."""

    model_config = ConfigDict(extra="forbid")

    metrics: CodeMetrics | None = Field(
        None, description="None: the submission could not be measured (notes)"
    )
    previous_checkpoint: str | None = None
    previous: CodeMetrics | None = None
    growth: dict[str, float] = Field(
        default_factory=dict,
        description="figure -> this checkpoint's value minus the previous one's",
    )
    tools: dict[str, str] = Field(
        default_factory=dict, description="tool -> version, for the tools that ran"
    )
    notes: list[str] = Field(default_factory=list, description="what was not measured, and why")
    seconds: float = Field(0.0, description="wall time of the measurement (0: from the cache)")

    @classmethod
    def of(
        cls,
        metrics: CodeMetrics | None,
        previous: CodeMetrics | None = None,
        previous_checkpoint: str | None = None,
        **fields: object,
    ) -> QualityReport:
        return cls(
            metrics=metrics,
            previous=previous,
            previous_checkpoint=previous_checkpoint,
            growth=growth(metrics, previous),
            **fields,
        )  # type: ignore[arg-type]


def growth(current: CodeMetrics | None, previous: CodeMetrics | None) -> dict[str, float]:
    if current is None or previous is None:
        return {}
    changes: dict[str, float] = {}
    for name in GROWING:
        now, before = getattr(current, name), getattr(previous, name)
        if now is not None and before is not None:
            changes[name] = round(now - before, 2)
    return changes
