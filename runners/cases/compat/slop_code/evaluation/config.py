from pathlib import Path

from runners.cases.problem import CheckpointConfig, ConfigError, ProblemConfig, StaticAsset
from runners.cases.spec import (
    DEFAULT_GROUP_TYPE,
    APIAdapterConfig,
    CLIAdapterConfig,
    GroupConfig,
    GroupType,
    RegressionSpec,
)


def get_available_problems(problems_dir: Path | str) -> dict[str, ProblemConfig]:
    """Every problem directory under `problems_dir` whose config loads (the others are skipped)."""
    found = {}
    for path in sorted(Path(problems_dir).iterdir()):
        if (path / "config.yaml").is_file():
            try:
                problem = ProblemConfig.from_yaml(path)
            except Exception:  # noqa: BLE001, S112 - SCBench skips problems whose config fails to load
                continue
            found[problem.name] = problem
    return found


__all__ = [
    "DEFAULT_GROUP_TYPE",
    "APIAdapterConfig",
    "CLIAdapterConfig",
    "CheckpointConfig",
    "ConfigError",
    "GroupConfig",
    "GroupType",
    "ProblemConfig",
    "RegressionSpec",
    "StaticAsset",
    "get_available_problems",
]
