"""What runs is said while it runs, on stderr: a live display on a terminal, plain lines in a pipe.

Issue 26: `runners run` was silent until its table (a spinner at most, on stdout), and a batch said
nothing of the cells running. Real runs (sandbox `none`, pytest) of `run`, `evaluate`, `solve` and
`batch`: piped, each stage of each subject is a line on stderr; under a pseudo-terminal, stderr
shows a live display with the stage; stdout is the same as with `--no-progress` in both cases.
"""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support import make_problem, make_submission

pytestmark = [pytest.mark.toolchain]

MAIN = "import sys\nprint(' '.join(sys.argv[1:]))\n"
TESTS = {
    "test_checkpoint_1.py": """
        import subprocess, time
        def test_echo(entrypoint_argv):
            time.sleep(1.5)  # long enough for a live display to refresh a few times
            assert subprocess.run(
                entrypoint_argv + ["a"], capture_output=True, text=True
            ).stdout == "a\\n"
    """,
    "test_checkpoint_2.py": """
        import subprocess, time
        def test_echo_again(entrypoint_argv):
            time.sleep(1.5)
            assert subprocess.run(
                entrypoint_argv + ["b"], capture_output=True, text=True
            ).stdout == "b\\n"
    """,
}
STAGES = ("preparing workspace", "preparing toolchain", "running tests", "collecting")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
# What changes from one run to the next in the table: durations and the artifacts directory.
_VOLATILE = re.compile(r"\d+\.\d+ s|artifacts: \S+")


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Path]:
    problem = make_problem(tmp_path / "problems", TESTS, name="echo", checkpoints=2)
    root = tmp_path / "agent"
    for checkpoint in ("checkpoint_1", "checkpoint_2"):
        make_submission(root, {"main.py": MAIN}, checkpoint)
    return {"problem": problem, "root": root, "tmp": tmp_path}


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "160"}
    return subprocess.run(
        [sys.executable, "-m", "runners", *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=600,
    )


def progress_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("runners: ")]


def test_run_piped_says_each_stage_on_stderr_and_leaves_stdout_alone(world):
    sub = world["root"] / "checkpoint_1"
    args = ["run", str(world["problem"]), "-c", "checkpoint_1", "-s", str(sub), "--sandbox", "none"]
    out = cli(*args, "--output", str(world["tmp"] / "o1"), "--json", str(world["tmp"] / "r.json"))
    assert out.returncode == 0, out.stdout + out.stderr
    lines = progress_lines(out.stderr)
    assert lines[:4] == [f"runners: echo · checkpoint_1: {stage}" for stage in STAGES]
    assert re.fullmatch(r"runners: echo · checkpoint_1: Core 1/1 \(\d+\.\d s\)", lines[4])
    assert "runners: " not in out.stdout  # the table only
    quiet = cli(*args, "--output", str(world["tmp"] / "o2"), "--no-progress")
    assert quiet.returncode == 0 and progress_lines(quiet.stderr) == []
    assert _VOLATILE.sub("", quiet.stdout) == _VOLATILE.sub("", out.stdout)
    assert (world["tmp"] / "r.json").read_text().startswith("{")


def test_evaluate_piped_says_each_checkpoint_s_stages(world):
    out = cli(
        "evaluate",
        str(world["problem"]),
        "-s",
        str(world["root"]),
        "--sandbox",
        "none",
        "--output",
        str(world["tmp"] / "o"),
    )
    assert out.returncode == 0, out.stdout + out.stderr
    lines = progress_lines(out.stderr)
    for checkpoint in ("checkpoint_1", "checkpoint_2"):
        assert f"runners: echo · {checkpoint}: running tests" in lines
    assert lines.index("runners: echo · checkpoint_1: collecting") < lines.index(
        "runners: echo · checkpoint_2: preparing workspace"
    )
    assert "checkpoint_1: Core 1/1" in out.stdout and "runners: " not in out.stdout


def _on_a_terminal(args: list[str]) -> tuple[int, str, str]:
    """Run with stderr on a pseudo-terminal (120 columns) and stdout on a pipe: (exit code,
    what the terminal showed with escape codes removed, stdout)."""
    import fcntl
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "NO_COLOR", "CI")}
    env["TERM"] = "xterm-256color"
    proc = subprocess.Popen(
        [sys.executable, "-m", "runners", *args], stdout=subprocess.PIPE, stderr=slave, env=env
    )
    os.close(slave)
    shown = b""
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:
                break
            if not data:
                break
            shown += data
        elif proc.poll() is not None:
            break
    stdout = proc.stdout.read().decode() if proc.stdout else ""
    os.close(master)
    return proc.wait(timeout=60), _ANSI.sub("", shown.decode(errors="replace")), stdout


