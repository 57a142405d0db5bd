"""`none`: a plain host process. No isolation; used only when asked for by name.

Still does what it can: an allow-listed environment, a wall clock, capped output, per-process
rlimits, and a supervisor that kills the whole process tree (daemons included) at the end.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from runners.sandbox.base import Sandbox, SandboxRequest, SandboxResult
from runners.sandbox.process import apply_rlimits, run_process

REAPER = Path(__file__).with_name("reaper.py")
MB = 1024 * 1024


class NoSandbox(Sandbox):
    name = "none"
    isolated = False
    remaps_paths = False

    @classmethod
    def probe(cls) -> str | None:
        return None

    def limitations(self) -> dict[str, str]:
        host = "a host process, with the harness's user, files, processes and network"
        found = {
            "files.read_only_mount": (
                "no mounts: the command reads and writes host paths as the harness's user"
            ),
            "files.read_only_root": host,
            "files.private_tmp": "the host's /tmp",
            "limits.memory": "per-process rlimits only (file size, open files): no memory limit",
            "limits.memory_flagged": "no memory limit",
            "limits.pids": "per-process rlimits only: no process-count limit",
            "limits.cpu": "no CPU limit",
            "limits.tmp_size": "the host's /tmp",
            "network.off": "the host's network",
            "network.allow_list": (
                "no network namespace to hold the proxy (the agent step notes it)"
            ),
            "visibility.harness_processes": host,
            "visibility.host_paths": host,
        }
        if os.geteuid() == 0:
            found["visibility.privileges"] = "runs as the harness's user, root here"
        return found

    def run(self, request: SandboxRequest) -> SandboxResult:
        limits = request.limits
        return run_process(
            [sys.executable, "-I", str(REAPER), str(os.getpid()), *request.argv],
            cwd=request.cwd,
            env=request.env,
            timeout=request.timeout,
            output_cap=limits.output_bytes or 4 * MB,
            preexec_fn=lambda: apply_rlimits(limits),
            stop=request.stop,
            on_stdout=request.on_stdout,
        )
