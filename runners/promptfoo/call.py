"""One Promptfoo row: resolve the cell, run it (here or on Ray) within the provider's overall
cap, and answer with the summary, the whole result as metadata, and the run's latency.

Nothing here raises to promptfoo: bad input is `{"error": ...}`; an infrastructure failure, a
harness bug or a run that outlives the cap is a normal response whose result says so.
"""

from __future__ import annotations

import sys
import threading
import time
import traceback
from typing import Any

from runners.model.config import ProblemConfig
from runners.model.environment import EnvironmentSpec
from runners.model.errors import InfrastructureError, UserInputError
from runners.model.problem_loader import load_problem
from runners.model.results import ExecutionResult, failure_result
from runners.promptfoo.config import TIMEOUT_MARGIN_S, BadInput, Cell, resolve_cell

#: A Ray row stops waiting this much before the overall cap (connecting, cancelling, unpacking).
RAY_MARGIN_S = 5.0
PREFIX = "runners provider: "


def call(options: Any, context: Any) -> dict[str, Any]:
    """The provider's `call_api`, minus the prompt (the submission is the agent's answer)."""
    try:
        cell = resolve_cell(options, context)
        problem, environment = _problem_and_environment(cell)
    except (BadInput, UserInputError) as exc:
        return {"error": f"{PREFIX}{exc}"}
    except Exception as exc:  # noqa: BLE001 - a bug here must still not become a traceback row
        log_traceback()
        return {
            "error": (
                f"{PREFIX}unexpected error while reading the config: {type(exc).__name__}: {exc}"
            )
        }
    started = time.monotonic()
    outcome = run_bounded(cell, problem, environment)
    latency_ms = round((time.monotonic() - started) * 1000)
    if isinstance(outcome, UserInputError):
        return {"error": f"{PREFIX}{outcome}"}
    if isinstance(outcome, str):  # infrastructure failure before or instead of a result
        outcome = failure_result(
            problem, problem.checkpoints[cell.checkpoint], problem.framework, cell.sandbox, outcome
        )
    return response(cell, outcome, latency_ms)


def _problem_and_environment(cell: Cell) -> tuple[ProblemConfig, EnvironmentSpec]:
    problem = load_problem(cell.problem_dir)
    if cell.checkpoint not in problem.checkpoints:
        from runners.util.suggest import did_you_mean

        known = ", ".join(c.name for c in problem.ordered_checkpoints())
        raise BadInput(
            f"test `checkpoint`: problem {cell.problem!r} has no checkpoint "
            f"{cell.checkpoint!r}{did_you_mean(cell.checkpoint, problem.checkpoints)} (known: "
            f"{known})"
        )
    if not cell.submission.is_dir():
        raise BadInput(
            f"agent {cell.agent!r}: submission directory {cell.submission} does not "
            f"exist (expected <submissions>/{cell.problem}/{cell.checkpoint}/ under "
            f"provider config `submissions` = {cell.submissions})"
        )
    environment = EnvironmentSpec(sandbox=cell.sandbox)
    if not cell.quality:
        environment.quality = False
    if cell.wall_timeout is not None:
        environment.limits = environment.limits.model_copy(
            update={"wall_timeout": cell.wall_timeout}
        )
    if cell.cache_dir is not None:
        environment.cache_dir = cell.cache_dir
    if cell.python is not None:
        environment.python = cell.python
    if cell.node is not None:
        environment.node = cell.node
    return problem, environment


