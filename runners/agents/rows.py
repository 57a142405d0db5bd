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
from runners.engine.excerpt import terminal_safe


def response(
    solved: SolvedCheckpoint, agent: str, policy: str, run_dir: Path, report: Path | None = None
) -> dict[str, Any]:
    from runners.promptfoo.output import headline, summarize

    step, result = solved.step, solved.result
    verdicts = solved.verdicts()
    metadata = result.model_dump(mode="json")
    metadata.update(
        agent=agent,
        problem=step.problem,
        checkpoint=step.checkpoint,
        policy=policy,
        passed=verdicts[policy],
        policies=verdicts,
        agent_step=step.model_dump(mode="json"),
        run_dir=str(run_dir),
        **transcript_links(step, run_dir),
    )
    if report is not None:  # where `runners report --eval <id>` shows this row
        from runners.outputs.report.links import row_link

        metadata["report"] = row_link(report, agent, step.problem, step.checkpoint)
    metadata["headline"] = headline(metadata)
    failed = step.failed and result.graded
    lines = summarize(metadata, verdict="FAIL (agent step failed)" if failed else None).split("\n")
    # The agent's words too are made safe: promptfoo prints the row's text in its terminal table.
    answer: dict[str, Any] = {
        "output": terminal_safe("\n".join([*lines, *step_line(step)])),
        "metadata": metadata,
        "latencyMs": round(step.duration * 1000),
    }
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
    usage: dict[str, Any] = {
        "prompt": counted.prompt_tokens,
        "completion": counted.completion_tokens,
        "total": counted.total_tokens,
        "numRequests": counted.requests,
    }
    cache = {
        "cacheReadInputTokens": counted.cached_tokens,
        "cacheCreationInputTokens": counted.cache_write_tokens,
    }
    if any(cache.values()):
        usage["completionDetails"] = cache
    return usage


def repeats_response(
    solved: list[SolvedCheckpoint],
    agent: str,
    policy: str,
    run_dir: Path,
    report: Path | None = None,
) -> dict[str, Any]:
    """The row of an agent with repeats: the first repeat's answer (its result is the metadata's
    body), plus every repeat's verdicts and the statistics over them; the assertion passes the row
    when every repeat met its policy (`repeat_runs`), with the share that did as its score."""
    from runners.agents.repeats import repeat_stats

    first = response(solved[0], agent, policy, run_dir, report=report)
    metadata = first["metadata"]
    stats = repeat_stats(
        agent,
        solved[0].step.problem,
        solved[0].step.checkpoint,
        ((s.result, s.verdicts()[policy]) for s in solved),
    )
    metadata["repeat_runs"] = [
        {
            "agent": s.step.agent,
            "repeat": s.step.repeat,
            "policies": s.verdicts(),
            "agent_failure": s.step.failure,
            "summary": s.result.summary,
        }
        for s in solved
    ]
    metadata["repeats"] = stats.model_dump(mode="json")
    ks = sorted(stats.pass_at)
    lines = [
        f"repeats: {stats.passed}/{stats.n} met policy {policy} · "
        + " · ".join(f"pass@{k} {stats.pass_at[k]:.2f}" for k in ks),
        "mean ± spread: " + ", ".join(f"{g} {spread.text()}" for g, spread in stats.groups.items()),
        *[
            f"  {s.step.agent}: {'passed' if s.verdicts()[policy] else 'FAIL'} · {s.result.summary}"
            + (f" · agent step failed: {s.step.failure}" if s.step.failed else "")
            for s in solved
        ],
    ]
    first["output"] = "\n".join([*first["output"].split("\n")[:1], *lines])
    costs = [s.step.report.cost_usd for s in solved]
    if all(c is not None for c in costs):
        first["cost"] = sum(c for c in costs if c is not None)
    usages = [proxy_usage(s.step) or s.step.report.token_usage() for s in solved]
    if all(u is not None for u in usages):
        first["tokenUsage"] = {
            key: sum(int(u.get(key, 0)) for u in usages if u is not None)
            for key in ("prompt", "completion", "total")
        }
    first["latencyMs"] = round(sum(s.step.duration for s in solved) * 1000)
    return first


def transcript_links(step: StepRecord, run_dir: Path) -> dict[str, str]:
    """The CLI's session logs as `file://` URLs (the viewer shows a metadata value that is a URL as
    a link): `transcript`, then `transcript_2`, ..."""
    from runners.agents.layout import RunLayout

    step_dir = RunLayout(run_dir).step_dir(step.agent, step.problem, step.checkpoint)
    return {
        ("transcript" if n == 1 else f"transcript_{n}"): (step_dir / path).resolve().as_uri()
        for n, path in enumerate(step.transcript, start=1)
    }


def cost_text(step: StepRecord) -> str | None:
    """`$0.0310`, or `$0.0310 (estimated)` when it came from the price table; None: unknown."""
    if step.report.cost_usd is None:
        return None
    return f"${step.report.cost_usd:.4f}" + (" (estimated)" if step.report.cost_estimated else "")


def step_line(step: StepRecord) -> list[str]:
    """What the agent did, in one line, and what a reader must know besides (a token count that
    disagrees with the proxy's, what the proxy refused, the step's notes: a `pass_env` name not set
    where promptfoo ran says why the agent had no key); none for an infrastructure failure (the
    reason says it)."""
    if step.infrastructure:
        return []
    status = (
        "timed out"
        if step.timed_out
        else (f"exit {step.exit_code}" if step.exit_code is not None else "not started")
    )
    parts = [f"agent: {status}", f"{step.duration:.1f} s"]
    proxied = bool(step.egress and step.egress.routed.requests)
    if step.report.refused_tokens() and not proxied:
        parts.append("tokens refused")  # what it said, and why: a note below
    elif step.tokens is not None:
        parts.append(f"{step.tokens:,} tokens" + (" (counted by the proxy)" if proxied else ""))
    if "cost_usd" in step.report.refused:
        parts.append("cost refused")
    elif (cost := cost_text(step)) is not None:
        parts.append(cost)
    lines = [" · ".join(parts)]
    if step.token_check is not None and step.token_check.matches is False:
        lines.append(f"token check: MISMATCH: {step.token_check.detail}")
    if step.egress is not None and step.egress.refused:
        lines.append(
            "network: refused " + ", ".join(f"{t} ×{n}" for t, n in step.egress.refused.items())
        )
    lines += [f"note: {note}" for note in step.notes if not note.startswith("tokens: ")]
    return lines
