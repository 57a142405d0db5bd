"""The Ray executor (each cell one Ray task) and `run_cell_remote` (one cell, outside a batch).

Ray is imported lazily: `runners` works without the `ray` extra until Ray is asked for.
Cancellation: `ray.cancel` (KeyboardInterrupt in the task, the engine cleans up), forced after
the grace period.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import threading
import time
import uuid
from collections import deque
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from runners.batch.cells import (
    Cell,
    pack_problem,
    pack_submission,
    pack_tree,
    problem_hash,
    unpack_tree,
)
from runners.batch.jobs import (
    BAD_INPUT,
    DEFAULT_GRACE,
    POLL_SECONDS,
    Cancel,
    CellJob,
    CellOutcome,
    OnDone,
    OnStart,
    environment_payload,
    execute_cell,
    failure_result,
    ray_resources,
)
from runners.batch.store import rmtree_forcibly
from runners.engine.submission import SubmissionTooLarge, inventory
from runners.engine.workspace import SUBMISSION_IGNORE
from runners.model.environment import EnvironmentSpec
from runners.model.errors import InfrastructureError, UserInputError
from runners.model.problem_loader import load_problem
from runners.model.results import ExecutionResult
from runners.quality.measure import previous_submission
from runners.util import janitor
from runners.util.janitor import RAY_OWNER_ENV
from runners.util.processes import process_tree


def _import_ray() -> Any:
    # Ray's own "uv run" hook would start the workers with `uv run ... python` in a copy of the
    # driver's working directory, which has no environment of ours (under `uv run --no-sync` the
    # workers die with "No module named 'ray'"): the workers use the cluster's interpreter instead.
    os.environ.setdefault("RAY_ENABLE_UV_RUN_RUNTIME_ENV", "0")
    try:
        import ray
    except ImportError:
        raise UserInputError(
            "Ray is not installed (needed by --executor ray and run_cell_remote); install the "
            "extra: `uv sync --extra ray` (or `pip install 'runners[ray]'`)"
        ) from None
    return ray


_connect_lock = threading.RLock()  # re-entered: connect_ray tracks the processes it started
# Packed problems already in the object store of the current Ray session, by (path, content hash):
# each is shipped once however many cells use it.
_problem_refs: dict[tuple[Path, str], Any] = {}
RAY_TMP_MAX = 30  # longer temporary directories leave too little room for Ray's socket paths
_owner: str | None = None  # the mark of the private Ray this process started (connect_ray)


def connect_ray(address: str | None = None) -> tuple[Any, bool]:
    """(ray, started): connect to `address` ("host:6379", "auto", "ray://...") or, with None, to
    $RAY_ADDRESS, else start a private local Ray (never a stale cluster Ray remembers in /tmp).
    `started` is True when this call initialized Ray (its caller then owns `ray.shutdown()`)."""
    ray = _import_ray()
    with _connect_lock:
        if ray.is_initialized():
            return ray, False
        import logging

        target = address or os.environ.get("RAY_ADDRESS") or "local"
        options: dict[str, Any] = {}
        if target == "local" and len(tempfile.gettempdir()) > RAY_TMP_MAX:
            # A new Ray keeps unix sockets under $TMPDIR/ray/session_<time>_<pid>/sockets/, and
            # their paths must fit in 107 bytes: a long $TMPDIR would make ray.init fail.
            options["_temp_dir"] = "/tmp/ray"
        # Every process of a private Ray (its GCS and raylet, and the agents and workers the
        # raylet starts) inherits this mark: the janitor kills them by it if the harness is
        # killed (its agents outlived a SIGKILLed harness by hours); set only while Ray starts.
        owner = f"{os.getpid()}-{uuid.uuid4().hex}" if target == "local" else None
        try:
            with _environment(RAY_OWNER_ENV, owner):
                ray.init(
                    address=target,
                    include_dashboard=False,
                    log_to_driver=False,
                    logging_level=logging.WARNING,
                    namespace="runners",
                    **options,
                )
        except Exception as exc:  # noqa: BLE001 - ConnectionError, RuntimeError, ValueError...
            where = (
                "start a local Ray"
                if target == "local"
                else f"connect to the Ray cluster at {target}"
            )
            raise InfrastructureError(
                f"cannot {where}: {type(exc).__name__}: {_first_line(str(exc))}"
            ) from None
        _problem_refs.clear()  # objects put in an earlier Ray session are gone with it
        global _owner
        _owner = owner
        if owner is not None:
            janitor.track("ray", owner)
            # The mark is not enough alone: an agent's new process title (`ray::DashboardAgent`)
            # may overwrite its environment's memory, where /proc reads it. Its pid and start
            # time are: the Ray processes below this one, now and once more when the agents
            # have surely started.
            _track_ray_processes()
            timer = threading.Timer(5.0, _track_ray_processes)
            timer.daemon = True
            timer.start()
        return ray, True


_tracked: set[str] = set()  # "pid start" of the private Ray's processes, told to the janitor


def _track_ray_processes() -> None:
    with _connect_lock:
        if _owner is None:
            return
        for pid, started in process_tree(os.getpid()).items():
            value = f"{pid} {started}"
            if value not in _tracked:
                _tracked.add(value)
                janitor.track("ray", value)


def shutdown_ray(ray: Any) -> None:
    """End the Ray this process started (`connect_ray`'s `started`); the janitor forgets it."""
    global _owner
    ray.shutdown()
    with _connect_lock:
        for value in [_owner, *_tracked]:
            if value is not None:
                janitor.forget("ray", value)
        _owner = None
        _tracked.clear()


@contextlib.contextmanager
def _environment(name: str, value: str | None) -> Iterator[None]:
    """`name=value` in this process's environment for the block (nothing when value is None)."""
    if value is None:
        yield
        return
    before = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = before


def _ray_cell_task(
    problem_tar: bytes,
    submission_tar: bytes,
    spec: dict[str, Any],
    previous_tar: bytes | None = None,
) -> tuple[CellOutcome, bytes | None]:
    """Runs on a Ray worker: unpack the shipped problem and submission (and the previous
    checkpoint's, when the layout has one) into a private temporary directory, run the cell, and
    send back the outcome and a tar of its artifacts."""
    root = Path(tempfile.mkdtemp(prefix="runners-ray-"))
    try:
        problem_dir = unpack_tree(problem_tar, root / "problems" / spec["problem"])
        checkpoints = root / "submissions" / spec["agent"] / spec["problem"]
        submission_dir = unpack_tree(submission_tar, checkpoints / spec["checkpoint"])
        if previous_tar is not None:  # beside it, where the code-quality growth looks for it
            unpack_tree(previous_tar, checkpoints / spec["previous"])
        out = root / "out"
        cell = Cell(
            agent=spec["agent"],
            problem=spec["problem"],
            checkpoint=spec["checkpoint"],
            problem_dir=problem_dir,
            submission_dir=submission_dir,
            order=spec["order"],
        )
        outcome = execute_cell(CellJob(cell=cell, output_dir=out, environment=spec["environment"]))
        try:
            import ray

            outcome.worker += f" node {ray.get_runtime_context().get_node_id()}"
        except Exception:  # noqa: BLE001, S110 - informative only
            pass
        artifacts = pack_tree(out, ()) if out.is_dir() else None
        return outcome, artifacts
    finally:
        rmtree_forcibly(root)


_remote_fn: Any = None


def _remote(ray: Any) -> Any:
    global _remote_fn
    if _remote_fn is None:
        # max_retries=0: a cell that kills its worker is that cell's infrastructure failure, like
        # the local pool; it is not retried (a re-run of the batch retries crashed cells).
        _remote_fn = ray.remote(max_retries=0)(_ray_cell_task)
    return _remote_fn


def _submit(ray: Any, job: CellJob, problem_ref: Any) -> Any:
    """Send one cell. A submission over its limits raises `SubmissionTooLarge` here, before it is
    packed (a 64 GiB sparse file would otherwise be read into a tar in memory)."""
    cell = job.cell
    limits = EnvironmentSpec.model_validate(job.environment).limits_for(
        load_problem(cell.problem_dir).limits
    )
    inventory(cell.submission_dir, limits, SUBMISSION_IGNORE)
    # The previous checkpoint's code goes too, so that the code-quality growth is measured on
    # the worker as it is locally (quality.measure.previous_submission finds it beside the cell).
    previous = _previous_checkpoint(cell)
    previous_tar = None
    if previous is not None:
        try:
            inventory(cell.submission_dir.parent / previous, limits, SUBMISSION_IGNORE)
            previous_tar = pack_submission(cell.submission_dir.parent / previous)
        except SubmissionTooLarge:
            previous = None  # no growth figures for this cell, as when there is no previous
    spec = {
        "agent": cell.agent,
        "problem": cell.problem,
        "checkpoint": cell.checkpoint,
        "order": cell.order,
        "environment": job.environment,
        "previous": previous,
    }
    options: dict[str, Any] = {"name": f"runners:{cell.id}"}
    options.update(job.resources or {"num_cpus": 1.0})
    return (
        _remote(ray)
        .options(**options)
        .remote(problem_ref, pack_submission(cell.submission_dir), spec, previous_tar)
    )


def _previous_checkpoint(cell: Cell) -> str | None:
    """The name of the cell's previous checkpoint when its submission sits beside this one."""
    before = load_problem(cell.problem_dir).checkpoint_before(cell.checkpoint)
    if before is None:
        return None
    found = previous_submission(cell.submission_dir, cell.checkpoint, before)
    return before if found is not None else None


def _land(ray: Any, job: CellJob, ref: Any, output_dir: Path | None) -> CellOutcome:
    """The outcome of a finished task; its artifacts are unpacked into `output_dir`."""
    try:
        outcome, artifacts = ray.get(ref)
    except Exception as exc:  # noqa: BLE001 - any failure of the task is this cell's outcome
        return CellOutcome(
            job.cell.id,
            crash=f"the Ray task failed: {type(exc).__name__}: {_first_line(str(exc))}",
            worker="ray",
        )
    if outcome.result is not None and output_dir is not None:
        rmtree_forcibly(output_dir)
        output_dir.mkdir(parents=True)
        if artifacts:
            unpack_tree(artifacts, output_dir)
        result = ExecutionResult.model_validate_json(outcome.result)
        result.artifacts_dir = str(output_dir.resolve())
        outcome.result = result.model_dump_json()
        result.save(output_dir / "result.json")
    return outcome


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:500]
    return ""


