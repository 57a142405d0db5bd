"""Every case of a case-based problem starts from the same state: not only the workspace, but
`/tmp`, `$HOME`, `$TMPDIR`, `/dev/shm`, `/dev/mqueue`, the report directory and System V IPC
(the run's own ones; on `none` only HOME, TMPDIR and the report directory are the run's). A
submission that leaves a note for its next case answered 1 case of 9 right instead of 9.

And the case program's settings never reach the sandbox's environment: the sandbox's first
processes (docker-init, `timeout`, none's supervisor) keep the environment they started with,
and the submission can read it through /proc."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path

import pytest
import yaml
from support import need_docker_image, need_sandbox, write_files

from runners import EnvironmentSpec, run_checkpoint
from runners.cases.fresh import FreshState, Scratch
from runners.cases.snapshot import Snapshot

NOBODY = 65534
BACKENDS = [
    pytest.param("none", id="none"),
    pytest.param("bubblewrap", marks=pytest.mark.bubblewrap, id="bubblewrap"),
    pytest.param("docker", marks=pytest.mark.docker, id="docker"),
]


def _ready(backend: str) -> None:
    if backend != "none":
        need_sandbox(backend)
    if backend == "docker":
        need_docker_image("python")


def _problem(
    root: Path, name: str, groups: dict, cases: dict[str, str], adapter: dict | None = None
) -> Path:
    problem = root / name
    config = {
        "name": name,
        "version": 1,
        "description": "d",
        "tags": ["t"],
        "entry_file": "main",
        "adapter": adapter or {"type": "cli"},
        "timeout": 20,
        "checkpoints": {"checkpoint_1": {"version": 1, "groups": groups}},
    }
    write_files(problem, {"config.yaml": yaml.safe_dump(config), **cases})
    return problem


# A CLI that answers right only when it finds no note of an earlier case anywhere it can write.
REMEMBERS = """
import ctypes, os, sys

sandboxed = os.environ["SUBMISSION_PATH"] == "/workspace"
reports = ("/harness/reports" if sandboxed
           else os.path.join(os.path.dirname(os.environ["SUBMISSION_PATH"]), "reports"))
places = [os.environ["HOME"], os.environ["TMPDIR"], reports]
if sandboxed:  # on `none`, /tmp and /dev/shm are the host's
    places += ["/tmp", "/dev/shm", "/dev/mqueue", "/tmp/deep/er"]
seen = []
for place in dict.fromkeys(places):
    try:
        seen += [f"{place}/{n}" for n in os.listdir(place) if n.startswith("note-")]
    except OSError:
        pass
for place in dict.fromkeys(places):
    try:
        os.makedirs(place, exist_ok=True)
        with open(os.path.join(place, f"note-{os.getpid()}"), "w") as handle:
            handle.write("I was here")
    except OSError:
        pass
if sandboxed:  # a System V shared-memory segment with a fixed key: found again by the next case
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.shmget(0x5EED, 4096, 0o600) >= 0:
        seen.append("shm 0x5eed")
    libc.shmget(0x5EED, 4096, 0o1000 | 0o600)  # IPC_CREAT
    if os.path.lexists("/tmp/locked"):
        seen.append("/tmp/locked")
    try:  # a directory it cannot list any more, with a note inside
        os.makedirs("/tmp/locked", exist_ok=True)
        open("/tmp/locked/note-locked", "w").close()
        os.chmod("/tmp/locked", 0)
    except OSError:
        pass
