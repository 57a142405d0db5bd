"""One batch, end to end: discover cells -> keep the current ones -> run the rest on an executor
-> record each as it finishes -> regenerate results.jsonl/.parquet -> matrix and summary.md.

Exit codes (`runners.model.exitcodes`): 0 every cell has a grade (tests may have failed), 2 bad
input (raised as UserInputError before anything runs; or an agent of `--agents` that could not be
started), 4 some cell's problem failed to load (a problem error), 3 some cell is an
infrastructure failure, 130 interrupted; the first that applies of 130, 2, 4, 3.
"""

from __future__ import annotations

import signal
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, Self

from rich.console import Console
from rich.text import Text

from runners.agents.repeats import group_repeats, repeat_rows, repeats_markdown, repeats_table
from runners.batch.cells import Cell, Discovery, content_hashes, discover
from runners.batch.jobs import (
    BAD_INPUT,
    DEFAULT_GRACE,
    Cancel,
    CellJob,
    CellOutcome,
    Executor,
    environment_payload,
    failure_result,
    ray_resources,
)
from runners.batch.local_pool import LocalExecutor
from runners.batch.progress import BatchProgress
from runners.batch.quality_summary import quality_markdown
from runners.batch.ray_executor import RayExecutor
from runners.batch.report import (
    Matrix,
    build_matrix,
    detail_table,
    entry_notes,
    matrix_markdown,
    matrix_table,
)
from runners.batch.store import BatchStore, CellRecord, CellStatus
from runners.model import exitcodes
from runners.model.environment import EnvironmentSpec
from runners.model.errors import UserInputError
from runners.model.policy import PassPolicy
from runners.model.results import ExecutionResult
from runners.outputs.render import fit, make_console
from runners.sandbox.registry import check_sandbox_name

EXIT_OK, EXIT_BAD_INPUT, EXIT_INFRA, EXIT_PROBLEM, EXIT_INTERRUPTED = (
    exitcodes.MET,
    exitcodes.BAD_INPUT,
    exitcodes.INFRA,
    exitcodes.PROBLEM,
    exitcodes.INTERRUPTED,
)
DEFAULT_OUTPUT = Path("runs") / "batch"


@dataclass
class BatchOptions:
    problems: Path
    submissions: Path
    output: Path = DEFAULT_OUTPUT
    jobs: int | None = None  # local: workers (default 1); ray: tasks in flight (default: all)
    executor: Literal["local", "ray"] = "local"
    address: str | None = None
    overwrite: bool = False
    retry_failed: bool = False
    sandbox: str = "auto"
    policy: PassPolicy = PassPolicy.ALL_CASES
    wall_timeout: float | None = None
    cache_dir: Path | None = None
    python: str | None = None
    node: str | None = None
    agents: tuple[str, ...] = ()
    only_problems: tuple[str, ...] = ()
    grace: float = DEFAULT_GRACE
    #: cell id -> why its agent step failed (`batch --agents`): not solved, whatever its tests say.
    agent_failures: dict[str, str] = field(default_factory=dict)
    #: cell id -> why its agent never started (`batch --agents`): no snapshot, no grade, exit 2.
    agent_errors: dict[str, str] = field(default_factory=dict)
    #: Say what runs on stderr (runners.util.progress); False: --no-progress.
    progress: bool = True
    quality: bool = True  # the code-quality figures (--no-quality)

    def environment(self) -> EnvironmentSpec:
        check_sandbox_name(self.sandbox)
        spec = EnvironmentSpec(sandbox=self.sandbox)  # type: ignore[arg-type]
        if self.wall_timeout:
            spec.limits = spec.limits.model_copy(update={"wall_timeout": self.wall_timeout})
        if self.cache_dir:
            spec.cache_dir = Path(self.cache_dir).resolve()
        if self.python:
            spec.python = self.python
        if self.node:
            spec.node = self.node
        if not self.quality:
            spec.quality = False
        return spec

    def settings(self) -> dict[str, Any]:
        """What, besides the content hashes, makes a stored result stale."""
        settings: dict[str, Any] = {"sandbox": self.sandbox, "wall_timeout": self.wall_timeout}
        if self.python:  # only when chosen: results stored before the option existed stay current
            settings["python"] = self.python
        if self.node:
            settings["node"] = self.node
        return settings


