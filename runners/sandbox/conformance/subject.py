"""The backend under test, as a check sees it: run a small Python script in it and read back what
the script found (`report(key=value)` inside, `Ran.facts` outside).

Paths: a backend that remaps paths sees each scratch directory at `/conformance/<name>`; one that
does not (`none`) sees the host path. The interpreter, its image and the read-only mounts it needs
come from the backend's toolchain host, as they do for a real run.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runners.model.limits import ResourceLimits
from runners.sandbox.base import Mount, Sandbox, SandboxRequest, SandboxResult, base_env

# Generous enough for an interpreter, small enough that a check's own limit is the one hit.
BASE_LIMITS = ResourceLimits(
    memory_mb=512,
    pids=128,
    cpus=1.0,
    file_size_mb=64,
    tmp_size_mb=64,
    nofile=1024,
    wall_timeout=60,
    output_bytes=256 * 1024,
)
FACT = "CONFORMANCE "
PRELUDE = (
    "import json as _json, os, sys\n"
    "def report(**facts):\n"
    f"    sys.stdout.write({FACT!r} + _json.dumps(facts) + '\\n')\n"
    "    sys.stdout.flush()\n"
)
REMAPPED_ROOT = "/conformance"


class CheckFailed(AssertionError):
    """A guarantee the backend did not keep; the message says what was seen."""


@dataclass
class Ran:
    """One sandboxed run of a check's script."""

    result: SandboxResult
    elapsed: float
    facts: dict[str, Any] = field(default_factory=dict)

    def evidence(self) -> str:
        r = self.result
        out = r.stdout[-400:].strip()
        err = r.stderr[-400:].strip()
        return (
            f" [exit {r.exit_code}, timed out {r.timed_out}, {self.elapsed:.1f} s"
            + (f", notes {r.notes}" if r.notes else "")
            + (f", stdout …{out!r}" if out else "")
            + (f", stderr …{err!r}" if err else "")
            + "]"
        )


def expect(condition: object, message: str, ran: Ran | None = None) -> None:
    if not condition:
        raise CheckFailed(message + (ran.evidence() if ran is not None else ""))


class Subject:
    """A backend instance and a scratch directory of the check's own (removed by `close`)."""

    def __init__(
        self, sandbox: Sandbox, python: str, image: str | None, tool_mounts: list[Mount]
    ) -> None:
        self.sandbox = sandbox
        self.python = python
        self.image = image
        self.tool_mounts = tool_mounts
        self.run_id = f"conformance-{uuid.uuid4().hex[:12]}"
        self.token = f"rconf{uuid.uuid4().hex}"  # marks the processes a check starts
        self.scratch = Path(tempfile.mkdtemp(prefix="runners-conformance-"))
        self.work = self.directory("work")
        (self.work / "home").mkdir()

    @classmethod
    def of(cls, sandbox: Sandbox) -> Subject:
        from runners.toolchains.hosts import toolchain_host

        host, python = toolchain_host(sandbox).for_python(None)
        return cls(sandbox, python, host.image_for("python"), host.interpreter_mounts(python))

    def close(self) -> None:
        shutil.rmtree(self.scratch, ignore_errors=True)

    # ---- paths -----------------------------------------------------------------------------------

    def directory(self, name: str) -> Path:
        path = self.scratch / name
        path.mkdir(parents=True, exist_ok=True)
        os.chmod(path, 0o755)  # the sandbox's user must reach it (a root harness's mkdtemp is 0700)
        return path

    def target(self, host: Path) -> str:
        """Where host directory `host` (a scratch directory) appears inside the sandbox."""
        if self.sandbox.remaps_paths:
            return f"{REMAPPED_ROOT}/{host.relative_to(self.scratch)}"
        return str(host)

    def mount(self, host: Path, writable: bool = False) -> Mount:
        return Mount(source=host, target=self.target(host), writable=writable)

    # ---- running ---------------------------------------------------------------------------------

    def request(
        self,
        script: str,
        *,
        args: tuple[str, ...] = (),
        limits: ResourceLimits | None = None,
        timeout: float = 30.0,
        network: bool = False,
        mounts: tuple[Mount, ...] = (),
        env: dict[str, str] | None = None,
        **extra: Any,
    ) -> SandboxRequest:
        """A test-step request for `script`: the work directory writable and the cwd, the
        allow-listed environment, the network off unless asked."""
        os.chmod(self.scratch, 0o755)
        (self.work / "check.py").write_text(PRELUDE + textwrap.dedent(script), encoding="utf-8")
        work = self.target(self.work)
        return SandboxRequest(
            argv=[self.python, "-I", f"{work}/check.py", *args],
            cwd=work,
            env={**base_env(), "HOME": f"{work}/home", **(env or {})},
            mounts=[self.mount(self.work, writable=True), *mounts, *self.tool_mounts],
            network=network,
            limits=limits or BASE_LIMITS,
            timeout=timeout,
            image=self.image,
            run_id=self.run_id,
            purpose="conformance",
            **extra,
        )

    def run(self, script: str, *, prepare: bool = False, **options: Any) -> Ran:
        return self.send(self.request(script, **options), prepare=prepare)

    def send(self, request: SandboxRequest, *, prepare: bool = False) -> Ran:
        started = time.monotonic()
        result = (self.sandbox.prepare if prepare else self.sandbox.run)(request)
        facts: dict[str, Any] = {}
        for line in result.stdout.splitlines():
            if line.startswith(FACT):
                try:
                    facts.update(json.loads(line[len(FACT) :]))
                except ValueError:
                    pass
        return Ran(result, time.monotonic() - started, facts)

    # ---- the harness's side ----------------------------------------------------------------------

    def marked(self) -> list[int]:
        """Live host processes (not zombies) whose command line carries this check's token."""
        return marked_processes(self.token)

    def wait_unmarked(self, seconds: float) -> list[int]:
        """Wait up to `seconds` for the marked processes to end; those still alive."""
        wait_for(lambda: not self.marked(), seconds)
        return self.marked()

    @contextmanager
    def harness_process(self, env: dict[str, str]) -> Iterator[subprocess.Popen[bytes]]:
        """A process of the harness's own, carrying the token on its command line and `env` in
        its environment: what the sandbox must not see."""
        proc = subprocess.Popen(
            [sys.executable, "-c", "import time; time.sleep(120)", self.token],
            env={**os.environ, **env},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            yield proc
        finally:
            proc.kill()
            proc.wait()


def marked_processes(token: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if token.encode() in cmdline and state not in ("Z", "X"):
            found.append(int(entry))
    return found


def kill_processes(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def wait_for(condition: Callable[[], object], seconds: float, step: float = 0.1) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return bool(condition())


@dataclass(frozen=True)
class Check:
    """One guarantee: `name` (group.what), the promise in a sentence, and the function that
    checks it against a `Subject` (raising `CheckFailed` with what it saw)."""

    name: str
    promise: str
    run: Callable[[Subject], None] = field(repr=False)

    @property
    def group(self) -> str:
        return self.name.partition(".")[0]