print("clean" if not seen else "remembered: " + " ".join(seen))
"""
NINE = {
    f"checkpoint_1/core/case_{n}.yaml": 'case: {args: []}\nexpected: {output: "clean\\n"}\n'
    for n in range(1, 10)
}


@pytest.mark.parametrize("backend", BACKENDS)
def test_no_cli_case_sees_what_an_earlier_case_left(tmp_path, backend):
    _ready(backend)
    problem = _problem(tmp_path, "remembers", {"core": {"type": "Core"}}, NINE)
    write_files(tmp_path / "sub", {"main.py": REMEMBERS})
    result = run_checkpoint(
        problem, "checkpoint_1", tmp_path / "sub", EnvironmentSpec(sandbox=backend)
    )
    assert not result.infrastructure_failure, result.infrastructure_reason
    assert [t.status for t in result.tests] == ["passed"] * 9, [
        t.failure_message for t in result.tests if not t.passed
    ][:2]


SESSION = """
import os, sys
note = os.path.join(os.environ["HOME"], "session.txt")
if sys.argv[1] == "write":
    open(note, "w").write("kept")
    print("written")
else:
    print(open(note).read() if os.path.exists(note) else "nothing")
"""


def test_a_group_that_is_not_isolated_keeps_its_home_until_the_group_ends(tmp_path):
    """`isolated: false` is a session: the workspace and the scratch carry over from case to
    case within the group (a CLI that keeps its state in ~/.config), and the next group starts
    fresh."""
    cases = {
        "checkpoint_1/session/a_write.yaml": (
            'case: {args: [write]}\nexpected: {output: "written\\n"}\n'
        ),
        "checkpoint_1/session/b_read.yaml": 'case: {args: [read]}\nexpected: {output: "kept\\n"}\n',
        "checkpoint_1/later/read.yaml": 'case: {args: [read]}\nexpected: {output: "nothing\\n"}\n',
    }
    problem = _problem(
        tmp_path,
        "session",
        {"session": {"type": "Core", "isolated": False}, "later": {"type": "Core"}},
        cases,
    )
    write_files(tmp_path / "sub", {"main.py": SESSION})
    result = run_checkpoint(
        problem, "checkpoint_1", tmp_path / "sub", EnvironmentSpec(sandbox="none")
    )
    assert {t.id: t.status for t in result.tests} == {
        "session/a_write": "passed",
        "session/b_read": "passed",
        "later/read": "passed",
    }, [t.failure_message for t in result.tests]


SERVER = """
import argparse, json, os
from http.server import BaseHTTPRequestHandler, HTTPServer

parser = argparse.ArgumentParser()
parser.add_argument("--address")
parser.add_argument("--port", type=int)
args = parser.parse_args()
note = os.path.join(os.environ["HOME"], "server-note")
found = os.path.exists(note)
open(note, "w").write("here")


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_GET(self):
        body = json.dumps({"found": found}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


HTTPServer((args.address, args.port), Handler).serve_forever()
"""


def test_each_group_s_server_starts_from_the_same_state(tmp_path):
    case = "case: {path: /}\nexpected: {output: {found: false}}\n"
    problem = _problem(
        tmp_path,
        "servers",
        {"first": {"type": "Core"}, "second": {"type": "Core"}},
        {"checkpoint_1/first/a.yaml": case, "checkpoint_1/second/a.yaml": case},
        adapter={"type": "api", "response_is_json": True},
    )
    write_files(tmp_path / "sub", {"main.py": SERVER})
    result = run_checkpoint(
        problem, "checkpoint_1", tmp_path / "sub", EnvironmentSpec(sandbox="none")
    )
    assert [t.status for t in result.tests] == ["passed", "passed"], [
        t.failure_message for t in result.tests
    ]


# Reads every environment and command line of another process it can (on `none`: its own
# ancestors up to the harness's supervisor, not the host's other processes) and names any
# variable it does not have itself, or the problem's host path.
ENVIRON = """
import os

own = {k.encode() + b"=" + v.encode() for k, v in os.environ.items()}
marker = "@@MARKER@@".encode()
found = []
if os.environ["SUBMISSION_PATH"] == "/workspace":
    pids = [p for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()]
else:
    pids, pid = [], os.getppid()
    while pid > 1:
        pids.append(str(pid))
        try:
            cmdline = open(f"/proc/{pid}/cmdline", "rb").read()
        except OSError:
            cmdline = b""
        if b"reaper.py" in cmdline:
            break
        pid = int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])
