"""Loading a problem's `config.yaml` into its model: a test-suite or repository problem
(`runners.model.config`) or a case-based one (`runners.model.case_config`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from runners.model.config import CONFIG_FILE, ProblemConfig
from runners.model.errors import ConfigError, UserInputError
from runners.model.validation import load_yaml_mapping, validate_model
from runners.util.suggest import did_you_mean


def is_case_config(data: dict[str, Any]) -> bool:
    """`framework: cases`, or (SCBench's case-based problems, which name no framework) an
    `adapter`."""
    return data.get("framework", "cases" if "adapter" in data else None) == "cases"


def load_problem(problem_dir: Path | str) -> ProblemConfig:
    """Load and check `problem_dir/config.yaml`; raises `ConfigError` with readable reasons, and a
    `UserInputError` for a path that is not a problem directory (that is not a configuration)."""
    problem_dir = Path(problem_dir).resolve()
    if not problem_dir.is_dir():
        raise UserInputError(
            f"problem directory not found: {problem_dir}{_sibling_hint(problem_dir)}"
        )
    config_file = problem_dir / CONFIG_FILE
    if not config_file.is_file():
        raise UserInputError(
            f"{problem_dir} is not a problem directory: it has no "
            f"{CONFIG_FILE}{_child_hint(problem_dir)}"
        )
    data = load_yaml_mapping(config_file)
    model: type[ProblemConfig] = ProblemConfig
    if is_case_config(
        data
    ):  # the case models only when needed: ~20 ms of every other command's start
        from runners.model.case_config import CaseProblemConfig

        model = CaseProblemConfig
    problem = validate_model(model, data, config_file)
    problem._path = problem_dir
    _check_files(problem, config_file)
    return problem


def _problems_in(folder: Path) -> list[str]:
    try:
        return sorted(p.name for p in folder.iterdir() if (p / CONFIG_FILE).is_file())
    except OSError:
        return []


def _sibling_hint(missing: Path) -> str:
    """A misspelled problem name: the problem beside it that is spelled closest."""
    return did_you_mean(missing.name, _problems_in(missing.parent))


def _child_hint(folder: Path) -> str:
    """A problems root given for a problem: name the problems in it."""
    names = _problems_in(folder)
    if not names:
        return ""
    shown = ", ".join(names[:8]) + (", ..." if len(names) > 8 else "")
    return f" (it holds problems: {shown}; give one of them, e.g. {folder / names[0]})"


def _check_files(problem: ProblemConfig, config_file: Path) -> None:
    problems = problem.missing_files()
    if problem.kind == "repository":
        from runners.repository.overlay import (
            check_overlay,  # imported for repository problems only
        )

        problems += check_overlay(problem)
    for name, path in problem.asset_paths().items():
        if not path.exists():
            problems.append(f"field `static_assets.{name}.path`: {path} does not exist")
        elif problem.path not in path.resolve().parents and path.resolve() != problem.path:
            problems.append(
                f"field `static_assets.{name}.path`: must stay inside the problem directory"
            )
    if problems:
        raise ConfigError(config_file, problems)
