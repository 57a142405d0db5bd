"""The docker backend for real: network, filesystem, secrets, limits, cleanup, prepare, end to end.

Every test uses the real engine and the real `runners-python` image (see conftest: skipped with a
reason when they are missing, failed under CI=true).
"""

from __future__ import annotations

import os
import subprocess
import textwrap
import time
import uuid
from pathlib import Path

import pytest
from support import make_problem, make_submission

from runners.model.limits import ResourceLimits
from runners.sandbox.base import Mount, SandboxResult

SANDBOX_LIMITS = ResourceLimits(
    memory_mb=512,
    pids=128,
    cpus=1.0,
    file_size_mb=64,
    tmp_size_mb=64,
    nofile=1024,
    wall_timeout=60,
    output_bytes=256 * 1024,
)

pytestmark = [pytest.mark.docker, pytest.mark.usefixtures("no_leftover_containers")]


def script_run(
    sandbox,
    make_request,
    tmp_path: Path,
    script: str,
    *,
    timeout: float = 30,
    limits: ResourceLimits | None = None,
    extra_mounts: list[Mount] | None = None,
    env: dict[str, str] | None = None,
) -> SandboxResult:
    """Run a Python script from a writable /workspace, as the test step would."""
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    (work / "script.py").write_text(textwrap.dedent(script))
    request = make_request(
        ["python3", "-I", "/workspace/script.py"],
        cwd="/workspace",
        mounts=[Mount(source=work, target="/workspace", writable=True), *(extra_mounts or [])],
        timeout=timeout,
        limits=limits,
        env=env or {},
    )
    return sandbox.run(request)


def host_can_delete(root: Path) -> bool:
    """Whether the harness can still remove everything a run wrote under `root`."""
    import shutil

    try:
        shutil.rmtree(root)
    except OSError:
        return False
    return not root.exists()


def lines_with(result: SandboxResult, prefix: str) -> list[str]:
    return [line for line in result.stdout.splitlines() if line.startswith(prefix)]


# ---- basics --------------------------------------------------------------------------------------


def test_exit_code_streams_and_profile(docker_sandbox, make_request):
    result = docker_sandbox.run(
        make_request(
            [
                "sh",
                "-c",
                """
        echo "uid=$(id -u) gid=$(id -g) home=$HOME"
        grep -E '^(CapEff|CapBnd|NoNewPrivs)' /proc/self/status
        touch "$HOME/ok" && echo home-writable
        echo to-stderr >&2
        exit 7""",
            ]
        )
    )
    assert result.exit_code == 7
    assert not result.timed_out and not result.oom_killed
    assert "uid=1000 gid=1000 home=/tmp/home" in result.stdout
    assert "CapEff:\t0000000000000000" in result.stdout
    assert "CapBnd:\t0000000000000000" in result.stdout
    assert "NoNewPrivs:\t1" in result.stdout
    assert "home-writable" in result.stdout
    assert result.stderr.strip() == "to-stderr"


def test_missing_command_is_a_failed_run_not_a_crash(docker_sandbox, make_request):
    result = docker_sandbox.run(make_request(["/no/such/binary", "x"]))
    assert result.exit_code == 127
    assert "/no/such/binary" in result.stderr


# ---- isolation -----------------------------------------------------------------------------------


def test_no_network_but_loopback_works(docker_sandbox, make_request, tmp_path):
    # The egress attempts are made only once the sandbox is shown to have no interface but `lo`,
    # so they fail inside the container (ENETUNREACH) and never put a packet on the wire.
    # 198.51.100.1 is a documentation address (TEST-NET-2).
    result = script_run(
        docker_sandbox,
        make_request,
        tmp_path,
        """
        import os, socket, threading
        interfaces = sorted(os.listdir("/sys/class/net"))
        print("interfaces:", ",".join(interfaces))
        if interfaces == ["lo"]:
            try:
                socket.create_connection(("198.51.100.1", 53), timeout=3)
                print("egress: open")
            except OSError as exc:
                print("egress: blocked", exc.errno)
            try:
                socket.getaddrinfo("example.com", 443)
                print("dns: resolved")
            except OSError as exc:
                print("dns: failed", exc)
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        def serve():
            conn, _ = server.accept()
            conn.sendall(b"pong")
            conn.close()
        threading.Thread(target=serve, daemon=True).start()
        client = socket.create_connection(server.getsockname(), timeout=5)
        print("loopback:", client.recv(4).decode())
    """,
    )
    assert result.exit_code == 0, result.stderr
    assert "interfaces: lo" in result.stdout
    assert "egress: blocked 101" in result.stdout  # ENETUNREACH
    assert "dns: failed" in result.stdout
    assert "loopback: pong" in result.stdout


