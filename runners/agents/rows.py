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
from runners.excerpt import terminal_safe


def response(solved: SolvedCheckpoint, agent: str, policy: str, run_dir: Path) -> dict[str, Any]:
    from runners.promptfoo.output import summarize

    step, result = solved.step, solved.result
    verdicts = solved.verdicts()
    metadata = result.model_dump(mode="json")
    metadata.update(agent=agent, problem=step.problem, checkpoint=step.checkpoint, policy=policy,
                    passed=verdicts[policy], policies=verdicts, agent_step=step.model_dump(mode="json"),
                    run_dir=str(run_dir))
    lines = summarize(metadata).split("\n")
    if step.failed and result.graded:
        lines[0] = f"{step.problem} · {step.checkpoint}: FAIL (agent step failed)"
    # The verdict and the counts first, then what the agent did: the viewer folds a long cell.
    # The agent's words too are made safe: promptfoo prints the row's text in its terminal table.
    answer: dict[str, Any] = {"output": terminal_safe("\n".join([*lines[:2], *step_lines(step), *lines[2:]])),
                              "metadata": metadata, "latencyMs": round(step.duration * 1000)}
    if result.problem_error:  # no grade: an ERROR row, as in providers/test_runner.py
        answer["error"] = f"runners provider: {answer.pop('output')}"
    if step.report.cost_usd is not None:
        answer["cost"] = step.report.cost_usd
    usage = proxy_usage(step) or step.report.token_usage()
    if usage is not None:
        answer["tokenUsage"] = usage
    return answer


def proxy_usage(step: StepRecord) -> dict[str, Any] | None:
    """Promptfoo's `tokenUsage` from the proxy's count, when it carried the model traffic: the
    harness's own measure wins over the agent's account."""
    if step.egress is None or not step.egress.routed.requests:
        return None
    counted = step.egress.routed
    usage: dict[str, Any] = {"prompt": counted.prompt_tokens, "completion": counted.completion_tokens,
                             "total": counted.total_tokens, "numRequests": counted.requests}
    cache = {"cacheReadInputTokens": counted.cached_tokens, "cacheCreationInputTokens": counted.cache_write_tokens}
    if any(cache.values()):
        usage["completionDetails"] = cache
    return usage


def repeats_response(solved: list[SolvedCheckpoint], agent: str, policy: str, run_dir: Path) -> dict[str, Any]:
    """The row of an agent with repeats: the first repeat's answer (its result is the metadata's
    body), plus every repeat's verdicts and the statistics over them; the assertion passes the row
    when every repeat met its policy (`repeat_runs`), with the share that did as its score."""
    from runners.agents.repeats import repeat_stats

    first = response(solved[0], agent, policy, run_dir)
    metadata = first["metadata"]
    stats = repeat_stats(agent, solved[0].step.problem, solved[0].step.checkpoint,
                         ((s.result, s.verdicts()[policy]) for s in solved))
    metadata["repeat_runs"] = [{"agent": s.step.agent, "repeat": s.step.repeat, "policies": s.verdicts(),
                                "agent_failure": s.step.failure, "summary": s.result.summary} for s in solved]
    metadata["repeats"] = stats.model_dump(mode="json")
    ks = sorted(stats.pass_at)
    lines = [f"repeats: {stats.passed}/{stats.n} met policy {policy} · "
             + " · ".join(f"pass@{k} {stats.pass_at[k]:.2f}" for k in ks),
             "mean ± spread: " + ", ".join(f"{g} {spread.text()}" for g, spread in stats.groups.items()),
             *[f"  {s.step.agent}: {'passed' if s.verdicts()[policy] else 'FAIL'} · {s.result.summary}"
               + (f" · agent step failed: {s.step.failure}" if s.step.failed else "") for s in solved]]
    first["output"] = "\n".join([*first["output"].split("\n")[:1], *lines])
    costs = [s.step.report.cost_usd for s in solved]
    if all(c is not None for c in costs):
        first["cost"] = sum(c for c in costs if c is not None)
    usages = [proxy_usage(s.step) or s.step.report.token_usage() for s in solved]
    if all(u is not None for u in usages):
        first["tokenUsage"] = {key: sum(int(u.get(key, 0)) for u in usages if u is not None)
                               for key in ("prompt", "completion", "total")}
    first["latencyMs"] = round(sum(s.step.duration for s in solved) * 1000)
    return first


def step_lines(step: StepRecord) -> list[str]:
    """What the agent did, in two or three lines."""
    if step.infrastructure:
        return []  # the result's own reason says it
    status = "timed out" if step.timed_out else (f"exit {step.exit_code}" if step.exit_code is not None else "not started")
    parts = [f"agent: {status}", f"{step.duration:.1f} s"]
    proxied = bool(step.egress and step.egress.routed.requests)
    if step.report.refused_tokens() and not proxied:
        parts.append("tokens refused")  # what it said, and why: a note below
    elif step.tokens is not None:
        parts.append(f"{step.tokens:,} tokens" + (" (counted by the proxy)" if proxied else ""))
    if "cost_usd" in step.report.refused:
        parts.append("cost refused")
    elif step.report.cost_usd is not None:
        parts.append(f"${step.report.cost_usd:.4f}")
    lines = [" · ".join(parts)]
    if step.excerpt:
        lines.append(f"said: \"{step.excerpt}\"")
    if step.failed:
        lines.append(f"agent step failed: {step.failure}")
    if step.token_check is not None and step.token_check.matches is False:
        lines.append(f"token check: MISMATCH: {step.token_check.detail}")
    if step.egress is not None and step.egress.refused:
        lines.append("network: refused " + ", ".join(f"{t} ×{n}" for t, n in step.egress.refused.items()))
    lines += [f"note: {note}" for note in step.notes if not note.startswith("tokens: ")]
    return lines
