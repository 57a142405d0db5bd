"""The problem format: `config.yaml` of a problem directory, compatible with SCBench.

```
problems/<name>/
  config.yaml               ProblemConfig
  checkpoint_N.md           the spec given to the agent
  tests/conftest.py         (pytest) registers --entrypoint and --checkpoint
  tests/test_checkpoint_N.py, or tests/checkpoint_N.test.{js,ts} for vitest/jest
  overlay/                  kind: repository instead of tests/: the files laid over the
                            submission at their paths (checkpoints select them with `tests:`)
```

Unknown keys are errors (SCBench silently ignores them at the top level; a typo there would
silently change a grade). Checkpoints inherit `timeout` and `env` from the problem.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

from runners.model.errors import UserInputError
from runners.model.groups import GroupType
from runners.model.limits import ResourceLimits
from runners.toolchains.which_python import is_path, parse_requirement

CONFIG_FILE = "config.yaml"
# The Python SCBench grades on (its image and local environment): what a problem in its format
# that names no `python` prefers (`ProblemConfig.preferred_python`).
SCBENCH_PYTHON = "3.12"
OVERLAY_DIR = "overlay"
REPOSITORY_FRAMEWORKS = ("pytest", "vitest", "jest")
BUILTIN_MARKERS: dict[str, tuple[str, GroupType]] = {
    "error": ("error-handling / edge-case tests", GroupType.ERROR),
    "functionality": ("non-core / nice-to-have tests", GroupType.FUNCTIONALITY),
    "regression": ("regression tests from prior checkpoints", GroupType.REGRESSION),
}
_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class MarkerConfig(_Strict):
    """A custom marker (pytest mark, vitest tag or `@name` in a JS title) and its group."""

    description: str = ""
    group: GroupType


class StaticAssetConfig(_Strict):
    """A file or directory the tests need, resolved against the problem directory."""

    path: str
    save_path: str | None = None
    type: Literal["file", "directory"] | None = None  # accepted for SCBench fixtures; informative

    @field_validator("save_path")
    @classmethod
    def _no_escape(cls, value: str | None) -> str | None:
        if value is not None and (".." in Path(value).parts or Path(value).is_absolute()):
            raise ValueError("must be a relative path without '..'")
        return value


class CheckpointConfig(_Strict):
    """One step of a problem. `timeout` and `env` are already merged with the problem's."""

    name: str = ""
    version: int
    order: int | None = None
    state: Literal["Draft", "Core Tests", "Full Tests", "Verified"] = "Draft"
    include_prior_tests: bool = True
    timeout: float | None = Field(None, gt=0, description="Per-test timeout in seconds.")
    env: dict[str, str] = Field(default_factory=dict)
    spec_override: str | None = Field(None, exclude=True)
    tests: list[str] = Field(
        default_factory=list,
        description="kind: repository: the problem's test files of this checkpoint, "
        "as paths or globs relative to the repository root (files under overlay/).",
    )
    doctests: list[str] = Field(
        default_factory=list,
        description="kind: repository, pytest: the submission's own modules whose "
        "doctests run at this checkpoint (paths or globs); only their doctests count.",
    )

    @field_validator("tests", "doctests")
    @classmethod
    def _relative_patterns(cls, value: list[str]) -> list[str]:
        for pattern in value:
            if (
                not pattern.strip()
                or pattern.startswith("/")
                or ".." in PurePosixPath(pattern).parts
            ):
                raise ValueError(
                    f"{pattern!r}: expected a path or glob relative to the repository root, "
                    "without '..'"
                )
        return value


class RepositoryConfig(_Strict):
    """kind: repository: how the problem's tests are laid into the submission and run."""

    config: str | None = Field(
        None,
        description="The framework's configuration among the overlay files (pytest.ini, "
        "vitest.config.ts, jest.config.js, ...); default: the first of the usual names at the "
        "overlay's root. A pyproject.toml ([tool.pytest.ini_options]) or a package.json (jest) "
        "counts only when named here.",
    )
    dependencies: bool = Field(
        True,
        description="Install the repository's own (production) dependencies in the prepare step.",
    )
    install: bool | None = Field(
        None,
        description="pytest: install the repository itself "
        "(editable, so it imports by name and has its metadata); default: when it has a "
        "pyproject.toml, setup.py or setup.cfg.",
    )
    requirements: list[str] = Field(
        default_factory=list,
        description="pytest: the repository's requirement files to install (names or "
        "globs at its root, e.g. requirements*.txt); default: requirements.txt.",
    )
    extras: list[str] = Field(
        default_factory=list, description="pytest: extras of its pyproject.toml to install too."
    )
    plugins: list[str] = Field(
        default_factory=list,
        description="pytest: plugin modules to load with -p (from test_dependencies).",
    )

    @field_validator("config")
    @classmethod
    def _relative(cls, value: str | None) -> str | None:
        if value is not None and (value.startswith("/") or ".." in PurePosixPath(value).parts):
            raise ValueError("expected a path relative to overlay/, without '..'")
        return value