def test_writes_outside_the_workspace_fail(docker_sandbox, make_request, tmp_path):
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_x.py").write_text("def test_x(): pass\n")
    before = (tests / "test_x.py").read_text()
    result = script_run(
        docker_sandbox,
        make_request,
        tmp_path,
        """
        for path in ["/etc/evil", "/usr/evil", "/harness/tests/evil", "/harness/tests/test_x.py",
                     "/evil", "/var/evil", "/workspace/out.txt", "/tmp/scratch"]:
            try:
                with open(path, "a") as handle:
                    handle.write("x")
                print("write", path, "ok")
            except OSError as exc:
                print("write", path, "denied", exc.strerror)
    """,
        extra_mounts=[Mount(source=tests, target="/harness/tests", writable=False)],
    )
    assert result.exit_code == 0, result.stderr
    for path in [
        "/etc/evil",
        "/usr/evil",
        "/harness/tests/evil",
        "/harness/tests/test_x.py",
        "/evil",
        "/var/evil",
    ]:
        assert f"write {path} denied" in result.stdout, result.stdout
    assert "write /workspace/out.txt ok" in result.stdout
    assert "write /tmp/scratch ok" in result.stdout
    assert (tmp_path / "work" / "out.txt").read_text() == "x"
    assert (tests / "test_x.py").read_text() == before and sorted(os.listdir(tests)) == [
        "test_x.py"
    ]
    # The harness can still read and remove what the sandbox wrote.
    assert host_can_delete(tmp_path / "work")


def test_harness_secrets_are_not_visible(docker_sandbox, make_request, tmp_path, monkeypatch):
    canary = f"canary-{uuid.uuid4().hex}"
    monkeypatch.setenv("RUNNERS_TEST_SECRET", canary)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", canary)
    script = """
        import glob, os
        seen = [f"{k}={v}" for k, v in os.environ.items()]
        for path in glob.glob("/proc/[0-9]*/environ"):
            try:
                seen.append(open(path, "rb").read().decode(errors="replace"))
            except OSError:
                pass
        print("\\n".join(seen))
        print("pids:", sorted(int(p.split("/")[2]) for p in glob.glob("/proc/[0-9]*/environ")))
    """
    result = script_run(docker_sandbox, make_request, tmp_path, script)
    assert result.exit_code == 0, result.stderr
    assert canary not in result.stdout and canary not in result.stderr
    assert "pids: [1," in result.stdout  # its own pid namespace: docker-init is pid 1
    # The prepare step copies proxy and CA settings from the harness, and nothing else.
    (tmp_path / "work" / "script.py").write_text(textwrap.dedent(script))
    prepared = docker_sandbox.prepare(
        make_request(
            ["python3", "-I", "/workspace/script.py"],
            cwd="/workspace",
            mounts=[Mount(source=tmp_path / "work", target="/workspace", writable=True)],
        )
    )
    assert prepared.exit_code == 0, prepared.stderr
    assert canary not in prepared.stdout


# ---- limits --------------------------------------------------------------------------------------


def test_memory_hog_is_stopped_at_the_limit(docker_sandbox, make_request, tmp_path):
    limits = SANDBOX_LIMITS.model_copy(update={"memory_mb": 128})
    started = time.monotonic()
    result = script_run(
        docker_sandbox,
        make_request,
        tmp_path,
        """
        chunks = []
        for i in range(200):  # 2 GB in 10 MB pieces, each page touched
            chunks.append(bytearray(10 * 1024 * 1024))
        print("survived", len(chunks))
    """,
        limits=limits,
        timeout=60,
    )
    assert time.monotonic() - started < 60
    assert "survived" not in result.stdout
    assert result.exit_code != 0
    assert result.oom_killed or "MemoryError" in result.stderr


