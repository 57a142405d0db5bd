"""Read the rows of a report from where results are kept.

- a batch directory (`runners batch --output DIR`): `cells/**/cell.json` and the `result.json`
  beside each, plus `agent-steps/**/step.json` when agents ran first (`--agents`): their cost,
  tokens and failures;
- a Promptfoo eval exported as JSON (`npx promptfoo eval -o results.json`, or `npx promptfoo
  export eval ID -o results.json`);
- Promptfoo's own store: `promptfoo export eval ID|latest`, run from the project root so that it
  reads the project's .env (PROMPTFOO_CONFIG_DIR).

Every mistake is a `UserInputError` naming the path, the field and what was expected.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from runners.model.errors import UserInputError
from runners.model.results import ExecutionResult
from runners.outputs.report.links import row_anchor
from runners.outputs.report.model import ReportData, ReportRow, checkpoint_order

BATCH_POLICY_KEY = "pass policy"  # in batch.json (runners.batch.orchestrator._meta)
EXPORT_TIMEOUT = 300.0


def load(source: Path) -> ReportData:
    """A batch directory or a Promptfoo JSON export, told apart by what is there."""
    source = Path(source)
    if source.is_dir():
        return from_batch(source)
    if source.is_file():
        return from_promptfoo_file(source)
    raise UserInputError(
        f"argument SOURCE: {source} does not exist (expected a batch directory or a "
        "Promptfoo results JSON file)"
    )


# ---- a batch directory ---------------------------------------------------------------------------


def from_batch(root: Path) -> ReportData:
    from runners.model.policy import PassPolicy

    cells = root / "cells"
    if not cells.is_dir():
        raise UserInputError(
            f"argument SOURCE: {root} is not a batch directory (no cells/ in it; expected "
            "the --output of `runners batch`)"
        )
    info = _json_file(root / "batch.json") if (root / "batch.json").is_file() else {}
    policy_name = info.get(BATCH_POLICY_KEY) if isinstance(info, dict) else None
    try:
        policy = PassPolicy(policy_name or PassPolicy.ALL_CASES.value)
    except ValueError:
        raise UserInputError(
            f"{root / 'batch.json'}: field `{BATCH_POLICY_KEY}`: {policy_name!r} is not a pass "
            f"policy ({', '.join(p.value for p in PassPolicy)})"
        ) from None
    rows = []
    for record_file in sorted(cells.rglob("cell.json")):
        record = _json_file(record_file)
        names = {key: record.get(key) for key in ("agent", "problem", "checkpoint")}
        if not all(isinstance(value, str) and value for value in names.values()):
            raise UserInputError(
                f"{record_file}: fields agent, problem and checkpoint must be names, got {names}"
            )
        agent, problem, checkpoint = names["agent"], names["problem"], names["checkpoint"]
        repeat = record.get("repeat") if isinstance(record.get("repeat"), int) else 0
        step = _step(root, agent, problem, checkpoint, repeat)  # type: ignore[arg-type]
        base = {
            "agent": agent,
            "problem": problem,
            "checkpoint": checkpoint,
            "repeat": repeat,
            "anchor": row_anchor(agent, problem, checkpoint),
            "link": str(record_file.parent / "result.json"),
        }
        try:
            result = ExecutionResult.load(record_file.parent)
        except (OSError, ValueError) as exc:
            rows.append(ReportRow(**base, status="error", reason=f"result.json unreadable: {exc}"))
            continue
        failure = step.failure if step is not None else None
        rows.append(
            _row(
                result,
                base,
                passed=policy.check(result) and failure is None,
                agent_failure=failure,
                cost=step.report.cost_usd if step else None,
                tokens=_step_tokens(step),
                seconds=step.duration if step else None,
            )
        )
    if not rows:
        raise UserInputError(
            f"argument SOURCE: {root} holds no finished cell (cells/**/cell.json); run "
            "`runners batch` first"
        )
    title = f"Batch {root.resolve().name}"
    return ReportData(
        title=title,
        source=str(root.resolve()),
        policy=policy.value,
        rows=_sorted(rows),
        agent_order=sorted({row.agent for row in rows}),
    )


def _step(root: Path, agent: str, problem: str, checkpoint: str, repeat: int) -> Any:
    from runners.agents.layout import RunLayout, StepRecord

    layout = RunLayout(root)
    step_dir = layout.step_dir(agent, problem, checkpoint)
    if repeat and (step_dir / f"repeat-{repeat}").is_dir():
        step_dir = step_dir / f"repeat-{repeat}"
    return StepRecord.load(step_dir) if (step_dir / "step.json").is_file() else None


def _step_tokens(step: Any) -> int | None:
    usage = step.report.token_usage() if step is not None else None
    return int(usage["total"]) if usage else None


# ---- a Promptfoo eval ----------------------------------------------------------------------------


def from_promptfoo_file(path: Path) -> ReportData:
    data = _json_file(path)
    return from_promptfoo(data, str(path.resolve()), where=str(path))


def from_promptfoo(data: Any, source: str, where: str) -> ReportData:
    results = data.get("results") if isinstance(data, dict) else None
    entries = results.get("results") if isinstance(results, dict) else None
    if not isinstance(entries, list):
        raise UserInputError(
            f"{where}: field `results.results`: expected the list of a Promptfoo eval's rows "
            "(the JSON of `npx promptfoo eval -o FILE.json` or `promptfoo export eval ID`)"
        )
    ordered = sorted(
        (e for e in entries if isinstance(e, dict)),
        key=lambda e: (_int(e.get("testIdx")), _int(e.get("promptIdx"))),
    )
    seen: dict[tuple[str, str, str], int] = {}
    rows = []
    for index, entry in enumerate(ordered):
        row = _promptfoo_row(entry, f"{where}: results.results[{index}]")
        if row is None:
            continue
        key = (row.agent, row.problem, row.checkpoint)
        if "repeat" not in row.model_fields_set:
            row.repeat = seen.get(key, 0)
        seen[key] = seen.get(key, 0) + 1
        rows.append(row)
    if not rows:
        raise UserInputError(
            f"{where}: no row names a problem and checkpoint (were the tests generated by "
            "providers/tests_from_problems.py?)"
        )
    config = _dict(data.get("config"))
    eval_id = data.get("evalId") if isinstance(data.get("evalId"), str) else None
    title = config.get("description") if isinstance(config.get("description"), str) else None
    policies = {row_policy for entry in ordered if (row_policy := _metadata(entry).get("policy"))}
    return ReportData(
        title=title or f"Promptfoo eval {eval_id or ''}".strip(),
        source=source,
        policy=", ".join(sorted(map(str, policies))) or None,
        rows=_sorted(rows),
        eval_id=eval_id,
        agent_order=list(dict.fromkeys(row.agent for row in rows)),
    )


def _metadata(entry: dict[str, Any]) -> dict[str, Any]:
    response = _dict(entry.get("response"))
    for candidate in (response.get("metadata"), entry.get("metadata")):
        if isinstance(candidate, dict) and "total_counts" in candidate:
            return candidate
    return {}


def _promptfoo_row(entry: dict[str, Any], where: str) -> ReportRow | None:
    metadata = _metadata(entry)
    test = _dict(entry.get("testCase"))
    test_meta = _dict(test.get("metadata"))
    variables = _dict(entry.get("vars"))
    problem = metadata.get("problem") or variables.get("problem") or test_meta.get("problem")
    checkpoint = (
        metadata.get("checkpoint") or variables.get("checkpoint") or test_meta.get("checkpoint")
    )
    if not isinstance(problem, str) or not isinstance(checkpoint, str):
        return None
    provider = _dict(entry.get("provider"))
    label = provider.get("label") or provider.get("id") or metadata.get("agent") or "agent"
    key_agent = metadata["agent"] if isinstance(metadata.get("agent"), str) else str(label)
    base: dict[str, Any] = {
        "agent": str(label),
        "problem": problem,
        "checkpoint": checkpoint,
        "anchor": row_anchor(key_agent, problem, checkpoint),
    }
    if isinstance(metadata.get("repeat"), int):
        base["repeat"] = metadata["repeat"]
    usage = _dict(entry.get("tokenUsage"))
    tokens = (
        usage.get("total") if isinstance(usage.get("total"), int) and usage.get("total") else None
    )
    cost = entry.get("cost") if isinstance(entry.get("cost"), int | float) else None
    cost = cost if cost or tokens else None  # promptfoo writes 0 when the provider said nothing
    latency = entry.get("latencyMs")
    seconds = latency / 1000 if isinstance(latency, int | float) else None
    if not metadata:
        response = _dict(entry.get("response"))
        reason = response.get("error") or entry.get("error") or "no result"
        return ReportRow(
            **base,
            status="error",
            reason=str(reason)[:2000],
            cost_usd=cost,
            tokens=tokens,
            seconds=seconds,
        )
    known = set(ExecutionResult.model_fields)
    try:
        result = ExecutionResult.model_validate({k: v for k, v in metadata.items() if k in known})
    except ValidationError as exc:
        raise UserInputError(
            f"{where}: response.metadata is not a runners result: {exc.errors()[0]['msg']}"
        ) from None
    step = _dict(metadata.get("agent_step"))
    passed = (
        metadata["passed"]
        if isinstance(metadata.get("passed"), bool)
        else bool(entry.get("success"))
    )
    if result.artifacts_dir:
        base["link"] = str(Path(result.artifacts_dir) / "result.json")
    return _row(
        result,
        base,
        passed=passed,
        agent_failure=step.get("failure"),
        cost=cost,
        tokens=tokens,
        seconds=seconds,
    )


# ---- Promptfoo's own store ----------------------------------------------------------------------


def from_promptfoo_store(eval_id: str, project: Path) -> ReportData:
    """`promptfoo export eval EVAL_ID` (or `latest`) from `project`, read back."""
    promptfoo = project / "node_modules" / ".bin" / "promptfoo"
    if not promptfoo.exists():
        raise UserInputError(
            f"option --eval: promptfoo is not installed in {project}/node_modules "
            "(run `bash scripts/setup-node.sh`)"
        )
    with tempfile.TemporaryDirectory(prefix="runners-report-") as tmp:
        target = Path(tmp) / "eval.json"
        # As npx runs it: the project's node_modules/.bin first (its Node 22, which promptfoo
        # needs).
        env = {
            **os.environ,
            "PATH": f"{promptfoo.parent}{os.pathsep}{os.environ.get('PATH', '')}",
            "PROMPTFOO_DISABLE_TELEMETRY": "1",
            "PROMPTFOO_DISABLE_UPDATE": "1",
        }
        try:
            proc = subprocess.run(
                [str(promptfoo), "export", "eval", eval_id, "--output", str(target)],
                cwd=project,
                env=env,
                capture_output=True,
                text=True,
                timeout=EXPORT_TIMEOUT,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise UserInputError(
                f"option --eval: `promptfoo export eval {eval_id}` did not finish within "
                f"{EXPORT_TIMEOUT:g} s"
            ) from None
        if proc.returncode != 0 or not target.is_file():
            said = (proc.stderr.strip() or proc.stdout.strip()).splitlines()[-3:]
            raise UserInputError(
                f"option --eval: promptfoo has no eval {eval_id!r} in its store "
                f"(`promptfoo export eval` exited {proc.returncode}: {' '.join(said)}); "
                "`npx promptfoo list evals` lists them"
            )
        return from_promptfoo(
            _json_file(target), f"promptfoo eval {eval_id}", where=f"eval {eval_id}"
        )


# ---- shared --------------------------------------------------------------------------------------


def _row(
    result: ExecutionResult,
    base: dict[str, Any],
    *,
    passed: bool,
    agent_failure: str | None,
    cost: float | None,
    tokens: int | None,
    seconds: float | None,
) -> ReportRow:
    quality = result.quality
    return ReportRow(
        **base,
        status="infrastructure" if result.infrastructure_failure else "graded",
        passed=passed and not result.infrastructure_failure,
        pass_rate=None if result.infrastructure_failure else result.pass_rate,
        groups={g.value: (result.pass_counts.get(g, 0), n) for g, n in result.total_counts.items()},
        agent_failure=agent_failure,
        reason=result.infrastructure_reason,
        cost_usd=cost,
        tokens=tokens,
        seconds=seconds if seconds is not None else result.duration,
        quality=quality.metrics if quality else None,
        quality_growth=quality.growth if quality else {},
    )


def _sorted(rows: list[ReportRow]) -> list[ReportRow]:
    return sorted(rows, key=lambda r: (r.problem, checkpoint_order(r.checkpoint), r.repeat))


def _json_file(path: Path) -> Any:
    try:
        return json.loads(Path(path).read_bytes())
    except OSError as exc:
        raise UserInputError(f"{path}: cannot read it: {exc.strerror}") from None
    except ValueError as exc:
        raise UserInputError(f"{path}: not JSON: {exc}") from None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _int(value: Any) -> int:
    return value if isinstance(value, int) else 0
