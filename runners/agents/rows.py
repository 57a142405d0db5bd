"""The Promptfoo answer for one agent row, and the line that says what the agent did.

    inventory_cli · checkpoint_2: FAIL (agent step failed) 57/65 tests   (the grade of what it left)
    Core 6/6 · Functionality 11/11 · ...
    agent: exit 1 · 12.3 s · 10,412 tokens · $0.0310
    note: not set on the host, so not passed: ANTHROPIC_API_KEY          (when there are notes)

The row's reason (red) says why the step failed; what the agent said and its whole record are in
the metadata (`agent_step`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from runners.agents.layout import StepRecord
from runners.agents.solve import SolvedCheckpoint


def response(solved: SolvedCheckpoint, agent: str, policy: str, run_dir: Path) -> dict[str, Any]:
    from runners.promptfoo.output import headline, summarize

    step, result = solved.step, solved.result
    verdicts = solved.verdicts()
    metadata = result.model_dump(mode="json")
    metadata.update(agent=agent, problem=step.problem, checkpoint=step.checkpoint, policy=policy,
                    passed=verdicts[policy], policies=verdicts, agent_step=step.model_dump(mode="json"),
                    run_dir=str(run_dir))
    metadata["headline"] = headline(metadata)
    failed = step.failed and not result.infrastructure_failure
    lines = summarize(metadata, verdict="FAIL (agent step failed)" if failed else None).split("\n")
    answer: dict[str, Any] = {"output": "\n".join([*lines, *step_line(step)]),
                              "metadata": metadata, "latencyMs": round(step.duration * 1000)}
    if step.report.cost_usd is not None:
        answer["cost"] = step.report.cost_usd
    usage = step.report.token_usage()
    if usage is not None:
        answer["tokenUsage"] = usage
    return answer


def step_line(step: StepRecord) -> list[str]:
    """What the agent did, in one line, and its notes (a `pass_env` name not set where promptfoo
    ran: why the agent had no key); none for an infrastructure failure (the reason says it)."""
    if step.infrastructure:
        return []
    status = "timed out" if step.timed_out else (f"exit {step.exit_code}" if step.exit_code is not None else "not started")
    parts = [f"agent: {status}", f"{step.duration:.1f} s"]
    usage = step.report.token_usage()
    if usage is not None:
        parts.append(f"{usage['total']:,} tokens")
    if step.report.cost_usd is not None:
        parts.append(f"${step.report.cost_usd:.4f}")
    return [" · ".join(parts), *(f"note: {note}" for note in step.notes)]
