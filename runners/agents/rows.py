"""The Promptfoo answer for one agent row, and the lines that say what the agent did.

    inventory_cli · checkpoint_2: FAIL (agent step failed)
    Core 6/6, Functionality 11/11, ... (the grade of what it left)
    agent: exit 1 · 12.3 s · 10,412 tokens · $0.0310
    said: "I could not finish: the importer needs ..."
    agent step failed: the agent exited with code 1: ...
    failing (3): ...
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from runners.agents.layout import StepRecord
from runners.agents.solve import SolvedCheckpoint


def response(solved: SolvedCheckpoint, agent: str, policy: str, run_dir: Path,
             report: Path | None = None) -> dict[str, Any]:
    from runners.promptfoo.output import summarize

    step, result = solved.step, solved.result
    verdicts = solved.verdicts()
    metadata = result.model_dump(mode="json")
    metadata.update(agent=agent, problem=step.problem, checkpoint=step.checkpoint, policy=policy,
                    passed=verdicts[policy], policies=verdicts, agent_step=step.model_dump(mode="json"),
                    run_dir=str(run_dir))
    if report is not None:  # where `runners report --eval <id>` shows this row
        from runners.report.links import row_link

        metadata["report"] = row_link(report, agent, step.problem, step.checkpoint)
    lines = summarize(metadata).split("\n")
    if step.failed and not result.infrastructure_failure:
        lines[0] = f"{step.problem} · {step.checkpoint}: FAIL (agent step failed)"
    # The verdict and the counts first, then what the agent did: the viewer folds a long cell.
    answer: dict[str, Any] = {"output": "\n".join([*lines[:2], *step_lines(step), *lines[2:]]),
                              "metadata": metadata, "latencyMs": round(step.duration * 1000)}
    if step.report.cost_usd is not None:
        answer["cost"] = step.report.cost_usd
    usage = step.report.token_usage()
    if usage is not None:
        answer["tokenUsage"] = usage
    return answer


def step_lines(step: StepRecord) -> list[str]:
    """What the agent did, in two or three lines."""
    if step.infrastructure:
        return []  # the result's own reason says it
    status = "timed out" if step.timed_out else (f"exit {step.exit_code}" if step.exit_code is not None else "not started")
    parts = [f"agent: {status}", f"{step.duration:.1f} s"]
    usage = step.report.token_usage()
    if usage is not None:
        parts.append(f"{usage['total']:,} tokens")
    if step.report.cost_usd is not None:
        parts.append(f"${step.report.cost_usd:.4f}")
    lines = [" · ".join(parts)]
    if step.excerpt:
        lines.append(f"said: \"{step.excerpt}\"")
    if step.failed:
        lines.append(f"agent step failed: {step.failure}")
    lines += [f"note: {note}" for note in step.notes]
    return lines
