"""runners: run hidden checkpoint test suites against coding-agent submissions, in a sandbox.

    from runners import run_checkpoint
    result = run_checkpoint("problems/inventory_cli", "checkpoint_1", "submissions/alpha/checkpoint_1")
    print(result.summary, result.passes_policy("all-cases"))
"""

from runners.api import make_runner, run_checkpoint
from runners.config import (
    CheckpointConfig,
    MarkerConfig,
    ProblemConfig,
    StaticAssetConfig,
    load_problem,
)
from runners.environment import EnvironmentSpec
from runners.errors import ConfigError, InfrastructureError, RunnersError, UserInputError
from runners.frameworks.pytest_runner import PytestRunner
from runners.limits import ResourceLimits
from runners.policy import PassPolicy
from runners.results import (
    SCHEMA_VERSION,
    CorrectnessResults,
    ExecutionResult,
    GroupType,
    TestResult,
)

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
