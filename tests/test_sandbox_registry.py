"""The sandbox registry: one list of names, backends imported on use, a broken backend named with
its cause, a sweep of every backend, and one way to tell whether a run's owner is alive."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap

import pytest

from runners.model.errors import InfrastructureError, UserInputError
from runners.sandbox import registry
from runners.sandbox.base import Sandbox, SandboxRequest, SandboxResult
from runners.util.processes import owner_alive, owner_gone, owner_label


def test_every_list_of_names_is_the_registry():
    from runners.model.environment import EnvironmentSpec

    assert registry.sandbox_choices()[:4] == ["auto", "docker", "bubblewrap", "none"]
    with pytest.raises(UserInputError, match=r"option --sandbox: 'vm' is not one of auto, docker"):
        registry.check_sandbox_name("vm")
    with pytest.raises(ValueError, match="'vm' is not one of auto"):
        EnvironmentSpec(sandbox="vm")


def test_a_backend_is_imported_only_when_used():
    code = textwrap.dedent("""
        import sys
        from runners.sandbox.registry import resolve_sandbox, sandbox_names
        sandbox_names()
        resolve_sandbox("none")
        print("runners.sandbox.docker.backend" in sys.modules, "docker" in sys.modules)
    """)
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.split() == ["False", "False"]


def test_a_backend_that_fails_to_import_says_why(monkeypatch, tmp_path):
    (tmp_path / "broken_backend.py").write_text("import no_such_module_here\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(registry.BUILTINS, "broken", "broken_backend:BrokenSandbox")
    with pytest.raises(InfrastructureError) as caught:
        registry.resolve_sandbox("broken")
    assert "'broken'" in str(caught.value) and "no_such_module_here" in str(caught.value)
    assert isinstance(caught.value.__cause__, ImportError)


class _Leftovers(Sandbox):
    name = "leftovers"
    swept = 0

    @classmethod
    def probe(cls) -> str | None:
        return None

    def run(self, request: SandboxRequest) -> SandboxResult:
        raise NotImplementedError

    def sweep_orphans(self) -> int:
        type(self).swept += 1
        return 3


def test_sweep_asks_every_usable_backend(monkeypatch):
    from runners.sandbox.base import SANDBOX_CLASSES

    monkeypatch.setitem(SANDBOX_CLASSES, "leftovers", _Leftovers)
    assert "leftovers" in registry.sandbox_names()
    assert registry.sweep_orphans(["none", "leftovers"]) == {"none": 0, "leftovers": 3}
    assert _Leftovers.swept == 1


def test_owner_alive_tells_a_reused_pid_from_its_owner():
    label = owner_label()
    host, pid, start = label.rsplit(":", 2)
    assert (host, int(pid)) == (socket.gethostname(), os.getpid())
    assert owner_alive(os.getpid(), start) and not owner_gone(label)
    assert not owner_alive(os.getpid(), str(int(start) + 1))  # same pid, another start: a reuse
    dead = subprocess.Popen(["true"])
    dead.wait()
    assert not owner_alive(dead.pid) and owner_gone(f"{host}:{dead.pid}:1")
    assert not owner_gone(f"another-host:{dead.pid}:1")  # not ours to judge
    assert not owner_gone("not a label")
