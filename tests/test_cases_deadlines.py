"""A case's timeout bounds the whole HTTP request, and a health probe's the whole probe: a server
that trickles its answer a byte at a time is cut off at the deadline, not carried through it
(every read got the full timeout before: a 10 s case ran 45 s)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from support import need_sandbox, write_files

from runners import EnvironmentSpec, run_checkpoint
from runners.cases.adapters.deadline import DeadlineConnection

ANSWER = (
    b'HTTP/1.0 200 OK\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n{"result": 5}'
)


@pytest.fixture
def trickler() -> Iterator[int]:
    """A local server that sends ANSWER one byte every 0.1 s (about 9 s in all)."""
    server = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                return
            with conn:
                conn.recv(4096)
                for byte in ANSWER:
                    if stop.wait(0.1):
                        return
                    try:
                        conn.sendall(bytes([byte]))
                    except OSError:
                        break

    threading.Thread(target=serve, daemon=True).start()
    yield server.getsockname()[1]
    stop.set()
    server.close()


@pytest.mark.slow
def test_a_trickled_answer_times_out_at_the_deadline_of_the_whole_request(trickler):
    started = time.monotonic()
    conn = DeadlineConnection("127.0.0.1", trickler, deadline=started + 1.0)
    with pytest.raises(TimeoutError):
        conn.request("GET", "/")
        conn.getresponse().read()
    assert time.monotonic() - started < 1.5
    conn.close()


@pytest.mark.slow
def test_an_answer_within_the_deadline_is_read_whole(trickler):
    conn = DeadlineConnection("127.0.0.1", trickler, deadline=time.monotonic() + 30)
    conn.request("GET", "/")
    response = conn.getresponse()
    assert (response.status, response.read()) == (200, b'{"result": 5}')
    conn.close()


# ---- the same through real case runs: an API case, and the health check of a server --------------

SERVER = """
import argparse, socket, time

parser = argparse.ArgumentParser()
parser.add_argument("--address")
parser.add_argument("--port", type=int)
args = parser.parse_args()
ANSWER = {answer!r}
server = socket.create_server((args.address, args.port))
while True:
    conn, _ = server.accept()
    request = conn.recv(4096)
    trickle = {trickle_health} or b"/healthz" not in request
    try:
        for i in range(len(ANSWER)):
            conn.sendall(ANSWER[i:i + 1])
            if trickle:
                time.sleep(0.25)
    except OSError:  # the harness gave up on this answer
        pass
    conn.close()
"""


def _problem(root: Path, startup: float) -> Path:
    problem = root / "trickle_api"
    config = {
        "name": "trickle_api",
        "version": 1,
        "description": "d",
        "tags": ["t"],
        "entry_file": "server",
        "timeout": 2,
        "adapter": {
            "type": "api",
            "health_path": "/healthz",
            "startup_timeout_s": startup,
            "response_is_json": True,
        },
        "checkpoints": {"checkpoint_1": {"version": 1, "groups": {"core": {"type": "Core"}}}},
    }
    write_files(
        problem,
        {
            "config.yaml": yaml.safe_dump(config),
            "checkpoint_1/core/add.yaml": "case: {path: /add}\nexpected: {output: {result: 5}}\n",
            "checkpoint_1/core/again.yaml": "case: {path: /add}\nexpected: {output: {result: 5}}\n",
        },
    )
    return problem


BACKENDS = [
    pytest.param("none", id="none"),
    pytest.param("bubblewrap", marks=pytest.mark.bubblewrap, id="bubblewrap"),
]


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_api_case_that_is_answered_a_byte_at_a_time_fails_at_its_timeout(tmp_path, backend):
    if backend != "none":
        need_sandbox(backend)
    write_files(tmp_path / "sub", {"server.py": SERVER.format(answer=ANSWER, trickle_health=False)})
    started = time.monotonic()
    result = run_checkpoint(
        _problem(tmp_path, 5), "checkpoint_1", tmp_path / "sub", EnvironmentSpec(sandbox=backend)
    )
    elapsed = time.monotonic() - started
    assert not result.infrastructure_failure, result.infrastructure_reason
    assert [(t.name, t.status) for t in result.tests] == [("add", "failed"), ("again", "failed")]
    assert all("no answer within 2 s" in (t.failure_message or "") for t in result.tests), (
        result.tests[0].failure_message
    )
    # two cases of 2 s each (the answer would take 20 s each), plus the run's own start-up
    assert elapsed < 30, elapsed


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_health_check_answered_a_byte_at_a_time_ends_at_the_start_up_deadline(tmp_path, backend):
    if backend != "none":
        need_sandbox(backend)
    write_files(tmp_path / "sub", {"server.py": SERVER.format(answer=ANSWER, trickle_health=True)})
    started = time.monotonic()
    result = run_checkpoint(
        _problem(tmp_path, 3), "checkpoint_1", tmp_path / "sub", EnvironmentSpec(sandbox=backend)
    )
    elapsed = time.monotonic() - started
    assert [t.status for t in result.tests] == ["error", "error"]
    assert "did not answer on http://127.0.0.1:" in (result.tests[0].failure_message or "")
    assert "within 3 s" in (result.tests[0].failure_message or "")
    assert elapsed < 30, elapsed
