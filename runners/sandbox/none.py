"""`none`: a plain host process. No isolation; used only when asked for by name.

Still does what it can: an allow-listed environment, a wall clock, capped output, per-process
rlimits, and a supervisor that kills the whole process tree (daemons included) at the end.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from runners.sandbox.base import Sandbox, SandboxRequest, SandboxResult, register_sandbox
from runners.sandbox.process import apply_rlimits, run_process

REAPER = Path(__file__).with_name("reaper.py")
MB = 1024 * 1024


@register_sandbox
class NoSandbox(Sandbox):
    name = "none"
    isolated = False
    remaps_paths = False

    @classmethod
    def probe(cls) -> str | None:
        return None

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
