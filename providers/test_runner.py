"""Promptfoo provider: one row = one agent's submission for one problem checkpoint, graded by `runners`.

Used from promptfooconfig.yaml, one provider entry (= one column in the viewer) per agent:

    providers:
      - id: file://providers/test_runner.py
        label: alpha
        config: {agent: alpha, submissions: examples/submissions/alpha, problems: problems}

and tests whose `metadata` names the cell: `{problem: inventory_cli, checkpoint: checkpoint_2}`
(providers/tests_from_problems.py writes them there, not in `vars`, so that the viewer shows no
extra columns; `vars` with the same keys are read first, for hand-written tests).
The submission is `<submissions>/<problem>/<checkpoint>/`, the problem `<problems>/<problem>/`.

Provider `config` keys (relative paths are resolved against the config file's directory, which
promptfoo passes as `basePath`; when that is empty, against the current directory):

    agent            required  label of the agent (shown in the output and kept in metadata)
    submissions      required  the agent's submission root
    problems         "problems"  the problems root
    sandbox          "auto"    auto | docker | bubblewrap | none
    pass_policy      "all-cases"  any | any-case | all-cases | all-non-error-cases | core-cases |
                               all-core-cases | any-core-cases
    wall_timeout     (problem's or harness default)  seconds for one test run
    output           ".runners/promptfoo-runs"  artifacts root: <output>/<eval>/<agent>/<problem>/<checkpoint>/
    cache_dir        (harness default)  where prepared toolchains are kept
    python           (problem's `python`, else the harness's)  the submission's Python: a version
                     ("3.12"), a range (">=3.12") or an interpreter path; not promptfoo's
                     `pythonExecutable`, which runs this provider
    overall_timeout  seconds before call_api gives up and reports an infrastructure failure
                     (default: promptfoo's per-call `timeout` minus a margin, so the answer
                     always arrives before promptfoo's own timeout, which would leave the worker busy)
    ray_address      run the row as a Ray task on this cluster ("host:6379", "auto", "ray://...")
                     instead of in this process; needs the `ray` extra. Artifacts still land
                     under `output` on this machine. Without it, rows run locally.
    timeout          promptfoo's own per-call timeout in milliseconds (read, not set, here)

Return value: `output` (short readable summary), `metadata` (the whole `ExecutionResult` as JSON
plus `agent`, `problem`, `checkpoint`, `policy`, `passed`, `policies`), `latencyMs` (the run).
Bad input (config, unknown problem or checkpoint, missing submission) gives `{"error": ...}`; an
infrastructure failure is a normal response whose metadata says so, so the assertion fails it with
the reason. Nothing here raises to promptfoo.

Only the standard library is imported at module level: promptfoo waits at most 30 s for a worker
to import this file, and `runners` (pydantic, ...) is imported on the first call instead.
"""

from __future__ import annotations

import os
import re
import sys
import threading
import time
import traceback
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

DEFAULT_PROBLEMS = "problems"
DEFAULT_OUTPUT = ".runners/promptfoo-runs"
DEFAULT_POLICY = "all-cases"
#: promptfoo's default per-call timeout of Python providers (REQUEST_TIMEOUT_MS), milliseconds.
PROMPTFOO_DEFAULT_TIMEOUT_MS = 300_000
#: The provider answers this many seconds before promptfoo's own per-call timeout fires.
TIMEOUT_MARGIN_S = 15.0
#: A Ray row stops waiting this much before the overall cap (connecting, cancelling, unpacking).
RAY_MARGIN_S = 5.0

OWN_KEYS = {"agent", "submissions", "problems", "sandbox", "pass_policy", "wall_timeout", "output",
            "cache_dir", "overall_timeout", "ray_address", "python"}
#: Keys promptfoo itself puts into (or reads from) a Python provider's config.
PROMPTFOO_KEYS = {"basePath", "timeout", "workers", "pythonExecutable"}
_SAFE_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")


class BadInput(Exception):
    """Something the user must fix in the YAML or on disk; becomes `{"error": ...}`."""


# ---- promptfoo entry point ----------------------------------------------------------------------


def call_api(prompt: str, options: dict[str, Any] | None, context: dict[str, Any] | None) -> dict[str, Any]:
    """Run one checkpoint's hidden tests against one agent's submission."""
    try:
        cell = _resolve(options or {}, context or {})
    except BadInput as exc:
        return {"error": f"runners provider: {exc}"}
    except Exception as exc:  # a bug here must still not become a Python traceback row
        _log_traceback()
        return {"error": f"runners provider: unexpected error while reading the config: "
                         f"{type(exc).__name__}: {exc}"}
    return _run_cell(cell)


