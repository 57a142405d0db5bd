"""Where the cells of a batch run: a local pool of worker processes, or Ray tasks.

Both run `execute_cell` (one `run_checkpoint` call) in the *main thread* of a worker process:
bubblewrap's `--die-with-parent` is tied to the thread that started it, and the engine's clean-up
on cancellation (KeyboardInterrupt) is delivered to the main thread.

A cell that crashes (an exception in the harness, a worker that dies) comes back as a
`CellOutcome` with `crash` set, so it becomes an infrastructure failure of that cell only.

Cancellation (`Cancel.request()`, from Ctrl-C): nothing new is started; running cells are
cancelled (local: SIGTERM to the worker, which raises KeyboardInterrupt, so the engine kills the
sandbox and removes its workspace; Ray: `ray.cancel`); after a grace period (or a second Ctrl-C)
whatever is left is killed, with its descendants, and leftover Docker containers are swept.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import socket
import tempfile
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import wait as mp_wait
from pathlib import Path
from typing import Any, Protocol

from runners.batch.cells import (
    Cell,
    pack_problem,
    pack_submission,
    pack_tree,
    problem_hash,
    unpack_tree,
)
from runners.batch.store import rmtree_forcibly
from runners.config import ProblemConfig, load_problem
from runners.environment import EnvironmentSpec
from runners.errors import InfrastructureError, UserInputError
from runners.processes import process_tree, start_time
from runners.results import ExecutionResult
from runners.submission import inventory
from runners.workspace import SUBMISSION_IGNORE

POLL_SECONDS = 0.25
DEFAULT_GRACE = 20.0
MiB = 1024 * 1024


# ---- the unit of work ---------------------------------------------------------------------------


@dataclass(frozen=True)
class CellJob:
    cell: Cell
    output_dir: Path
    environment: dict[str, Any]  # EnvironmentSpec JSON, only fields set explicitly (portable)
    resources: dict[str, float] = field(default_factory=dict)  # Ray: num_cpus, memory


BAD_INPUT = "bad input"  # how a cell refused as bad input (UserInputError) is marked


@dataclass
class CellOutcome:
    cell_id: str
    result: str | None = None  # ExecutionResult JSON
    crash: str | None = None  # why the harness could not produce a result
    traceback: str | None = None
    worker: str = ""
    seconds: float = 0.0


def environment_payload(environment: EnvironmentSpec) -> dict[str, Any]:
    """What a worker needs to rebuild the spec. Only explicitly set fields travel, so defaults that
    depend on the machine (the cache dir under $HOME) are taken on the machine that runs."""
    return environment.model_dump(mode="json", exclude_unset=True)


def ray_resources(problem: ProblemConfig) -> dict[str, float]:
    """A cell's Ray resources from the problem's `limits`: cpus -> num_cpus (default 1),
    memory_mb -> memory (bytes; nothing reserved when unset)."""
    limits = problem.limits
    resources: dict[str, float] = {"num_cpus": float(limits.cpus) if limits and limits.cpus else 1.0}
    if limits and limits.memory_mb:
        resources["memory"] = float(limits.memory_mb * MiB)
    return resources


def execute_cell(job: CellJob) -> CellOutcome:
    """Run one cell here and now. Exceptions become a crash outcome; KeyboardInterrupt (a
    cancellation) propagates after the engine cleaned up."""
    started = time.monotonic()
    worker = f"{socket.gethostname()}:{os.getpid()}"
    try:
        from runners.api import run_checkpoint

        environment = EnvironmentSpec.model_validate(job.environment)
        result = run_checkpoint(job.cell.problem_dir, job.cell.checkpoint, job.cell.submission_dir,
                                environment, output_dir=job.output_dir)
        return CellOutcome(job.cell.id, result=result.model_dump_json(), worker=worker,
                           seconds=time.monotonic() - started)
    except Exception as exc:
        kind = BAD_INPUT if isinstance(exc, UserInputError) else type(exc).__name__
        return CellOutcome(job.cell.id, crash=f"{kind}: {exc}", traceback=traceback.format_exc(),
                           worker=worker, seconds=time.monotonic() - started)


def failure_result(cell: Cell, reason: str, *, problem: ProblemConfig | None = None,
                   sandbox: str = "none") -> ExecutionResult:
    """The result recorded for a cell the harness could not run."""
    try:
        problem = problem or load_problem(cell.problem_dir)
        checkpoint = problem.checkpoints.get(cell.checkpoint)
        name, version, framework = problem.name, problem.version, problem.framework
        cp_version = checkpoint.version if checkpoint else None
    except Exception:
        name, version, framework, cp_version = cell.problem, None, "unknown", None
    return ExecutionResult(problem_name=name, problem_version=version,
                           checkpoint_name=cell.checkpoint, checkpoint_version=cp_version,
                           framework=framework, sandbox=sandbox, infrastructure_failure=True,
                           infrastructure_reason=reason)


class Cancel:
    """Set from a signal handler: `requested` on the first Ctrl-C, `forced` on the second."""

    def __init__(self) -> None:
        self.requested = False
        self.forced = False

    def request(self) -> None:
        if self.requested:
            self.forced = True
        self.requested = True


OnStart = Callable[[CellJob], None]
OnDone = Callable[[CellJob, CellOutcome], None]


class Executor(Protocol):
    name: str

    def start(self) -> None: ...

    def run(self, jobs: Sequence[CellJob], on_start: OnStart, on_done: OnDone, cancel: Cancel) -> None: ...

    def close(self) -> None: ...


# ---- local: a pool of worker processes ----------------------------------------------------------


def _worker_main(conn: Any, tmp_root: str) -> None:  # pragma: no cover - runs in the child
    """A pool worker: runs the cells it is sent, one at a time, in its main thread."""
    interrupted = False

    def on_term(signum: int, frame: Any) -> None:
        nonlocal interrupted
        if interrupted:
            return  # one cancellation at a time: never interrupt the clean-up
        interrupted = True
        raise KeyboardInterrupt

    # Ctrl-C reaches every process of the terminal's group; the parent decides and sends SIGTERM.
    # A Python handler, not SIG_IGN: an ignored SIGINT would be inherited by the tests' processes.
    signal.signal(signal.SIGINT, lambda signum, frame: None)
    signal.signal(signal.SIGTERM, on_term)
    tempfile.tempdir = tmp_root  # workspaces land here; the parent removes the whole root
    code = 0
    try:
        while True:
            job = conn.recv()
            if job is None:
                break
            conn.send(execute_cell(job))
    except (KeyboardInterrupt, EOFError, BrokenPipeError):
        code = 130
    finally:
        try:
            conn.close()
        except OSError:
            pass
    os._exit(code)  # no atexit/finalizers that could block on a parent that is gone


@dataclass
class _Worker:
    process: Any
    conn: Any
    job: CellJob | None = None
    started: float = 0.0
    # Last seen descendants {pid: start time}: once a worker died, /proc no longer links it to
    # the processes it started, which then still have to go.
    tree: dict[int, str] = field(default_factory=dict)


class LocalExecutor:
    """N worker processes (spawn); each runs one cell at a time."""

    name = "local"

    def __init__(self, jobs: int = 1, *, grace: float = DEFAULT_GRACE, start_method: str = "spawn",
                 sandbox: str = "auto") -> None:
        self.jobs = max(1, jobs)
        self.grace = grace
        self.sandbox = sandbox
        self._ctx = multiprocessing.get_context(start_method)
        self._tmp_root: Path | None = None
        self.killed: list[int] = []  # pids killed after the grace period (for tests and logs)

    def start(self) -> None:
        self._tmp_root = Path(tempfile.mkdtemp(prefix="runners-batch-"))

    def close(self) -> None:
        if self._tmp_root is not None:
            rmtree_forcibly(self._tmp_root)
            self._tmp_root = None

    def _spawn(self) -> _Worker:
        assert self._tmp_root is not None, "start() first"
        parent, child = self._ctx.Pipe(duplex=True)
        process = self._ctx.Process(target=_worker_main, args=(child, str(self._tmp_root)),
                                    name="runners-batch-worker", daemon=True)
        process.start()
        child.close()
        return _Worker(process=process, conn=parent)

    def run(self, jobs: Sequence[CellJob], on_start: OnStart, on_done: OnDone, cancel: Cancel) -> None:
        if self._tmp_root is None:
            self.start()
        pending: deque[CellJob] = deque(jobs)
        workers: list[_Worker] = []
        try:
            while (pending or any(w.job for w in workers)) and not cancel.requested:
                self._dispatch(pending, workers, on_start)
                busy = [w for w in workers if w.job is not None]
                if not busy:
                    continue
                waitables = [w.conn for w in busy] + [w.process.sentinel for w in busy]
                mp_wait(waitables, timeout=POLL_SECONDS)
                for worker in busy:
                    if worker.process.is_alive():
                        worker.tree = process_tree(worker.process.pid)
                    self._collect(worker, workers, on_done)
        finally:
            self._shutdown(workers, on_done, cancel)

    def _dispatch(self, pending: deque[CellJob], workers: list[_Worker], on_start: OnStart) -> None:
        while pending:
            worker = next((w for w in workers if w.job is None), None)
            if worker is None:
                if len(workers) >= self.jobs:
                    return
                worker = self._spawn()
                workers.append(worker)
            job = pending.popleft()
            # The worker writes the artifacts straight into the cell's directory: start it empty.
            rmtree_forcibly(job.output_dir)
            job.output_dir.mkdir(parents=True)
            try:
                worker.conn.send(job)
            except (OSError, ValueError):  # an idle worker died: replace it, keep the job
                pending.appendleft(job)
                workers.remove(worker)
                self._reap(worker)
                continue
            worker.job, worker.started = job, time.monotonic()
            on_start(job)

    def _collect(self, worker: _Worker, workers: list[_Worker], on_done: OnDone) -> None:
        job = worker.job
        assert job is not None
        outcome: CellOutcome | None = None
        dead = False
        try:
            if worker.conn.poll():
                outcome = worker.conn.recv()
        except Exception as exc:
            outcome, dead = self._death(worker, job, f"lost its answer ({type(exc).__name__})"), True
        if outcome is None and not worker.process.is_alive():
            worker.process.join(timeout=1)
            outcome, dead = self._death(worker, job, None), True
        if outcome is None:
            return
        worker.job = None
        if dead or not worker.process.is_alive():
            workers.remove(worker)
            self._reap(worker)
        on_done(job, outcome)

    def _death(self, worker: _Worker, job: CellJob, detail: str | None) -> CellOutcome:
        code = worker.process.exitcode
        if code is None:
            how = "no exit status"
        elif code < 0:
            try:
                how = f"killed by {signal.Signals(-code).name}"
            except ValueError:
                how = f"killed by signal {-code}"
        else:
            how = f"exit code {code}"
        reason = f"the worker process running this cell died ({how})"
        if detail:
            reason += f": {detail}"
        self._kill_tree(worker)
        if self.sandbox in ("auto", "docker"):
            _sweep_docker()
        return CellOutcome(job.cell.id, crash=reason, worker="",
                           seconds=time.monotonic() - worker.started)

    def _reap(self, worker: _Worker) -> None:
        try:
            worker.conn.close()
        except OSError:
            pass
        if worker.process.is_alive():
            self._kill_tree(worker)
        worker.process.join(timeout=5)

    def _shutdown(self, workers: list[_Worker], on_done: OnDone, cancel: Cancel) -> None:
        """Idle workers are told to stop; busy ones (cancelled, or an error in the parent) get
        SIGTERM, then SIGKILL with their descendants after the grace period."""
        for worker in workers:
            if worker.job is not None:
                try:  # a cell that finished just now is kept
                    if worker.conn.poll():
                        outcome = worker.conn.recv()
                        job, worker.job = worker.job, None
                        on_done(job, outcome)
                except Exception:
                    pass
            try:
                if worker.job is None:
                    worker.conn.send(None)
                else:
                    os.kill(worker.process.pid, signal.SIGTERM)
            except (OSError, ValueError):
                pass
        deadline = time.monotonic() + self.grace
        while any(w.process.is_alive() for w in workers):
            if cancel.forced or time.monotonic() >= deadline:
                break
            mp_wait([w.process.sentinel for w in workers if w.process.is_alive()], timeout=POLL_SECONDS)
        for worker in workers:
            if worker.process.is_alive():
                self._kill_tree(worker)
                self.killed.append(worker.process.pid)
            worker.process.join(timeout=5)
            try:
                worker.conn.close()
            except OSError:
                pass
        if self.killed and self.sandbox in ("auto", "docker"):
            _sweep_docker()

    def _kill_tree(self, worker: _Worker) -> None:
        """SIGKILL a worker and every process below it, now or when last seen (sandbox
        supervisors run in their own sessions, so the process group alone would miss them)."""
        pid = worker.process.pid
        seen = {**worker.tree, **process_tree(pid)}
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
        for _ in range(3):  # a dying parent can still fork: look again
            for target, start in seen.items():
                if start_time(target) == start:  # the same process, not a reused pid
                    try:
                        os.kill(target, signal.SIGKILL)
                    except OSError:
                        pass
            fresh = {p: s for q in seen for p, s in process_tree(q).items() if p not in seen}
            if not fresh:
                break
            seen.update(fresh)


def _sweep_docker() -> None:
    """Remove sandbox containers whose owning worker process is gone."""
    try:
        from runners.sandbox.docker_backend import DockerSandbox

        if DockerSandbox.probe() is None:
            DockerSandbox().sweep_orphans()
    except Exception:
        pass


# ---- Ray ----------------------------------------------------------------------------------------


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise UserInputError(
            "Ray is not installed (needed by --executor ray and run_cell_remote); install the "
            "extra: `uv sync --extra ray` (or `pip install 'runners[ray]'`)") from None
    return ray


_connect_lock = threading.Lock()
# Packed problems already in the object store of the current Ray session, by (path, content hash):
# each is shipped once however many cells use it.
_problem_refs: dict[tuple[Path, str], Any] = {}
RAY_TMP_MAX = 30  # longer temporary directories leave too little room for Ray's socket paths


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
        try:
            ray.init(address=target, include_dashboard=False, log_to_driver=False,
                     logging_level=logging.WARNING, namespace="runners", **options)
        except Exception as exc:  # noqa: BLE001 - ConnectionError, RuntimeError, ValueError...
            where = "start a local Ray" if target == "local" else f"connect to the Ray cluster at {target}"
            raise InfrastructureError(f"cannot {where}: {type(exc).__name__}: {_first_line(str(exc))}") from None
        _problem_refs.clear()  # objects put in an earlier Ray session are gone with it
        return ray, True


def _ray_cell_task(problem_tar: bytes, submission_tar: bytes, spec: dict[str, Any]) -> tuple[CellOutcome, bytes | None]:
    """Runs on a Ray worker: unpack the shipped problem and submission into a private temporary
    directory, run the cell, and send back the outcome and a tar of its artifacts."""
    root = Path(tempfile.mkdtemp(prefix="runners-ray-"))
    try:
        problem_dir = unpack_tree(problem_tar, root / "problems" / spec["problem"])
        submission_dir = unpack_tree(submission_tar, root / "submissions" / spec["agent"] /
                                     spec["problem"] / spec["checkpoint"])
        out = root / "out"
        cell = Cell(agent=spec["agent"], problem=spec["problem"], checkpoint=spec["checkpoint"],
                    problem_dir=problem_dir, submission_dir=submission_dir, order=spec["order"])
        outcome = execute_cell(CellJob(cell=cell, output_dir=out, environment=spec["environment"]))
        try:
            import ray

            outcome.worker += f" node {ray.get_runtime_context().get_node_id()}"
        except Exception:  # noqa: BLE001 - informative only
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
    limits = EnvironmentSpec.model_validate(job.environment).limits_for(load_problem(cell.problem_dir).limits)
    inventory(cell.submission_dir, limits, SUBMISSION_IGNORE)
    spec = {"agent": cell.agent, "problem": cell.problem, "checkpoint": cell.checkpoint,
            "order": cell.order, "environment": job.environment}
    options: dict[str, Any] = {"name": f"runners:{cell.id}"}
    options.update(job.resources or {"num_cpus": 1.0})
    return _remote(ray).options(**options).remote(problem_ref, pack_submission(cell.submission_dir), spec)


def _land(ray: Any, job: CellJob, ref: Any, output_dir: Path | None) -> CellOutcome:
    """The outcome of a finished task; its artifacts are unpacked into `output_dir`."""
    try:
        outcome, artifacts = ray.get(ref)
    except Exception as exc:
        return CellOutcome(job.cell.id, crash=f"the Ray task failed: {type(exc).__name__}: "
                                             f"{_first_line(str(exc))}", worker="ray")
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

    def __init__(self, address: str | None = None, *, max_in_flight: int | None = None,
                 grace: float = DEFAULT_GRACE) -> None:
        self.address = address
        self.max_in_flight = max_in_flight
        self.grace = grace
        self._ray: Any = None
        self._started = False

    def start(self) -> None:
        self._ray, self._started = connect_ray(self.address)

    def close(self) -> None:
        if self._ray is not None and self._started:
            self._ray.shutdown()
        self._ray = None

    def cluster(self) -> dict[str, Any]:
        ray = self._ray
        if ray is None:
            return {}
        return {"nodes": len([n for n in ray.nodes() if n.get("Alive")]),
                "resources": ray.cluster_resources()}

    def run(self, jobs: Sequence[CellJob], on_start: OnStart, on_done: OnDone, cancel: Cancel) -> None:
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
                        on_done(job, CellOutcome(job.cell.id, crash=f"{BAD_INPUT}: {exc}", worker="ray"))
                    except Exception as exc:
                        on_done(job, CellOutcome(job.cell.id, crash=f"cannot submit the Ray task: "
                                                 f"{type(exc).__name__}: {exc}", worker="ray"))
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
            except Exception:
                pass
        deadline = time.monotonic() + self.grace
        while inflight and not cancel.forced and time.monotonic() < deadline:
            ready, _ = ray.wait(list(inflight), num_returns=1, timeout=POLL_SECONDS)
            for ref in ready:
                job = inflight.pop(ref)
                try:
                    outcome, _artifacts = ray.get(ref)
                except Exception:
                    continue
                if outcome.result is not None:  # it finished before the cancellation reached it
                    on_done(job, _land(ray, job, ref, job.output_dir))
        for ref in inflight:
            try:
                ray.cancel(ref, force=True)
            except Exception:
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
    except Exception:  # best effort: the task may be gone already
        pass



def run_cell_remote(cell: Cell, address: str | None = None, *,
                    environment: EnvironmentSpec | None = None,
                    output_dir: Path | str | None = None,
                    timeout: float | None = None) -> ExecutionResult:
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
    job = CellJob(cell=cell, output_dir=output or Path("."), environment=environment_payload(environment),
                  resources=ray_resources(problem))
    ref = _submit(ray, job, _problem_refs[key])

    def failed(reason: str) -> ExecutionResult:
        return failure_result(cell, reason, problem=problem, sandbox=environment.sandbox)

    try:
        ray.wait([ref], num_returns=1, timeout=timeout)
    except Exception as exc:
        return failed(f"waiting for the Ray task failed: {type(exc).__name__}: {_first_line(str(exc))}")
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