def test_fork_bomb_ends_within_the_wall_clock(docker_sandbox, make_request, tmp_path):
    limits = SANDBOX_LIMITS.model_copy(update={"pids": 64})
    started = time.monotonic()
    result = script_run(
        docker_sandbox,
        make_request,
        tmp_path,
        """
        import os, time
        failures = 0
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                os.fork()
            except OSError:
                failures += 1
                if failures == 1:
                    print("fork refused", flush=True)
    """,
        limits=limits,
        timeout=8,
    )
    elapsed = time.monotonic() - started
    assert result.timed_out
    assert elapsed < 8 + 15, elapsed
    # The harness and the engine are fine: the next sandbox runs normally.
    after = docker_sandbox.run(make_request(["python3", "-c", "print('fine')"]))
    assert after.exit_code == 0 and after.stdout.strip() == "fine"


def test_infinite_loop_is_killed_at_the_timeout(docker_sandbox, make_request):
    started = time.monotonic()
    result = docker_sandbox.run(make_request(["python3", "-c", "while True: pass"], timeout=3))
    elapsed = time.monotonic() - started
    assert result.timed_out
    assert result.exit_code != 0
    assert 3 <= result.duration < 3 + 5, result.duration
    assert elapsed < 3 + 8, elapsed
    assert any("wall-clock" in note for note in result.notes)


def test_stdout_flood_is_capped_and_flagged(docker_sandbox, make_request):
    limits = SANDBOX_LIMITS.model_copy(update={"output_bytes": 64 * 1024})
    script = (
        "import sys\n"
        "sys.stdout.write('HEAD\\n')\n"
        "for _ in range(200000): sys.stdout.write('x' * 99 + '\\n')\n"  # 20 MB
        "sys.stdout.write('TAIL\\n')\n"
        "sys.stderr.write('done\\n')\n"
    )
    result = docker_sandbox.run(make_request(["python3", "-c", script], limits=limits, timeout=60))
    assert result.exit_code == 0
    assert result.stdout_truncated and result.truncated
    assert not result.stderr_truncated and result.stderr.strip() == "done"
    assert result.stdout.startswith("HEAD\n") and result.stdout.rstrip().endswith("TAIL")
    assert len(result.stdout.encode()) < 64 * 1024 + 200


def test_file_size_and_tmp_size_limits(docker_sandbox, make_request, tmp_path):
    limits = SANDBOX_LIMITS.model_copy(update={"file_size_mb": 1, "tmp_size_mb": 8})
    result = script_run(
        docker_sandbox,
        make_request,
        tmp_path,
        """
        import errno
        def write(path, megabytes):
            try:
                with open(path, "wb") as handle:
                    for _ in range(megabytes):
                        handle.write(b"x" * 1024 * 1024)
                return "ok"
            except OSError as exc:
                return errno.errorcode.get(exc.errno, str(exc.errno))
        print("big-file:", write("/workspace/big", 5))
        print("tmp-fill:", write("/tmp/a", 1), write("/tmp/b", 1),
              *(write(f"/tmp/f{i}", 1) for i in range(12)))
    """,
        limits=limits,
    )
    assert result.exit_code == 0, result.stderr
    assert "big-file: EFBIG" in result.stdout
    assert "ENOSPC" in lines_with(result, "tmp-fill:")[0]


def test_a_container_is_its_own_cpu_entity_not_one_of_docker_s_group(docker_sandbox, make_request):
    """With the cgroupfs driver docker puts every container in one `docker` group, which the CPU
    scheduler weighs as a single process against everything else: on a busy machine all runs
    together got a fifth of the CPU their processes got outside. A run's container sits at the top
    instead, weighed like a session's processes (bench/RESULTS.md, section 14)."""
    from runners.sandbox.docker.client import docker_client

    info = docker_client().info()
    if info.get("CgroupDriver") != "cgroupfs" or str(info.get("CgroupVersion")) != "1":
        pytest.skip("the container's cgroup is visible from inside with cgroupfs on cgroup v1 only")
    result = docker_sandbox.run(make_request(["cat", "/proc/self/cgroup"]))
    cpu = next(
        line
        for line in result.stdout.splitlines()
        if ":cpu," in line or line.split(":")[1] == "cpu"
    )
    path = cpu.split(":", 2)[2]
    assert not path.startswith("/docker/") and path.count("/") == 1, cpu


# ---- lifecycle -----------------------------------------------------------------------------------


def test_daemons_do_not_outlive_the_run(docker_sandbox, make_request):
    started = time.monotonic()
    result = docker_sandbox.run(
        make_request(
            [
                "sh",
                "-c",
                (
                    "setsid sleep 1000 >/dev/null 2>&1 & nohup sleep 1000 >/dev/null 2>&1 "
                    "& echo started"
                ),
            ],
            timeout=30,
        )
    )
    assert result.exit_code == 0 and result.stdout.strip() == "started"
    assert not result.timed_out
    assert time.monotonic() - started < 10
    # no_leftover_containers checks that the container (and so every process in it) is gone