# ---- configuration ------------------------------------------------------------------------------


class Cell:
    """Everything one row needs, resolved and checked."""

    def __init__(self, **values: Any) -> None:
        self.__dict__.update(values)


def _resolve(options: dict[str, Any], context: dict[str, Any]) -> Cell:
    config = options.get("config") if isinstance(options, dict) else None
    if config is None:
        config = {}
    if not isinstance(config, dict):
        raise BadInput(f"provider `config` must be a mapping, got {type(config).__name__}")
    unknown = sorted(set(config) - OWN_KEYS - PROMPTFOO_KEYS)
    if unknown:
        raise BadInput(f"provider config: unknown key(s) {', '.join(map(repr, unknown))} "
                       f"(known: {', '.join(sorted(OWN_KEYS))})")
    base = _base_dir(config.get("basePath"))

    agent = _text(config, "agent", required=True)
    submissions = _directory(config, "submissions", base, required=True)
    problems = _directory(config, "problems", base, default=DEFAULT_PROBLEMS)
    sandboxes, policies = _choices()
    sandbox = _text(config, "sandbox", default="auto")
    if sandbox not in sandboxes:
        raise BadInput(f"provider config `sandbox`: {sandbox!r} is not one of {', '.join(sandboxes)}")
    policy = _text(config, "pass_policy", default=DEFAULT_POLICY)
    if policy not in policies:
        raise BadInput(f"provider config `pass_policy`: {policy!r} is not one of {', '.join(policies)}")
    wall_timeout = _seconds(config, "wall_timeout")
    overall = _seconds(config, "overall_timeout")
    promptfoo_ms = _promptfoo_timeout_ms(config)
    cap_limit = promptfoo_ms / 1000.0 - TIMEOUT_MARGIN_S
    if overall is None:
        if cap_limit <= 0:
            raise BadInput(f"provider config `timeout`: {promptfoo_ms:g} ms leaves no time for a test "
                           f"run (the provider answers {TIMEOUT_MARGIN_S:g} s before it); raise it")
        overall = cap_limit
    elif overall > cap_limit:
        raise BadInput(f"provider config `overall_timeout`: {overall:g} s must be at least "
                       f"{TIMEOUT_MARGIN_S:g} s below promptfoo's per-call `timeout` "
                       f"({promptfoo_ms:g} ms); raise `timeout` or lower `overall_timeout`")
    if wall_timeout is not None and wall_timeout >= overall:
        raise BadInput(f"provider config `wall_timeout`: {wall_timeout:g} s does not fit in the "
                       f"provider's overall cap of {overall:g} s (promptfoo `timeout` "
                       f"{promptfoo_ms:g} ms minus {TIMEOUT_MARGIN_S:g} s); raise `timeout`")
    output_root = _path(config, "output", base, default=DEFAULT_OUTPUT)
    cache_dir = _path(config, "cache_dir", base, default=None)
    ray_address = _text(config, "ray_address", default=None)
    python = _python(config)

    vars_ = context.get("vars") if isinstance(context.get("vars"), dict) else {}
    test = context.get("test") if isinstance(context.get("test"), dict) else {}
    metadata = test.get("metadata") if isinstance(test.get("metadata"), dict) else {}
    problem = _var(vars_, metadata, "problem")
    checkpoint = _var(vars_, metadata, "checkpoint")
    problem_dir = problems / problem
    if not (problem_dir / "config.yaml").is_file():
        known = sorted(p.name for p in problems.iterdir() if (p / "config.yaml").is_file())
        raise BadInput(f"test `problem`: unknown problem {problem!r}: {problem_dir}/config.yaml "
                       f"not found (problems under {problems}: {', '.join(known) or 'none'})")
    submission = submissions / problem / checkpoint
    run_tag = _run_tag(vars_, context)
    return Cell(agent=agent, submissions=submissions, problems=problems, problem=problem,
                checkpoint=checkpoint, problem_dir=problem_dir, submission=submission,
                sandbox=sandbox, policy=policy, wall_timeout=wall_timeout, overall=overall,
                cache_dir=cache_dir, ray_address=ray_address, python=python,
                output_dir=output_root / run_tag / _slug(agent) / problem / checkpoint)