@dataclass
class BatchOutcome:
    cells: list[Cell]
    ran: list[str] = field(default_factory=list)  # cell ids that got a new result
    kept: list[str] = field(default_factory=list)  # finished before, still current
    cancelled: list[str] = field(default_factory=list)  # started or pending when interrupted
    results: dict[str, ExecutionResult] = field(default_factory=dict)
    records: dict[str, CellRecord] = field(default_factory=dict)
    matrix: Matrix | None = None
    agent_errors: dict[str, str] = field(
        default_factory=dict
    )  # cell id -> why its agent never started
    interrupted: bool = False
    seconds: float = 0.0
    output: Path | None = None

    @property
    def infra(self) -> list[str]:
        return [cid for cid, r in self.results.items() if r.infrastructure_failure]

    @property
    def problem_errors(self) -> list[str]:
        return [cid for cid, r in self.results.items() if r.problem_error]

    @property
    def exit_code(self) -> int:
        if self.interrupted:
            return EXIT_INTERRUPTED
        if self.agent_errors:
            return EXIT_BAD_INPUT
        if self.problem_errors:
            return EXIT_PROBLEM
        if self.infra:
            return EXIT_INFRA
        return EXIT_OK


def make_executor(options: BatchOptions) -> Executor:
    if options.executor == "local":
        if options.address:
            raise UserInputError("option --address: only with --executor ray")
        return LocalExecutor(options.jobs or 1, grace=options.grace, sandbox=options.sandbox)
    if options.executor == "ray":
        return RayExecutor(options.address, max_in_flight=options.jobs, grace=options.grace)
    raise UserInputError(f"option --executor: {options.executor!r} is not one of local, ray")


class _Signals:
    """SIGINT/SIGTERM set the cancel flags instead of raising wherever the main thread is."""

    def __init__(self, cancel: Cancel, console: Console) -> None:
        self.cancel, self.console = cancel, console
        self.saved: dict[int, Any] = {}

    def __enter__(self) -> Self:
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self.saved[sig] = signal.signal(sig, self._handle)
        return self

    def _handle(self, signum: int, frame: Any) -> None:
        first = not self.cancel.requested
        self.cancel.request()
        if first:
            self.console.print(
                Text(
                    "interrupted: cancelling the running cells (finished cells are "
                    "kept; press Ctrl-C again to kill them at once)",
                    style="bold yellow",
                )
            )
        else:
            self.console.print(Text("killing the running cells", style="bold red"))

    def __exit__(self, *exc: object) -> None:
        for sig, handler in self.saved.items():
            signal.signal(sig, handler)