def test_the_user_s_sandbox_options_pick_the_images_and_bad_ones_are_refused(docker_images):
    from runners.model.environment import EnvironmentSpec
    from runners.model.errors import UserInputError
    from runners.sandbox.registry import resolve_sandbox

    spec = EnvironmentSpec(
        sandbox="docker",
        sandbox_options={"docker": {"python_image": "py:test", "node_image": "node:test"}},
    )
    sandbox = resolve_sandbox(spec.sandbox, spec.sandbox_options)
    assert (sandbox.python_image, sandbox.node_image) == ("py:test", "node:test")
    # the fields these options replaced are still read (stored batch jobs)
    former = EnvironmentSpec.model_validate({"docker_python_image": "py:old"})
    assert former.sandbox_options == {"docker": {"python_image": "py:old"}}
    with pytest.raises(
        UserInputError,
        match=r"sandbox_options.docker: pyton_image is not a setting of the docker "
        r"sandbox \(it takes: engine_url, node_image, python_image\)",
    ):
        resolve_sandbox("docker", {"docker": {"pyton_image": "x"}})
    with pytest.raises(
        UserInputError,
        match="sandbox_options.none: image is not a setting of the none sandbox "
        r"\(it takes: none\)",
    ):
        resolve_sandbox("none", {"none": {"image": "x"}})


def test_orphans_of_dead_owners_are_swept(docker_sandbox, docker_images):
    from runners.sandbox.docker.client import docker_client
    from runners.sandbox.docker.sweep import LABEL_MANAGED, LABEL_OWNER, LABEL_RUN
    from runners.util.processes import owner_label as _owner

    client = docker_client()
    dead = subprocess.Popen(["true"])
    dead.wait()
    host = _owner().split(":")[0]
    run = f"sweep-test-{uuid.uuid4().hex[:8]}"
    orphan = client.containers.create(
        docker_images["python"],
        ["sleep", "60"],
        labels={LABEL_MANAGED: "1", LABEL_RUN: run, LABEL_OWNER: f"{host}:{dead.pid}:1"},
    )
    alive = client.containers.create(
        docker_images["python"],
        ["sleep", "60"],
        labels={LABEL_MANAGED: "1", LABEL_RUN: run, LABEL_OWNER: f"{host}:{os.getpid()}:0"},
    )
    try:
        assert docker_sandbox.sweep_orphans() >= 1
        remaining = {
            c.id for c in client.containers.list(all=True, filters={"label": f"{LABEL_RUN}={run}"})
        }
        assert orphan.id not in remaining
        assert alive.id in remaining
    finally:
        for container in (orphan, alive):
            try:
                container.remove(force=True)
            except Exception:  # noqa: BLE001, S110 - cleanup: the container may be gone already
                pass


def test_probe_names_the_fix_when_the_image_is_missing(monkeypatch, docker_images):
    from runners.sandbox.docker.backend import DockerSandbox
    from runners.sandbox.docker.client import PYTHON_IMAGE_ENV

    assert DockerSandbox.probe() is None
    monkeypatch.setenv(PYTHON_IMAGE_ENV, "runners-python:does-not-exist")
    reason = DockerSandbox.probe()
    assert reason is not None and "python -m runners image build" in reason


def test_node_image_has_node_20_and_npm(docker_sandbox, docker_images, make_request):
    if "node" not in docker_images:
        from support import need

        need(False, "the image runners-node:latest is missing; run scripts/ci-docker.sh")
    result = docker_sandbox.run(
        make_request(
            ["sh", "-c", "node -p 'process.versions.node' && npm --version"],
            image=docker_images["node"],
        )
    )
    assert result.exit_code == 0, result.stderr
    node_version, npm_version = result.stdout.split()
    assert int(node_version.split(".")[0]) >= 20
    assert int(npm_version.split(".")[0]) >= 9


# ---- prepare: a venv built into the cache with the network, then used read-only offline ----------


