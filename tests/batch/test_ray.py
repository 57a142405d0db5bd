"""The Ray executor on a real cluster started with `ray start`: a head with no CPUs and one worker
node with 2 CPUs joined with `ray start --address`, so every cell runs on the joined node, two at
a time. The cluster is stopped at the end by its process groups (`ray stop` would also stop any
other Ray on the machine).

The same batch as test_local_batch.py gives the same results, and `run_cell_remote` (the API
for the Promptfoo provider) runs one cell, from any thread, and gives up at its timeout.
"""

from __future__ import annotations

import importlib.util
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from batch_support import assert_same_results, comparable, runners_cli
from support import need

from runners.batch.cells import Cell
from runners.batch.store import CellRecord
from runners.model.environment import EnvironmentSpec
from runners.model.errors import UserInputError
from runners.util.processes import process_tree, start_time

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]

RAY_TMP_NAME = "ray-tmp-xxxxxxxxxxxxxx"  # as long as the batch's temporary root (see conftest)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _processes(groups: list[int]) -> dict[int, str]:
    """{pid: start time} of the live processes of these process groups and of everything below
    them (Ray's worker processes are the raylet's children but may lead groups of their own)."""
    stats: dict[int, list[str]] = {}
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        stats[int(entry)] = fields
        children.setdefault(int(fields[1]), []).append(int(entry))
    found = [pid for pid, fields in stats.items() if int(fields[2]) in groups]
    stack = list(found)
    while stack:
        for child in children.get(stack.pop(), []):
            if child not in found:
                found.append(child)
                stack.append(child)
    return {pid: stats[pid][19] for pid in found if stats[pid][0] != "Z"}


def _alive_of(processes: dict[int, str]) -> list[int]:
    alive = []
    for pid, start in processes.items():
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z" and fields[19] == start:
            alive.append(pid)
    return alive


def _stop(groups: list[int]) -> list[int]:
    """Stop a cluster started by `ray start` in these process groups; the pids still alive."""
    processes = _processes(groups)
    for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 10.0)):
        for pid in _alive_of(processes):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + wait
        while _alive_of(processes) and time.monotonic() < deadline:
            time.sleep(0.2)
            processes.update(_processes(groups))  # started meanwhile
        if not _alive_of(processes):
            break
    return _alive_of(processes)