for pid in pids:
    for what in ("environ", "cmdline"):
        try:
            data = open(f"/proc/{pid}/{what}", "rb").read()
        except OSError:
            continue
        if marker in data:
            found.append(f"{pid}/{what} names the problem's directory")
        if what == "environ":
            found += [f"{pid}: {v.split(b'=')[0].decode()}"
                      for v in data.split(bytes(1)) if v and v not in own]
print("clean" if not found else "LEAK " + "; ".join(sorted(set(found))))
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_no_process_the_submission_can_read_shows_the_harness_s_environment(tmp_path, backend):
    _ready(backend)
    marker = f"hostpath-{uuid.uuid4().hex[:10]}"
    case = 'case: {args: []}\nexpected: {output: "clean\\n"}\n'
    problem = _problem(
        tmp_path, marker, {"core": {"type": "Core"}}, {"checkpoint_1/core/env.yaml": case}
    )
    write_files(tmp_path / "sub", {"main.py": ENVIRON.replace("@@MARKER@@", marker)})
    result = run_checkpoint(
        problem, "checkpoint_1", tmp_path / "sub", EnvironmentSpec(sandbox=backend)
    )
    assert not result.infrastructure_failure, result.infrastructure_reason
    [case_result] = result.tests
    assert case_result.passed, case_result.failure_message


# ---- the pieces ----------------------------------------------------------------------------------


def test_a_restore_removes_what_was_added_even_behind_a_directory_made_unreadable():
    """As the sandbox's unprivileged uid (root reads any directory, whatever its mode)."""
    root = Path(tempfile.mkdtemp(prefix="runners-snapshot-test-"))
    try:
        root.chmod(0o755)
        if os.geteuid() == 0:
            os.chown(root, NOBODY, NOBODY)
        pid = os.fork()
        if pid == 0:  # the child: drop to nobody, then the scenario; its exit code says
            code = 2
            try:
                if os.geteuid() == 0:
                    os.setgid(NOBODY)
                    os.setuid(NOBODY)
                code = 0 if _unreadable_scenario(root) else 1
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
    finally:
        subprocess.run(["chmod", "-R", "u+rwx", str(root)], check=False)
        shutil.rmtree(root, ignore_errors=True)


def _unreadable_scenario(root: Path) -> bool:
    (root / "kept").mkdir()
    (root / "kept" / "a.txt").write_text("one")
    snap = Snapshot(root)
    (root / "kept" / "new").mkdir()
    (root / "kept" / "new" / "inner").mkdir()
    (root / "kept" / "new" / "inner" / "note").write_text("x")
    (root / "kept" / "new" / "inner").chmod(0)
    (root / "kept" / "b.txt").write_text("two")
    (root / "kept").chmod(0)  # a directory of the snapshot, made unreadable
    (root / "gone").mkdir()
    (root / "gone" / "deep").mkdir()
    (root / "gone" / "deep" / "note").write_text("x")
    (root / "gone" / "deep").chmod(0)
    snap.restore()
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*")) == ["kept", "kept/a.txt"]


def test_a_file_the_program_keeps_survives_the_resets_as_written(tmp_path):
    reports, work = tmp_path / "reports", tmp_path / "work"
    reports.mkdir()
    work.mkdir()
    fresh = FreshState(work, Scratch(dirs=[str(reports), str(tmp_path / "missing")]))
    (reports / "screenshots").mkdir()
    (reports / "screenshots" / "a.png").write_bytes(b"png")
    fresh.keep(reports / "screenshots" / "a.png")
    (reports / "screenshots" / "a.png").write_bytes(b"tampered")
    (reports / "planted").write_text("x")
    fresh.restore()
    assert (reports / "screenshots" / "a.png").read_bytes() == b"png" and not (
        reports / "planted"
    ).exists()