def test_prepare_builds_into_the_cache_then_runs_offline(
    docker_sandbox, sandbox_cache, make_request, run_id
):
    from runners.toolchains.python import PythonToolchains

    toolchains = PythonToolchains(docker_sandbox, sandbox_cache, None, 900, run_id)
    env = toolchains.toolchain([])
    again = PythonToolchains(docker_sandbox, sandbox_cache, None, 900, run_id).toolchain([])
    assert not again.cached.built and again.python == env.python
    assert env.python.startswith("/cache/")
    result = docker_sandbox.run(
        make_request(
            ["sh", "-c", f"{env.python} -I -m pytest --version && touch /cache/x; echo touch=$?"],
            mounts=toolchains.mounts(),
        )
    )
    assert result.exit_code == 0, result.stderr
    assert "pytest 9." in result.stdout + result.stderr
    assert "touch=1" in result.stdout  # the cache is read-only in the test step


# ---- end to end: same statuses as the unsandboxed run; the second run downloads nothing -------


E2E_TESTS = {
    "test_checkpoint_1.py": """
        import subprocess

        import pytest


        def run(entrypoint_argv, *args):
            return subprocess.run(
                [*entrypoint_argv, *args], capture_output=True, text=True, timeout=20
            )


        def test_add(entrypoint_argv):
            assert run(entrypoint_argv, "add", "2", "3").stdout.strip() == "5"


        def test_negative(entrypoint_argv):
            assert run(entrypoint_argv, "add", "-2", "-3").stdout.strip() == "-5"


        def test_wrong_on_purpose(entrypoint_argv):
            assert run(entrypoint_argv, "mul", "2", "3").stdout.strip() == "6"


        @pytest.mark.error
        def test_bad_input_fails(entrypoint_argv):
            assert run(entrypoint_argv, "add", "x", "1").returncode != 0

    """,
}

E2E_SUBMISSION = {
    "main.py": """
        import sys

        if sys.argv[1] == "add":
            print(int(sys.argv[2]) + int(sys.argv[3]))
        else:
            print("unsupported")
    """,
}


@pytest.mark.slow
def test_end_to_end_matches_the_unsandboxed_run(
    docker_images, sandbox_cache, tmp_path, monkeypatch
):
    import runners
    from runners.sandbox.docker.backend import DockerSandbox

    problem = make_problem(tmp_path, E2E_TESTS, name="adder")
    submission = make_submission(tmp_path, E2E_SUBMISSION)
    spec = {"cache_dir": sandbox_cache}

    plain = runners.run_checkpoint(
        problem, "checkpoint_1", submission, runners.EnvironmentSpec(sandbox="none", **spec)
    )
    docker_env = runners.EnvironmentSpec(
        sandbox="docker",
        sandbox_options={"docker": {"python_image": docker_images["python"]}},
        **spec,
    )
    first = runners.run_checkpoint(problem, "checkpoint_1", submission, docker_env)

    prepares: list[list[str]] = []
    original = DockerSandbox.prepare

    def counting(self, request):
        prepares.append(request.argv)
        return original(self, request)

    monkeypatch.setattr(DockerSandbox, "prepare", counting)
    second = runners.run_checkpoint(problem, "checkpoint_1", submission, docker_env)

    def statuses(result):
        return {t.id: t.status for t in result.tests}

    for result in (plain, first, second):
        assert not result.infrastructure_failure, result.infrastructure_reason
    assert first.sandbox == "docker" and "unsandboxed" not in first.flags
    assert statuses(first) == statuses(plain) == statuses(second)
    assert len(statuses(first)) == 4
    assert sorted(statuses(first).values()).count("passed") == 3
    assert prepares == [], f"the second run prepared again: {prepares}"


def test_a_second_run_starts_no_probe_container(docker_sandbox, tmp_path: Path, monkeypatch):
    """What an image holds is probed once and remembered beside the toolchain cache: a later run
    (a new harness process, so nothing in memory) prepares its toolchains without starting a probe
    container, which would cost about half a second per evaluation."""
    from runners.sandbox.docker import images
    from runners.toolchains.python import PythonToolchains

    monkeypatch.setattr(images, "_image_info", {})  # a new process: nothing known yet
    PythonToolchains(docker_sandbox, tmp_path, None, 60, "first")  # probes once, writes the memo
    monkeypatch.setattr(images, "_image_info", {})  # the next new process
    started: list[str] = []
    real_run = docker_sandbox.run

    def counting_run(request):
        started.append(request.purpose)
        return real_run(request)

    monkeypatch.setattr(docker_sandbox, "run", counting_run)
    PythonToolchains(docker_sandbox, tmp_path, None, 60, "second")
    assert started == []