def run_batch(options: BatchOptions, console: Console | None = None) -> BatchOutcome:
    console = console or make_console()
    began = time.monotonic()
    started_at = datetime.now(UTC)
    environment = options.environment()
    executor = make_executor(options)
    found = discover(
        options.problems, options.submissions, agents=options.agents, problems=options.only_problems
    )
    for note in found.notes:
        console.print(Text(f"note: {note}", style="yellow"))
    if not found.cells:
        raise UserInputError(
            "option --submissions: no <agent>/<problem>/<checkpoint>/ directories under "
            f"{Path(options.submissions).resolve()} match a problem in "
            f"{Path(options.problems).resolve()}"
        )
    store = BatchStore(options.output)
    settings = options.settings()
    with console.status(f"hashing {len(found.cells)} cells..."):
        hashes = content_hashes(found.cells)
    outcome = BatchOutcome(
        cells=found.cells, output=store.root, agent_errors=dict(options.agent_errors)
    )
    to_run: list[tuple[Cell, str]] = []
    for cell in found.cells:
        why = store.plan(
            cell,
            hashes[cell.id],
            settings,
            overwrite=options.overwrite,
            retry_failed=options.retry_failed,
        )
        if why is None:
            outcome.kept.append(cell.id)
        else:
            to_run.append((cell, why))
    _print_plan(console, found, to_run, outcome.kept)
    payload = environment_payload(environment)
    # Dispatch round-robin over agents: checkpoint by checkpoint, so every agent's row fills in.
    to_run.sort(
        key=lambda item: (item[0].problem, item[0].order, item[0].checkpoint, item[0].agent)
    )
    jobs = [
        CellJob(
            cell=cell,
            output_dir=store.cell_dir(cell),
            environment=payload,
            resources=ray_resources(found.problems[cell.problem]),
        )
        for cell, _ in to_run
    ]
    by_id = {c.id: c for c in found.cells}
    running: set[str] = set()
    cancel = Cancel()
    kept_cells = [by_id[cid] for cid in outcome.kept]

    if jobs:
        if options.executor == "local":
            _preflight_sandbox(options.sandbox)
        try:
            with console.status(f"starting the {executor.name} executor..."):
                executor.start()
            if isinstance(executor, RayExecutor):
                info = executor.cluster()
                console.print(
                    Text(
                        f"ray: {info.get('nodes')} node(s), resources "
                        f"{_short_resources(info.get('resources', {}))}",
                        style="dim",
                    )
                )
            with (
                BatchProgress(
                    console,
                    found.cells,
                    kept_cells,
                    options.policy,
                    options.agent_failures,
                    show=options.progress,
                ) as progress,
                _Signals(cancel, console),
            ):
                if isinstance(
                    executor, LocalExecutor
                ):  # Ray's tasks say only when they start and end
                    executor.on_stage = lambda job, stage: progress.staged(job.cell, stage)

                def on_start(job: CellJob) -> None:
                    running.add(job.cell.id)
                    progress.started(job.cell)

                def on_done(job: CellJob, done: CellOutcome) -> None:
                    cell = job.cell
                    running.discard(cell.id)
                    record, result = _record(
                        cell, done, hashes[cell.id], settings, options, found, executor.name
                    )
                    store.finish(cell, record, result)
                    outcome.ran.append(cell.id)
                    progress.finished(cell, result, done.seconds, record.status == "crashed")

                executor.run(jobs, on_start, on_done, cancel)
                for cid in list(running):
                    progress.cancelled(by_id[cid])
        finally:
            executor.close()
    outcome.interrupted = cancel.requested
    done_ids = set(outcome.ran) | set(outcome.kept)
    outcome.cancelled = [job.cell.id for job in jobs if job.cell.id not in done_ids]
    # Every cell of this batch that has a result, resumed ones included, makes the tables.
    finished = []
    for cell in found.cells:
        record, result = store.record(cell), store.result(cell)
        if cell.id in done_ids and record is not None and result is not None:
            finished.append((cell, record, result))
            outcome.results[cell.id], outcome.records[cell.id] = result, record
    store.write_tables(finished, options.policy, options.agent_failures)
    stats = group_repeats(
        (
            cell.agent,
            cell.problem,
            cell.checkpoint,
            cell.order,
            result,
            options.policy.check(result) and cell.id not in options.agent_failures,
        )
        for cell, _, result in finished
    )
    store.write_repeats(repeat_rows(stats))
    matrix = build_matrix(
        found.cells,
        outcome.results,
        found.problems,
        options.policy,
        found.missing,
        options.agent_failures,
    )
    outcome.matrix = matrix
    outcome.seconds = time.monotonic() - began
    console.print(fit(console, matrix_table(matrix)))  # full names, even on a narrow terminal
    console.print(fit(console, detail_table(matrix)))
    for line in entry_notes(matrix):
        console.print(Text(f"  {line}", style="yellow"))
    if stats:
        console.print(fit(console, repeats_table(stats)))
    meta = _meta(options, outcome, started_at, executor.name)
    notes = list(found.notes)
    if outcome.cancelled:
        notes.append(
            f"interrupted: {len(outcome.cancelled)} cell(s) not run: "
            f"{', '.join(outcome.cancelled[:20])}{' ...' if len(outcome.cancelled) > 20 else ''}"
        )
    for cid in outcome.infra:
        notes.append(f"{cid}: infrastructure failure: {outcome.results[cid].infrastructure_reason}")
    for cid in outcome.problem_errors:
        notes.append(
            f"{cid}: problem error (no grade): {outcome.results[cid].problem_error_reason}"
        )
    for cid, why in outcome.agent_errors.items():
        notes.append(f"{cid}: the agent never started (no grade): {why}")
    store.write_summary(
        matrix_markdown(matrix, meta=meta, notes=notes)
        + quality_markdown(matrix)
        + ("\n" + repeats_markdown(stats) if stats else "")
    )
    store.write_batch_info(
        {
            **meta,
            "cells": [c.id for c in found.cells],
            "ran": outcome.ran,
            "kept": outcome.kept,
            "cancelled": outcome.cancelled,
            "infrastructure_failures": outcome.infra,
            "problem_errors": outcome.problem_errors,
            "agents_not_started": sorted(outcome.agent_errors),
            "notes": notes,
        }
    )
    _print_footer(console, outcome)
    return outcome


