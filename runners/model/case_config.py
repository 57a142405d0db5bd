"""The configuration of a case-based problem (SCBench's case-based format, `framework: cases`).

Apart from `runners.model.config` so that a command on a test-suite problem never builds the case
models (`runners.cases.spec`: ~20 ms of every start); `runners.model.problem_loader` imports this
module when a config is case-based.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from pydantic import Field, model_validator

from runners.cases.spec import AdapterConfig, CheckpointCases, default_command, expand_groups
from runners.model.config import SCBENCH_PYTHON, CheckpointConfig, ProblemConfig


class CaseCheckpointConfig(CheckpointConfig, CheckpointCases):
    """A checkpoint of a case-based problem: groups of cases (see runners/cases/spec.py)."""


class CaseProblemConfig(ProblemConfig):
    """A case-based problem (`framework: cases`, implied by an `adapter` section): SCBench's
    case-based format, whose problems load unmodified."""

    framework: str = "cases"
    adapter: AdapterConfig
    loader_script: str = Field(
        "loader.py", description="The problem's own loader, when this file exists."
    )
    loader_entrypoint: str = Field("Loader", description="The loader class in `loader_script`.")
    loader: dict[str, Any] | None = Field(
        None, description="SCBench's legacy `loader` block: ignored, as there."
    )
    checkpoints: dict[str, CaseCheckpointConfig] = Field(min_length=1)  # type: ignore[assignment]

    # docker: the cases and browser images are built on the default python image, whose Python
    # the case program's toolchain must share: the preference never picks another image.
    preferred_python_picks_image: ClassVar[bool] = False

    @property
    def preferred_python(self) -> str | None:
        """Without `python`, the submission runs on 3.12 where one is found (SCBench graded on 3.12:
        its reference solutions use 3.12 syntax), else on the harness's default; never in docker,
        whose image is the default."""
        return SCBENCH_PYTHON

    @model_validator(mode="after")
    def _expand_groups(self) -> CaseProblemConfig:
        if self.framework != "cases":
            raise ValueError(
                f"an `adapter` section makes a case-based problem: framework must be `cases`, not "
                f"{self.framework!r}"
            )
        expand_groups([(name, cp.order or 0, cp) for name, cp in self.checkpoints.items()])
        return self

    def missing_files(self) -> list[str]:
        # no tests/ here: the cases are the checkpoints' folders, checked by the runner
        problems: list[str] = []
        if (
            "loader_script" in self.model_fields_set
            and not (self.path / self.loader_script).is_file()
        ):
            problems.append(
                f"field `loader_script`: {self.path / self.loader_script} does not exist"
            )
        if self.adapter.command is None:
            try:
                default_command(self.entry_file)
            except ValueError as exc:
                problems.append(f"field `entry_file`: {exc}")
        for name in re.findall(
            r"\{\{static:([^}]*)\}\}", " ".join(getattr(self.adapter, "arguments", []))
        ):
            if name not in self.static_assets:
                problems.append(
                    f"field `adapter.arguments`: no static asset named {name!r} "
                    f"(declared: {', '.join(self.static_assets) or 'none'})"
                )
        return problems
