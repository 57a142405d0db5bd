"""How and where a run executes: sandbox choice, limits, caches, parallelism."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from runners.model.limits import DEFAULT_LIMITS, ResourceLimits

# `auto` or a backend name from `runners.sandbox.registry` (the one list of them).
SandboxChoice = str


def default_cache_dir() -> Path:
    """`$RUNNERS_CACHE_DIR`, else `$XDG_CACHE_HOME/runners`, else `~/.cache/runners`."""
    if explicit := os.environ.get("RUNNERS_CACHE_DIR"):
        return Path(explicit).expanduser().resolve()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return (Path(base) / "runners").resolve()


class EnvironmentSpec(BaseModel):
    """Execution settings that belong to the machine or the user, not to the problem."""

    model_config = ConfigDict(extra="forbid")

    sandbox: SandboxChoice = "auto"

    @field_validator("sandbox")
    @classmethod
    def _known_sandbox(cls, name: str) -> str:
        from runners.model.errors import UserInputError
        from runners.sandbox.registry import check_sandbox_name

        try:
            return check_sandbox_name(name, "sandbox")
        except UserInputError as exc:
            raise ValueError(str(exc)) from None

    limits: ResourceLimits = Field(
        default_factory=ResourceLimits,
        description="The user's limits: they win over the problem's, which win over the defaults.",
    )
    prepare_timeout: float = Field(1800.0, gt=0, description="Seconds for installing toolchains.")
    cache_dir: Path = Field(default_factory=default_cache_dir)
    workers: int = Field(1, ge=1, description="Processes one suite is spread over (pytest-xdist).")
    python: str | None = Field(
        None, description="Interpreter for Python environments (default: the harness's own)."
    )
    node: str | None = Field(
        None, description="Node binary for JavaScript problems (default: node on PATH)."
    )
    sandbox_options: dict[str, dict[str, str]] = Field(
        default_factory=dict,
        description="Settings of a backend, by its name: {docker: {python_image, node_image, "
        "engine_url}}; each backend refuses a setting it does not take (Sandbox.options).",
    )
    env: dict[str, str] = Field(default_factory=dict, description="Extra variables for the tests.")
    keep_workspace: bool = False
    quality: bool = Field(
        True,
        description="Measure the submission's code-quality figures beside the "
        "test run (docs/quality.md); off: `--no-quality`.",
    )

    @model_validator(mode="before")
    @classmethod
    def _former_image_fields(cls, data: Any) -> Any:
        """`docker_python_image` and `docker_node_image`, the fields these settings replaced, are
        still read (stored batch jobs, older callers) as the docker backend's options."""
        if isinstance(data, dict) and ({"docker_python_image", "docker_node_image"} & set(data)):
            data = dict(data)
            options = {
                name: dict(values) for name, values in (data.get("sandbox_options") or {}).items()
            }
            docker = options.setdefault("docker", {})
            for former, option in (
                ("docker_python_image", "python_image"),
                ("docker_node_image", "node_image"),
            ):
                if former in data:
                    docker.setdefault(option, data.pop(former))
            data["sandbox_options"] = options
        return data

    def limits_for(self, problem_limits: ResourceLimits | None) -> ResourceLimits:
        """Defaults, then what the problem asks for, then what the user set explicitly."""
        limits = DEFAULT_LIMITS
        if problem_limits is not None:
            limits = problem_limits.merged_over(limits)
        return self.limits.merged_over(limits)
