"""One agent's checkpoints of one problem, in order, whoever asks and in whatever order.

The state is on disk (`RunLayout`): a checkpoint's step is done when its `step.json` and its
snapshot are there. `ensure_steps(..., up_to=checkpoint_N)` takes the chain's lock (an `flock`, so
it holds across Promptfoo's worker processes as well as threads), runs every step up to N that is
not done yet, each from the snapshot the previous one left, and returns their records. Nobody
waits for another caller to run a step: the caller that holds the lock runs what is missing. So
rows of later checkpoints wait for earlier ones without any deadlock, whatever the concurrency or
the order rows arrive in. A step whose harness died (no step.json) or failed (an infrastructure
failure), or whose agent never started (the chain stops there: no later step runs), runs again, and
so does one run with other agent settings (a resumed `solve` or `batch --agents` after the command
changed), each with every step after it.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from runners.agents.budget import Spent
from runners.agents.layout import RunLayout, StepRecord
from runners.agents.spec import AgentSpec
from runners.agents.step import STARTER_DIR, run_step
from runners.model.config import CheckpointConfig, ProblemConfig
from runners.model.environment import EnvironmentSpec
from runners.model.errors import InfrastructureError
from runners.sandbox.base import Sandbox
from runners.util import progress

LOCK_FILE = ".lock"
POLL_S = 0.1


class LockTimeout(InfrastructureError):
    """The chain's lock was not free before the caller's deadline."""


@contextmanager
def chain_lock(path: Path, deadline: float | None) -> Iterator[None]:
    """An exclusive `flock` on `path`, waited for until `deadline` (time.monotonic())."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        waited = False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if not waited:
                    waited = True
                    progress.stage(f"{progress.WAITING} for the same agent's earlier checkpoints")
                if deadline is not None and time.monotonic() > deadline:
                    raise LockTimeout(
                        f"another caller kept {path} (a step of the same agent and problem) "
                        "past this one's deadline"
                    ) from None
                time.sleep(POLL_S)
        yield
    finally:
        os.close(fd)  # releases the lock


def step_done(
    layout: RunLayout, spec: AgentSpec, problem: str, checkpoint: str
) -> StepRecord | None:
    """The record of a finished step whose snapshot is in place, run with the agent's current
    settings and not failed by the harness; else None (the step is to run again)."""
    record = StepRecord.load(layout.step_dir(spec.name, problem, checkpoint))
    if record is None or not layout.snapshot(spec.name, problem, checkpoint).is_dir():
        return None
    return (
        None
        if record.infrastructure or record.not_started or record.agent_key != spec.key
        else record
    )


def current_steps(
    layout: RunLayout, spec: AgentSpec, problem: str, checkpoints: list[CheckpointConfig]
) -> list[StepRecord | None]:
    """`step_done` of each checkpoint in order, None from the first step not done on: a step that
    ran before its predecessor's last run started from an older snapshot than the one kept."""
    found: list[StepRecord | None] = []
    previous: StepRecord | None = None
    for checkpoint in checkpoints:
        record = (
            None
            if found and previous is None
            else step_done(layout, spec, problem, checkpoint.name)
        )
        if record is not None and previous is not None and record.started_at <= previous.started_at:
            record = None
        found.append(record)
        previous = record
    return found


def ensure_steps(
    spec: AgentSpec,
    problem: ProblemConfig,
    up_to: CheckpointConfig,
    layout: RunLayout,
    environment: EnvironmentSpec,
    sandbox: Sandbox,
    deadline: float | None = None,
    on_step: Callable[[StepRecord], None] | None = None,
) -> list[StepRecord]:
    """The records of every step up to `up_to`, running those not done yet (in order); they stop
    at a step whose agent never started (`StepRecord.not_started`), the last one then."""
    name = problem.path.name
    ordered = problem.ordered_checkpoints()
    wanted = ordered[: ordered.index(up_to) + 1]
    # Steps done are final (the record is written last, atomically): a row that needs no new step
    # answers without the lock, which a later checkpoint's row may hold for a whole agent step.
    finished = current_steps(layout, spec, name, wanted)
    if all(finished):
        return [record for record in finished if record is not None]
    records: list[StepRecord] = []
    with chain_lock(layout.chain_dir(spec.name, name) / LOCK_FILE, deadline):
        start, started_from = _starter(problem)
        spent = Spent()  # by the earlier steps of the run: its budget
        for number, (checkpoint, record) in enumerate(
            zip(wanted, current_steps(layout, spec, name, wanted)), start=1
        ):
            if record is None:
                progress.stage(f"{progress.AGENT_STEP} ({checkpoint.name})")
                record = run_step(
                    spec,
                    problem,
                    checkpoint,
                    number,
                    start,
                    started_from,
                    layout,
                    environment,
                    sandbox,
                    spent=replace(spent),
                )
                if on_step is not None:
                    on_step(record)
            records.append(record)
            spent.tokens += record.tokens or 0
            spent.cost_usd += record.report.cost_usd or 0.0
            spent.seconds += record.duration
            if record.not_started:  # the next steps could not start either: the chain ends here
                break
            start = layout.snapshot(spec.name, name, checkpoint.name)
            started_from = checkpoint.name
    return records


def _starter(problem: ProblemConfig) -> tuple[Path | None, str]:
    starter = problem.path / STARTER_DIR
    return (starter, "starter") if starter.is_dir() else (None, "empty")
