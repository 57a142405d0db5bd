"""A per-run control group: memory, process count and CPU limits, OOM detection, tree kill.

bubblewrap does namespaces, not resources; a cgroup bounds the whole sandbox (every process,
every thread) where rlimits are per process or per uid. Works with cgroup v2 (unified) and v1
(one hierarchy per controller); needs write access to the cgroup tree (root here). Where that is
missing, `RunCgroup.create` returns None and the caller falls back to rlimits.

CPU: a group under the CPU controller is one scheduling entity, weighed against each other entity
(a process, a session's autogroup, a container) as a single process, and `runners/` as one for
all runs together: on a busy machine a run got a fraction of what the same processes got outside
(3-5x slower, bench/RESULTS.md section 14). So a run joins the CPU controller only for a CPU limit
that limits something (below the CPUs this process may use); under cgroup v1 it otherwise stays
where a plain process would be, and bubblewrap's new session makes it its own autogroup, like a
command started from another terminal. A run that does join weighs as one such entity, and
`runners/` as many as it holds (`cpu.shares` 1024 each; v2: `cpu.weight` 100 each).
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from runners.model.limits import ResourceLimits
from runners.util import janitor

ROOT = Path("/sys/fs/cgroup")
PARENT = "runners"
CPU_PERIOD_US = 100_000
# The weight of one entity (a process at nice 0, a session's autogroup): v1 shares, v2 weight.
V1_SHARES, V2_WEIGHT = 1024, 100
V1_MAX_SHARES, V2_MAX_WEIGHT = 262_144, 10_000


def cpu_cap(cpus: float | None) -> float | None:
    """The CPU limit worth a quota: None when there is none, or when it is at or above the CPUs
    this process may run on (a quota there limits nothing, and the group would cost the run its
    share of the machine)."""
    if not cpus:
        return None
    return cpus if cpus < len(os.sched_getaffinity(0)) else None


def _write(path: Path, value: str) -> bool:
    try:
        path.write_text(value)
        return True
    except OSError:
        return False


def _read_int(path: Path) -> int | None:
    try:
        return int(path.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


@dataclass
class RunCgroup:
    dirs: list[Path]
    unified: bool
    notes: list[str] = field(default_factory=list)

    @classmethod
    def usable(cls) -> bool:
        """Whether `create` can make a run's group with a memory limit (write access to the
        tree)."""
        if (ROOT / "cgroup.controllers").is_file():
            parent = ROOT / PARENT
            return os.access(parent if parent.is_dir() else ROOT, os.W_OK)
        memory = ROOT / "memory"
        return memory.is_dir() and os.access(
            memory / PARENT if (memory / PARENT).is_dir() else memory, os.W_OK
        )

    @classmethod
    def create(cls, run_id: str, limits: ResourceLimits) -> RunCgroup | None:
        if (ROOT / "cgroup.controllers").is_file():
            made = cls._create_v2(run_id, limits)
        else:
            made = cls._create_v1(run_id, limits)
        for group in made.dirs if made is not None else []:
            janitor.track("cgroup", group)  # killed and removed at once if the harness dies
        return made

    @classmethod
    def _create_v2(cls, run_id: str, limits: ResourceLimits) -> RunCgroup | None:
        parent = ROOT / PARENT
        cap = cpu_cap(limits.cpus)
        controllers = "+memory +pids" + (" +cpu" if cap else "")
        try:
            parent.mkdir(exist_ok=True)
            _write(ROOT / "cgroup.subtree_control", controllers)
            _write(parent / "cgroup.subtree_control", controllers)
            group = parent / run_id
            group.mkdir()
        except OSError:
            return None
        cg = cls([group], unified=True)
        _balance(parent)
        if limits.memory_mb:
            size = str(limits.memory_mb * 1024 * 1024)
            if not _write(group / "memory.max", size):
                cg.notes.append("memory limit not applied")
            _write(group / "memory.swap.max", "0")
        if limits.pids and not _write(group / "pids.max", str(limits.pids)):
            cg.notes.append("pids limit not applied")
        if cap:
            quota = int(cap * CPU_PERIOD_US)
            if not _write(group / "cpu.max", f"{quota} {CPU_PERIOD_US}"):
                cg.notes.append("cpu limit not applied")
        return cg

    @classmethod
    def _create_v1(cls, run_id: str, limits: ResourceLimits) -> RunCgroup | None:
        wanted = {"memory": limits.memory_mb, "pids": limits.pids, "cpu": cpu_cap(limits.cpus)}
        dirs: list[Path] = []
        cg = cls(dirs, unified=False)
        for controller, value in wanted.items():
            base = ROOT / controller
            if not base.is_dir() or (controller == "cpu" and value is None):
                continue  # no CPU limit: the run stays where a plain process would be
            group = base / PARENT / run_id
            try:
                group.mkdir(parents=True)
            except OSError:
                cg.remove()
                return None
            dirs.append(group)
            if value is None:
                continue
            if controller == "memory":
                size = str(int(value) * 1024 * 1024)
                if not _write(group / "memory.limit_in_bytes", size):
                    cg.notes.append("memory limit not applied")
                _write(group / "memory.memsw.limit_in_bytes", size)  # no swap, where accounted
            elif controller == "pids":
                if not _write(group / "pids.max", str(value)):
                    cg.notes.append("pids limit not applied")
            elif controller == "cpu":
                _write(group / "cpu.cfs_period_us", str(CPU_PERIOD_US))
                if not _write(group / "cpu.cfs_quota_us", str(int(float(value) * CPU_PERIOD_US))):
                    cg.notes.append("cpu limit not applied")
                _balance(base / PARENT)
        if not dirs:
            return None
        return cg

    @staticmethod
    def _parents() -> list[Path]:
        return (
            [ROOT / PARENT]
            if (ROOT / "cgroup.controllers").is_file()
            else [ROOT / controller / PARENT for controller in ("memory", "pids", "cpu")]
        )

    @classmethod
    def groups(cls) -> list[Path]:
        """Every run group that exists now, under every controller."""
        found: list[Path] = []
        for parent in cls._parents():
            try:
                found += [g for g in parent.iterdir() if g.is_dir()]
            except OSError:
                continue
        return found

    @classmethod
    def sweep(cls, is_orphan: Callable[[str], bool]) -> int:
        """Remove the run groups (under every controller) whose name `is_orphan` says belongs to
        a harness that is gone; their processes, if any, are killed first. Returns how many."""
        unified = len(cls._parents()) == 1
        removed = 0
        for group in cls.groups():
            if is_orphan(group.name):
                cls([group], unified=unified).remove()
                removed += 0 if group.exists() else 1
        return removed

    def enter(self) -> None:
        """Move the calling process in; meant for `preexec_fn`, before the command execs."""
        pid = str(os.getpid())
        for group in self.dirs:
            (group / "cgroup.procs").write_text(pid)

    def pids(self) -> set[int]:
        found: set[int] = set()
        for group in self.dirs:
            try:
                found.update(int(p) for p in (group / "cgroup.procs").read_text().split())
            except (OSError, ValueError):
                pass
        return found

    def oom_killed(self) -> bool:
        for group in self.dirs:
            events = group / ("memory.events" if self.unified else "memory.oom_control")
            try:
                text = events.read_text()
            except OSError:
                continue
            for line in text.splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill" and value.strip().isdigit() and int(value) > 0:
                    return True
            if not self.unified and (_read_int(group / "memory.failcnt") or 0) > 0:
                # v1 kernels without an oom_kill counter: the limit was hit.
                return "oom_kill " not in text
        return False

    def kill_all(self) -> None:
        if self.unified and _write(self.dirs[0] / "cgroup.kill", "1"):
            return
        # Processes killed a moment ago (or exiting on their own) stay listed until the kernel
        # reaps them: look again after a growing pause (1 ms first, not a flat 20 ms per run).
        for attempt in range(60):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(min(0.001 * 2**attempt, 0.02))

    def remove(self) -> None:
        self.kill_all()
        for group in self.dirs:
            self._remove_dir(group)
            if self.unified or group.parent.parent.name == "cpu":
                _balance(group.parent)

    @staticmethod
    def _remove_dir(group: Path) -> None:
        # The kernel frees a cgroup a moment after its last process is reaped: retry with a
        # growing pause (1 ms first, not a flat 20 ms on every run), about 1 s in all.
        for attempt in range(50):
            try:
                group.rmdir()
            except FileNotFoundError:
                pass
            except OSError:
                time.sleep(min(0.001 * 2**attempt, 0.02))
                continue
            janitor.forget("cgroup", group)
            return


def _balance(parent: Path) -> None:
    """`parent` (runners/) weighs as many entities as the run groups it holds (at least one): the
    runs together get what as many separate sessions would, not the share of a single process.
    Recounted at every create and remove; a race between two harnesses is set right by the next."""
    try:
        runs = sum(1 for child in parent.iterdir() if child.is_dir())
    except OSError:
        return
    count = max(1, runs)
    if not _write(parent / "cpu.shares", str(min(V1_SHARES * count, V1_MAX_SHARES))):
        _write(parent / "cpu.weight", str(min(V2_WEIGHT * count, V2_MAX_WEIGHT)))
