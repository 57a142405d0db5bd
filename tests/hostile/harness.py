"""Run hostile cases against the real harness and check what every run must show.

One `World` per session: the three problems, a canary directory (a secret file, a victim file, a
unix socket the harness listens on), an escape directory that must stay empty, and a canary secret
put into the harness's own environment. `World.run(case, backend)` grades one case and returns an
`Observation`: the outcome and every *violation* found:

- the outcome is one the case allows on that backend; a FAIL has exactly the true statuses; an
  infrastructure failure says why; a pass is never granted to a run that did not pass;
- the run ended within its wall clock plus a grace, and the harness raised nothing;
- nothing outside the run's own directories changed (problem, submission, canary and escape
  directories hashed before and after; files the payload tried to create are absent);
- no process carrying the run's marker is left, no container of the run, no workspace;
- the canary secret appears nowhere in the result or the artifacts;
- after a disruptive case, the honest submission still passes on the same backend.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import traceback
import uuid
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Self

import runners
import runners.engine.protocol
from runners import EnvironmentSpec, run_checkpoint
from runners.engine.workspace import Workspace
from runners.model.environment import default_cache_dir
from runners.model.errors import UserInputError
from runners.model.limits import ResourceLimits
from runners.model.results import ExecutionResult
from runners.sandbox.registry import sandbox_class
from runners.util.processes import process_tree, start_time

from .cases import (
    BACKENDS,
    BY_ID,
    FAIL,
    HONEST_BY_FRAMEWORK,
    INFRA,
    PASS,
    PROBLEM,
    REFUSED,
    TIMEOUT,
    Case,
)
from .problems import (
    BASE_FRAMEWORK,
    NODE_FRAMEWORKS,
    PY_FRAMEWORKS,
    REPO,
    TEST_NAMES,
    build_problems,
)

SESSION = uuid.uuid4().hex[:8]
CANARY = f"canary-{uuid.uuid4().hex}"
CANARY_ENV = "RUNNERS_HOSTILE_CANARY_SECRET"
GRACE = 15.0
HARNESS_DIR = Path(runners.__file__).resolve().parent
MB = 1024 * 1024
LIMITS = {
    "pytest": ResourceLimits(
        memory_mb=512,
        pids=128,
        cpus=1.0,
        file_size_mb=64,
        tmp_size_mb=64,
        nofile=256,
        output_bytes=MB,
    ),
    "js": ResourceLimits(
        memory_mb=1024,
        pids=256,
        cpus=1.0,
        file_size_mb=64,
        tmp_size_mb=128,
        nofile=1024,
        output_bytes=MB,
    ),
    # the case program, the submission's processes and, for browser cases, Chromium
    "cases": ResourceLimits(
        memory_mb=1536,
        pids=512,
        cpus=1.0,
        file_size_mb=64,
        tmp_size_mb=256,
        nofile=1024,
        output_bytes=MB,
    ),
}

# Workspaces created by the engine, per thread: each must be gone when its run returns.
_created: dict[int, list[Path]] = {}
_created_lock = threading.Lock()


class _TrackedWorkspace(Workspace):
    @classmethod
    def create(cls, base_dir: Path | None = None) -> Workspace:
        workspace = Workspace.create(base_dir)
        with _created_lock:
            _created.setdefault(threading.get_ident(), []).append(workspace.root)
        return workspace


@dataclass
class Observation:
    case: str
    backend: str
    outcome: str  # PASS FAIL INFRA TIMEOUT, or ERROR when the harness raised, SKIP
    elapsed: float = 0.0
    reason: str | None = None
    statuses: dict[str, str] = field(default_factory=dict)
    flags: list[str] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    result: ExecutionResult | None = None
    note: str = ""

    @property
    def ok(self) -> bool:
        return not self.violations


def available_backends(wanted: Iterable[str] = BACKENDS) -> dict[str, str | None]:
    """{backend: None if usable, else why not}."""
    return {name: sandbox_class(name).probe() for name in wanted}


def framework_reason(framework: str, backend: str) -> str | None:
    """Why a case of `framework` cannot run on `backend` here (None: it can)."""
    if framework in NODE_FRAMEWORKS:
        return node_reason(backend)
    if framework == "cases-browser":
        return browser_reason(backend)
    return None


def browser_reason(backend: str) -> str | None:
    """Why the browser cases cannot run on `backend`: no Chromium on the host, or no browser
    image."""
    if backend == "docker":
        try:
            from runners.sandbox.docker.client import default_image, docker_client

            docker_client().images.get(default_image("browser"))
        except Exception as exc:  # noqa: BLE001 - no engine, no image: either way, no browser image
            return (
                f"the docker browser image is not available ({exc}); `python -m runners image "
                "build --kind browser`"
            )
        return None
    from runners.cases.adapters.cdp import find_chromium

    return (
        None if find_chromium() else "Chromium is not installed (Debian: apt-get install chromium)"
    )


def node_reason(backend: str) -> str | None:
    """Why the vitest/jest cases cannot run on `backend` here (None: they can)."""
    if backend == "docker":
        try:
            from runners.sandbox.docker.backend import DockerSandbox
            from runners.sandbox.docker.client import docker_client

            docker_client().images.get(DockerSandbox().node_image)
        except Exception as exc:  # noqa: BLE001 - no engine, no image: either way, no node image
            return (
                f"the docker node image is not available ({exc}); `python -m runners image build`"
            )
        return None
    if not (shutil.which("node") and shutil.which("npm")):
        return "node and npm are not installed"
    return None


def classify(result: ExecutionResult, framework: str) -> str:
    if result.timed_out:
        return TIMEOUT
    if result.infrastructure_failure:
        return INFRA
    if result.problem_error:
        return PROBLEM
    names = TEST_NAMES[framework]
    if len(result.tests) == len(names) and all(t.passed for t in result.tests):
        return PASS
    return FAIL


def tree_digest(root: Path) -> dict[str, str]:
    """Content, mode and kind of everything under `root`, links never followed."""
    digest: dict[str, str] = {}
    if not root.exists():
        return {"": "missing"}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in [*dirnames, *filenames]:
            path = Path(dirpath, name)
            rel = str(path.relative_to(root))
            info = path.lstat()
            if path.is_symlink():
                digest[rel] = "link:" + os.readlink(path)
            elif (
                path.is_file() and info.st_size > 16 * 1024 * 1024
            ):  # a 64 GiB sparse file: not read
                digest[rel] = (
                    f"{oct(info.st_mode)}:{info.st_size}:{info.st_blocks}:{info.st_mtime_ns}"
                )
            elif path.is_file():
                digest[rel] = f"{oct(info.st_mode)}:{hashlib.sha256(path.read_bytes()).hexdigest()}"
            else:
                digest[rel] = f"{oct(info.st_mode)}"
    return digest


def processes_marked(token: str) -> list[str]:
    """Live processes (not zombies) whose environment or command line carries `token`."""
    needle = token.encode()
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        data = {}
        for what in ("environ", "cmdline", "stat"):
            try:
                with open(f"/proc/{entry.name}/{what}", "rb") as handle:
                    data[what] = handle.read()
            except OSError:
                data[what] = b""
        if needle not in data["environ"] and needle not in data["cmdline"]:
            continue
        stat = data["stat"]
        state = stat[stat.rfind(b")") + 2 : stat.rfind(b")") + 3]
        if state in (b"Z", b"X", b""):
            continue
        command = data["cmdline"].replace(b"\0", b" ")[:120].decode(errors="replace")
        found.append(f"pid {entry.name}: {command}")
    return found


def direct_children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as handle:
                found += [int(c) for c in handle.read().split()]
    except OSError:
        pass
    return found


def lingering(token: str) -> list[str]:
    """The processes carrying `token` still alive after a few seconds (processes being killed need
    a moment to disappear)."""
    left: list[str] = []
    for _ in range(50):
        left = processes_marked(token)
        if not left:
            break
        time.sleep(0.1)
    return left


def containers_marked(token: str, remove: bool = True) -> list[str]:
    import docker

    from runners.sandbox.docker.client import docker_client
    from runners.sandbox.docker.sweep import LABEL_MANAGED

    api = docker_client().api
    found = []
    for summary in api.containers(all=True, filters={"label": f"{LABEL_MANAGED}=1"}):
        try:
            details = api.inspect_container(summary["Id"])
        except docker.errors.NotFound:
            continue  # removed meanwhile (another run's, finishing)
        env = (details.get("Config") or {}).get("Env") or []
        if any(entry.startswith(f"HOSTILE_MARKER={token}") for entry in env):
            found.append(f"container {summary['Id'][:12]} ({summary.get('State')})")
            if not remove:
                continue
            try:
                api.remove_container(summary["Id"], force=True)  # one leak must not cascade
            except docker.errors.APIError:
                pass
    return found


def containers_owned_by(pids: set[int]) -> list[str]:
    """Containers whose owner label names one of `pids` (a batch's workers)."""
    from runners.sandbox.docker.client import Engine
    from runners.sandbox.docker.sweep import LABEL_MANAGED, LABEL_OWNER

    found = []
    for summary in Engine().client.api.containers(
        all=True, filters={"label": f"{LABEL_MANAGED}=1"}
    ):
        owner = (summary.get("Labels") or {}).get(LABEL_OWNER, "").rsplit(":", 2)
        if len(owner) == 3 and owner[1].isdigit() and int(owner[1]) in pids:
            found.append(f"container {summary['Id'][:12]} ({summary.get('State')})")
    return found


def cache_digest() -> dict[str, tuple[int, int, int]]:
    """(size, mtime, mode) of every file of every *finished* toolchain in the default cache."""
    digest: dict[str, tuple[int, int, int]] = {}
    root = default_cache_dir()
    for env_dir in sorted(root.glob("*/*-*")) + sorted(root.glob("docker/*/*-*")):
        if not (env_dir / ".ready").is_file() or not env_dir.name.startswith(
            ("pytools-", "subenv-", "nodemods-", "case-tools-")
        ):
            continue
        for dirpath, dirnames, filenames in os.walk(env_dir, followlinks=False):
            for name in [*dirnames, *filenames]:
                try:
                    info = os.lstat(os.path.join(dirpath, name))
                except OSError:
                    continue
                digest[os.path.join(dirpath, name)] = (info.st_size, info.st_mtime_ns, info.st_mode)
    return digest


class World:
    """Everything a session of hostile runs shares; use as a context manager."""

    def __init__(self, backends: Iterable[str], root: Path | None = None) -> None:
        self.backends = list(backends)
        self.root = Path(root or tempfile.mkdtemp(prefix="hostile-world-")).resolve()
        self.hidden = f"HIDDEN-{SESSION}"
        self.abstract = f"runners-hostile-{SESSION}-{uuid.uuid4().hex[:6]}"
        self._servers: list[socket.socket] = []
        self._saved_env: str | None = None
        self._saved_workspace = None

    # ---- setup -------------------------------------------------------------------------------

    def __enter__(self) -> Self:
        root = self.root
        root.mkdir(parents=True, exist_ok=True)
        root.chmod(0o755)  # visible to any uid: only the sandbox may hide it
        self.canary_dir = root / "canary"
        self.escape = root / "escape"
        self.subs = root / "submissions"
        self.artifacts = root / "artifacts"
        for path in (self.canary_dir, self.escape, self.subs, self.artifacts):
            path.mkdir(exist_ok=True)
            path.chmod(0o755)
        self.escape.chmod(0o777)
        (self.canary_dir / "secret.txt").write_text(f"{CANARY}\n")
        (self.canary_dir / "secret.txt").chmod(0o644)
        (self.canary_dir / "victim.txt").write_text("do not change\n")
        (self.canary_dir / "victim.txt").chmod(0o666)
        self.problems = build_problems(root / "problems", self.hidden)
        self._listen()
        self._saved_env = os.environ.get(CANARY_ENV)
        os.environ[CANARY_ENV] = CANARY
        self._saved_workspace = runners.engine.protocol.Workspace
        runners.engine.protocol.Workspace = _TrackedWorkspace
        return self

    def __exit__(self, *exc: object) -> None:
        runners.engine.protocol.Workspace = self._saved_workspace or Workspace
        if self._saved_env is None:
            os.environ.pop(CANARY_ENV, None)
        else:
            os.environ[CANARY_ENV] = self._saved_env
        for server in self._servers:
            try:
                server.shutdown(socket.SHUT_RDWR)  # wakes the thread blocked in accept()
            except OSError:
                pass
            server.close()
        _restore_permissions(self.root)
        shutil.rmtree(self.root, ignore_errors=True)

    def _listen(self) -> None:
        path_sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        path_sock.bind(str(self.canary_dir / "harness.sock"))
        (self.canary_dir / "harness.sock").chmod(0o777)
        abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        abstract.bind("\0" + self.abstract)
        for server in (path_sock, abstract):
            server.listen(16)
            self._servers.append(server)
            threading.Thread(target=_serve_canary, args=(server,), daemon=True).start()

    # ---- one run -----------------------------------------------------------------------------

    def render(self, case: Case, backend: str, label: str, token: str) -> Path:
        sub = self.subs / f"{case.id}-{backend}-{label}"
        if sub.exists():
            _restore_permissions(sub)
            shutil.rmtree(sub)
        sub.mkdir(parents=True)
        values = {
            "@@TOKEN@@": token,
            "@@CANARY_DIR@@": str(self.canary_dir),
            "@@ESCAPE@@": str(self.escape),
            "@@HARNESS_DIR@@": str(HARNESS_DIR),
            "@@PROBLEM_DIR@@": str(self.problems[case.framework]),
            "@@SUBMISSION_SRC@@": str(sub),
            "@@ABSTRACT@@": self.abstract,
            "@@SESSION@@": SESSION,
        }
        for rel, content in case.files.items():
            path = sub / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
                continue
            for key, value in values.items():
                content = content.replace(key, value)
            path.write_text(content.lstrip("\n"), encoding="utf-8")
        (sub / f"hostile-{token}.txt").write_text("marks this run's workspace\n")
        if case.build is not None:
            case.build(sub)
        return sub

    def environment(
        self, case: Case, backend: str, token: str, wall: float | None = None
    ) -> EnvironmentSpec:
        limits = LIMITS[
            "pytest"
            if case.framework in PY_FRAMEWORKS
            else "cases"
            if case.framework.startswith("cases-")
            else "js"
        ]
        return EnvironmentSpec(
            sandbox=backend,
            env={"HOSTILE_MARKER": token},
            prepare_timeout=900,
            limits=limits.model_copy(update={"wall_timeout": wall or case.wall, **case.limits}),
        )

    def run_once(self, case: Case, backend: str, label: str = "a") -> Observation:
        token = f"hx{SESSION}{uuid.uuid4().hex[:12]}"
        sub = self.render(case, backend, label, token)
        problem = self.problems[case.framework]
        out_dir = self.artifacts / f"{case.id}-{backend}-{label}"
        before = self._sentinels(problem, sub)
        ident = threading.get_ident()
        with _created_lock:
            _created[ident] = []
        started = time.monotonic()
        obs = Observation(case.id, backend, "ERROR")
        try:
            result = run_checkpoint(
                problem,
                "checkpoint_1",
                sub,
                self.environment(case, backend, token),
                output_dir=out_dir,
            )
        except (
            UserInputError
        ) as exc:  # refused before anything ran: right only where the case says so
            result, obs.outcome, obs.reason = None, REFUSED, str(exc)
            if REFUSED not in case.expected(backend):
                obs.violations.append(f"refused as bad input: {exc}")
            elif case.reason and not _search(case.reason, " ".join(str(exc).split())):
                obs.violations.append(f"refusal {exc!r} does not match {case.reason!r}")
        except Exception:  # noqa: BLE001 - a hostile submission must never crash the harness
            obs.violations.append("the harness raised:\n" + traceback.format_exc(limit=6))
            result = None
        obs.elapsed = time.monotonic() - started
        if result is not None:
            obs.result = result
            obs.outcome = classify(result, case.framework)
            obs.reason = result.infrastructure_reason or result.problem_error_reason
            obs.statuses = {t.name: t.status for t in result.tests}
            obs.flags = list(result.flags)
        obs.violations += self._expectations(case, backend, obs)
        obs.violations += self._aftermath(
            case, backend, token, sub, problem, out_dir, before, ident, obs
        )
        return obs

    def run(self, case: Case, backend: str) -> Observation:
        """The case on one backend: twice at once for a pair; then a sanity run if disruptive."""
        try:
            return self._run(case, backend)
        except Exception:  # noqa: BLE001 - the suite's own failure: reported on the case, not raised
            return Observation(
                case.id,
                backend,
                "ERROR",
                violations=["the hostile suite failed:\n" + traceback.format_exc(limit=6)],
            )

    def _run(self, case: Case, backend: str) -> Observation:
        if backend in case.skip_on:
            return Observation(case.id, backend, "SKIP", note=case.skip_on[backend])
        if case.pair:
            with ThreadPoolExecutor(max_workers=2) as pool:
                first, second = pool.map(
                    lambda label: self.run_once(case, backend, label), ("a", "b")
                )
            obs = first
            obs.violations += [f"second copy: {v}" for v in second.violations]
            if second.outcome != first.outcome:
                obs.outcome = f"{first.outcome}/{second.outcome}"
            obs.elapsed = max(first.elapsed, second.elapsed)
        else:
            obs = self.run_once(case, backend)
        if case.disruptive:
            honest = BY_ID[HONEST_BY_FRAMEWORK[case.framework]]
            after = self.run_once(honest, backend, label=f"after-{case.id}")
            if after.outcome != PASS or after.violations:
                obs.violations.append(
                    f"the next run of the honest submission did not pass: {after.outcome} "
                    f"{after.reason or ''} {after.violations}"
                )
            obs.note = (
                (obs.note + " next honest run passed").strip()
                if after.outcome == PASS
                else obs.note
            )
        return obs

    # ---- checks ------------------------------------------------------------------------------

    def _sentinels(self, problem: Path, sub: Path) -> dict[str, object]:
        return {
            "problem directory": tree_digest(problem),
            "submission directory": tree_digest(sub),
            "canary directory": tree_digest(self.canary_dir),
            "escape directory": tree_digest(self.escape),
        }

    def _expectations(self, case: Case, backend: str, obs: Observation) -> list[str]:
        problems: list[str] = []
        result = obs.result
        if result is None:
            return problems
        expected = case.expected(backend)
        if obs.outcome not in expected:
            why = "; ".join(
                f"{t.name}: {t.first_message_line[:200]}" for t in result.tests if not t.passed
            )
            problems.append(
                f"outcome {obs.outcome} ({obs.reason or 'no reason'}) is not one of "
                f"{sorted(expected)}; statuses {obs.statuses}; {why}"
            )
        if obs.outcome == FAIL and case.statuses is not None and obs.statuses != case.statuses:
            problems.append(f"statuses {obs.statuses} differ from the true result {case.statuses}")
        if obs.outcome in (INFRA, TIMEOUT):
            if not result.infrastructure_reason:
                problems.append("an infrastructure failure without a reason")
            elif case.reason and not _search(case.reason, result.infrastructure_reason):
                problems.append(
                    f"reason {result.infrastructure_reason!r} does not match {case.reason!r}"
                )
        if obs.outcome == PROBLEM:
            if not result.problem_error_reason:
                problems.append("a problem error without a reason")
            elif case.reason and not _search(case.reason, result.problem_error_reason):
                problems.append(
                    f"problem error {result.problem_error_reason!r} does not match {case.reason!r}"
                )
            if result.tests:
                problems.append("a problem error that still carries test results (a grade)")
        if case.broken and obs.outcome == INFRA:
            problems.append("a merely broken submission got an infrastructure failure")
        if obs.outcome != PASS and any(
            result.passes_policy(p) for p in ("all-cases", "all-non-error-cases")
        ):
            problems.append(f"the pass policy passes a run whose outcome is {obs.outcome}")
        for pattern in case.flags:
            if not any(_search(pattern, flag) for flag in result.flags):
                problems.append(f"no flag matches {pattern!r} (flags: {result.flags})")
        if ("unsandboxed" in result.flags) != (result.sandbox == "none"):
            problems.append(f"the unsandboxed flag is wrong for {result.sandbox}: {result.flags}")
        if result.sandbox != backend and not (
            backend == "auto" and result.sandbox in ("docker", "bubblewrap")
        ):
            problems.append(f"ran under {result.sandbox}, not {backend}")
        try:
            again = ExecutionResult.model_validate_json(result.model_dump_json())
            if again.tests != result.tests:
                problems.append("the result JSON does not read back the same")
        except Exception as exc:  # noqa: BLE001
            problems.append(f"the result JSON does not read back: {exc}")
        if case.check is not None:
            problems += case.check(obs)
        return problems

    def _aftermath(
        self,
        case: Case,
        backend: str,
        token: str,
        sub: Path,
        problem: Path,
        out_dir: Path,
        before: dict[str, object],
        ident: int,
        obs: Observation,
    ) -> list[str]:
        problems: list[str] = []
        if obs.elapsed > case.wall + GRACE:
            problems.append(
                f"took {obs.elapsed:.1f} s, over the wall clock {case.wall:g} s + {GRACE:g} s grace"
            )
        left = lingering(token)
        if left:
            problems.append(f"processes left behind: {left[:5]}")
        if backend == "docker" or (obs.result is not None and obs.result.sandbox == "docker"):
            containers = containers_marked(token)
            if containers:
                problems.append(f"containers left behind: {containers}")
        with _created_lock:
            created = _created.pop(ident, [])
        leaked = [str(path) for path in created if path.exists()]
        if leaked:
            problems.append(f"workspaces left behind: {leaked}")
        after = self._sentinels(problem, sub)
        for name, digest in before.items():
            if after[name] != digest:
                changed = sorted(set(digest.items()) ^ set(after[name].items()))[:4]  # type: ignore[union-attr]
                problems.append(f"the {name} changed: {changed}")
        for trap in (
            f"/etc/hostile-{token}",
            f"/usr/hostile-{token}",
            f"/root/hostile-{token}",
            f"/hostile-{token}",
            f"/var/tmp/hostile-{token}",
            f"/tmp/hostile-{token}",
            f"{HARNESS_DIR}/hostile_{token}.py",
            f"/tmp/hostile-pair-{SESSION}",
            "/tmp/fill-0.bin",
        ):
            if os.path.lexists(trap):
                problems.append(f"the run created {trap} on the host")
                try:
                    os.unlink(trap)
                except OSError:
                    pass
        if obs.result is not None and CANARY in obs.result.model_dump_json():
            problems.append("the canary secret is in the result")
        for path in out_dir.rglob("*") if out_dir.exists() else []:
            if path.is_file() and not path.is_symlink() and CANARY.encode() in path.read_bytes():
                problems.append(f"the canary secret is in the artifact {path.name}")
        return problems

    # ---- the crash of the harness itself (§6.25) ----------------------------------------------

    def run_harness_crash(self, backend: str) -> Observation:
        """SIGKILL a harness process and its direct children mid-run: within seconds, before any
        other harness starts, nothing of the run may be left; the next start then passes."""
        return self._guarded("harness-crash", backend, self._harness_crash)

    def _harness_crash(self, backend: str) -> Observation:
        case = BY_ID["sigterm-ignoring-spin"]
        token = f"hx{SESSION}{uuid.uuid4().hex[:12]}"
        sub = self.render(case, backend, "crash", token)
        obs = Observation("harness-crash", backend, "ERROR")
        child = subprocess.Popen(
            [
                sys.executable,
                "-c",
                CRASH_CHILD,
                backend,
                str(self.problems["pytest"]),
                str(sub),
                token,
            ],
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        started = time.monotonic()
        while time.monotonic() - started < 120 and child.poll() is None:
            if [p for p in processes_marked(token) if f"pid {child.pid}:" not in p]:
                break
            time.sleep(0.2)
        time.sleep(1.0)  # let the sandbox settle into its spin
        running = child.poll() is None
        crashed = _workspaces_of(token)
        # Its direct children first, as a Ray worker does when it exits (a force-cancelled task):
        # nothing of the run may depend on them to clean up.
        for pid in direct_children(child.pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        child.kill()
        stderr = child.communicate(timeout=30)[1].decode(errors="replace")
        if not running:
            obs.violations.append(
                f"the child harness ended before it could be killed: {stderr[-1500:]}"
            )
            return obs
        killed = time.monotonic()
        left_now = _leftovers(token, [child.pid], crashed, backend)
        while left_now and time.monotonic() - killed < AFTER_KILL:
            time.sleep(0.2)
            left_now = _leftovers(token, [child.pid], crashed, backend)
        gone_in = time.monotonic() - killed
        if left_now:
            obs.violations.append(
                f"{AFTER_KILL:g} s after the kill, before any other harness started: {left_now[:4]}"
            )
        # The next harness start: a fresh process runs the honest submission (and sweeps).
        honest = BY_ID["honest-reference"]
        next_token = f"hx{SESSION}{uuid.uuid4().hex[:12]}"
        next_sub = self.render(honest, backend, "after-crash", next_token)
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                CRASH_CHILD,
                backend,
                str(self.problems["pytest"]),
                str(next_sub),
                next_token,
                "report",
            ],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        obs.elapsed = time.monotonic() - started
        obs.outcome = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else "ERROR"
        if obs.outcome != PASS:
            obs.violations.append(
                f"the next harness run did not pass: {done.stdout[-800:]} {done.stderr[-1500:]}"
            )
        left = lingering(token)
        if left:
            obs.violations.append(
                f"processes of the crashed run left after the next start: {left[:4]}"
            )
        if backend == "docker":
            containers = containers_marked(token)
            if containers:
                obs.violations.append(
                    f"containers of the crashed run left after the next start: {containers}"
                )
        groups = [str(g) for g in Path("/sys/fs/cgroup").glob(f"**/runners/*-{child.pid}-??????")]
        if groups:
            obs.violations.append(
                f"cgroups of the crashed run left after the next start: {groups[:3]}"
            )
        remaining = [str(p) for p in crashed if p.exists()]
        if remaining:
            obs.violations.append(
                f"the crashed run's workspace was not removed by the next start: {remaining}"
            )
            for path in remaining:
                _restore_permissions(Path(path))
                shutil.rmtree(path, ignore_errors=True)
        obs.note = (
            f"everything of the run ({len(crashed)} workspace(s)) gone {gone_in:.1f} s after the "
            "kill"
            if not left_now
            else f"{len(left_now)} thing(s) of the run left until the next start"
        )
        return obs

    # ---- the crash of a batch, its workers running cells ----------------------------------------

    def run_batch_crash(self, backend: str) -> Observation:
        """SIGKILL `runners batch -j 2` while both workers run a spinning cell: within seconds, its
        workers, their sandboxes, workspaces, cgroups and containers and its own scratch root are
        gone (no worker goes on with its cell)."""
        return self._guarded("batch-crash", backend, self._batch_crash)

    def _batch_crash(self, backend: str) -> Observation:
        case = BY_ID["sigterm-ignoring-spin"]
        obs = Observation("batch-crash", backend, "ERROR")
        root = self.root / f"batch-crash-{backend}"
        tokens = []
        for agent in ("a", "b"):
            token = f"hx{SESSION}{uuid.uuid4().hex[:12]}"
            shutil.copytree(
                self.render(case, backend, f"batch-{agent}", token),
                root / "submissions" / agent / "hostile_calc" / "checkpoint_1",
            )
            tokens.append(token)
        scratch_before = set(Path(tempfile.gettempdir()).glob("runners-batch-*"))
        log = root / "batch.log"
        with open(log, "wb") as out:
            batch = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "runners",
                    "batch",
                    "--problems",
                    str(self.problems["pytest"].parent),
                    "--problem",
                    "hostile_calc",
                    "--submissions",
                    str(root / "submissions"),
                    "-j",
                    "2",
                    "--sandbox",
                    backend,
                    "--wall-timeout",
                    "120",
                    "-o",
                    str(root / "out"),
                ],
                cwd=REPO,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        started = time.monotonic()
        while time.monotonic() - started < 180 and batch.poll() is None:
            if all(processes_marked(token) for token in tokens):
                break
            time.sleep(0.5)
        time.sleep(1.0)
        if batch.poll() is not None or not all(processes_marked(token) for token in tokens):
            batch.kill()
            obs.violations.append(
                f"the two cells did not both start: {log.read_text(errors='replace')[-1500:]}"
            )
            return obs
        tree = process_tree(batch.pid)  # the workers, their janitors' launchers, the sandboxes
        scratch = [
            p
            for p in Path(tempfile.gettempdir()).glob("runners-batch-*")
            if p not in scratch_before
        ]
        workspaces = [w for token in tokens for w in _workspaces_of(token, scratch)]
        batch.kill()
        batch.wait()
        killed = time.monotonic()

        def left() -> list[str]:
            found = [f"pid {p}" for p, start in tree.items() if start_time(p) == start]
            found += [
                item for token in tokens for item in _leftovers(token, list(tree), [], backend)
            ]
            if backend == "docker":
                found += containers_owned_by(set(tree))
            return found + [str(p) for p in [*workspaces, *scratch] if p.exists()]

        remaining = left()
        while remaining and time.monotonic() - killed < AFTER_KILL:
            time.sleep(0.2)
            remaining = left()
        obs.elapsed = time.monotonic() - started
        if remaining:
            obs.violations.append(f"{AFTER_KILL:g} s after the batch was killed: {remaining[:6]}")
            for pid, start in tree.items():  # one leak must not cascade into the next cases
                if start_time(pid) == start:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except OSError:
                        pass
        obs.outcome = PASS if not remaining else FAIL
        obs.note = (
            f"{len(tree)} process(es), {len(workspaces)} workspace(s) and the batch's scratch "
            f"directory gone {time.monotonic() - killed:.1f} s after the kill"
        )
        return obs

    # ---- a full workspace file system, an alias bomb in a problem's config ----------------------

    def run_full_workspace(self, backend: str) -> Observation:
        """`runners run` with its workspaces on a 2 MiB tmpfs and a 5 MiB submission: exit 3 and a
        message naming the file system, no traceback, nothing left on it."""
        return self._guarded("workspace-fs-full", backend, self._full_workspace)

    def _full_workspace(self, backend: str) -> Observation:
        obs = Observation("workspace-fs-full", backend, "ERROR")
        if os.geteuid() != 0:
            obs.violations.append("mounting a small tmpfs needs root")
            return obs
        token = f"hx{SESSION}{uuid.uuid4().hex[:12]}"
        sub = self.render(BY_ID["honest-reference"], backend, "full", token)
        (sub / "blob.bin").write_bytes(os.urandom(5 << 20))
        mount = self.root / f"small-{backend}"
        mount.mkdir(exist_ok=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mount)], check=True)
        try:
            started = time.monotonic()
            done = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "runners",
                    "run",
                    str(self.problems["pytest"]),
                    "-c",
                    "checkpoint_1",
                    "-s",
                    str(sub),
                    "--sandbox",
                    backend,
                    "--output",
                    str(self.artifacts / f"full-{backend}"),
                ],
                cwd=REPO,
                capture_output=True,
                text=True,
                timeout=300,
                check=False,
                env={**os.environ, "RUNNERS_WORKSPACE_DIR": str(mount), "COLUMNS": "400"},
            )
            obs.elapsed = time.monotonic() - started
            said = " ".join((done.stdout + done.stderr).split())
            obs.outcome = {3: INFRA, 2: REFUSED, 1: FAIL, 0: PASS}.get(
                done.returncode, f"exit {done.returncode}"
            )
            obs.reason = said[:300]
            if done.returncode != 3:
                obs.violations.append(
                    f"exit code {done.returncode}, not 3 (infrastructure failure): {said[-600:]}"
                )
            if f"no space left on the file system of {mount}" not in said or "Traceback" in said:
                obs.violations.append(
                    f"the message does not say the file system is full: {said[-600:]}"
                )
            left = list(mount.iterdir())
            if left:
                obs.violations.append(f"left on the full file system: {left[:3]}")
        finally:
            subprocess.run(["umount", "-l", str(mount)], check=False)
        return obs

    def run_yaml_bomb(self, backend: str) -> Observation:
        """`runners run` of a problem whose config.yaml is an alias bomb (in `tags`): refused at
        once (exit 2) naming the file, in bounded memory."""
        return self._guarded("yaml-alias-bomb", backend, self._yaml_bomb)

    def _yaml_bomb(self, backend: str) -> Observation:
        obs = Observation("yaml-alias-bomb", backend, "ERROR")
        problem = self.root / f"bomb-{backend}" / "hostile_bomb"
        shutil.copytree(self.problems["pytest"], problem)
        levels = ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"] + [
            f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 10) + "]"
            for i in range(8)
        ]
        config = (problem / "config.yaml").read_text(encoding="utf-8")
        (problem / "config.yaml").write_text(
            "\n".join(levels)
            + "\n"
            + "\n".join(
                line for line in config.splitlines() if not line.startswith(("tags:", "- hostile"))
            )
            + "\ntags: *i\n",
            encoding="utf-8",
        )
        sub = self.render(
            BY_ID["honest-reference"], backend, "bomb", f"hx{SESSION}{uuid.uuid4().hex[:12]}"
        )
        probe = textwrap.dedent("""
            import resource, subprocess, sys
            done = subprocess.run(sys.argv[1:], capture_output=True, text=True, timeout=120)
            peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
            print(done.returncode, peak)
            print(done.stdout + done.stderr)
        """)
        started = time.monotonic()
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                probe,
                sys.executable,
                "-m",
                "runners",
                "run",
                str(problem),
                "-c",
                "checkpoint_1",
                "-s",
                str(sub),
                "--sandbox",
                backend,
            ],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
            env={**os.environ, "COLUMNS": "400"},
        )
        obs.elapsed = time.monotonic() - started
        head, _, said = done.stdout.partition("\n")
        code, peak = (int(x) for x in head.split()) if head.strip() else (-1, -1)
        said = " ".join(said.split())
        obs.outcome = REFUSED if code == 2 else f"exit {code}"
        obs.reason = said[:300]
        if code != 2 or str(problem / "config.yaml") not in said or "alias bomb" not in said:
            obs.violations.append(
                f"not refused as bad input naming the file: exit {code}: {said[-600:]} "
                f"{done.stderr[-600:]}"
            )
        if obs.elapsed > 30 or peak > 400:
            obs.violations.append(f"took {obs.elapsed:.1f} s and {peak} MB to refuse it")
        obs.note = f"refused in {obs.elapsed:.1f} s, the harness at most {peak} MB"
        return obs

    def _guarded(self, row: str, backend: str, run: Callable[[str], Observation]) -> Observation:
        try:
            return run(backend)
        except Exception:  # noqa: BLE001 - the suite's own failure: reported on the row, not raised
            return Observation(
                row,
                backend,
                "ERROR",
                violations=["the hostile suite failed:\n" + traceback.format_exc(limit=6)],
            )

    def run_special(self, row: str, backend: str) -> Observation:
        """One of the rows that are not a submission's case (report.SPECIAL_ROWS)."""
        return {
            "harness-crash": self.run_harness_crash,
            "batch-crash": self.run_batch_crash,
            "workspace-fs-full": self.run_full_workspace,
            "yaml-alias-bomb": self.run_yaml_bomb,
        }[row](backend)

    # ---- many cases at once ---------------------------------------------------------------------

    def warm_up(
        self, frameworks: Iterable[str] = tuple(HONEST_BY_FRAMEWORK)
    ) -> dict[tuple[str, str], str]:
        """Build every toolchain once (cold builds must not count against a case's wall clock).
        Returns what failed, {(framework, backend): why}; those cases then fail on their own."""
        wanted = [
            BASE_FRAMEWORK.get(name, name) for name in frameworks
        ]  # a broken problem: its base's toolchain
        failed: dict[tuple[str, str], str] = {}

        def warm(backend: str) -> None:
            for framework, case_id in HONEST_BY_FRAMEWORK.items():
                if framework not in wanted or framework_reason(framework, backend):
                    continue
                obs = self.run_once(BY_ID[case_id], backend, label="warm")
                if obs.outcome != PASS:
                    failed[(framework, backend)] = (
                        f"{obs.outcome} {obs.reason or ''} {obs.violations}"
                    )

        with ThreadPoolExecutor(max_workers=len(self.backends) or 1) as pool:
            list(pool.map(warm, self.backends))
        return failed

    def run_matrix(
        self,
        cases: Iterable[Case],
        workers: int = 6,
        crash: bool = True,
        only: set[tuple[str, str]] | None = None,
        specials: list[tuple[str, str]] | None = None,
    ) -> list[Observation]:
        """Every case on every backend of the world (or only the `only` pairs), `workers` at a
        time; plus the rows that are not a submission's case, `specials` as (row, backend)
        (default: every one on every backend, if `crash`)."""
        jobs = [
            (case, backend)
            for case in cases
            for backend in self.backends
            if only is None or (case.id, backend) in only
        ]
        # the long ones first, so the tail of the run is short
        jobs.sort(
            key=lambda job: (
                -(job[0].wall if job[0].disruptive or job[0].pair else 0),
                job[0].framework not in PY_FRAMEWORKS,
            )
        )
        if specials is None:
            specials = (
                [(row, backend) for row in SPECIAL_IDS for backend in self.backends]
                if crash
                else []
            )
        with ThreadPoolExecutor(max_workers=workers) as pool:
            special_futures = [
                pool.submit(self.run_special, row, backend) for row, backend in specials
            ]
            futures = [pool.submit(self.run, case, backend) for case, backend in jobs]
            return [f.result() for f in futures] + [f.result() for f in special_futures]


