"""Ending a run: the whole process tree at the wall clock, daemons after a normal exit, the stop
event; and what is left afterwards (processes, the backend's containers or cgroups, temporary
files), also when the harness itself is killed mid-run and a later one sweeps.

Processes are found by a token on their command lines in the host's /proc (a backend whose
processes the host cannot see, such as gVisor's, passes those parts by construction; its
`leftovers()` still answers for its containers).
"""

from __future__ import annotations

import base64
import os
import pickle
import signal
import subprocess
import sys
import tempfile
import threading
import time

from runners.sandbox.conformance.subject import Check, Subject, expect, kill_processes, wait_for

# A tree that resists ending: the command ignores SIGTERM, one child in its own session (a daemon)
# and one in its group, all sleeping with the token on their command lines.
TREE = """
import signal, subprocess
signal.signal(signal.SIGTERM, signal.SIG_IGN)
token = sys.argv[1]
sleep = [sys.executable, "-c",
         "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)",
         token]
quiet = dict(stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
subprocess.Popen([*sleep, "daemon"], start_new_session=True, **quiet)
subprocess.Popen([*sleep, "child"], **quiet)
if len(sys.argv) > 2:
    open(sys.argv[2], "w").close()
report(started=True)
"""
SETTLE = 10.0  # seconds a backend gets, after `run` returns, for processes to be reaped


def _no_marked(subject: Subject, what: str, ran: object) -> None:
    left = subject.wait_unmarked(SETTLE)
    kill_processes(left)  # never leave them on the host, even when the check fails
    expect(not left, f"{len(left)} processes of the run outlived {what}", ran)  # type: ignore[arg-type]


def timeout_tree(subject: Subject) -> None:
    ran = subject.run(TREE + "while True:\n    pass\n", args=(subject.token,), timeout=3)
    expect(ran.facts.get("started"), "the process tree did not start", ran)
    expect(ran.result.timed_out, "the run was not reported timed out", ran)
    expect(ran.elapsed < 3 + 10, f"a 3 s wall clock returned after {ran.elapsed:.1f} s", ran)
    _no_marked(subject, "the wall clock", ran)


def daemons_after_exit(subject: Subject) -> None:
    ran = subject.run(TREE, args=(subject.token,), timeout=60)
    expect(
        ran.result.exit_code == 0 and not ran.result.timed_out,
        "a command that exits at once, leaving daemons, did not return its exit 0",
        ran,
    )
    expect(
        ran.elapsed < 20,
        f"the run waited {ran.elapsed:.1f} s for daemons of an exited command",
        ran,
    )
    _no_marked(subject, "a normal exit", ran)


def stop(subject: Subject) -> None:
    event = threading.Event()
    timer = threading.Timer(1.5, event.set)
    timer.start()
    try:
        ran = subject.run(
            TREE + "import time\ntime.sleep(120)\n", args=(subject.token,), timeout=120, stop=event
        )
    finally:
        timer.cancel()
    expect(
        ran.result.stopped and not ran.result.timed_out,
        "setting `stop` did not end the run as stopped",
        ran,
    )
    expect(ran.elapsed < 1.5 + 15, f"the stopped run returned after {ran.elapsed:.1f} s", ran)
    _no_marked(subject, "a stop", ran)


def after_timeout(subject: Subject) -> None:
    """Processes, the backend's own objects and the harness's temporary files after a kill."""
    harness_tmp = subject.directory("harness-tmp")
    saved = tempfile.tempdir
    tempfile.tempdir = str(harness_tmp)  # what the backend makes with `tempfile` lands here
    try:
        ran = subject.run(TREE + "while True:\n    pass\n", args=(subject.token,), timeout=2)
    finally:
        tempfile.tempdir = saved
    expect(ran.result.timed_out, "the run was not killed at its wall clock", ran)
    _no_marked(subject, "the wall clock", ran)
    wait_for(lambda: not subject.sandbox.leftovers(subject.run_id), SETTLE)
    left = subject.sandbox.leftovers(subject.run_id)
    expect(not left, f"the backend left {left}", ran)
    files = sorted(p.name for p in harness_tmp.iterdir())
    expect(not files, f"temporary files of the harness left behind: {files}", ran)


# A harness of its own: runs the (pickled) backend instance on the request, until it is killed.
HARNESS = """
import base64, pickle, sys
from runners.sandbox.base import SandboxRequest
sandbox = pickle.loads(base64.b64decode(sys.argv[1]))
sandbox.run(SandboxRequest.model_validate_json(sys.argv[2]))
"""


def harness_killed(subject: Subject) -> None:
    """SIGKILL the harness mid-run; once a later harness has swept (`sweep_orphans`), nothing of
    the run may be left: no process, no container or cgroup."""
    try:
        pickled = base64.b64encode(pickle.dumps(subject.sandbox)).decode()
    except Exception as exc:  # noqa: BLE001 - said as the check's failure
        expect(False, f"the backend instance cannot be pickled to run in a second harness: {exc}")
        return
    started = subject.work / "started"
    request = subject.request(
        TREE + "import time\ntime.sleep(300)\n",
        args=(subject.token, f"{subject.target(subject.work)}/started"),
        timeout=300,
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    harness = subprocess.Popen(
        [sys.executable, "-c", HARNESS, pickled, request.model_dump_json()],
        env=env,
        start_new_session=True,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        if not wait_for(lambda: started.exists() or harness.poll() is not None, 90):
            expect(False, "the run in the second harness did not start within 90 s")
        if not started.exists():
            said = harness.stderr.read() if harness.stderr else b""
            expect(
                False,
                "the second harness ended before its run started: "
                f"{said.decode(errors='replace')[-800:]}",
            )
        os.kill(harness.pid, signal.SIGKILL)
        harness.wait()
        time.sleep(0.5)
        swept = subject.sandbox.sweep_orphans()
        left = subject.wait_unmarked(SETTLE)
        kill_processes(left)
        expect(
            not left,
            f"{len(left)} processes of the run outlived the killed harness (swept {swept})",
        )
        wait_for(lambda: not subject.sandbox.leftovers(subject.run_id), SETTLE)
        objects = subject.sandbox.leftovers(subject.run_id)
        expect(not objects, f"after the sweep, the killed harness's run left {objects}")
    finally:
        if harness.poll() is None:
            harness.kill()
            harness.wait()
        if harness.stderr is not None:
            harness.stderr.close()


CHECKS = (
    Check(
        "kill.timeout_tree",
        "at the wall clock the whole tree ends: daemons, SIGTERM ignored",
        timeout_tree,
    ),
    Check(
        "kill.daemons_after_exit",
        "when the command exits, what it left running ends with it",
        daemons_after_exit,
    ),
    Check(
        "kill.stop",
        "setting the request's stop event ends the whole run early, flagged stopped",
        stop,
    ),
    Check(
        "leftovers.after_timeout",
        "after a killed run: no process, container, cgroup or temporary file",
        after_timeout,
    ),
    Check(
        "leftovers.harness_killed",
        "a harness killed mid-run leaves nothing once a later one has swept (sweep_orphans)",
        harness_killed,
    ),
)
