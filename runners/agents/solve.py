"""An agent solves a problem: each checkpoint's step, then the grade of the snapshot it left.

A step that failed (timed out, exited non-zero, reported an error) still leaves a snapshot: it is
graded all the same, so the tests show what was there, but the checkpoint counts as failed and
says why; the next checkpoint starts from that snapshot. A failure of the harness itself (no
sandbox) is an infrastructure failure of the checkpoint, as for any other run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from runners.agents.chain import ensure_steps
from runners.agents.exposure import refuse_copies
from runners.agents.layout import RunLayout, StepRecord
from runners.agents.repeats import RepeatStats, group_repeats, repeat_label
from runners.agents.spec import AgentSpec, refuse_exposure
from runners.agents.step import spec_file
from runners.api import run_checkpoint
from runners.egress.netns import require_root
from runners.egress.policy import NetworkPolicy
from runners.model.config import CheckpointConfig, ProblemConfig
from runners.model.environment import EnvironmentSpec
from runners.model.errors import UserInputError
from runners.model.policy import PassPolicy
from runners.model.results import ExecutionResult, failure_result
from runners.modelserver.script import check_script
from runners.sandbox.base import Sandbox
from runners.sandbox.registry import resolve_sandbox
from runners.util.progress import Reporter, Subject, running


@dataclass(frozen=True)
class SolvedCheckpoint:
    step: StepRecord
    result: ExecutionResult

    def passed(self, policy: PassPolicy) -> bool:
        return not self.step.failed and policy.check(self.result)

    def verdicts(self) -> dict[str, bool]:
        """Every policy's verdict, the agent's failure included (what the Promptfoo row carries)."""
        return {
            p.value: (p is PassPolicy.ANY or not self.step.failed) and p.check(self.result)
            for p in PassPolicy
        }


def agent_sandbox(spec: AgentSpec, environment: EnvironmentSpec) -> Sandbox:
    """The sandbox the agent runs in: its own choice, else the grader's (`auto` picks one). An
    agent image of the user's that is not on this machine is bad input, said before any step."""
    sandbox = resolve_sandbox(spec.sandbox or environment.sandbox, environment.sandbox_options)
    if isinstance(spec.network, NetworkPolicy) and sandbox.isolated:
        require_root(sandbox.name)  # said before any step, not at the first one
    if spec.image and (missing := sandbox.missing_image(spec.image)):
        raise UserInputError(
            f"agent {spec.name!r}: its image {spec.image} (`image`, --image) {missing}: build or "
            "pull it first (docs/agents.md shows a Dockerfile)"
        )
    return sandbox


def guard(
    spec: AgentSpec,
    problem: ProblemConfig,
    layout: RunLayout,
    environment: EnvironmentSpec,
    where: str,
) -> None:
    """Refuse, before any step runs, an agent whose mounts would show it the problems (or a copy
    of any of their hidden files), the caches or the run's results, and a problem with a
    checkpoint whose specification is missing."""
    for checkpoint in problem.ordered_checkpoints():
        spec_file(problem, checkpoint)
    if spec.dry_run:
        check_script(Path(spec.dry_run), [c.name for c in problem.ordered_checkpoints()], where)
    refuse_exposure(
        spec,
        {
            "the problem directory (hidden tests, other specifications)": problem.path.parent,
            "the harness's cache": environment.cache_dir,
            "the run's results (other agents' workspaces)": layout.root,
        },
        where,
    )
    # Paths catch the problem itself, contents a copy of it anywhere else.
    handed = {f"mounts.{name}": path for name, path in spec.mounts.items()}
    if spec.home:
        handed["home"] = spec.home
    if handed:
        refuse_copies(handed, problem, where)


class AgentNotStarted(UserInputError):
    """The agent never ran (its program could not be started, or it failed before doing anything):
    an error of its configuration, reported as bad input, never a grade."""

    def __init__(self, record: StepRecord) -> None:
        self.record = record
        notes = "".join(f"; note: {note}" for note in record.notes)
        super().__init__(
            f"agent {record.agent!r} on {record.problem} {record.checkpoint}: "
            f"{record.failure}{notes}; nothing was graded (fix the agent's `command`, its program "
            f"or its settings: {' '.join(record.command)})"
        )


def grade_step(
    problem: ProblemConfig,
    checkpoint: CheckpointConfig,
    record: StepRecord,
    layout: RunLayout,
    environment: EnvironmentSpec,
) -> ExecutionResult:
    """The grade of the snapshot the step left, with the problem's usual runner; an agent that
    never started is no grade (AgentNotStarted)."""
    if record.not_started:
        raise AgentNotStarted(record)
    if record.infrastructure:
        return failure_result(
            problem, checkpoint, problem.framework, record.sandbox, record.failure or "unknown"
        )
    snapshot = layout.snapshot(record.agent, record.problem, checkpoint.name)
    return run_checkpoint(
        problem,
        checkpoint,
        snapshot,
        environment,
        output_dir=layout.grade_dir(record.agent, record.problem, checkpoint.name),
    )


def repeats_of(spec: AgentSpec) -> list[AgentSpec]:
    """The agent once per repeat, each named for its repeat (`alpha@r2`) when there are several."""
    return [
        spec.model_copy(update={"name": repeat_label(spec.name, k, spec.repeat)})
        for k in range(1, spec.repeat + 1)
    ]


def solve(
    spec: AgentSpec,
    problem: ProblemConfig,
    layout: RunLayout,
    environment: EnvironmentSpec,
    on_step: Callable[[StepRecord], None] | None = None,
    on_graded: Callable[[SolvedCheckpoint], None] | None = None,
    reporter: Reporter | None = None,
) -> list[SolvedCheckpoint]:
    """Every checkpoint of `problem`, in order: the agent's step, then its grade (said to
    `reporter` as it goes); once per repeat."""
    guard(spec, problem, layout, environment, f"agent {spec.name!r}")
    sandbox = agent_sandbox(spec, environment)
    solved = []
    for each in repeats_of(spec):
        for checkpoint in problem.ordered_checkpoints():
            with running(
                Subject(problem.path.name, checkpoint.name, each.name), reporter
            ) as ending:
                record = ensure_steps(
                    each, problem, checkpoint, layout, environment, sandbox, on_step=on_step
                )[-1]
                done = SolvedCheckpoint(
                    record, grade_step(problem, checkpoint, record, layout, environment)
                )
                ending.text = done.result.summary
            solved.append(done)
            if on_graded is not None:
                on_graded(done)
    return solved


def solved_repeats(
    solved: list[SolvedCheckpoint], problem: ProblemConfig, policy: PassPolicy
) -> list[RepeatStats]:
    """pass@k and the spread of each checkpoint over the repeats (empty without repeats)."""
    orders = {c.name: i for i, c in enumerate(problem.ordered_checkpoints(), start=1)}
    return group_repeats(
        (
            d.step.agent,
            d.step.problem,
            d.step.checkpoint,
            orders.get(d.step.checkpoint, 0),
            d.result,
            d.passed(policy),
        )
        for d in solved
    )