def run_bounded(
    cell: Cell, problem: ProblemConfig, environment: EnvironmentSpec
) -> ExecutionResult | UserInputError | str:
    """The result, a UserInputError, or the reason of an infrastructure failure (a str).

    The run happens in a daemon thread so the call returns by `cell.overall` whatever happens;
    the harness's own wall timeout kills the sandboxed processes of a run left behind.
    """
    from runners.api import run_checkpoint
    from runners.model.policy import PassPolicy
    from runners.util.progress import Subject, for_promptfoo, running

    box: dict[str, Any] = {}

    def target() -> None:
        try:
            with running(
                Subject(cell.problem, cell.checkpoint, cell.agent), for_promptfoo(cell.progress)
            ) as ending:
                if cell.ray_address:
                    box["result"] = result = _run_on_ray(cell, environment)
                else:
                    box["result"] = result = run_checkpoint(
                        problem,
                        cell.checkpoint,
                        cell.submission,
                        environment,
                        output_dir=cell.output_dir,
                    )
                verdict = "PASS" if PassPolicy(cell.policy).check(result) else "FAIL"
                ending.text = (
                    result.summary
                    if result.infrastructure_failure
                    else f"{verdict} · {result.summary}"
                )
        except UserInputError as exc:
            box["result"] = exc
        except InfrastructureError as exc:
            box["result"] = f"{exc}"
        except BaseException as exc:  # noqa: BLE001 - a harness bug is reported as an infrastructure failure
            box["result"] = f"harness error {type(exc).__name__}: {exc}"
            box["traceback"] = traceback.format_exc()

    worker = threading.Thread(
        target=target, name=f"runners-{cell.problem}-{cell.checkpoint}", daemon=True
    )
    worker.start()
    worker.join(cell.overall)
    if worker.is_alive():
        return (
            f"the run did not finish within the provider's overall cap of {cell.overall:g} s "
            f"(config `overall_timeout`, or promptfoo `timeout` minus {TIMEOUT_MARGIN_S:g} s)"
        )
    if "traceback" in box:
        print(box["traceback"], file=sys.stderr, flush=True)
    return box["result"]


def _run_on_ray(cell: Cell, environment: EnvironmentSpec) -> ExecutionResult:
    """The same run as a Ray task; it gives up (and cancels the task) a little before the
    provider's overall cap, so the row says what happened rather than only that time ran out."""
    from runners.batch.cells import Cell as BatchCell
    from runners.batch.executors import run_cell_remote

    remote = BatchCell.of(cell.problem_dir, cell.checkpoint, cell.submission, agent=cell.agent)
    return run_cell_remote(
        remote,
        cell.ray_address,
        environment=environment,
        output_dir=cell.output_dir,
        timeout=max(cell.overall - RAY_MARGIN_S, 1.0),
    )


def response(cell: Cell, result: ExecutionResult, latency_ms: int) -> dict[str, Any]:
    from runners.model.policy import PassPolicy
    from runners.promptfoo.output import headline, summarize

    policies = {p.value: p.check(result) for p in PassPolicy}
    metadata = result.model_dump(mode="json")
    metadata.update(
        agent=cell.agent,
        problem=cell.problem,
        checkpoint=cell.checkpoint,
        policy=cell.policy,
        passed=policies[cell.policy],
        policies=policies,
        run_ms=latency_ms,
    )
    if cell.report is not None:  # where `runners report --eval <id>` shows this row
        from runners.outputs.report.links import row_link

        metadata["report"] = row_link(cell.report, cell.agent, cell.problem, cell.checkpoint)
    metadata["headline"] = headline(metadata)  # the assertion's reason line (it imports no runners)
    return answer(summarize(metadata), metadata, latency_ms)


def answer(output: str, metadata: dict[str, Any], latency_ms: int) -> dict[str, Any]:
    """The row: a graded result, or (a problem error: the problem's own files failed to load) an
    ERROR row, which promptfoo counts among the errors, not the failures."""
    if metadata.get("problem_error"):
        return {"error": f"{PREFIX}{output}", "metadata": metadata, "latencyMs": latency_ms}
    return {"output": output, "metadata": metadata, "latencyMs": latency_ms}


def log_traceback() -> None:
    # stderr reaches promptfoo's log ("Python worker stderr: ..."), never the row.
    print(traceback.format_exc(), file=sys.stderr, flush=True)
