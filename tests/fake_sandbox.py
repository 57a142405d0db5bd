"""A sandbox that starts no process: engine tests in milliseconds.

`FakeSandbox` implements the `Sandbox` interface for `execute(..., sandbox=FakeSandbox(script))`.
Install steps (`purpose="prepare"`) lay out an empty environment where `uv venv` would; the test
step calls `script(step)`, which writes what the real test run would have written into the
reports directory — pytest-json-report signed with the run's one-time key, exactly as our pytest
plugin does (read the key file, delete it, HMAC the report), and the CTRF cross-check — and
returns the `SandboxResult` the backend would have. So the runner's and the engine's real code
judges the reports: signature, staleness, exit-code consistency, zero tests, timeouts.

It lives in tests/ because it fakes what only a test needs to script; the real contract is
`runners.sandbox.base.Sandbox`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runners.frameworks.pytest_runner import CTRF_REPORT, JSON_REPORT
from runners.plugins.runners_report_signature import (
    KEY_FILE_ENV,
    KEY_FILE_NAME,
    SIGNATURE_FIELD,
    sign,
)
from runners.sandbox.base import Sandbox, SandboxRequest, SandboxResult
from runners.toolchains.hosts import ToolchainHost
from runners.toolchains.tools import SubmissionTools

FILE = "tests/test_checkpoint_1.py"


@dataclass
class Case:
    """One test as pytest would report it."""

    nodeid: str
    outcome: str = "passed"  # passed | failed | skipped | xfailed | xpassed | error
    markers: list[str] = field(default_factory=list)
    message: str | None = None
    stdout: str = ""

    def json_report_entry(self) -> dict[str, Any]:
        phase = "setup" if self.outcome == "error" else "call"
        stages: dict[str, Any] = {
            p: {"duration": 0.001, "outcome": "passed"} for p in ("setup", "call", "teardown")
        }
        if self.outcome == "error":
            del stages["call"]
        if self.outcome in ("failed", "error"):
            message = self.message or "AssertionError: assert 1 == 2"
            stages[phase] = {
                "duration": 0.001,
                "outcome": "failed",
                "crash": {"message": message},
                "longrepr": f"def {self.nodeid.split('::')[-1]}():\nE   {message}",
            }
        elif self.outcome in ("skipped", "xfailed"):
            stages[phase] = {
                "duration": 0.0,
                "outcome": "skipped",
                "longrepr": repr((FILE, 1, f"Skipped: {self.message or 'not ready'}")),
            }
        if self.stdout:
            stages["call"]["stdout"] = self.stdout
        file = self.nodeid.split("::", 1)[0]
        return {
            "nodeid": self.nodeid,
            "lineno": 1,
            "outcome": self.outcome,
            **stages,
            "metadata": {"markers": self.markers, "file": file, "line": 2},
        }

    def ctrf_entry(self) -> dict[str, Any]:
        status = {"xfailed": "skipped", "xpassed": "passed", "error": "failed"}.get(
            self.outcome, self.outcome
        )
        return {"name": self.nodeid, "status": status, "duration": 1}


def json_report(cases: list[Case], exit_code: int) -> dict[str, Any]:
    return {
        "created": 0.0,
        "duration": 0.01,
        "exitcode": exit_code,
        "root": "/harness",
        "environment": {},
        "summary": {"collected": len(cases), "total": len(cases)},
        "collectors": [],
        "tests": [case.json_report_entry() for case in cases],
    }


def ctrf_report(cases: list[Case]) -> dict[str, Any]:
    return {
        "reportFormat": "CTRF",
        "specVersion": "0.0.0",
        "results": {
            "tool": {"name": "pytest"},
            "summary": {"tests": len(cases)},
            "tests": [case.ctrf_entry() for case in cases],
        },
    }


@dataclass
class Step:
    """The test step as the script sees it: the request and the host's reports directory."""

    request: SandboxRequest
    reports: Path

    def take_key(self) -> bytes | None:
        """What the plugin does first: read the one-time key and delete its file."""
        if KEY_FILE_ENV in self.request.env:
            path = self.host_path(self.request.env[KEY_FILE_ENV])
        else:  # pytest's plugin: beside the report (no variable names it)
            path = self.reports / KEY_FILE_NAME
        if not path.is_file():
            return None
        key = path.read_bytes()
        path.unlink()
        return key

    def host_path(self, inside: str) -> Path:
        return host_path(self.request, inside)

    def write(self, name: str, data: dict[str, Any] | bytes) -> None:
        blob = data if isinstance(data, bytes) else json.dumps(data).encode()
        (self.reports / name).write_bytes(blob)

    def pytest_reports(
        self,
        cases: list[Case],
        exit_code: int,
        *,
        signed: bool = True,
        ctrf: list[Case] | None = None,
    ) -> None:
        """Both reports of a pytest run, the JSON one signed with the run's key when `signed`."""
        report = json_report(cases, exit_code)
        key = self.take_key()
        if signed and key:
            report[SIGNATURE_FIELD] = sign(report, key)
        self.write(JSON_REPORT, report)
        self.write(CTRF_REPORT, ctrf_report(cases if ctrf is None else ctrf))


