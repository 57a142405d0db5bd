"""Running a command: its exit code and its two streams; a program that does not exist."""

from __future__ import annotations

from runners.sandbox.conformance.subject import Check, Subject, expect


def exit_and_streams(subject: Subject) -> None:
    ran = subject.run("""
        print("to stdout")
        print("to stderr", file=sys.stderr)
        sys.exit(7)
    """)
    result = ran.result
    expect(result.exit_code == 7, "the command's exit code 7 was not returned", ran)
    expect(
        result.stdout.strip() == "to stdout" and result.stderr.strip() == "to stderr",
        "stdout and stderr are not returned apart and whole",
        ran,
    )
    expect(
        not (result.timed_out or result.oom_killed or result.stopped or result.truncated),
        "a plain run is flagged",
        ran,
    )


def missing_program(subject: Subject) -> None:
    request = subject.request("")
    request = request.model_copy(update={"argv": ["/no/such/program", "x"]})
    ran = subject.send(request)  # an exception here is the check's error: it must not raise
    expect(ran.result.exit_code not in (0, None), "a program that does not exist 'succeeded'", ran)
    expect("/no/such/program" in ran.result.stderr, "stderr does not name the missing program", ran)


CHECKS = (
    Check(
        "basics.exit_and_streams",
        "the command's exit code, stdout and stderr come back apart and whole",
        exit_and_streams,
    ),
    Check(
        "basics.missing_program",
        "a program that does not exist is a failed run naming it, not an error",
        missing_program,
    ),
)