# The rows that are not a submission's case (report.SPECIAL_ROWS describes them).
SPECIAL_IDS = ("harness-crash", "batch-crash", "workspace-fs-full", "yaml-alias-bomb")
# After a harness is killed, everything of its run must be gone within this (runners.util.janitor).
AFTER_KILL = 10.0


def _workspaces_of(token: str, bases: Iterable[Path] = ()) -> list[Path]:
    """The workspaces of a hostile run (its submission copy holds the run's marker file)."""
    return [
        p
        for base in (Path(tempfile.gettempdir()), Path("/dev/shm"), *bases)
        for p in base.glob("runners-*")
        if (p / "submission" / f"hostile-{token}.txt").exists()
    ]


def _leftovers(token: str, pids: list[int], workspaces: list[Path], backend: str) -> list[str]:
    """What of a killed harness's run is still there: processes, containers (left in place),
    cgroups named after one of `pids`, and `workspaces`."""
    found = [*processes_marked(token), *(str(p) for p in workspaces if p.exists())]
    found += [
        str(g) for pid in pids for g in Path("/sys/fs/cgroup").glob(f"*/runners/*-{pid}-??????")
    ]
    found += [
        str(g) for pid in pids for g in Path("/sys/fs/cgroup").glob(f"runners/*-{pid}-??????")
    ]
    if backend == "docker":
        found += containers_marked(token, remove=False)
    return found


