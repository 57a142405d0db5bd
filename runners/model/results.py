"""The normalized result model every framework's report ends up in.

`ExecutionResult` is the contract downstream code relies on (CLI, JSON files, Promptfoo provider,
batch tables): keep it stable and bump `SCHEMA_VERSION` when a field changes meaning.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field, model_validator

from runners.model.groups import GROUP_ORDER, GroupType
from runners.model.policy import PassPolicy
from runners.quality.model import QualityReport

if TYPE_CHECKING:
    from runners.model.config import CheckpointConfig, ProblemConfig

# 2: tests of case-based problems carry `score`, `attributes` and `diff` (absent before: version 1
# files read back unchanged).
# 3: `problem_error` / `problem_error_reason` and the derived `status` (absent before: read back as
# a graded result or an infrastructure failure, as they were).
# 4: `quality`, the code-quality figures of the submission (absent before: older files read back
# with `quality` None).
SCHEMA_VERSION = 4

TestStatus = Literal["passed", "failed", "skipped", "error"]
# What a result is: a grade; the harness could not run the tests or trust their report; or the
# problem itself is broken (its tests, conftest or data failed to load), which is no grade either.
ResultStatus = Literal["graded", "infrastructure_failure", "problem_error"]


class CaseAttribute(BaseModel):
    """One attribute of a case's result (output, status_code, files-<path>, ...): what was
    expected and what came, its weight, and whether it was right (None: not verified, shown)."""

    model_config = ConfigDict(extra="forbid")

    name: str
    expected: Any = None
    actual: Any = None
    weight: float = 0.0
    correct: bool | None = None
    diff: str | None = None


class TestResult(BaseModel):
    """One test (or one file that failed before its tests could run) after normalization."""

    __test__ = False  # not a pytest test class
    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="Stable id: pytest nodeid, or file > describe > title for JS.")
    name: str = Field(description="Short display name.")
    checkpoint: str
    group_type: GroupType
    status: TestStatus
    raw_status: str | None = Field(None, description="The framework's own status word.")
    duration_ms: float | None = None
    file_path: str | None = None
    line: int | None = Field(None, description="1-based line of the test, where known.")
    markers: list[str] = Field(default_factory=list)
    failure_message: str | None = None
    traceback: str | None = None
    stdout: str | None = None
    stderr: str | None = None
    attempts: int = 1
    flaky: bool = False
    collection_error: bool = Field(
        False,
        description="A synthetic result, not a test: a file that failed to load or collect, "
        "or a suite whose hook failed.",
    )
    # Case-based problems (framework `cases`): one test per case.
    score: float | None = Field(
        None,
        description="The case's score: weighted share of its verified "
        "attributes that are right (0..1).",
    )
    attributes: list[CaseAttribute] | None = Field(
        None, description="Every attribute of the case's result."
    )
    diff: str | None = Field(None, description="What was wrong, readable (a failing case).")

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    @property
    def first_message_line(self) -> str:
        for line in (self.failure_message or "").splitlines():
            if line.strip():
                return line.strip()
        return ""

    @property
    def case_details(self) -> str:
        """A case of a case-based problem that did not pass: its message after the first line (why
        the adapter got nothing, the diff, an unchecked stderr), which the table and the Promptfoo
        row show. Empty for other tests: their first line is what is shown."""
        if self.attributes is None and self.diff is None:
            return ""
        lines = (self.failure_message or "").strip().splitlines()
        return "\n".join(lines[1:]).strip() if lines else ""


class ExecutionResult(BaseModel):
    """Everything one checkpoint run produced, framework-independent.

    `pass_counts`/`total_counts` are always derived from `tests`, so they cannot disagree.
    Skipped and errored tests count in totals but never as passed (SCBench semantics).
    """

    model_config = ConfigDict(extra="forbid")

    schema_version: int = SCHEMA_VERSION
    problem_name: str
    problem_version: int | None = None
    checkpoint_name: str
    checkpoint_version: int | None = None
    framework: str = "pytest"
    sandbox: str = "none"
    python: str | None = Field(
        None,
        description="Version of the Python the submission and its "
        "tests ran on (Python problems), e.g. 3.12.1.",
    )
    node: str | None = Field(
        None,
        description="Version of the Node the tests (JavaScript problems) or the "
        "submission (a case-based problem's `node` command) ran on, e.g. 22.22.0.",
    )
    entrypoint: str | None = None
    started_at: datetime = Field(default_factory=lambda: datetime.now(UTC))
    duration: float = Field(0.0, description="Wall-clock seconds of the test step.")
    tests: list[TestResult] = Field(default_factory=list)
    pass_counts: dict[GroupType, int] = Field(default_factory=dict)
    total_counts: dict[GroupType, int] = Field(default_factory=dict)
    exit_code: int | None = None
    collected: int | None = None
    infrastructure_failure: bool = False
    infrastructure_reason: str | None = None
    problem_error: bool = Field(
        False,
        description="The problem's own files (its tests, conftest, helpers or data) failed to "
        "load: no grade, the problem is to be fixed. `tests` is then empty (the raw report is kept "
        "with the artifacts).",
    )
    problem_error_reason: str | None = Field(
        None, description="What failed to load, naming the problem's file and line."
    )
    timed_out: bool = False
    errors: list[str] = Field(
        default_factory=list, description="File-level errors and harness notes, readable."
    )
    flags: list[str] = Field(
        default_factory=list,
        description="Warnings about the grade's trustworthiness (e.g. unsandboxed, "
        "grader-touching code found in the submission).",
    )
    stdout: str = Field("", description="Tail of the test process stdout.")
    stderr: str = Field("", description="Tail of the test process stderr.")
    output_truncated: bool = False
    artifacts_dir: str | None = None
    quality: QualityReport | None = Field(
        None,
        description="Code-quality figures of the submission and their growth since the previous "
        "checkpoint (docs/quality.md); never part of the grade. None: not measured (--no-quality).",
    )

    # ---- derived values -------------------------------------------------------------------

    @model_validator(mode="before")
    @classmethod
    def _drop_computed(cls, data: Any) -> Any:
        # Computed fields are written to JSON for readers; ignore them when reading back.
        if isinstance(data, dict):
            data = {k: v for k, v in data.items() if k not in _COMPUTED}
        return data

    @model_validator(mode="after")
    def _derive_counts(self) -> ExecutionResult:
        passed: dict[GroupType, int] = {}
        total: dict[GroupType, int] = {}
        for test in self.tests:
            total[test.group_type] = total.get(test.group_type, 0) + 1
            passed[test.group_type] = passed.get(test.group_type, 0) + int(test.passed)
        # Every group present with a count of 0 where there are tests of that group.
        self.total_counts = {g: total[g] for g in GROUP_ORDER if g in total}
        self.pass_counts = {g: passed.get(g, 0) for g in GROUP_ORDER if g in total}
        return self

    @computed_field  # type: ignore[prop-decorator]
    @property
    def summary(self) -> str:
        """One readable line: per group passed/total; or the infrastructure failure, whose reason
        may go on with the tool's own lines (see `runners.engine.excerpt`)."""
        if self.infrastructure_failure:
            return f"INFRASTRUCTURE FAILURE: {self.infrastructure_reason or 'unknown'}"
        if self.problem_error:
            return f"PROBLEM ERROR: {self.problem_error_reason or 'unknown'}"
        parts = [
            f"{g.value} {self.pass_counts.get(g, 0)}/{self.total_counts[g]}"
            for g in GROUP_ORDER
            if g in self.total_counts
        ]
        return ", ".join(parts) if parts else "no tests"

    @computed_field  # type: ignore[prop-decorator]
    @property
    def status(self) -> ResultStatus:
        """`graded`, or why there is no grade: `infrastructure_failure` (the harness's side) or
        `problem_error` (the problem's own files are broken)."""
        if self.infrastructure_failure:
            return "infrastructure_failure"
        return "problem_error" if self.problem_error else "graded"

    @property
    def graded(self) -> bool:
        """Whether the tests ran and their report is a grade (neither kind of error)."""
        return not (self.infrastructure_failure or self.problem_error)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def pass_rate(self) -> float:
        """Passed / total over every group, Regression included (SCBench `pass_rate`)."""
        total = sum(self.total_counts.values())
        return sum(self.pass_counts.values()) / total if total else 0.0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def core_pass_rate(self) -> float | None:
        total = self.total_counts.get(GroupType.CORE, 0)
        return self.pass_counts.get(GroupType.CORE, 0) / total if total else None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def checkpoint_pass_rate(self) -> float | None:
        """The "isolated" rate: Regression tests excluded."""
        total = sum(n for g, n in self.total_counts.items() if g is not GroupType.REGRESSION)
        passed = sum(n for g, n in self.pass_counts.items() if g is not GroupType.REGRESSION)
        return passed / total if total else None

    @property
    def failing_tests(self) -> list[TestResult]:
        return [t for t in self.tests if not t.passed]

    def passes_policy(self, policy: str) -> bool:
        return PassPolicy(policy).check(self)

    # ---- persistence ----------------------------------------------------------------------

    def save(self, path: Path) -> Path:
        """Write the JSON to `path` (a file, or a directory that gets `result.json`)."""
        path = Path(path)
        if path.is_dir():
            path = path / "result.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.model_dump_json(indent=2), encoding="utf-8")
        return path

    @classmethod
    def load(cls, path: Path) -> ExecutionResult:
        path = Path(path)
        if path.is_dir():
            path = path / "result.json"
        return cls.model_validate_json(path.read_bytes())


def failure_result(
    problem: ProblemConfig | str,
    checkpoint: CheckpointConfig | str,
    framework: str,
    sandbox: str,
    reason: str,
    **fields: Any,
) -> ExecutionResult:
    """The result of a run the harness could not complete (no sandbox, a crash, a cap reached):
    an infrastructure failure that names the problem and checkpoint, by config or by name when
    the config could not be loaded. `fields` sets anything else (timings, flags, notes)."""
    return ExecutionResult(
        problem_name=problem if isinstance(problem, str) else problem.name,
        problem_version=None if isinstance(problem, str) else problem.version,
        checkpoint_name=checkpoint if isinstance(checkpoint, str) else checkpoint.name,
        checkpoint_version=None if isinstance(checkpoint, str) else checkpoint.version,
        framework=framework,
        sandbox=sandbox,
        infrastructure_failure=True,
        infrastructure_reason=reason,
        **fields,
    )


_COMPUTED = {"summary", "status", "pass_rate", "core_pass_rate", "checkpoint_pass_rate"}

# SCBench's name for the same model.
CorrectnessResults = ExecutionResult