class ProblemConfig(_Strict):
    name: str
    version: int
    description: str
    tags: list[str] = Field(min_length=1)
    kind: Literal["suite", "repository"] = Field(
        "suite",
        description="suite: hidden tests drive the submission from outside; repository: the "
        "problem's tests are laid into the submission, a repository, and run as its own suite.",
    )
    entry_file: str = Field(
        "", description="Entry file of the submission, with or without extension."
    )
    checkpoints: dict[str, CheckpointConfig] = Field(min_length=1)
    framework: str = "pytest"
    author: str | None = None
    inspiration: str | None = None
    category: str = "NOT_SET"
    difficulty: Literal["Easy", "Medium", "Hard"] = "Easy"
    design_doc: str = "design_doc.md"
    static_assets: dict[str, StaticAssetConfig] = Field(default_factory=dict)
    markers: dict[str, MarkerConfig] = Field(default_factory=dict)
    test_dependencies: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    timeout: float | None = Field(None, gt=0, description="Per-test timeout in seconds.")
    limits: ResourceLimits | None = Field(
        None, description="Sandbox limits for this problem (defaults: the environment's)."
    )
    test_command: list[str] | None = Field(
        None, description="junit/ctrf frameworks: the command that runs the tests."
    )
    report_path: str | None = Field(
        None, description="junit/ctrf frameworks: where the command writes its report."
    )
    python: str | None = Field(
        None,
        description="The Python the submission and its tests need: a version (3.12) or a "
        "range (>=3.12); default: SCBench's 3.12 where there is one (pytest and case-based "
        "problems), else whatever the user or the harness runs.",
    )
    repository: RepositoryConfig | None = Field(
        None,
        description="kind: repository: its settings (trusted configuration, installs, plugins).",
    )

    _path: Path | None = PrivateAttr(None)
    # docker: whether `preferred_python` may pick another image (`runners-python:3.12`).
    preferred_python_picks_image: ClassVar[bool] = True

    @field_validator("checkpoints", mode="before")
    @classmethod
    def _checkpoints_mapping(cls, value: Any) -> Any:
        if isinstance(value, list):
            raise ValueError(
                "must be a mapping of checkpoint name to settings (the legacy list of names "
                "with per-checkpoint config.yaml files is not supported)"
            )
        return value

    @field_validator("python", mode="before")
    @classmethod
    def _python_quoted(cls, value: Any) -> Any:
        if isinstance(value, (int, float)) and not isinstance(value, bool):  # 3.10 in YAML is 3.1
            raise ValueError(
                'expected a quoted version, e.g. python: "3.12"'
            )  # pydantic wants ValueError
        return value

    @field_validator("python")
    @classmethod
    def _python_requirement(cls, value: str | None) -> str | None:
        if value is not None:
            if is_path(value):
                raise ValueError(
                    "expected a Python version (e.g. 3.12) or a version range (e.g. >=3.12), "
                    "not a path: the interpreter is the user's choice (--python)"
                )
            try:
                parse_requirement(value)
            except ValueError:
                raise ValueError(
                    "expected a Python version (e.g. 3.12) or a version range (e.g. >=3.12)"
                ) from None
        return value

    @field_validator("markers")
    @classmethod
    def _marker_names(cls, value: dict[str, MarkerConfig]) -> dict[str, MarkerConfig]:
        for name in value:
            if not name.isidentifier():
                raise ValueError(f"marker name {name!r} must be a valid identifier")
            if name in BUILTIN_MARKERS:
                raise ValueError(f"marker {name!r} is built in and cannot be redefined")
        return value

    @field_validator("name")
    @classmethod
    def _safe_name(cls, value: str) -> str:
        if not _NAME.match(value):
            raise ValueError("may only contain letters, digits, '_', '.' and '-'")
        return value

    @model_validator(mode="after")
    def _kind_fields(self) -> ProblemConfig:
        problems = []
        if self.kind == "suite":
            if not self.entry_file:
                problems.append("field `entry_file`: required but missing")
            if self.repository is not None:
                problems.append("field `repository`: only for kind: repository")
            problems += [
                f"field `checkpoints.{name}.{key}`: only for kind: repository"
                for name, cp in self.checkpoints.items()
                for key in ("tests", "doctests")
                if getattr(cp, key)
            ]
        else:
            if self.framework not in REPOSITORY_FRAMEWORKS:
                problems.append(
                    f"field `framework`: kind: repository runs {', '.join(REPOSITORY_FRAMEWORKS)} "
                    f"(got {self.framework!r})"
                )
            problems += [
                f"field `checkpoints.{name}.tests`: required for kind: repository (the problem's "
                "test files of this checkpoint, paths or globs under overlay/)"
                for name, cp in self.checkpoints.items()
                if not cp.tests
            ]
            if self.framework != "pytest":
                problems += [
                    f"field `checkpoints.{name}.doctests`: only for framework pytest"
                    for name, cp in self.checkpoints.items()
                    if cp.doctests
                ]
                settings = self.repository or RepositoryConfig()
                problems += [
                    f"field `repository.{key}`: only for framework pytest"
                    for key in ("install", "requirements", "extras", "plugins")
                    if getattr(settings, key) not in (None, [])
                ]
        if problems:
            raise ValueError("; ".join(problems))
        return self

    @model_validator(mode="after")
    def _inherit(self) -> ProblemConfig:
        for position, (name, checkpoint) in enumerate(self.checkpoints.items(), start=1):
            checkpoint.name = name
            if checkpoint.order is None:
                checkpoint.order = position
            if checkpoint.timeout is None:
                checkpoint.timeout = self.timeout
            checkpoint.env = {**self.env, **checkpoint.env}
        return self

    # ---- lookups --------------------------------------------------------------------------

    @property
    def preferred_python(self) -> str | None:
        """Without `python`, a hidden-suite pytest problem (SCBench's format) runs on 3.12 where
        one is found (the host's, or docker's `runners-python:3.12`; SCBench's reference solutions
        use 3.12 syntax), else on the harness's default. A preference, never an error."""
        return SCBENCH_PYTHON if self.kind == "suite" and self.framework == "pytest" else None

    @property
    def path(self) -> Path:
        if self._path is None:
            raise ValueError("this ProblemConfig was not loaded from a directory")
        return self._path

    @property
    def tests_dir(self) -> Path:
        return self.path / "tests"

    @property
    def overlay_dir(self) -> Path:
        """kind: repository: the files laid over the submission at their relative paths."""
        return self.path / OVERLAY_DIR

    @property
    def settings(self) -> RepositoryConfig:
        return self.repository or RepositoryConfig()

    def ordered_checkpoints(self) -> list[CheckpointConfig]:
        return sorted(self.checkpoints.values(), key=lambda c: (c.order or 0, c.name))

    def checkpoint_before(self, name: str) -> str | None:
        """The name of the checkpoint before `name` in order (None: the first, or unknown)."""
        names = [cp.name for cp in self.ordered_checkpoints()]
        index = names.index(name) if name in names else 0
        return names[index - 1] if index > 0 else None

    def checkpoint(self, name: str, where: str = "") -> CheckpointConfig:
        """The checkpoint `name`; a UserInputError naming `where` (who asked: `option
        --checkpoint`) when the problem has none of that name: the config is not at fault."""
        try:
            return self.checkpoints[name]
        except KeyError:
            from runners.util.suggest import did_you_mean

            known = ", ".join(c.name for c in self.ordered_checkpoints()) or "none"
            raise UserInputError(
                f"{where + ': ' if where else ''}problem {self.name!r} has no checkpoint {name!r}"
                f"{did_you_mean(name, self.checkpoints)} (its checkpoints: {known})"
            ) from None

    def checkpoints_up_to(self, checkpoint: CheckpointConfig) -> list[CheckpointConfig]:
        """The checkpoints whose tests run for `checkpoint`, oldest first."""
        if not checkpoint.include_prior_tests:
            return [checkpoint]
        ordered = self.ordered_checkpoints()
        return ordered[: ordered.index(checkpoint) + 1]

    def marker_groups(self) -> dict[str, GroupType]:
        return {name: marker.group for name, marker in self.markers.items()}

    def missing_files(self) -> list[str]:
        """What the problem's directory lacks besides its static assets (one message each)."""
        if self.kind == "repository":
            # its overlay is checked by the loader (runners.repository.overlay.check_overlay)
            return []
        if not self.tests_dir.is_dir():
            return [f"directory `tests/` is missing next to {CONFIG_FILE}"]
        return []

    def asset_paths(self) -> dict[str, Path]:
        return {name: (self.path / asset.path) for name, asset in self.static_assets.items()}
