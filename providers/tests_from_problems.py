"""Promptfoo test generator: one test (= one row) per problem × checkpoint, from the problems on
disk.

    tests:
      - path: file://providers/tests_from_problems.py:generate_tests
        config:
          problems: problems            # the problems root (relative: to the current directory)
          only: [inventory_cli]         # optional: these problems only
          checkpoints: [checkpoint_1]   # optional: these checkpoint names only

Every directory of the problems root with a `config.yaml` is a problem (any framework: pytest,
vitest, jest, ...); its checkpoints come in their configured order. Each test has only metadata
(problem, checkpoint, order, framework, versions): providers/test_runner.py reads the cell from
it, and `promptfoo eval --filter-metadata problem=inventory_cli` can select on it.

No `vars` and no `description`: the viewer gives each var and the description a column of its
own (at least 160 px) to the left of the agents' 480 px columns, so three agents would no longer
fit on a 1600 px screen. The row is named by the first line of each cell's output instead
(`inventory_cli · checkpoint_2: PASS ...`).

promptfoo calls the generator without the config file's directory, so a relative `problems` is
taken from the current directory: run promptfoo from the project root (where it also reads the
project's .env), or give an absolute path.

Nothing here stops the eval: a problem whose config cannot be loaded becomes one test whose
metadata carries `config_error` (the message names the file and the field), and a mistake in the
generator's own config (a missing `problems` directory, an unknown key) one such test for the
whole eval. The providers answer those tests with an ERROR row saying it; every good problem is
graded as usual.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def generate_tests(config: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    try:
        return _generate(config)
    except (
        ValueError
    ) as exc:  # the generator's own config: one error row, not 60 lines of traceback
        return [_error_test("(problems)", "(none)", str(exc))]


def _error_test(problem: str, checkpoint: str, message: str) -> dict[str, Any]:
    """A test the providers answer with an ERROR row saying `message`."""
    return {"metadata": {"problem": problem, "checkpoint": checkpoint, "config_error": message}}


def _generate(config: dict[str, Any] | None) -> list[dict[str, Any]]:
    from runners.model.config import CONFIG_FILE
    from runners.model.errors import UserInputError
    from runners.model.problem_loader import load_problem
    from runners.util.suggest import did_you_mean

    config = dict(config or {})
    keys = ("problems", "only", "checkpoints")
    unknown = sorted(set(config) - set(keys))
    if unknown:
        raise ValueError(
            "tests_from_problems: unknown config key(s) "
            f"{', '.join(repr(k) + did_you_mean(str(k), keys) for k in unknown)} (known: "
            "problems, only, checkpoints)"
        )
    root_text = config.get("problems", "problems")
    if not isinstance(root_text, str) or not root_text:
        raise ValueError(
            f"tests_from_problems: config `problems` must be a path, got {root_text!r}"
        )
    root = Path(root_text).expanduser()
    root = (root if root.is_absolute() else Path(os.getcwd()) / root).resolve()
    if not root.is_dir():
        raise ValueError(
            f"tests_from_problems: config `problems`: {root} is not a directory "
            f"(relative paths are taken from the current directory {os.getcwd()})"
        )
    only = _names(config, "only")
    wanted_checkpoints = _names(config, "checkpoints")

    problem_dirs = sorted(p for p in root.iterdir() if (p / CONFIG_FILE).is_file())
    if only is not None:
        names = [p.name for p in problem_dirs]
        missing = sorted(set(only) - set(names))
        if missing:
            raise ValueError(
                f"tests_from_problems: config `only`: no problem "
                f"{', '.join(m + did_you_mean(m, names) for m in missing)} under {root}"
            )
        problem_dirs = [p for p in problem_dirs if p.name in only]

    tests: list[dict[str, Any]] = []
    for problem_dir in problem_dirs:
        try:
            problem = load_problem(problem_dir)
        except UserInputError as exc:  # this problem's row says why; the others are graded
            tests.append(_error_test(problem_dir.name, CONFIG_FILE, f"tests_from_problems: {exc}"))
            continue
        except Exception as exc:  # noqa: BLE001 - a loader bug: still one row, not the whole eval
            tests.append(
                _error_test(
                    problem_dir.name,
                    CONFIG_FILE,
                    f"tests_from_problems: {problem_dir / CONFIG_FILE}: cannot be loaded: "
                    f"{type(exc).__name__}: {exc}",
                )
            )
            continue
        for checkpoint in problem.ordered_checkpoints():
            if wanted_checkpoints is not None and checkpoint.name not in wanted_checkpoints:
                continue
            tests.append(
                {
                    # The directory name is what the provider looks up.
                    "metadata": {
                        "problem": problem_dir.name,
                        "checkpoint": checkpoint.name,
                        "checkpoint_order": checkpoint.order,
                        "framework": problem.framework,
                        "problem_version": problem.version,
                        "checkpoint_version": checkpoint.version,
                    },
                }
            )
    if not tests:
        raise ValueError(f"tests_from_problems: no problem checkpoints found under {root}")
    return tests


def _names(config: dict[str, Any], key: str) -> list[str] | None:
    value = config.get(key)
    if value is None:
        return None
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(
            f"tests_from_problems: config `{key}` must be a list of names, got {value!r}"
        )
    return value
