"""One Promptfoo row of the agent provider: the agent's steps up to the row's checkpoint (those not
done yet by another row), then the grade of the snapshot the step left.

    providers:
      - id: file://providers/agent_runner.py
        label: scripted-alpha  # the column
        config:
          # runners.agents.spec.AgentSpec
          agent: {name: scripted-alpha, command: "...", timeout: 300}
          problems: problems
          # the agent's and the grader's (agent.sandbox overrides)
          sandbox: auto
          pass_policy: all-cases
          # <output>/<agent>-<config hash>/{submissions,agent-steps,grades}/
          output: .runners/agent-runs
          # promptfoo's per-call limit (ms): a row may run several steps
          timeout: 3600000

The answer: `output` (verdict, what the agent said, the counts), `metadata` (the ExecutionResult
plus `agent_step`, the StepRecord), `latencyMs` (the agent's own time), `cost` and `tokenUsage`
when the agent reported them. Nothing raises to promptfoo.

Runs are stored by the agent's settings (`<output>/<agent>-<AgentSpec.key>/`), so a second
`promptfoo eval` with the same agent finds its steps done and only grades; a changed agent runs
anew in a directory of its own. Repeats: promptfoo's `--repeat` gives repetition i its own agent
runs (`<agent>@r<i+1>`); `agent.repeat: N` runs N repeats in each row, which answers with pass@k
over them (the row passes when every repeat met the policy; its score is the share that did).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import Field, StrictStr

from runners.agents.layout import RunLayout, StepRecord
from runners.agents.spec import AgentSpec, parse_agent
from runners.model.config import CheckpointConfig, ProblemConfig
from runners.model.environment import EnvironmentSpec
from runners.model.errors import InfrastructureError, UserInputError
from runners.model.problem_loader import load_problem
from runners.model.results import failure_result
from runners.promptfoo.call import PREFIX, log_traceback
from runners.promptfoo.config import (
    TIMEOUT_MARGIN_S,
    BadInput,
    GradingConfig,
    _cell_name,
    _directory,
    _env_timeout_ms,
    _mapping,
    _node,
    _path,
    refuse_config_error,
    report_page,
)
from runners.util.suggest import did_you_mean

DEFAULT_OUTPUT = ".runners/agent-runs"


class AgentProviderConfig(GradingConfig):
    """The `config` of an agent provider entry (docs/agents.md): the grading keys of the
    submissions provider, and the agent instead of its submissions."""

    agent: dict[str, Any] = Field(description="the agent: runners.agents.spec.AgentSpec")
    output: StrictStr = DEFAULT_OUTPUT


@dataclass(frozen=True)
class AgentCell:
    spec: AgentSpec
    runs: list[AgentSpec]  # the row's repeats, each named for its repeat
    problem: ProblemConfig
    checkpoint: CheckpointConfig
    layout: RunLayout
    environment: EnvironmentSpec
    policy: str
    overall: float
    progress: bool = True
    report: Path | None = None  # the eval's page (runners report)


def resolve(options: Any, context: Any) -> AgentCell:
    options, context = _mapping(options), _mapping(context)
    config = AgentProviderConfig.parse(options.get("config"))
    base = Path(config.base_path).expanduser().resolve() if config.base_path else Path.cwd()
    spec = parse_agent(config.agent, "provider config `agent`").resolved(
        base, "provider config `agent`"
    )
    problems = _directory(base, "problems", config.problems)
    vars_, metadata = (
        _mapping(context.get("vars")),
        _mapping(_mapping(context.get("test")).get("metadata")),
    )
    refuse_config_error(metadata)
    name, checkpoint = (
        _cell_name(vars_, metadata, "problem"),
        _cell_name(vars_, metadata, "checkpoint"),
    )
    if not (problems / name / "config.yaml").is_file():
        known = [p.name for p in problems.iterdir() if (p / "config.yaml").is_file()]
        raise BadInput(
            f"test `problem`: unknown problem {name!r}{did_you_mean(name, known)} "
            f"({problems / name}/config.yaml not found)"
        )
    problem = load_problem(problems / name)
    if checkpoint not in problem.checkpoints:
        raise BadInput(
            f"test `checkpoint`: problem {name!r} has no checkpoint "
            f"{checkpoint!r}{did_you_mean(checkpoint, problem.checkpoints)} (known: "
            f"{', '.join(problem.checkpoints)})"
        )
    environment = EnvironmentSpec(sandbox=config.sandbox)
    if not config.quality:
        environment.quality = False
    if config.wall_timeout is not None:
        environment.limits = environment.limits.model_copy(
            update={"wall_timeout": config.wall_timeout}
        )
    if config.cache_dir:
        environment.cache_dir = _path(base, config.cache_dir)
    if config.python:
        environment.python = config.python
    if config.node:
        environment.node = _node(base, config.node)
    promptfoo_ms = config.timeout or _env_timeout_ms()
    cap = promptfoo_ms / 1000.0 - TIMEOUT_MARGIN_S
    overall = config.overall_timeout or cap
    if overall > cap or overall <= spec.timeout:
        raise BadInput(
            f"provider config `timeout`: promptfoo's per-call limit of {promptfoo_ms:g} ms leaves "
            f"{cap:g} s for a row, which must be over the agent's `timeout` ({spec.timeout:g} s "
            f"per checkpoint) and at least `overall_timeout`; a row may run several agent steps: "
            f"raise `timeout`"
        )
    layout = RunLayout(_path(base, config.output) / f"{spec.name}-{spec.key}")
    return AgentCell(
        spec,
        _row_repeats(spec, vars_, context),
        problem,
        problem.checkpoints[checkpoint],
        layout,
        environment,
        config.pass_policy,
        overall,
        config.progress,
        report_page(base, config, vars_, context),
    )


def _row_repeats(
    spec: AgentSpec, vars_: dict[str, Any], context: dict[str, Any]
) -> list[AgentSpec]:
    """The agent runs of this row: promptfoo's repetition i holds repeats i*N+1 .. i*N+N of the
    agent's N; the only run of an agent without repeats keeps its own name."""
    index = vars_.get("__repeatIndex", context.get("repeatIndex")) or 0
    index = index if isinstance(index, int) and index > 0 else 0
    numbers = [index * spec.repeat + k for k in range(1, spec.repeat + 1)]
    labelled = spec.repeat > 1 or index > 0
    return [
        spec.model_copy(update={"name": f"{spec.name}@r{n}" if labelled else spec.name})
        for n in numbers
    ]


