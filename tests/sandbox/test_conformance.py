"""The sandbox conformance suite (`runners.sandbox.conformance`): every backend here keeps every
promise it makes, and the suite catches a backend that breaks one.

The per-backend runs are real (docker, bubblewrap, none, podman) and
`slow`: about a minute per backend. The suite's own behaviour is checked in seconds on `none` and
on deliberately broken subclasses of it.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from support import need_sandbox

from runners.cli import main
from runners.sandbox.base import SANDBOX_CLASSES, SandboxRequest, SandboxResult
from runners.sandbox.conformance import CHECKS, run_check, select_checks
from runners.sandbox.none import NoSandbox
from runners.sandbox.registry import resolve_sandbox

BACKENDS = [
    pytest.param("none", id="none"),
    pytest.param("bubblewrap", marks=pytest.mark.bubblewrap, id="bubblewrap"),
    pytest.param("docker", marks=pytest.mark.docker, id="docker"),
    # podman's Docker-compatible service (scripts/ci-podman.sh): the docker backend, subclassed
    pytest.param("podman", marks=pytest.mark.docker, id="podman"),
]
_sandboxes: dict[str, object] = {}


@pytest.mark.slow
@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.name)
@pytest.mark.parametrize("backend", BACKENDS)
def test_every_backend_keeps_every_promise_it_makes(backend, check):
    need_sandbox(backend)
    if backend not in _sandboxes:
        _sandboxes[backend] = resolve_sandbox(backend)
    sandbox = _sandboxes[backend]
    outcome = run_check(sandbox, check)
    if outcome.status == "not promised":
        pytest.skip(f"{backend} does not promise {check.name}: {outcome.detail}")
    assert outcome.status == "passed", f"{check.name}: {outcome.detail}"


class LeakySandbox(NoSandbox):
    """A broken backend: a plain child process, killed alone at the timeout, claiming everything."""

    name = "conformance-leaky"

    def limitations(self) -> dict[str, str]:
        return {}

    def run(self, request: SandboxRequest) -> SandboxResult:
        proc = subprocess.Popen(
            request.argv,
            cwd=request.cwd,
            env=request.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            out, err = proc.communicate(timeout=request.timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            proc.kill()  # the process, not its tree
            out, err = proc.communicate()
            timed_out = True
        return SandboxResult(
            exit_code=proc.returncode, stdout=out.decode(), stderr=err.decode(), timed_out=timed_out
        )


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("network.off", "interfaces besides loopback"),
        ("visibility.host_paths", "host paths that were not mounted are visible"),
        ("files.private_tmp", "the host's /tmp is visible"),
        pytest.param(
            "kill.timeout_tree",
            "processes of the run outlived the wall clock",
            marks=pytest.mark.slow,
        ),  # waits the 10 s a backend gets to reap
        ("limits.output", "not flagged truncated"),
    ],
)
def test_a_backend_that_breaks_a_promise_fails_that_check_saying_what_it_saw(name, said):
    [check] = select_checks([name])
    outcome = run_check(LeakySandbox(), check)
    assert outcome.status == "failed" and said in outcome.detail, outcome


def test_a_guarantee_the_backend_does_not_promise_is_said_and_not_run():
    runs: list[SandboxRequest] = []

    class Counting(NoSandbox):
        def run(self, request: SandboxRequest) -> SandboxResult:
            runs.append(request)
            return super().run(request)

    [memory] = select_checks(["limits.memory"])
    outcome = run_check(Counting(), memory)
    assert outcome.status == "not promised" and "no memory limit" in outcome.detail
    assert runs == []
    [output] = select_checks(["limits.output"])
    assert run_check(Counting(), output).status == "passed" and len(runs) == 1


def test_checks_are_chosen_by_name_or_group_and_an_unknown_one_is_refused():
    assert [c.name for c in select_checks(["limits.nofile", "network"])] == [
        "limits.nofile",
        "network.off",
        "network.on",
        "network.allow_list",
    ]
    assert len(select_checks()) == len(CHECKS) >= 25
    with pytest.raises(ValueError, match="'limit' names no conformance check"):
        select_checks(["limit"])


def test_one_command_checks_a_backend_registered_in_one_line(tmp_path, capsys):
    """A third-party backend: a subclass, one registration; `runners sandbox check NAME` runs
    the suite on it, says what failed or raised and exits 1; on `none`, exit 0 and the outcomes in
    JSON."""
    SANDBOX_CLASSES[LeakySandbox.name] = LeakySandbox  # what @register_sandbox does
    try:
        code = main(
            ["sandbox", "check", LeakySandbox.name, "--only", "network.off", "--only", "basics"]
        )
    finally:
        del SANDBOX_CLASSES[LeakySandbox.name]
    out = capsys.readouterr().out
    assert code == 1
    assert "failed  network.off" in out and "interfaces besides loopback" in out
    # Its Popen raises for a missing program: an error of the backend, not a failed run.
    assert "error  basics.missing_program" in out and "FileNotFoundError" in out
    assert "1 passed, 1 failed, 1 error" in out

    report = tmp_path / "none.json"
    assert (
        main(
            [
                "sandbox",
                "check",
                "none",
                "--only",
                "limits.output",
                "--only",
                "limits.memory",
                "--json",
                str(report),
            ]
        )
        == 0
    )
    outcomes = {o["name"]: o for o in json.loads(report.read_text())}
    assert outcomes["limits.output"]["status"] == "passed"
    assert outcomes["limits.memory"]["status"] == "not promised"


def test_bad_names_are_refused_before_anything_runs(capsys):
    assert main(["sandbox", "check", "nosuch"]) == 2
    assert "'nosuch' is not one of" in capsys.readouterr().err
    assert main(["sandbox", "check", "none", "--only", "nosuch"]) == 2
    assert "option --only: 'nosuch' names no conformance check" in capsys.readouterr().err
    assert main(["sandbox", "check", "auto"]) == 2


def test_every_check_cleans_its_scratch_directory(tmp_path, monkeypatch):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    for check in select_checks(["basics", "files.cwd"]):
        assert run_check(NoSandbox(), check).status == "passed"
    assert list(Path(tmp_path).iterdir()) == []