def _choices() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The sandbox and pass-policy names, from `runners` (the one place they are listed)."""
    from runners.policy import PassPolicy
    from runners.sandbox.registry import sandbox_choices

    return tuple(sandbox_choices()), tuple(p.value for p in PassPolicy)


def _python(config: dict[str, Any]) -> str | None:
    value = config.get("python")
    if value is None or value == "":
        return None
    if not isinstance(value, str):  # `python: 3.10` in YAML is the number 3.1
        raise BadInput(f"provider config `python`: expected a quoted version (\"3.12\"), a range or a "
                       f"path, got {value!r}")
    from runners.pythons import is_path, parse_requirement

    if not is_path(value):
        try:
            parse_requirement(value)
        except ValueError as exc:
            raise BadInput(f"provider config `python`: {exc} (got {value!r})") from None
    return value


def _base_dir(value: Any) -> Path:
    if value in (None, ""):
        return Path.cwd()
    if not isinstance(value, str):
        raise BadInput(f"provider config `basePath` must be a path, got {value!r}")
    return Path(value).expanduser().resolve()


def _text(config: dict[str, Any], key: str, *, required: bool = False, default: str | None = None) -> str:
    value = config.get(key)
    if value is None or value == "":
        if required:
            raise BadInput(f"provider config `{key}` is required")
        return default  # type: ignore[return-value]
    if not isinstance(value, str):
        raise BadInput(f"provider config `{key}` must be a string, got {value!r}")
    return value


def _path(config: dict[str, Any], key: str, base: Path, *, default: str | None) -> Path | None:
    text = _text(config, key, default=default)
    if text is None:
        return None
    path = Path(text).expanduser()
    return (path if path.is_absolute() else base / path).resolve()


def _directory(config: dict[str, Any], key: str, base: Path, *, required: bool = False,
               default: str | None = None) -> Path:
    if required:
        _text(config, key, required=True)
    path = _path(config, key, base, default=default)
    assert path is not None
    if not path.is_dir():
        raise BadInput(f"provider config `{key}`: {path} is not a directory")
    return path


def _seconds(config: dict[str, Any], key: str) -> float | None:
    value = config.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise BadInput(f"provider config `{key}` must be a positive number of seconds, got {value!r}")
    return float(value)


def _promptfoo_timeout_ms(config: dict[str, Any]) -> float:
    value = config.get("timeout")
    if value is None:
        env = os.environ.get("REQUEST_TIMEOUT_MS", "")
        return float(env) if env.replace(".", "", 1).isdigit() and float(env) > 0 else PROMPTFOO_DEFAULT_TIMEOUT_MS
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise BadInput(f"provider config `timeout` (promptfoo's, in milliseconds) must be a positive "
                       f"number, got {value!r}")
    return float(value)


def _var(vars_: dict[str, Any], metadata: dict[str, Any], key: str) -> str:
    """The cell's `key`: from the test's vars (hand-written tests), else its metadata (generated)."""
    where, value = ("var", vars_.get(key)) if vars_.get(key) not in (None, "") else ("metadata", metadata.get(key))
    if value is None or value == "":
        raise BadInput(f"test metadata `{key}` (or var `{key}`) is required (tests come from "
                       "providers/tests_from_problems.py)")
    if not isinstance(value, str) or not _SAFE_NAME.match(value):
        raise BadInput(f"test {where} `{key}`: {value!r} is not a plain name (letters, digits, '_', '.', '-')")
    return value


def _run_tag(vars_: dict[str, Any], context: dict[str, Any]) -> str:
    """Groups the artifacts of one `promptfoo eval`; repeats get their own directory."""
    tag = vars_.get("__evalId") or context.get("evaluationId")
    if not isinstance(tag, str) or not tag:
        tag = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    repeat = vars_.get("__repeatIndex", context.get("repeatIndex")) or 0
    tag = _slug(tag)
    return f"{tag}-repeat-{repeat}" if isinstance(repeat, int) and repeat > 0 else tag


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("._") or "_"


# ---- running ------------------------------------------------------------------------------------


def _run_cell(cell: Cell) -> dict[str, Any]:
    # Imported here, not at module level: see the module docstring.
    try:
        from runners.config import load_problem
        from runners.environment import EnvironmentSpec
        from runners.errors import InfrastructureError, UserInputError
    except ImportError as exc:
        return {"error": f"runners provider: cannot import the `runners` package with {sys.executable} "
                         f"({exc}); set PROMPTFOO_PYTHON to the project's .venv/bin/python"}

    try:
        problem = load_problem(cell.problem_dir)
        if cell.checkpoint not in problem.checkpoints:
            known = ", ".join(c.name for c in problem.ordered_checkpoints())
            raise BadInput(f"test `checkpoint`: problem {cell.problem!r} has no checkpoint "
                           f"{cell.checkpoint!r} (known: {known})")
        if not cell.submission.is_dir():
            raise BadInput(f"agent {cell.agent!r}: submission directory {cell.submission} does not "
                           f"exist (expected <submissions>/{cell.problem}/{cell.checkpoint}/ under "
                           f"provider config `submissions` = {cell.submissions})")
        environment = EnvironmentSpec(sandbox=cell.sandbox)
        if cell.wall_timeout is not None:
            environment.limits = environment.limits.model_copy(update={"wall_timeout": cell.wall_timeout})
        if cell.cache_dir is not None:
            environment.cache_dir = cell.cache_dir
        if cell.python is not None:
            environment.python = cell.python
    except BadInput as exc:
        return {"error": f"runners provider: {exc}"}
    except UserInputError as exc:
        return {"error": f"runners provider: {exc}"}
    except Exception as exc:
        _log_traceback()
        return {"error": f"runners provider: {type(exc).__name__}: {exc}"}

    started = time.monotonic()
    outcome = _run_bounded(cell, problem, environment, InfrastructureError)
    latency_ms = int(round((time.monotonic() - started) * 1000))
    if isinstance(outcome, UserInputError):
        return {"error": f"runners provider: {outcome}"}
    if isinstance(outcome, str):  # infrastructure failure before or instead of a result
        result = _synthetic_failure(cell, problem, outcome)
    else:
        result = outcome
    return _response(cell, result, latency_ms)


def _run_bounded(cell: Cell, problem: Any, environment: Any, infra_error: type) -> Any:
    """The result, a UserInputError, or the reason of an infrastructure failure (a str).

    The run happens in a daemon thread so the call returns by `cell.overall` whatever happens;
    the harness's own wall timeout kills the sandboxed processes of a run left behind.
    """
    from runners.api import run_checkpoint
    from runners.errors import UserInputError

    box: dict[str, Any] = {}

    def target() -> None:
        try:
            if cell.ray_address:
                box["result"] = _run_on_ray(cell, environment)
            else:
                box["result"] = run_checkpoint(problem, cell.checkpoint, cell.submission, environment,
                                               output_dir=cell.output_dir)
        except UserInputError as exc:
            box["result"] = exc
        except infra_error as exc:
            box["result"] = f"{exc}"
        except BaseException as exc:  # a harness bug is reported as an infrastructure failure
            box["result"] = f"harness error {type(exc).__name__}: {exc}"
            box["traceback"] = traceback.format_exc()

    worker = threading.Thread(target=target, name=f"runners-{cell.problem}-{cell.checkpoint}",
                              daemon=True)
    worker.start()
    worker.join(cell.overall)
    if worker.is_alive():
        return (f"the run did not finish within the provider's overall cap of {cell.overall:g} s "
                f"(config `overall_timeout`, or promptfoo `timeout` minus {TIMEOUT_MARGIN_S:g} s)")
    if "traceback" in box:
        print(box["traceback"], file=sys.stderr, flush=True)
    return box["result"]


def _run_on_ray(cell: Cell, environment: Any) -> Any:
    """The same run as a Ray task; it gives up (and cancels the task) a little before the
    provider's overall cap, so the row says what happened rather than only that time ran out."""
    from runners.batch.cells import Cell as BatchCell
    from runners.batch.executors import run_cell_remote

    remote = BatchCell.of(cell.problem_dir, cell.checkpoint, cell.submission, agent=cell.agent)
    return run_cell_remote(remote, cell.ray_address, environment=environment,
                           output_dir=cell.output_dir, timeout=max(cell.overall - RAY_MARGIN_S, 1.0))


def _synthetic_failure(cell: Cell, problem: Any, reason: str) -> Any:
    from runners.results import failure_result

    return failure_result(problem, problem.checkpoints[cell.checkpoint], problem.framework,
                          cell.sandbox, reason)


def _response(cell: Cell, result: Any, latency_ms: int) -> dict[str, Any]:
    from runners.policy import PassPolicy

    policies = {p.value: p.check(result) for p in PassPolicy}
    passed = policies[cell.policy]
    metadata = result.model_dump(mode="json")
    metadata.update(agent=cell.agent, problem=cell.problem, checkpoint=cell.checkpoint,
                    policy=cell.policy, passed=passed, policies=policies, run_ms=latency_ms)
    return {"output": summarize(metadata), "metadata": metadata, "latencyMs": latency_ms}


# ---- readable output ----------------------------------------------------------------------------


def summarize(metadata: dict[str, Any]) -> str:
    """The row's short text (runners.promptfoo.output)."""
    from runners.promptfoo.output import summarize as _summarize

    return _summarize(metadata)


def _log_traceback() -> None:
    # stderr reaches promptfoo's log ("Python worker stderr: ..."), never the row.
    print(traceback.format_exc(), file=sys.stderr, flush=True)
