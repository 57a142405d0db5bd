"""bubblewrap for real: network, filesystem, secrets, limits and cleanup."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest
from support import need, need_sandbox

from runners.model.limits import DEFAULT_LIMITS, ResourceLimits
from runners.sandbox.base import Mount, SandboxRequest, SandboxResult
from runners.sandbox.bubblewrap import BubblewrapSandbox
from runners.toolchains.hosts import host_interpreter_mounts

PYTHON = getattr(sys, "_base_executable", sys.executable)
CANARY = f"canary-{uuid.uuid4().hex}"


@pytest.fixture(scope="module")
def sandbox() -> BubblewrapSandbox:
    need_sandbox("bubblewrap")
    return BubblewrapSandbox()


def run(
    sandbox: BubblewrapSandbox,
    tmp_path: Path,
    script: str,
    *,
    timeout: float = 30,
    limits: ResourceLimits | None = None,
    marker: str = "",
) -> SandboxResult:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    (work / "script.py").write_text(textwrap.dedent(script))
    return sandbox.run(
        SandboxRequest(
            argv=[PYTHON, "-I", "/workspace/script.py", marker],
            cwd="/workspace",
            env={"PATH": "/usr/bin:/bin", "HOME": "/tmp/home"},
            mounts=[
                Mount(source=work, target="/workspace", writable=True),
                *host_interpreter_mounts(PYTHON),
            ],
            limits=limits or DEFAULT_LIMITS,
            timeout=timeout,
            run_id=f"test-{uuid.uuid4().hex[:8]}",
        )
    )


def leftovers(marker: str) -> str:
    return subprocess.run(
        ["pgrep", "-af", marker], capture_output=True, text=True, check=False
    ).stdout.strip()


def test_no_network_but_loopback_works(sandbox, tmp_path):
    result = run(
        sandbox,
        tmp_path,
        """
        import socket, threading
        try:
            socket.create_connection(("1.1.1.1", 53), timeout=3)
            print("egress: open")
        except OSError as exc:
            print("egress: blocked", exc.errno)
        try:
            socket.getaddrinfo("example.com", 443)
            print("dns: resolved")
        except OSError:
            print("dns: failed")
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        threading.Thread(target=lambda: server.accept()[0].sendall(b"pong"), daemon=True).start()
        print("loopback:", socket.create_connection(("127.0.0.1", port)).recv(4).decode())
    """,
    )
    assert result.exit_code == 0, result.stderr
    assert "egress: blocked" in result.stdout
    assert "dns: failed" in result.stdout
    assert "loopback: pong" in result.stdout


def test_writes_only_in_the_workspace_and_tmp(sandbox, tmp_path):
    result = run(
        sandbox,
        tmp_path,
        """
        import os
        for path in ["/etc/runners-probe", "/usr/runners-probe", "/workspace/ok.txt", "/tmp/ok.txt",
                     "/runners-probe", os.path.expanduser("~/probe")]:
            try:
                with open(path, "w") as handle:
                    handle.write("x")
                print("wrote", path)
            except OSError as exc:
                print("refused", path, exc.strerror)
        print("uid", os.getuid())
    """,
    )
    assert result.exit_code == 0, result.stderr
    assert "wrote /workspace/ok.txt" in result.stdout and "wrote /tmp/ok.txt" in result.stdout
    for path in ("/etc/runners-probe", "/usr/runners-probe", "/runners-probe"):
        assert f"refused {path}" in result.stdout
    assert not Path("/etc/runners-probe").exists()
    assert (tmp_path / "work" / "ok.txt").read_text() == "x"
    assert "uid 0" not in result.stdout


def test_harness_secrets_and_processes_are_invisible(sandbox, tmp_path, monkeypatch):
    monkeypatch.setenv("RUNNERS_CANARY_SECRET", CANARY)
    result = run(
        sandbox,
        tmp_path,
        f"""
        import os
        found = []
        for pid in os.listdir("/proc"):
            if pid.isdigit():
                try:
                    found.append(open(f"/proc/{{pid}}/environ", "rb").read())
                except OSError:
                    pass
        print("secret visible:",
              any(b"{CANARY}" in blob for blob in found) or "{CANARY}" in str(os.environ))
        print("processes:", sorted(int(p) for p in os.listdir("/proc") if p.isdigit()))
        print("home listing:", os.path.exists("/root/.ssh") or os.path.exists("/home"))
    """,
    )
    assert result.exit_code == 0, result.stderr
    assert CANARY not in result.stdout + result.stderr
    assert "secret visible: False" in result.stdout
    pids = eval(result.stdout.split("processes:")[1].splitlines()[0])
    assert max(pids) < 10  # a fresh pid namespace: only the sandbox's own few processes
    assert "home listing: False" in result.stdout


def test_memory_hog_is_stopped(sandbox, tmp_path):
    started = time.monotonic()
    result = run(
        sandbox,
        tmp_path,
        """
        chunks = []
        while True:
            chunks.append(bytearray(50 * 1024 * 1024))
    """,
        limits=DEFAULT_LIMITS.model_copy(update={"memory_mb": 256}),
        timeout=60,
    )
    assert result.exit_code != 0
    assert result.oom_killed or "MemoryError" in result.stderr
    assert time.monotonic() - started < 60


def test_fork_bomb_is_contained(sandbox, tmp_path):
    marker = f"forkbomb-{uuid.uuid4().hex}"
    started = time.monotonic()
    result = run(
        sandbox,
        tmp_path,
        """
        import os, time
        children = 0
        try:
            while True:
                if os.fork() == 0:
                    time.sleep(60)
                    os._exit(0)
                children += 1
        except OSError as exc:
            print("fork refused after", children, exc.strerror)
    """,
        limits=DEFAULT_LIMITS.model_copy(update={"pids": 64}),
        timeout=30,
        marker=marker,
    )
    assert time.monotonic() - started < 30
    assert "fork refused after" in result.stdout, result.stderr
    assert int(result.stdout.split("after")[1].split()[0]) < 64
    assert leftovers(marker) == ""


@pytest.mark.slow
def test_infinite_loop_is_killed_at_the_wall_clock_with_its_daemons(sandbox, tmp_path):
    marker = f"loop-{uuid.uuid4().hex}"
    started = time.monotonic()
    result = run(
        sandbox,
        tmp_path,
        """
        import os, signal, subprocess, sys
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", sys.argv[1]],
                         start_new_session=True)
        while True:
            pass
    """,
        timeout=3,
        marker=marker,
    )
    elapsed = time.monotonic() - started
    assert result.timed_out and elapsed < 3 + 8
    time.sleep(0.3)
    assert leftovers(marker) == ""


def test_output_flood_is_capped_and_flagged(sandbox, tmp_path):
    result = run(
        sandbox,
        tmp_path,
        """
        import sys
        sys.stdout.write("head\\n")
        for _ in range(200):
            sys.stdout.write("x" * 100_000)
        sys.stdout.write("\\ntail\\n")
    """,
        limits=DEFAULT_LIMITS.model_copy(update={"output_bytes": 64 * 1024}),
    )
    assert result.exit_code == 0 and result.stdout_truncated
    assert result.stdout.startswith("head") and result.stdout.rstrip().endswith("tail")
    assert len(result.stdout) < 80 * 1024


def test_huge_file_is_refused(sandbox, tmp_path):
    result = run(
        sandbox,
        tmp_path,
        """
        try:
            with open("/workspace/big.bin", "wb") as handle:
                for _ in range(64):
                    handle.write(b"x" * (1024 * 1024))
            print("wrote all")
        except OSError as exc:
            print("refused", exc.strerror)
    """,
        limits=DEFAULT_LIMITS.model_copy(update={"file_size_mb": 8}),
    )
    assert "wrote all" not in result.stdout
    assert (tmp_path / "work" / "big.bin").stat().st_size <= 8 * 1024 * 1024


def test_sandbox_cgroups_are_removed(sandbox, tmp_path):
    run(sandbox, tmp_path, "print('hi')\n")
    for root in (
        Path("/sys/fs/cgroup/memory/runners"),
        Path("/sys/fs/cgroup/pids/runners"),
        Path("/sys/fs/cgroup/runners"),
    ):
        if root.is_dir():
            assert [
                p.name for p in root.iterdir() if p.is_dir() and p.name.startswith("test-")
            ] == []


def test_only_a_cpu_limit_that_limits_puts_a_run_under_the_cpu_controller():
    """Under the CPU controller a run's group is one scheduling entity, and `runners/` one for all
    runs: on a busy machine a run got a third of what the same processes got outside. Without a
    CPU limit below the machine's CPUs (the default, 2, on 2 cores) a run stays where a plain
    process is; a run that is limited gets its quota, and `runners/` weighs as many entities as it
    holds runs (bench/RESULTS.md, section 11, measures the CPU the runs get)."""
    from runners.sandbox.cgroups import ROOT, RunCgroup

    need(RunCgroup.usable(), "no write access to the cgroup tree (run as root)")
    unified = (ROOT / "cgroup.controllers").is_file()
    cpus = len(os.sched_getaffinity(0))
    name = f"test-{uuid.uuid4().hex[:8]}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
    free = RunCgroup.create(f"{name}a", ResourceLimits(memory_mb=64, pids=16, cpus=float(cpus)))
    capped = RunCgroup.create(f"{name}b", ResourceLimits(memory_mb=64, pids=16, cpus=0.5))
    assert free is not None and capped is not None
    try:
        if unified:
            assert (capped.dirs[0] / "cpu.max").read_text().split() == ["50000", "100000"]
            parent = ROOT / "runners"
            assert (
                not (free.dirs[0] / "cpu.max").is_file()
                or (free.dirs[0] / "cpu.max").read_text().split()[0] == "max"
            )
            runs = sum(1 for child in parent.iterdir() if child.is_dir())
            assert (parent / "cpu.weight").read_text().strip() == str(min(100 * runs, 10_000))
        else:
            assert not any(d.parent.parent.name == "cpu" for d in free.dirs)
            assert {d.parent.parent.name for d in free.dirs} == {"memory", "pids"}
            [cpu] = [d for d in capped.dirs if d.parent.parent.name == "cpu"]
            assert (cpu / "cpu.cfs_quota_us").read_text().strip() == "50000"
            runs = sum(1 for child in cpu.parent.iterdir() if child.is_dir())
            assert (cpu.parent / "cpu.shares").read_text().strip() == str(1024 * runs)
    finally:
        free.remove()
        capped.remove()


def test_probe_explains_a_missing_bwrap(monkeypatch):
    from runners.sandbox import bubblewrap

    bubblewrap._probe.cache_clear()
    monkeypatch.setattr(bubblewrap, "_bwrap", lambda: None)
    try:
        assert "apt-get install bubblewrap" in BubblewrapSandbox.probe()
    finally:
        bubblewrap._probe.cache_clear()
    assert os.environ.get("RUNNERS_CANARY_SECRET") is None


def test_kernel_calls_a_test_never_needs_are_refused(sandbox, tmp_path):
    """The seccomp filter: tracing, keyrings, new namespaces, mounts and eBPF fail with EPERM,
    while ordinary work (files, processes, threads, sockets on loopback) goes on."""
    result = run(
        sandbox,
        tmp_path,
        """
        import ctypes, os, subprocess, threading
        libc = ctypes.CDLL(None, use_errno=True)
        calls = {"ptrace": (101, 0, 0, 0, 0), "keyctl": (250, 1, 0, 0, 0),
                 "unshare": (272, 0x10000000), "mount": (165, b"none", b"/tmp", b"tmpfs", 0, None),
                 "bpf": (321, 0, 0, 0), "setns": (308, -1, 0)}
        for name, args in calls.items():
            ctypes.set_errno(0)
            ret = libc.syscall(*args)
            print(name, ret, os.strerror(ctypes.get_errno()) if ret == -1 else "allowed")
        threading.Thread(target=lambda: None).start()
        print("child:", subprocess.run(["/usr/bin/true"]).returncode)
        open("/workspace/ok.txt", "w").write("ok")
    """,
    )
    assert result.exit_code == 0, result.stderr
    for name in ("ptrace", "keyctl", "unshare", "mount", "bpf", "setns"):
        assert f"{name} -1 Operation not permitted" in result.stdout, result.stdout
    assert "child: 0" in result.stdout
    assert (tmp_path / "work" / "ok.txt").read_text() == "ok"
    assert not any("seccomp" in note for note in result.notes)
