"""The unit of work of a batch and the contract every executor keeps.

`execute_cell` (one `run_checkpoint` call) runs in the *main thread* of a worker process:
bubblewrap's `--die-with-parent` is tied to the thread that started it, and the engine's clean-up
on cancellation (KeyboardInterrupt) is delivered to the main thread. A cell that crashes comes
back as a `CellOutcome` with `crash` set, so it becomes an infrastructure failure of that cell only.
"""

from __future__ import annotations

import os
import socket
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from runners.batch.cells import Cell
from runners.model.config import ProblemConfig
from runners.model.environment import EnvironmentSpec
from runners.model.errors import UserInputError
from runners.model.problem_loader import load_problem
from runners.model.results import ExecutionResult
from runners.model.results import failure_result as failure_result_of

POLL_SECONDS = 0.25
DEFAULT_GRACE = 20.0
MiB = 1024 * 1024


@dataclass(frozen=True)
class CellJob:
    cell: Cell
    output_dir: Path
    environment: dict[str, Any]  # EnvironmentSpec JSON, only fields set explicitly (portable)
    resources: dict[str, float] = field(default_factory=dict)  # Ray: num_cpus, memory


BAD_INPUT = "bad input"  # how a cell refused as bad input (UserInputError) is marked


@dataclass
class CellOutcome:
    cell_id: str
    result: str | None = None  # ExecutionResult JSON
    crash: str | None = None  # why the harness could not produce a result
    traceback: str | None = None
    worker: str = ""
    seconds: float = 0.0


def environment_payload(environment: EnvironmentSpec) -> dict[str, Any]:
    """What a worker needs to rebuild the spec. Only explicitly set fields travel, so defaults that
    depend on the machine (the cache dir under $HOME) are taken on the machine that runs."""
    return environment.model_dump(mode="json", exclude_unset=True)


def ray_resources(problem: ProblemConfig) -> dict[str, float]:
    """A cell's Ray resources from the problem's `limits`: cpus -> num_cpus (default 1),
    memory_mb -> memory (bytes; nothing reserved when unset)."""
    limits = problem.limits
    resources: dict[str, float] = {
        "num_cpus": float(limits.cpus) if limits and limits.cpus else 1.0
    }
    if limits and limits.memory_mb:
        resources["memory"] = float(limits.memory_mb * MiB)
    return resources


def execute_cell(job: CellJob) -> CellOutcome:
    """Run one cell here and now. Exceptions become a crash outcome; KeyboardInterrupt (a
    cancellation) propagates after the engine cleaned up."""
    started = time.monotonic()
    worker = f"{socket.gethostname()}:{os.getpid()}"
    try:
        from runners.api import run_checkpoint

        environment = EnvironmentSpec.model_validate(job.environment)
        result = run_checkpoint(
            job.cell.problem_dir,
            job.cell.checkpoint,
            job.cell.submission_dir,
            environment,
            output_dir=job.output_dir,
        )
        return CellOutcome(
            job.cell.id,
            result=result.model_dump_json(),
            worker=worker,
            seconds=time.monotonic() - started,
        )
    except Exception as exc:  # noqa: BLE001 - any crash is this cell's outcome, never the batch's
        kind = BAD_INPUT if isinstance(exc, UserInputError) else type(exc).__name__
        return CellOutcome(
            job.cell.id,
            crash=f"{kind}: {exc}",
            traceback=traceback.format_exc(),
            worker=worker,
            seconds=time.monotonic() - started,
        )


def failure_result(
    cell: Cell, reason: str, *, problem: ProblemConfig | None = None, sandbox: str = "none"
) -> ExecutionResult:
    """The result recorded for a cell the harness could not run."""
    try:
        problem = problem or load_problem(cell.problem_dir)
    except Exception:  # noqa: BLE001 - the config itself may be what failed: name the cell instead
        return failure_result_of(cell.problem, cell.checkpoint, "unknown", sandbox, reason)
    checkpoint = problem.checkpoints.get(cell.checkpoint)
    return failure_result_of(
        problem, checkpoint or cell.checkpoint, problem.framework, sandbox, reason
    )


class Cancel:
    """Set from a signal handler: `requested` on the first Ctrl-C, `forced` on the second."""

    def __init__(self) -> None:
        self.requested = False
        self.forced = False

    def request(self) -> None:
        if self.requested:
            self.forced = True
        self.requested = True


OnStart = Callable[[CellJob], None]
OnDone = Callable[[CellJob, CellOutcome], None]


class Executor(Protocol):
    name: str

    def start(self) -> None: ...

    def run(
        self, jobs: Sequence[CellJob], on_start: OnStart, on_done: OnDone, cancel: Cancel
    ) -> None: ...

    def close(self) -> None: ...