class RayExecutor:
    """Each cell one Ray task with its problem's resources; results stream back as tasks finish.

    The problem and submission travel with the task (the problem once per batch, through the
    object store) and the artifacts come back with the result, so worker nodes need no shared
    filesystem, only `runners` installed and, per node, a working sandbox."""

    name = "ray"

    def __init__(
        self,
        address: str | None = None,
        *,
        max_in_flight: int | None = None,
        grace: float = DEFAULT_GRACE,
    ) -> None:
        self.address = address
        self.max_in_flight = max_in_flight
        self.grace = grace
        self._ray: Any = None
        self._started = False

    def start(self) -> None:
        self._ray, self._started = connect_ray(self.address)

    def close(self) -> None:
        if self._ray is not None and self._started:
            shutdown_ray(self._ray)
        self._ray = None

    def cluster(self) -> dict[str, Any]:
        ray = self._ray
        if ray is None:
            return {}
        return {
            "nodes": len([n for n in ray.nodes() if n.get("Alive")]),
            "resources": ray.cluster_resources(),
        }

    def run(
        self, jobs: Sequence[CellJob], on_start: OnStart, on_done: OnDone, cancel: Cancel
    ) -> None:
        if self._ray is None:
            self.start()
        ray = self._ray
        pending: deque[CellJob] = deque(jobs)
        problems: dict[Path, Any] = {}
        inflight: dict[Any, CellJob] = {}
        limit = self.max_in_flight or len(pending) or 1
        try:
            while (pending or inflight) and not cancel.requested:
                while pending and len(inflight) < limit and not cancel.requested:
                    job = pending.popleft()
                    if job.cell.problem_dir not in problems:
                        problems[job.cell.problem_dir] = ray.put(pack_problem(job.cell.problem_dir))
                    on_start(job)
                    try:
                        inflight[_submit(ray, job, problems[job.cell.problem_dir])] = job
                    except UserInputError as exc:
                        on_done(
                            job, CellOutcome(job.cell.id, crash=f"{BAD_INPUT}: {exc}", worker="ray")
                        )
                    except Exception as exc:  # noqa: BLE001 - any failure to submit is this cell's outcome
                        on_done(
                            job,
                            CellOutcome(
                                job.cell.id,
                                crash=f"cannot submit the Ray task: {type(exc).__name__}: {exc}",
                                worker="ray",
                            ),
                        )
                if not inflight:
                    continue
                ready, _ = ray.wait(list(inflight), num_returns=1, timeout=POLL_SECONDS)
                for ref in ready:
                    job = inflight.pop(ref)
                    on_done(job, _land(ray, job, ref, job.output_dir))
        finally:
            if inflight:
                self._cancel(inflight, on_done, cancel)

    def _cancel(self, inflight: dict[Any, CellJob], on_done: OnDone, cancel: Cancel) -> None:
        ray = self._ray
        for ref in inflight:
            try:
                ray.cancel(ref, force=False)  # KeyboardInterrupt in the task: the engine cleans up
            except Exception:  # noqa: BLE001, S110 - best effort: the task may be gone already
                pass
        deadline = time.monotonic() + self.grace
        while inflight and not cancel.forced and time.monotonic() < deadline:
            ready, _ = ray.wait(list(inflight), num_returns=1, timeout=POLL_SECONDS)
            for ref in ready:
                job = inflight.pop(ref)
                try:
                    outcome, _artifacts = ray.get(ref)
                except Exception:  # noqa: BLE001, S112 - cancelled or failed: recorded as cancelled below
                    continue
                if outcome.result is not None:  # it finished before the cancellation reached it
                    on_done(job, _land(ray, job, ref, job.output_dir))
        for ref in inflight:
            try:
                ray.cancel(ref, force=True)
            except Exception:  # noqa: BLE001, S110 - best effort: the task may be gone already
                pass


