"""Run the hostile agents (agent_cases.py) through the real agent step and check every run.

One `AgentWorld` per session: a problem whose hidden tests and next specification carry markers,
a run directory holding another agent's snapshot and transcript, an escape directory, a secret in
the harness's environment, a variable passed by name, and a TCP server on every host address that
answers with the secret. `AgentWorld.run(case, backend)` runs one step and returns an Observation
whose violations say what went wrong:

- the step ended as the case expects (done, failed, timed out) within its time limit plus a grace;
- its snapshot has an empty `leaks.txt` (the agent's own account of what it reached) and the files
  the case must keep;
- no marker (hidden tests, later spec, other agents' secrets, the harness's secret) is in the
  snapshot, the transcript or the step record;
- no process or container of the step is left, nor its temporary directory;
- the problem, the other agent's snapshot and the escape directory are unchanged, and no file the
  agent tried to plant exists.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import traceback
import uuid
from pathlib import Path
from typing import Self

from support import make_problem, write_files

from runners.agents.chain import ensure_steps
from runners.agents.layout import RunLayout, StepRecord
from runners.agents.solve import AgentNotStarted, agent_sandbox, grade_step, guard
from runners.agents.spec import parse_agent
from runners.model.config import ProblemConfig
from runners.model.environment import EnvironmentSpec, default_cache_dir
from runners.model.errors import UserInputError
from runners.model.limits import ResourceLimits
from runners.model.problem_loader import load_problem

from .agent_cases import FAILED, NOT_STARTED, OK, PRELUDE, REFUSED, TIMED_OUT, AgentCase
from .harness import (
    CANARY,
    CANARY_ENV,
    SESSION,
    Observation,
    _restore_permissions,
    containers_marked,
    lingering,
    tree_digest,
)

GRACE = 20.0
LIMITS = ResourceLimits(memory_mb=512, pids=128, cpus=1.0, tmp_size_mb=64, output_bytes=256 * 1024)
HIDDEN, FUTURE = f"HIDDEN-{SESSION}", f"FUTURE-SPEC-{SESSION}"
OTHER_DONE, OTHER_LIVE = f"OTHER-DONE-{SESSION}", f"OTHER-LIVE-{SESSION}"
PASSED_BY_NAME = "API_KEY_GIVEN"
# What every step gets (base_env, the step's own), what the cases pass, and what the sandbox sets
# itself (a container's HOSTNAME, the python image's ENV, the working directory's PWD): the rest
# of the host's variables must not arrive.
GIVEN = {
    "PATH",
    "LANG",
    "LC_ALL",
    "HOME",
    "TMPDIR",
    PASSED_BY_NAME,
    "HOSTNAME",
    "PYTHONDONTWRITEBYTECODE",
    "PWD",
}


class AgentWorld:
    def __init__(self, root: Path | None = None) -> None:
        self.root = Path(root or tempfile.mkdtemp(prefix="hostile-agents-")).resolve()
        self._saved: dict[str, str | None] = {}
        self._server: socket.socket | None = None

    def __enter__(self) -> Self:
        self.root.chmod(0o755)
        problems = self.root / "problems"
        make_problem(
            problems,
            {
                "test_checkpoint_1.py": f"def test_one():\n    assert '{HIDDEN}'\n",
                "test_checkpoint_2.py": f"def test_two():\n    assert '{HIDDEN}'\n",
            },
            name="guarded",
            checkpoints=2,
        )
        write_files(
            problems / "guarded",
            {
                "checkpoint_1.md": "# Guarded\n\nWrite anything.\n",
                "checkpoint_2.md": f"# Later\n\n{FUTURE}\n",
            },
        )
        self.problem: ProblemConfig = load_problem(problems / "guarded")
        self.layout = RunLayout(self.root / "run")
        self.other = self.layout.snapshot("other", "guarded", "checkpoint_1")
        write_files(self.other, {"secret.txt": f"{OTHER_DONE}\n"})
        write_files(
            self.layout.step_dir("other", "guarded", "checkpoint_1"),
            {"stdout.txt": f"{OTHER_DONE}\n"},
        )
        self.escape = self.root / "escape"
        self.escape.mkdir()
        self.escape.chmod(0o777)
        for name, value in ((CANARY_ENV, CANARY), (PASSED_BY_NAME, "given-by-name")):
            self._saved[name] = os.environ.get(name)
            os.environ[name] = value
        self._listen()
        self._model = self._serve_once_each(b"HTTP/1.0 200 OK\r\nContent-Length: 8\r\n\r\nMODEL-OK")
        self.model_port = self._model.getsockname()[1]
        return self

    def __exit__(self, *exc: object) -> None:
        for name, value in self._saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        if self._server is not None:
            try:
                self._server.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self._server.close()
        if getattr(self, "_model", None) is not None:
            self._model.close()
        _restore_permissions(self.root)
        shutil.rmtree(self.root, ignore_errors=True)

    def _listen(self) -> None:
        server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        server.bind(("0.0.0.0", 0))
        server.listen(16)
        self.port = server.getsockname()[1]
        self._server = server

        def serve() -> None:
            while True:
                try:
                    conn, _ = server.accept()
                except OSError:
                    return
                with conn:
                    try:
                        conn.sendall(CANARY.encode())
                    except OSError:
                        pass

        threading.Thread(target=serve, daemon=True).start()

    def _serve_once_each(self, reply: bytes) -> socket.socket:
        """A server on the host's loopback (the allow-listed endpoint) that answers `reply`."""
        server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        server.bind(("127.0.0.1", 0))
        server.listen(16)

        def serve() -> None:
            while True:
                try:
                    conn, _ = server.accept()
                except OSError:
                    return
                with conn:
                    try:
                        conn.recv(4000)
                        conn.sendall(reply)
                    except OSError:
                        pass

        threading.Thread(target=serve, daemon=True).start()
        return server

    # ---- one run ------------------------------------------------------------------------------

    def environment(self, backend: str) -> EnvironmentSpec:
        return EnvironmentSpec(
            sandbox=backend, limits=LIMITS.model_copy(update={"wall_timeout": 120})
        )

    def _agent_dir(self, case: AgentCase, backend: str, token: str) -> Path:
        directory = self.root / "agents" / f"{case.id}-{backend}"
        shutil.rmtree(directory, ignore_errors=True)
        values = {
            "@@TOKEN@@": token,
            "@@PROBLEM@@": str(self.problem.path),
            "@@RUN@@": str(self.layout.root),
            "@@OTHER@@": str(self.other),
            "@@CACHE@@": str(default_cache_dir()),
            "@@ESCAPE@@": str(self.escape),
            "@@CANARY@@": CANARY,
            "@@PORT@@": str(self.port),
            "@@MODEL_PORT@@": str(self.model_port),
            "@@HOST_ADDRESSES@@": " ".join(_host_addresses()),
            "@@HOST_VARIABLES@@": " ".join(sorted(set(os.environ) - GIVEN)),
            "@@COPY@@": str(self.root / "copies" / f"{case.id}-{backend}" / "guarded"),
        }
        source = PRELUDE + f"open('marker-{token}', 'w').close()\n" + case.body
        for key, value in values.items():
            source = source.replace(key, value)
        write_files(directory, {"hostile_agent.py": source})
        return directory

    def run(self, case: AgentCase, backend: str) -> Observation:
        try:
            return self._run(case, backend)
        except Exception:  # noqa: BLE001 - the suite's own failure: reported on the case
            return Observation(
                case.id,
                backend,
                "ERROR",
                violations=["the suite failed:\n" + traceback.format_exc(limit=6)],
            )

    def _run(self, case: AgentCase, backend: str) -> Observation:
        if backend in case.skip_on:
            return Observation(case.id, backend, "SKIP", note=case.skip_on[backend])
        token = f"hx{SESSION}{uuid.uuid4().hex[:12]}"
        environment = self.environment(backend)
        mounts = {"agent": str(self._agent_dir(case, backend, token))}
        if case.mounts_problem_copy:
            mounts["copy"] = str(self._problem_copy(case, backend))
        spec = parse_agent(
            {
                "name": f"{case.id}-{backend}",
                "command": case.command or "{python} {mounts[agent]}/hostile_agent.py",
                "mounts": mounts,
                "pass_env": [PASSED_BY_NAME],
                "timeout": case.timeout,
                "network": {"allow": [f"127.0.0.1:{self.model_port}"]}
                if case.allow_list
                else case.network,
                "env": {
                    "HOSTILE_MARKER": token,
                    "NETWORK_EXPECTED": "yes" if case.network else "no",
                },
                "limits": LIMITS.model_dump(exclude_none=True),
            },
            "hostile agent",
        )
        before = self._sentinels()
        started = time.monotonic()
        try:  # what `solve`, `batch --agents` and the Promptfoo provider check before any step
            guard(spec, self.problem, self.layout, environment, f"agent {spec.name!r}")
        except UserInputError as exc:
            obs = Observation(
                case.id, backend, REFUSED, elapsed=time.monotonic() - started, reason=str(exc)
            )
            if case.expect != REFUSED:
                obs.violations.append(f"refused before the step: {exc}")
            if self.layout.step_dir(spec.name, self.problem.path.name, "checkpoint_1").exists():
                obs.violations.append("a step ran although the agent was refused")
            return obs
        if case.expect == REFUSED:
            return Observation(
                case.id, backend, "ran", violations=["the agent was not refused before its step"]
            )
        other = self._other_step(backend) if case.concurrent_other else None
        record = ensure_steps(
            spec,
            self.problem,
            self.problem.checkpoints["checkpoint_1"],
            self.layout,
            environment,
            agent_sandbox(spec, environment),
        )[-1]
        elapsed = time.monotonic() - started
        if other is not None:
            other.join(120)
        outcome = (
            NOT_STARTED
            if record.not_started
            else TIMED_OUT
            if record.timed_out
            else (FAILED if record.failed else OK)
        )
        obs = Observation(case.id, backend, outcome, elapsed=elapsed, reason=record.failure)
        obs.violations += self._check(case, record, token, elapsed, before)
        return obs

    def _problem_copy(self, case: AgentCase, backend: str) -> Path:
        """Another copy of the problem directory, outside the problems' parent (a second
        checkout)."""
        copy = self.root / "copies" / f"{case.id}-{backend}" / "guarded"
        shutil.rmtree(copy.parent, ignore_errors=True)
        shutil.copytree(self.problem.path, copy)
        return copy

    def _other_step(self, backend: str) -> threading.Thread:
        """Another agent's step, live while the case runs: a secret in its workspace and
        environment."""
        spec = parse_agent(
            {
                "name": f"other-live-{backend}-{uuid.uuid4().hex[:6]}",
                "command": ["sh", "-c", f"echo {OTHER_LIVE} > secret-live.txt; sleep 12"],
                "env": {"OTHER_MARK": OTHER_LIVE},
                "timeout": 60,
            },
            "other agent",
        )
        environment = self.environment(backend)
        thread = threading.Thread(
            target=ensure_steps,
            args=(
                spec,
                self.problem,
                self.problem.checkpoints["checkpoint_1"],
                self.layout,
                environment,
                agent_sandbox(spec, environment),
            ),
            daemon=True,
        )
        thread.start()
        time.sleep(2.0)  # its sandbox is up when the hostile agent starts looking
        return thread

    # ---- checks -------------------------------------------------------------------------------

    def _sentinels(self) -> dict[str, dict[str, str]]:
        return {
            "problem directory": tree_digest(self.problem.path),
            "other agent's snapshot": tree_digest(self.other),
            "escape directory": tree_digest(self.escape),
        }

    def _check(
        self,
        case: AgentCase,
        record: StepRecord,
        token: str,
        elapsed: float,
        before: dict[str, dict[str, str]],
    ) -> list[str]:
        problems: list[str] = []
        expected = {
            OK: "done",
            FAILED: "failed",
            TIMED_OUT: "timed out",
            NOT_STARTED: "not started",
        }[case.expect]
        got = (
            "not started"
            if record.not_started
            else "timed out"
            if record.timed_out
            else ("failed" if record.failed else "done")
        )
        if got != expected:
            problems.append(
                f"the step {got} ({record.failure}), expected {expected}; said: "
                f"{record.excerpt[:300]}"
            )
        snapshot = self.layout.snapshot(record.agent, record.problem, record.checkpoint)
        if case.expect == NOT_STARTED:
            if snapshot.exists():
                problems.append("an agent that never started left a snapshot (it would be graded)")
            try:
                grade_step(
                    self.problem,
                    self.problem.checkpoints["checkpoint_1"],
                    record,
                    self.layout,
                    self.environment(record.sandbox),
                )
                problems.append("an agent that never started was graded")
            except AgentNotStarted:
                pass
            return problems + self._aftermath(record, token, before)
        if elapsed > case.timeout + GRACE:
            problems.append(
                f"took {elapsed:.1f} s, over its limit of {case.timeout:g} s + {GRACE:g} s"
            )
        leaks = (snapshot / "leaks.txt").read_text() if (snapshot / "leaks.txt").is_file() else None
        if case.expect != TIMED_OUT and leaks is None:
            problems.append(
                "the agent left no leaks.txt (it did not finish its probes): "
                f"{record.excerpt[:300]}"
            )
        if leaks:
            problems.append(f"the agent reached what it must not: {leaks[:1500]}")
        if case.check is not None:
            problems += case.check(record)
        for name, content in case.check_files.items():
            found = (snapshot / name).read_text() if (snapshot / name).is_file() else None
            if found != content:
                problems.append(f"the snapshot's {name} is {found!r}, expected {content!r}")
        step_dir = self.layout.step_dir(record.agent, record.problem, record.checkpoint)
        for path in [*snapshot.rglob("*"), *step_dir.iterdir()]:
            if path.is_file() and not path.is_symlink():
                data = path.read_bytes()
                for marker in (HIDDEN, FUTURE, OTHER_DONE, OTHER_LIVE, CANARY):
                    if marker.encode() in data:
                        problems.append(
                            f"{marker.split('-')[0]} marker in {path.relative_to(self.layout.root)}"
                        )
        if case.id == "agent-floods-output":
            size = (step_dir / "stdout.txt").stat().st_size
            if not record.output_truncated or size > 2 * (LIMITS.output_bytes or 0) + 1000:
                problems.append(
                    f"the transcript is not capped: {size} bytes, "
                    f"truncated={record.output_truncated}"
                )
        return problems + self._aftermath(record, token, before)

    def _aftermath(
        self, record: StepRecord, token: str, before: dict[str, dict[str, str]]
    ) -> list[str]:
        """What no step may leave: processes, containers, its temporary directory, changed host
        files."""
        problems: list[str] = []
        left = lingering(token)
        if left:
            problems.append(f"processes left behind: {left[:5]}")
        if record.sandbox == "docker":
            containers = containers_marked(token)
            if containers:
                problems.append(f"containers left behind: {containers}")
        for base in (Path(tempfile.gettempdir()), Path("/dev/shm")):
            stale = [str(p) for p in base.glob(f"runners-*/submission/marker-{token}")]
            if stale:
                problems.append(f"the step's temporary directory was left: {stale}")
        after = self._sentinels()
        for name, digest in before.items():
            if after[name] != digest:
                problems.append(
                    f"the {name} changed: "
                    f"{sorted(set(digest.items()) ^ set(after[name].items()))[:4]}"
                )
        targets = [
            default_cache_dir(),
            self.layout.root,
            self.other,
            self.problem.path / "tests",
            self.escape,
            Path.home() / ".cache" / "runners",
        ]
        planted = [
            str(t / f"hostile-{token}") for t in targets if (t / f"hostile-{token}").exists()
        ]
        if (
            planted or (self.escape / "pwned").exists()
        ):  # a planted .pth: the cache digest (test) sees it
            problems.append(f"files planted on the host: {planted}")
        return problems


def _host_addresses() -> list[str]:
    try:
        out = subprocess.run(
            ["hostname", "-I"], capture_output=True, text=True, timeout=10, check=False
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return [a for a in out.split() if "." in a]