def test_run_on_a_terminal_shows_a_live_display_on_stderr(world):
    sub = world["root"] / "checkpoint_1"
    code, shown, stdout = _on_a_terminal(
        [
            "run",
            str(world["problem"]),
            "-c",
            "checkpoint_1",
            "-s",
            str(sub),
            "--sandbox",
            "none",
            "--output",
            str(world["tmp"] / "o"),
        ]
    )
    assert code == 0, shown + stdout
    # A spinner, the subject, its stage and its time, redrawn in place (\r) while the tests run.
    frames = [frame for frame in shown.split("\r") if "echo · checkpoint_1" in frame]
    assert any(
        re.search(r"[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] echo · checkpoint_1 running tests \d+:\d\d", f) for f in frames
    ), shown[-2000:]
    assert len({f.strip() for f in frames if "running tests" in f}) >= 2, (
        "the display did not refresh"
    )
    assert "runners: " not in shown  # no plain lines on a terminal
    # stdout (a pipe) has the table and nothing of the display.
    assert "Core" in stdout and "running tests" not in stdout and "\x1b" not in stdout


def test_evaluate_on_a_terminal_shows_a_bar_over_the_checkpoints(world):
    code, shown, stdout = _on_a_terminal(
        [
            "evaluate",
            str(world["problem"]),
            "-s",
            str(world["root"]),
            "--sandbox",
            "none",
            "--output",
            str(world["tmp"] / "o"),
        ]
    )
    assert code == 0, shown + stdout
    assert re.search(r"echo .*0/2", shown) and re.search(r"echo .*1/2", shown), shown[-2000:]
    assert "echo · checkpoint_2 running tests" in shown
    assert "checkpoint_1: Core 1/1" in stdout and "checkpoint_2: Core" in stdout


def test_batch_piped_says_the_stages_its_workers_reach(world):
    submissions = world["tmp"] / "subs"
    for checkpoint in ("checkpoint_1", "checkpoint_2"):
        make_submission(submissions / "alpha" / "echo", {"main.py": MAIN}, checkpoint)
    out = cli(
        "batch",
        "--problems",
        str(world["problem"].parent),
        "--submissions",
        str(submissions),
        "--sandbox",
        "none",
        "-j",
        "2",
        "-o",
        str(world["tmp"] / "batch"),
    )
    assert out.returncode == 0, out.stdout + out.stderr
    lines = progress_lines(out.stderr)
    for checkpoint in ("checkpoint_1", "checkpoint_2"):
        for stage in STAGES:  # sent by the worker process that ran the cell, over its pipe
            assert f"runners: alpha · echo · {checkpoint}: {stage}" in lines, out.stderr
    assert "✔ alpha/echo/checkpoint_1" in out.stdout and "runners: " not in out.stdout
    quiet = cli(
        "batch",
        "--problems",
        str(world["problem"].parent),
        "--submissions",
        str(submissions),
        "--sandbox",
        "none",
        "-o",
        str(world["tmp"] / "batch2"),
        "--no-progress",
    )
    assert quiet.returncode == 0 and progress_lines(quiet.stderr) == []


def test_solve_piped_says_the_agent_step_then_the_grading(world):
    for checkpoint in ("checkpoint_1", "checkpoint_2"):
        (world["problem"] / f"{checkpoint}.md").write_text(f"# Echo, {checkpoint}\n")
    source = world["root"] / "checkpoint_1"
    out = cli(
        "solve",
        str(world["problem"]),
        "--agent",
        "cp {mounts[src]}/main.py main.py",
        "--mount",
        f"src={source}",
        "--sandbox",
        "none",
        "--output",
        str(world["tmp"] / "solve"),
    )
    assert out.returncode == 0, out.stdout + out.stderr
    lines = progress_lines(out.stderr)
    assert "runners: agent · echo · checkpoint_1: agent step (checkpoint_1)" in lines, (
        out.stdout + out.stderr
    )
    step = lines.index("runners: agent · echo · checkpoint_2: agent step (checkpoint_2)")
    assert lines[step + 1 : step + 5] == [
        f"runners: agent · echo · checkpoint_2: {stage}" for stage in STAGES
    ]
    assert "runners: " not in out.stdout
