"""runners: run hidden checkpoint test suites against coding-agent submissions, in a sandbox.

    from runners import run_checkpoint
    result = run_checkpoint(
        "problems/inventory_cli", "checkpoint_1", "submissions/alpha/checkpoint_1"
    )
    print(result.summary, result.passes_policy("all-cases"))

The names below are imported on first use (PEP 562), so `python -m runners --help` and the light
commands do not pay for pydantic and every runner up front.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "make_runner": "runners.api",
    "run_checkpoint": "runners.api",
    "CheckpointConfig": "runners.model.config",
    "MarkerConfig": "runners.model.config",
    "ProblemConfig": "runners.model.config",
    "StaticAssetConfig": "runners.model.config",
    "load_problem": "runners.model.problem_loader",
    "EnvironmentSpec": "runners.model.environment",
    "ConfigError": "runners.model.errors",
    "InfrastructureError": "runners.model.errors",
    "RunnersError": "runners.model.errors",
    "UserInputError": "runners.model.errors",
    "PytestRunner": "runners.frameworks.pytest_runner",
    "ResourceLimits": "runners.model.limits",
    "PassPolicy": "runners.model.policy",
    "SCHEMA_VERSION": "runners.model.results",
    "CorrectnessResults": "runners.model.results",
    "ExecutionResult": "runners.model.results",
    "GroupType": "runners.model.results",
    "TestResult": "runners.model.results",
}

__all__ = [
    "SCHEMA_VERSION",
    "CheckpointConfig",
    "ConfigError",
    "CorrectnessResults",
    "EnvironmentSpec",
    "ExecutionResult",
    "GroupType",
    "InfrastructureError",
    "MarkerConfig",
    "PassPolicy",
    "ProblemConfig",
    "PytestRunner",
    "ResourceLimits",
    "RunnersError",
    "StaticAssetConfig",
    "TestResult",
    "UserInputError",
    "load_problem",
    "make_runner",
    "run_checkpoint",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'runners' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value  # the next access is a plain lookup
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


if TYPE_CHECKING:
    from runners.api import make_runner, run_checkpoint
    from runners.frameworks.pytest_runner import PytestRunner
    from runners.model.config import (
        CheckpointConfig,
        MarkerConfig,
        ProblemConfig,
        StaticAssetConfig,
    )
    from runners.model.environment import EnvironmentSpec
    from runners.model.errors import ConfigError, InfrastructureError, RunnersError, UserInputError
    from runners.model.limits import ResourceLimits
    from runners.model.policy import PassPolicy
    from runners.model.problem_loader import load_problem
    from runners.model.results import (
        SCHEMA_VERSION,
        CorrectnessResults,
        ExecutionResult,
        GroupType,
        TestResult,
    )