# ---- one cell on Ray, for callers outside a batch (the Promptfoo provider) ----------------------

CANCEL_GRACE = 10.0


def _cancel_ref(ray: Any, ref: Any, grace: float) -> None:
    """Cancel a task: KeyboardInterrupt first (the engine then stops its sandbox and removes its
    workspace), the worker process killed if it is still running after `grace` seconds."""
    try:
        ray.cancel(ref, force=False)
        ray.wait([ref], num_returns=1, timeout=grace)
        if not ray.wait([ref], num_returns=1, timeout=0)[0]:
            ray.cancel(ref, force=True)
    except Exception:  # noqa: BLE001, S110 - best effort: the task may be gone already
        pass


def run_cell_remote(
    cell: Cell,
    address: str | None = None,
    *,
    environment: EnvironmentSpec | None = None,
    output_dir: Path | str | None = None,
    timeout: float | None = None,
) -> ExecutionResult:
    """Run one cell as a Ray task (on the cluster at `address`, see `connect_ray`) and return its
    result; the connection is kept for later calls in this process.

    Bad input (problem config, unknown checkpoint, missing submission) raises `UserInputError`
    here, before anything is sent. Anything that goes wrong remotely, and a run that does not
    finish within `timeout` seconds (the task is then cancelled), is returned as an
    infrastructure failure. With `output_dir`, the run's artifacts (result.json, reports, logs)
    are unpacked there and `artifacts_dir` points to it.
    """
    problem = load_problem(cell.problem_dir)
    problem.checkpoint(cell.checkpoint)  # ConfigError when unknown
    if not Path(cell.submission_dir).is_dir():
        raise UserInputError(f"submission {cell.submission_dir} is not a directory")
    environment = environment or EnvironmentSpec()
    ray, _ = connect_ray(address)
    key = (Path(cell.problem_dir).resolve(), problem_hash(cell.problem_dir))
    if key not in _problem_refs:
        _problem_refs[key] = ray.put(pack_problem(cell.problem_dir))
    output = Path(output_dir).resolve() if output_dir is not None else None
    job = CellJob(
        cell=cell,
        output_dir=output or Path("."),
        environment=environment_payload(environment),
        resources=ray_resources(problem),
    )
    ref = _submit(ray, job, _problem_refs[key])

    def failed(reason: str) -> ExecutionResult:
        return failure_result(cell, reason, problem=problem, sandbox=environment.sandbox)

    try:
        ray.wait([ref], num_returns=1, timeout=timeout)
    except Exception as exc:  # noqa: BLE001 - the cell's outcome says what failed
        return failed(
            f"waiting for the Ray task failed: {type(exc).__name__}: {_first_line(str(exc))}"
        )
    finished, _ = ray.wait([ref], num_returns=1, timeout=0)
    if not finished:
        _cancel_ref(ray, ref, CANCEL_GRACE)
        return failed(f"the remote run did not finish within {timeout:g} s (cancelled)")
    outcome = _land(ray, job, ref, output)
    if outcome.crash is not None or outcome.result is None:
        return failed(outcome.crash or "the Ray task returned no result")
    result = ExecutionResult.model_validate_json(outcome.result)
    if output is None:
        result.artifacts_dir = None
    return result