Script = Callable[[Step], SandboxResult]


def host_path(request: SandboxRequest, inside: str) -> Path:
    """The host path behind a path as the sandboxed process sees it (the deepest mount wins)."""
    for mount in sorted(request.mounts, key=lambda m: len(m.target), reverse=True):
        if inside == mount.target or inside.startswith(mount.target + "/"):
            return mount.source / os.path.relpath(inside, mount.target)
    raise AssertionError(f"{inside} is not mounted")


def pytest_run(cases: list[Case], exit_code: int | None = None, **result: Any) -> Script:
    """A script for a pytest run that reports `cases` truthfully (exit 1 when one failed)."""
    if exit_code is None:
        exit_code = 1 if any(c.outcome in ("failed", "error") for c in cases) else 0

    def script(step: Step) -> SandboxResult:
        step.pytest_reports(cases, exit_code)
        return SandboxResult(exit_code=exit_code, duration=0.01, **result)

    return script


class FakeToolchains(ToolchainHost):
    """The fake backend's toolchains: nothing is run to learn the interpreter or find uv."""

    def interpreter_identity(self, python: str) -> str:
        return f"fake-python {python}"

    def uv_binary(self) -> str:
        return "uv"

    def submission_tools(self, host_cache: Path) -> SubmissionTools:
        return SubmissionTools()


class FakeSandbox(Sandbox):
    name = "fake"
    remaps_paths = True

    def __init__(self, script: Script, *, isolated: bool = True) -> None:
        self.script = script
        self.isolated = isolated  # a class attribute on the real backends
        self.requests: list[SandboxRequest] = []

    @classmethod
    def probe(cls) -> str | None:
        return None

    def run(self, request: SandboxRequest) -> SandboxResult:
        self.requests.append(request)
        if request.purpose == "prepare":
            return self._install(request)
        reports = next(m.source for m in request.mounts if m.target.endswith("/reports"))
        return self.script(Step(request, reports))

    @property
    def test_request(self) -> SandboxRequest:
        return next(r for r in self.requests if r.purpose == "test")

    def _install(self, request: SandboxRequest) -> SandboxResult:
        """`uv venv TARGET` leaves a venv layout; `uv pip install` has nothing left to do."""
        if request.argv[1] == "venv":
            target = host_path(request, request.argv[-1])
            (target / "bin").mkdir(parents=True, exist_ok=True)
            (target / "lib" / "python3.12" / "site-packages").mkdir(parents=True, exist_ok=True)
        return SandboxResult(exit_code=0)


FakeSandbox.toolchains = FakeToolchains
