"""The local executor: a pool of worker processes, each running one cell at a time.

Cancellation (`Cancel.request()`, from Ctrl-C): nothing new is started; running cells get SIGTERM
(the worker raises KeyboardInterrupt, so the engine kills the sandbox and removes its workspace);
after a grace period (or a second Ctrl-C) whatever is left is killed, with its descendants, and
leftover Docker containers are swept.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import wait as mp_wait
from pathlib import Path
from typing import Any

from runners.batch.jobs import (
    DEFAULT_GRACE,
    POLL_SECONDS,
    Cancel,
    CellJob,
    CellOutcome,
    OnDone,
    OnStart,
    execute_cell,
)
from runners.batch.store import rmtree_forcibly
from runners.util import janitor, progress
from runners.util.processes import process_tree, start_time


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
    _follow_parent()
    tempfile.tempdir = tmp_root  # workspaces land here; the parent removes the whole root
    code = 0
    try:
        while True:
            job = conn.recv()
            if job is None:
                break
            cell = job.cell
            with progress.running(
                progress.Subject(cell.problem, cell.checkpoint, cell.agent), _StageSender(conn)
            ):
                outcome = execute_cell(job)
            conn.send(outcome)
    except (KeyboardInterrupt, EOFError, BrokenPipeError):
        code = 130
    finally:
        try:
            conn.close()
        except OSError:
            pass
    os._exit(code)  # no atexit/finalizers that could block on a parent that is gone


# After its parent (the batch) died, a worker cancels its cell as on SIGTERM (the sandbox is killed,
# the workspace removed) and is gone within this many seconds, however the cell behaves.
ORPHAN_GRACE = 5.0


def _follow_parent() -> None:  # pragma: no cover - runs in the child
    """End this worker soon after the batch that started it dies (kill -9 included): nothing
    else would tell it, and its cell could run on for its whole wall clock."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        mp_wait([parent.sentinel])  # readable once the parent is gone
        os.kill(os.getpid(), signal.SIGTERM)  # cancel the running cell (KeyboardInterrupt)
        time.sleep(ORPHAN_GRACE)
        os._exit(130)

    threading.Thread(target=watch, name="runners-follow-parent", daemon=True).start()


@dataclass(frozen=True)
class _Stage:
    """A stage the worker's cell has reached (runners.util.progress), sent before its outcome."""

    text: str


class _StageSender:
    """The worker's progress reporter: each stage goes to the parent, which shows it."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn

    def begin(self, key: int, subject: progress.Subject) -> None:
        pass

    def stage(self, key: int, stage: str) -> None:
        try:
            self.conn.send(_Stage(stage))
        except (OSError, ValueError):
            pass  # the parent is gone: the cell's own outcome will fail to go too

    def end(self, key: int, outcome: str | None) -> None:
        pass


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

    def __init__(
        self,
        jobs: int = 1,
        *,
        grace: float = DEFAULT_GRACE,
        start_method: str = "spawn",
        sandbox: str = "auto",
    ) -> None:
        self.jobs = max(1, jobs)
        self.grace = grace
        self.sandbox = sandbox
        self._ctx = multiprocessing.get_context(start_method)
        self._tmp_root: Path | None = None
        self.killed: list[int] = []  # pids killed after the grace period (for tests and logs)
        #: Told each stage a running cell reaches (runners.util.progress), in the parent.
        self.on_stage: Callable[[CellJob, str], None] | None = None

    def start(self) -> None:
        self._tmp_root = Path(tempfile.mkdtemp(prefix="runners-batch-"))
        janitor.track("workspace", self._tmp_root)  # removed at once if the batch is killed

    def close(self) -> None:
        if self._tmp_root is not None:
            rmtree_forcibly(self._tmp_root)
            janitor.forget("workspace", self._tmp_root)
            self._tmp_root = None

    def _spawn(self) -> _Worker:
        assert self._tmp_root is not None, "start() first"
        parent, child = self._ctx.Pipe(duplex=True)
        # typeshed's BaseContext lacks `Process`; every context get_context returns has it.
        process = self._ctx.Process(  # type: ignore[attr-defined]
            target=_worker_main,
            args=(child, str(self._tmp_root)),
            name="runners-batch-worker",
            daemon=True,
        )
        process.start()
        child.close()
        return _Worker(process=process, conn=parent)

    def run(
        self, jobs: Sequence[CellJob], on_start: OnStart, on_done: OnDone, cancel: Cancel
    ) -> None:
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
            outcome = self._answer(worker, job)
        except Exception as exc:  # noqa: BLE001 - a broken answer: the worker is counted dead
            outcome, dead = (
                self._death(worker, job, f"lost its answer ({type(exc).__name__})"),
                True,
            )
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

    def _answer(self, worker: _Worker, job: CellJob) -> CellOutcome | None:
        """The cell's outcome when the worker has sent it; the stages sent before it are passed
        on to `on_stage`."""
        while worker.conn.poll():
            message = worker.conn.recv()
            if not isinstance(message, _Stage):
                return message  # type: ignore[no-any-return]
            if self.on_stage is not None:
                self.on_stage(job, message.text)
        return None

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
        _sweep_sandboxes(self.sandbox)
        return CellOutcome(
            job.cell.id, crash=reason, worker="", seconds=time.monotonic() - worker.started
        )

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
                    outcome = self._answer(worker, worker.job)
                    if outcome is not None:
                        job, worker.job = worker.job, None
                        on_done(job, outcome)
                except Exception:  # noqa: BLE001, S110 - a worker already gone: its death is handled below
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
            mp_wait(
                [w.process.sentinel for w in workers if w.process.is_alive()], timeout=POLL_SECONDS
            )
        for worker in workers:
            if worker.process.is_alive():
                self._kill_tree(worker)
                self.killed.append(worker.process.pid)
            worker.process.join(timeout=5)
            try:
                worker.conn.close()
            except OSError:
                pass
        if self.killed:
            _sweep_sandboxes(self.sandbox)

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


def _sweep_sandboxes(sandbox: str) -> None:
    """Let the batch's backends remove what its dead workers left (e.g. containers)."""
    from runners.sandbox.registry import AUTO_ORDER, sweep_orphans

    sweep_orphans(list(AUTO_ORDER) if sandbox == "auto" else [sandbox])
