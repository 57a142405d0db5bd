"""What the submission can see: its environment, the harness's processes, the host's paths, and
the privileges it runs with."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

from runners.sandbox.conformance.subject import Check, Subject, expect

SECRET_NAME = "RUNNERS_CONFORMANCE_SECRET"


def environment(subject: Subject) -> None:
    canary = f"canary-{uuid.uuid4().hex}"
    os.environ[SECRET_NAME] = canary
    try:
        request = subject.request(
            "report(env=dict(os.environ))", env={"RUNNERS_CONFORMANCE_GIVEN": "given"}
        )
        ran = subject.send(request)
    finally:
        os.environ.pop(SECRET_NAME, None)
    seen = ran.facts.get("env", {})
    expect(
        seen.get("RUNNERS_CONFORMANCE_GIVEN") == "given",
        "a variable of the request is missing",
        ran,
    )
    expect(
        canary not in ran.result.stdout + ran.result.stderr,
        "the harness's variable reached the run",
        ran,
    )
    expect(SECRET_NAME not in seen, "the harness's variable's name reached the run", ran)


def harness_processes(subject: Subject) -> None:
    canary = f"canary-{uuid.uuid4().hex}"
    with subject.harness_process({SECRET_NAME: canary}):
        # The token travels reversed, so that the run's own command lines do not carry it.
        ran = subject.run(
            """
            token, canary = sys.argv[1][::-1].encode(), sys.argv[2][::-1].encode()
            seen, found = 0, []
            for entry in os.listdir("/proc"):
                if not entry.isdigit():
                    continue
                seen += 1
                for part in ("cmdline", "environ"):
                    try:
                        data = open(f"/proc/{entry}/{part}", "rb").read()
                    except OSError:
                        continue
                    if token in data or canary in data:
                        found.append(f"{entry}/{part}")
            report(processes=seen, found=found)
        """,
            args=(subject.token[::-1], canary[::-1]),
        )
    expect("found" in ran.facts, "the probe did not finish", ran)
    expect(
        not ran.facts["found"], f"the harness's process is visible: /proc/{ran.facts['found']}", ran
    )
    expect(canary not in ran.result.stdout, "the harness's environment was read", ran)


def host_paths(subject: Subject) -> None:
    secret = subject.directory("secret")
    (secret / "key").write_text("secret")
    paths = [str(secret / "key"), str(secret), str(Path(__file__).resolve())]
    ran = subject.run(
        "report(**{path: os.path.exists(path) for path in sys.argv[1:]})", args=tuple(paths)
    )
    expect(len(ran.facts) == len(paths), "the probe did not finish", ran)
    visible = [path for path in paths if ran.facts.get(path)]
    expect(not visible, f"host paths that were not mounted are visible: {visible}", ran)


def privileges(subject: Subject) -> None:
    ran = subject.run("""
        status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines()
                      if ":" in line)
        report(uid=os.geteuid(), caps=status["CapEff"].strip(), bounding=status["CapBnd"].strip())
    """)
    expect(ran.facts.get("uid") not in (None, 0), "the command runs as root", ran)
    expect(
        ran.facts.get("caps") is not None and int(ran.facts["caps"], 16) == 0,
        f"the command has capabilities ({ran.facts.get('caps')})",
        ran,
    )


CHECKS = (
    Check(
        "visibility.environment",
        "the run's environment is the request's, nothing of the harness's",
        environment,
    ),
    Check(
        "visibility.harness_processes",
        "the harness's processes, their command lines and environments are not visible",
        harness_processes,
    ),
    Check("visibility.host_paths", "host paths that are not mounted are not visible", host_paths),
    Check(
        "visibility.privileges",
        "the command runs as a user that is not root, with no capabilities",
        privileges,
    ),
)