def call(options: Any, context: Any) -> dict[str, Any]:
    try:
        cell = resolve(options, context)
        from runners.agents.solve import guard

        guard(cell.spec, cell.problem, cell.layout, cell.environment, "provider config `agent`")
    except (BadInput, UserInputError) as exc:
        return {"error": f"{PREFIX}{exc}"}
    except Exception as exc:  # noqa: BLE001 - a bug here must still not become a traceback row
        log_traceback()
        return {
            "error": (
                f"{PREFIX}unexpected error while reading the config: {type(exc).__name__}: {exc}"
            )
        }
    outcome = _bounded(cell)
    if isinstance(outcome, UserInputError):
        return {"error": f"{PREFIX}{outcome}"}
    if isinstance(outcome, str):
        record = StepRecord(
            agent=cell.spec.name,
            problem=cell.problem.path.name,
            checkpoint=cell.checkpoint.name,
            number=0,
            command=cell.spec.argv,
            sandbox=cell.spec.sandbox or cell.environment.sandbox,
            started_from="",
            failure=outcome,
            infrastructure=True,
        )
        from runners.agents.solve import SolvedCheckpoint

        outcome = [
            SolvedCheckpoint(
                record,
                failure_result(
                    cell.problem, cell.checkpoint, cell.problem.framework, record.sandbox, outcome
                ),
            )
        ]
    from runners.agents.rows import repeats_response, response

    if len(outcome) == 1:
        return response(
            outcome[0], cell.spec.name, cell.policy, cell.layout.root, report=cell.report
        )
    return repeats_response(
        outcome, cell.spec.name, cell.policy, cell.layout.root, report=cell.report
    )


def _bounded(cell: AgentCell) -> Any:
    """The SolvedCheckpoints (one per repeat), a UserInputError, or an infrastructure failure's
    reason (a str), by the row's overall cap: the work goes on in a daemon thread (the sandboxes'
    own clocks end it), and a later row finds its steps done."""
    from runners.agents.chain import ensure_steps
    from runners.agents.solve import SolvedCheckpoint, agent_sandbox, grade_step
    from runners.util.progress import Subject, for_promptfoo, running

    box: dict[str, Any] = {}
    deadline = time.monotonic() + cell.overall

    def work() -> None:
        subject = Subject(cell.problem.path.name, cell.checkpoint.name, cell.spec.name)
        try:
            with running(subject, for_promptfoo(cell.progress)) as ending:
                sandbox = agent_sandbox(cell.spec, cell.environment)
                solved = []
                for run in cell.runs:
                    record = ensure_steps(
                        run,
                        cell.problem,
                        cell.checkpoint,
                        cell.layout,
                        cell.environment,
                        sandbox,
                        deadline=deadline,
                    )[-1]
                    solved.append(
                        SolvedCheckpoint(
                            record,
                            grade_step(
                                cell.problem, cell.checkpoint, record, cell.layout, cell.environment
                            ),
                        )
                    )
                box["result"] = solved
                met = sum(s.verdicts()[cell.policy] for s in solved)
                ending.text = (
                    f"{'PASS' if met == len(solved) else 'FAIL'} · {solved[0].result.summary}"
                    + (f" · {met}/{len(solved)} repeats met" if len(solved) > 1 else "")
                )
        except UserInputError as exc:
            box["result"] = exc
        except InfrastructureError as exc:
            box["result"] = str(exc)
        except BaseException as exc:  # noqa: BLE001 - a harness bug is the row's infrastructure failure
            log_traceback()
            box["result"] = f"harness error {type(exc).__name__}: {exc}"

    worker = threading.Thread(
        target=work, name=f"agent-{cell.spec.name}-{cell.checkpoint.name}", daemon=True
    )
    worker.start()
    worker.join(cell.overall)
    if worker.is_alive():
        return (
            f"the row did not finish within the provider's overall cap of {cell.overall:g} s (its "
            "agent steps and the grading; config `overall_timeout`, or promptfoo `timeout` minus "
            f"{TIMEOUT_MARGIN_S:g} s)"
        )
    return box["result"]
