"""The CLI adapter: one process of the submission per case.

Input files are written into the workspace, the command is the submission's entry plus the
case's arguments, stdin is fed, the case's environment added; after the process exits (or its
timeout kills it, and everything it started) the tracked files are read back.
"""

from __future__ import annotations

import shlex

from ..files import InputFileWriteError, collect_tracked, materialize_input_files
from ..model import BaseCase, CLICase, CLIResult
from ..procs import run
from .base import Adapter


class CLIAdapter(Adapter):
    def run_case(self, case: BaseCase) -> CLIResult:
        assert isinstance(case, CLICase)
        ids = {"id": case.id, "group": case.group, "group_type": case.group_type}
        args = shlex.split(" ".join(case.arguments)) if case.shell_split else list(case.arguments)
        argv = [*self.settings.entry, *args]
        command = shlex.join(argv)
        try:
            materialize_input_files(case.input_files, self.settings.workspace)
        except InputFileWriteError as exc:
            return CLIResult(
                **ids, status_code=-1, stderr=str(exc), adapter_error=True, command=command
            )
        done = run(
            argv,
            cwd=str(self.settings.workspace),
            env={**self.settings.env, **case.env},
            stdin=case.stdin.encode() if case.stdin is not None else None,
            timeout=self.timeout_for(case),
        )
        stderr = done.stderr.decode("utf-8", "replace")
        if done.dropped:
            stderr += f"\n[runners: {done.dropped} bytes of output over the cap were dropped]"
        if done.timed_out:
            stderr += (
                f"\n[runners: killed after the case's timeout of {self.timeout_for(case):g} s]"
            )
        return CLIResult(
            **ids,
            status_code=done.exit_code if done.exit_code is not None else -1,
            output=done.stdout.decode("utf-8", "replace"),
            stderr=stderr,
            timed_out=done.timed_out,
            elapsed=round(done.elapsed, 6),
            files=collect_tracked(self.settings.workspace, self.tracked(case)),
            command=command,
        )