@pytest.fixture(scope="module")
def ray_cluster(examples: dict[str, Path]) -> Iterator[dict[str, Any]]:
    # Not imported here: Ray reads its authentication settings (set below) when first imported.
    need(
        importlib.util.find_spec("ray") is not None,
        "ray is not installed (the dev dependency group and the `ray` extra install it)",
    )
    ray_bin = shutil.which("ray", path=str(Path(sys.executable).parent)) or shutil.which("ray")
    need(ray_bin is not None, "the `ray` command is missing")
    port, client_port = _free_port(), _free_port()
    # Short: Ray's unix socket paths under it must fit in 107 bytes.
    temp_dir = tempfile.mkdtemp(prefix="rt", dir="/tmp")
    worker_tmp = examples["tmp"] / RAY_TMP_NAME
    worker_tmp.mkdir(exist_ok=True)
    # Token authentication, explicitly, with this cluster's own token: Ray 2.5x+ turns it on for
    # `ray start --head` whenever ~/.ray/auth_token exists (any local `ray.init()` writes one),
    # but not for `ray start --address`, so a joining node must be told.
    token_file = Path(temp_dir) / "auth_token"
    token_file.write_text(secrets.token_hex(32))
    auth = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN_PATH": str(token_file)}
    env = {**os.environ, "TMPDIR": str(worker_tmp), "RAY_USAGE_STATS_ENABLED": "0", **auth}
    env.pop("RAY_ADDRESS", None)
    env.pop("RAY_AUTH_TOKEN", None)
    groups: list[int] = []

    def start(*args: str) -> None:
        proc = subprocess.Popen(
            [ray_bin, "start", *args, "--disable-usage-stats"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        groups.append(proc.pid)  # the daemons stay in this process group after `ray start` exits
        out, _ = proc.communicate(timeout=240)
        assert proc.returncode == 0, f"ray start {' '.join(args)} failed:\n{out}"

    address = f"127.0.0.1:{port}"
    try:
        start(
            "--head",
            f"--port={port}",
            f"--ray-client-server-port={client_port}",
            "--num-cpus=0",
            f"--temp-dir={temp_dir}",
            "--include-dashboard=false",
        )
        start(f"--address={address}", "--num-cpus=2")
        nodes = subprocess.run(
            [
                sys.executable,
                "-c",
                (
                    "import json, sys, ray; ray.init(address=sys.argv[1], logging_level='error'); "
                    "print(json.dumps([[n['NodeID'], n['Resources'].get('CPU', 0)] "
                    "for n in ray.nodes() if n['Alive']]))"
                ),
                address,
            ],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
            check=False,
        )
        assert nodes.returncode == 0, nodes.stderr
        listed = json.loads(nodes.stdout.strip().splitlines()[-1])
        assert sorted(cpus for _, cpus in listed) == [0, 2], listed
        saved = {k: os.environ.get(k) for k in auth}
        os.environ.update(auth)  # for run_cell_remote in this process and the batch subprocesses
        try:
            yield {"address": address, "worker_node": next(n for n, cpus in listed if cpus == 2)}
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
    finally:
        left = _stop(groups)
        shutil.rmtree(temp_dir, ignore_errors=True)
        assert not left, f"the Ray cluster did not stop: {left}"
        assert not Path(temp_dir).exists()


def test_ray_batch_gives_the_same_results(
    ray_cluster, examples, example_cells, reference, tmp_path
):
    out = tmp_path / "out"
    proc = runners_cli(
        "batch",
        "--problems",
        str(examples["problems"]),
        "--submissions",
        str(examples["submissions"]),
        "--sandbox",
        "none",
        "--executor",
        "ray",
        "--address",
        ray_cluster["address"],
        "--output",
        str(out),
        env={"TMPDIR": str(examples["tmp"])},
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    assert "ray: 2 node(s)" in proc.stdout
    records = [
        CellRecord.model_validate_json(p.read_text()) for p in out.glob("cells/*/*/*/cell.json")
    ]
    assert len(records) == len(example_cells)
    assert {r.status for r in records} == {"ok"} and {r.executor for r in records} == {"ray"}
    # The head has no CPU: every cell ran on the node that joined with `ray start --address`.
    assert {r.worker.split(" node ")[1] for r in records} == {ray_cluster["worker_node"]}
    assert_same_results(out, example_cells, reference)
    cell = example_cells[0]
    cell_dir = out / "cells" / cell.agent / cell.problem / cell.checkpoint
    assert (cell_dir / "reports").is_dir() and (cell_dir / "stdout.txt").is_file()
    assert json.loads((cell_dir / "result.json").read_text())["artifacts_dir"] == str(cell_dir)
    # Resumable like the local executor: nothing to run the second time.
    again = runners_cli(
        "batch",
        "--problems",
        str(examples["problems"]),
        "--submissions",
        str(examples["submissions"]),
        "--sandbox",
        "none",
        "--executor",
        "ray",
        "--address",
        ray_cluster["address"],
        "--output",
        str(out),
    )
    assert again.returncode == 0 and "0 to run" in again.stdout


@pytest.fixture
def ray_client(ray_cluster) -> Iterator[str]:
    yield ray_cluster["address"]
    import ray

    ray.shutdown()


def test_run_cell_remote_from_a_provider_thread(
    ray_client, examples, example_cells, reference, tmp_path
):
    cell = next(c for c in example_cells if c.id == "gamma/text_layout/checkpoint_2")
    # What the provider holds: plain paths (its own Cell has other fields).
    cell = Cell.of(cell.problem_dir, cell.checkpoint, cell.submission_dir, agent="gamma")
    from runners.batch.executors import run_cell_remote

    box: dict[str, Any] = {}

    def call() -> None:  # the provider calls from a worker thread of its own
        box["result"] = run_cell_remote(
            cell,
            ray_client,
            environment=EnvironmentSpec(sandbox="none"),
            output_dir=tmp_path / "artifacts",
            timeout=240,
        )

    thread = threading.Thread(target=call)
    thread.start()
    thread.join(300)
    result = box["result"]
    assert not result.infrastructure_failure, result.infrastructure_reason
    assert comparable(result.model_dump(mode="json")) == comparable(
        reference["gamma/text_layout/checkpoint_2"]
    )
    assert result.artifacts_dir == str((tmp_path / "artifacts").resolve())
    assert (tmp_path / "artifacts" / "result.json").is_file()
    assert any((tmp_path / "artifacts" / "reports").iterdir())
    # Same connection, main thread, no artifacts wanted.
    again = run_cell_remote(cell, ray_client, environment=EnvironmentSpec(sandbox="none"))
    assert again.artifacts_dir is None and again.pass_counts == result.pass_counts


def test_run_cell_remote_bad_input_and_timeout(ray_client, example_cells):
    from runners.batch.executors import run_cell_remote

    cell = next(
        c for c in example_cells if c.problem == "inventory_cli" and c.checkpoint == "checkpoint_3"
    )
    with pytest.raises(UserInputError, match="checkpoint_9"):
        run_cell_remote(Cell.of(cell.problem_dir, "checkpoint_9", cell.submission_dir), ray_client)
    with pytest.raises(UserInputError, match="not a directory"):
        run_cell_remote(
            Cell.of(cell.problem_dir, cell.checkpoint, cell.submission_dir / "nope"), ray_client
        )
    started = time.monotonic()
    result = run_cell_remote(
        cell, ray_client, environment=EnvironmentSpec(sandbox="none"), timeout=1.0
    )
    assert time.monotonic() - started < 30
    assert (
        result.infrastructure_failure
        and "did not finish within 1 s" in result.infrastructure_reason
    )
    assert result.problem_name == "inventory_cli" and result.checkpoint_name == "checkpoint_3"


def _provider() -> Any:
    """providers/test_runner.py imported by path, as promptfoo does."""
    path = Path(__file__).resolve().parents[2] / "providers" / "test_runner.py"
    spec = importlib.util.spec_from_file_location("pf_test_runner_ray", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_promptfoo_provider_runs_rows_on_ray(ray_client, examples, reference, tmp_path):
    """Provider config `ray_address`: the row runs as a task on the cluster and reads the same as
    the local run; the artifacts land under the provider's `output` on this machine."""
    provider = _provider()
    config = {
        "agent": "beta",
        "submissions": str(examples["submissions"] / "beta"),
        "problems": str(examples["problems"]),
        "sandbox": "none",
        "output": str(tmp_path / "runs"),
        "ray_address": ray_client,
    }
    context = {
        "vars": {"problem": "inventory_cli", "checkpoint": "checkpoint_2", "__evalId": "eval-ray"}
    }
    response = provider.call_api("inventory_cli checkpoint_2", {"config": config}, context)
    assert "error" not in response, response.get("error")
    meta = response["metadata"]
    assert not meta["infrastructure_failure"], meta["infrastructure_reason"]
    expected = reference["beta/inventory_cli/checkpoint_2"]
    assert set(expected) <= set(meta)  # the whole result (computed fields too) plus the row's keys
    assert comparable({k: meta[k] for k in expected}) == comparable(expected)
    artifacts = tmp_path / "runs" / "eval-ray" / "beta" / "inventory_cli" / "checkpoint_2"
    assert meta["artifacts_dir"] == str(artifacts) and (artifacts / "result.json").is_file()
    assert response["output"].startswith(
        "inventory_cli · checkpoint_2: "
    )  # the column names the agent
    # A wrong checkpoint is still an error row, found before anything is sent to the cluster.
    bad = provider.call_api(
        "x",
        {"config": config},
        {"vars": {"problem": "inventory_cli", "checkpoint": "checkpoint_9"}},
    )
    assert "checkpoint_9" in bad["error"]


SLOW = {"test_checkpoint_1.py": "import time\n\ndef test_slow():\n    time.sleep(120)\n"}
QUICK = {"test_checkpoint_1.py": "def test_ok(entrypoint_argv):\n    assert entrypoint_argv\n"}


def _ray_batch_running_its_slow_cell(tmp_path: Path) -> tuple[subprocess.Popen[str], Path, dict]:
    """A batch on its own private Ray (no --address), once its quick cell is done and its slow
    cell's test runs: (the harness, its output directory, {pid: start time} of its processes)."""
    need(importlib.util.find_spec("ray") is not None, "ray is not installed")
    from support import make_problem, write_files

    problems, subs = tmp_path / "problems", tmp_path / "subs"
    make_problem(problems, QUICK, name="quick")
    make_problem(problems, SLOW, name="slow", timeout=300)
    for name in ("quick", "slow"):
        write_files(subs / "agent" / name / "checkpoint_1", {"main.py": "print('hi')\n"})
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    env.update(TMPDIR=str(tmp), COLUMNS="200", RAY_USAGE_STATS_ENABLED="0")
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "runners",
            "batch",
            "--problems",
            str(problems),
            "--submissions",
            str(subs),
            "--sandbox",
            "none",
            "--executor",
            "ray",
            "--output",
            str(out),
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 240
        while not (out / "cells" / "agent" / "quick" / "checkpoint_1" / "cell.json").is_file():
            assert proc.poll() is None, proc.stdout.read()
            assert time.monotonic() < deadline, "the quick cell did not finish"
            time.sleep(0.2)
        time.sleep(2.0)  # the slow cell's test is running now
        tree = process_tree(proc.pid)
        assert any(
            "raylet" in Path(f"/proc/{p}/cmdline").read_text(errors="replace")
            for p in tree
            if Path(f"/proc/{p}/cmdline").exists()
        ), "no private Ray was started"
    except BaseException:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise
    return proc, out, tree


def _nothing_left(tree: dict) -> None:
    deadline = time.monotonic() + 30  # Ray's own processes wind down after the driver exits
    while (
        left := [p for p, s in tree.items() if start_time(p) == s]
    ) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not left, [Path(f"/proc/{p}/cmdline").read_text(errors="replace")[:120] for p in left]


def test_private_local_ray_and_ctrl_c(tmp_path):
    """No --address: the batch starts its own Ray (ray.init), and Ctrl-C cancels the running task,
    keeps the finished cell and shuts that Ray down: nothing of it is left running."""
    proc, out, tree = _ray_batch_running_its_slow_cell(tmp_path)
    try:
        os.kill(proc.pid, signal.SIGINT)
        stdout, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, stdout[-4000:]
    info = json.loads((out / "batch.json").read_text())
    assert info["ran"] == ["agent/quick/checkpoint_1"] and info["cancelled"] == [
        "agent/slow/checkpoint_1"
    ]
    assert not (out / "cells" / "agent" / "slow" / "checkpoint_1" / "cell.json").exists()
    _nothing_left(tree)


def test_a_killed_batch_leaves_nothing_of_its_private_ray(tmp_path):
    """SIGKILL to the harness alone: no `finally`, no ray.shutdown. Ray's GCS and raylet end
    with their driver, but the agents and workers the raylet started did not (they outlived a
    killed test run by two hours): the harness's janitor kills every process of its Ray."""
    proc, _out, tree = _ray_batch_running_its_slow_cell(tmp_path)
    try:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        _nothing_left(tree)
    finally:
        for pid, started in tree.items():  # what the test would otherwise leave behind
            if start_time(pid) == started:
                os.kill(pid, signal.SIGKILL)