def _record(
    cell: Cell,
    done: CellOutcome,
    hashes: dict[str, str],
    settings: dict[str, Any],
    options: BatchOptions,
    found: Discovery,
    executor: str,
) -> tuple[CellRecord, ExecutionResult]:
    result: ExecutionResult | None = None
    status: CellStatus
    crash = done.crash
    if crash is None and done.result is not None:
        try:
            result = ExecutionResult.model_validate_json(done.result)
        except ValueError as exc:
            crash = f"unreadable result from the worker: {exc}"
    if result is None:
        # Bad input (a submission over its limits, a checkpoint without tests) is said as such.
        why = (
            crash
            if crash and crash.startswith(BAD_INPUT)
            else f"harness crash: {crash or 'no result'}"
        )
        result = failure_result(
            cell, why, problem=found.problems.get(cell.problem), sandbox=options.sandbox
        )
        if done.traceback:
            result.errors.append(done.traceback)
        status = "crashed"
    else:
        status = (
            "infra"
            if result.infrastructure_failure
            else ("problem" if result.problem_error else "ok")
        )
    record = CellRecord(
        agent=cell.agent,
        problem=cell.problem,
        checkpoint=cell.checkpoint,
        status=status,
        problem_hash=hashes["problem"],
        submission_hash=hashes["submission"],
        settings=settings,
        reason=crash
        if status == "crashed"
        else (result.infrastructure_reason or result.problem_error_reason),
        executor=executor,
        worker=done.worker,
        seconds=round(done.seconds, 3),
    )
    return record, result


def _preflight_sandbox(name: str) -> None:
    """Fail once, before the pool starts, when the sandbox cannot work here (exit 3)."""
    from runners.sandbox.registry import resolve_sandbox

    resolve_sandbox(name)


def _short_resources(resources: dict[str, float]) -> str:
    keep = {k: v for k, v in resources.items() if k in ("CPU", "memory", "GPU")}
    if "memory" in keep:
        keep["memory"] = f"{keep['memory'] / 2**30:.1f} GiB"  # type: ignore[assignment]
    return ", ".join(f"{k} {v}" for k, v in keep.items()) or "none"


def _print_plan(
    console: Console, found: Discovery, to_run: list[tuple[Cell, str]], kept: list[str]
) -> None:
    reasons: dict[str, int] = {}
    for _, why in to_run:
        key = why.split(":")[0]
        reasons[key] = reasons.get(key, 0) + 1
    why = ", ".join(f"{n} {r}" for r, n in reasons.items())
    console.print(
        Text.assemble(
            (f"{len(found.cells)} cells", "bold"),
            f" ({len(found.agents)} agents × {len(found.problems)} problems): ",
            (f"{len(to_run)} to run", "bold cyan"),
            f" ({why})" if why else "",
            ", ",
            (f"{len(kept)} kept", "dim"),
            " (finished and current)",
        )
    )


def _meta(
    options: BatchOptions, outcome: BatchOutcome, started_at: datetime, executor: str
) -> dict[str, Any]:
    return {
        "started": started_at.strftime("%Y-%m-%d %H:%M:%S UTC"),
        "seconds": round(outcome.seconds, 1),
        "problems": str(Path(options.problems).resolve()),
        "submissions": str(Path(options.submissions).resolve()),
        "executor": executor + (f" ({options.address})" if options.address else ""),
        "jobs": options.jobs,
        "sandbox": options.sandbox,
        "pass policy": options.policy.value,
        "cells": f"{len(outcome.cells)} ({len(outcome.ran)} ran, {len(outcome.kept)} kept, "
        f"{len(outcome.cancelled)} not run, {len(outcome.infra)} infrastructure failures, "
        f"{len(outcome.problem_errors)} problem errors)",
        "status": "interrupted" if outcome.interrupted else "complete",
    }


def _print_footer(console: Console, outcome: BatchOutcome) -> None:
    state = (
        ("interrupted", "bold yellow")
        if outcome.interrupted
        else (
            ("agents not started", "bold red")
            if outcome.agent_errors
            else ("problem errors", "bold yellow")
            if outcome.problem_errors
            else ("infrastructure failures", "bold magenta")
            if outcome.infra
            else ("done", "bold green")
        )
    )
    for cid, why in outcome.agent_errors.items():
        console.print(Text(f"error: {cid}: the agent never started: {why}", style="red"))
    for cid in outcome.problem_errors:
        reason = (outcome.results[cid].problem_error_reason or "unknown").splitlines()[0]
        console.print(Text(f"problem error: {cid}: {reason}", style="yellow"))
    console.print(
        Text.assemble(
            state,
            f"  {len(outcome.ran)} ran · {len(outcome.kept)} kept · "
            f"{len(outcome.cancelled)} not run · {len(outcome.infra)} infra · "
            f"{len(outcome.problem_errors)} problem errors · {outcome.seconds:.1f} s",
        )
    )
    console.print(
        Text(
            f"results: {outcome.output}  (summary.md, results.jsonl, results.parquet, cells/)",
            style="dim",
        )
    )