CRASH_CHILD = textwrap.dedent("""
    import sys
    from runners import EnvironmentSpec, run_checkpoint
    from runners.model.limits import ResourceLimits
    backend, problem, sub, token = sys.argv[1:5]
    limits = ResourceLimits(memory_mb=512, pids=128, cpus=1.0, nofile=256, wall_timeout=90)
    result = run_checkpoint(problem, "checkpoint_1", sub,
                            EnvironmentSpec(sandbox=backend, env={"HOSTILE_MARKER": token}, \
limits=limits))
    passed = not result.infrastructure_failure and result.tests and all(t.passed for t in \
result.tests)
    print("PASS" if passed else ("INFRA" if result.infrastructure_failure else "FAIL"))
""")


def _serve_canary(server: socket.socket) -> None:
    while True:
        try:
            conn, _ = server.accept()
        except OSError:
            return
        try:
            conn.sendall(CANARY.encode())
        except OSError:
            pass
        finally:
            conn.close()


def _search(pattern: str, text: str) -> bool:
    import re

    return re.search(pattern, text) is not None


def _restore_permissions(root: Path) -> None:
    for dirpath, dirnames, _ in os.walk(root):
        for name in dirnames:
            try:
                Path(dirpath, name).chmod(0o755)
            except OSError:
                pass
