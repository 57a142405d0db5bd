"""Our grade of SCBench's pytest-format problems against SCBench's own evaluator, test by test.

A documented cross-check outside the test suite (SCBench's code and problems are not in this
repository: they carry a canary). For every problem of SCBench's `problems/` and every checkpoint
with a reference solution (`solutions/checkpoint_N`), it grades the solution twice:

- runners: `python -m runners run PROBLEM -c CHECKPOINT -s SOLUTION` with no other option (a new
  user's command; `--sandbox` only when asked for here), solutions in place;
- SCBench: `run_checkpoint_pytest` with its `local-py` environment (bench/scbench_pytest_eval.py,
  run by the interpreter of an environment made from SCBench's pyproject).

and compares every test's pass/fail and group. A checkpoint is *exact* when both list the same tests
with the same outcome and group, or both call it an infrastructure failure.

    uv run --no-sync python bench/scbench_pytest_compare.py /tmp/scbench \\
        --scbench-python /tmp/scbench-venv/bin/python \\
        [--sandbox bubblewrap|docker] [--busy 2] [--only PROBLEM ...] [--cache DIR] \\
        [--json FILE] [--markdown]

`--cache DIR` keeps SCBench's grade of each checkpoint (its side does not depend on ours: grade it
once, compare our backends against it). `--busy N` runs N CPU-bound processes (`while 1: pass`)
beside our runs. The recorded tables are in docs/scbench.md.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
UPSTREAM = "SprocketLab/slop-code-bench feeab5ab"
BUSY_LOOP = (
    "import ctypes, signal; ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0)\nwhile 1: pass"
)


@dataclass
class Checkpoint:
    problem: str
    name: str
    solution: Path
    ours: dict = field(default_factory=dict)
    theirs: dict = field(default_factory=dict)
    attempts: int = 1  # grades taken until both agreed (or --retries ran out)

    @property
    def label(self) -> str:
        return f"{self.problem} {self.name.rsplit('_', 1)[-1]}"


def checkpoints(source: Path, only: list[str]) -> list[Checkpoint]:
    problems = source / "problems"
    if not problems.is_dir():
        raise SystemExit(f"{source}: no problems/ directory (expected a checkout of {UPSTREAM})")
    names = [item.split("/")[0] for item in only] or sorted(
        p.name for p in problems.iterdir() if (p / "config.yaml").is_file()
    )
    found = []
    for name in dict.fromkeys(names):
        for solution in sorted(
            (problems / name / "solutions").glob("checkpoint_*"),
            key=lambda p: int(p.name.rsplit("_", 1)[1]),
        ):
            if not only or name in only or f"{name}/{solution.name}" in only:
                found.append(Checkpoint(name, solution.name, solution))
    return found


def grade_ours(source: Path, cp: Checkpoint, sandbox: str | None, scratch: Path) -> dict:
    out = scratch / f"{cp.problem}-{cp.name}"
    argv = [
        sys.executable,
        "-m",
        "runners",
        "run",
        str(source / "problems" / cp.problem),
        "-c",
        cp.name,
        "-s",
        str(cp.solution),
        "--output",
        str(out),
        "--pass-policy",
        "any",
    ]
    if sandbox:
        argv += ["--sandbox", sandbox]
    started = time.monotonic()
    proc = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False)
    seconds = time.monotonic() - started
    try:
        result = json.loads((out / "result.json").read_text())
    except (OSError, ValueError):
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        return {
            "seconds": seconds,
            "error": " ".join(tail)[:300] or f"exit {proc.returncode}",
            "tests": {},
        }
    tests = {}
    for test in result.get("tests", []):
        file, _, rest = test["id"].partition("::")
        tests[f"{Path(file).name}::{rest}" if rest else test["id"]] = {
            "status": test["status"],
            "group": test["group_type"],
            "message": (test.get("failure_message") or "")[:300],
        }
    return {
        "seconds": seconds,
        "missing_files": missing_files(
            source / "problems" / cp.problem, result.get("problem_error_reason")
        ),
        "infrastructure_failure": bool(result.get("infrastructure_failure")),
        "reason": result.get("infrastructure_reason"),
        "problem_error": bool(result.get("problem_error")),
        "problem_reason": result.get("problem_error_reason"),
        "python": result.get("python"),
        "sandbox": result.get("sandbox"),
        "tests": tests,
    }


def missing_files(problem: Path, reason: str | None) -> list[str]:
    """The files a problem error says are missing that the checkout really lacks: a checkpoint
    whose data is absent (this snapshot lacks 5 large blobs) is to be an error naming the file."""
    named = re.findall(r"No such file or directory: '([^'\n]+)'", reason or "")
    return sorted({name for name in named if not (problem / name).exists()})


def grade_theirs(source: Path, python: str, cp: Checkpoint, cache: Path | None) -> dict:
    saved = cache / f"{cp.problem}-{cp.name}.json" if cache else None
    if saved and saved.is_file():
        return json.loads(saved.read_text())
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env.setdefault("UV_PYTHON", python)  # `uv init` / `uv run` on SCBench's 3.12, as its image
    env["PATH"] = f"{uv_dir()}:{env.get('PATH', '')}"  # its local runtime calls `uv` and `uvx`
    proc = subprocess.run(
        [
            python,
            str(ROOT / "bench" / "scbench_pytest_eval.py"),
            str(source),
            cp.problem,
            cp.name,
            str(cp.solution),
        ],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    if proc.returncode != 0:
        return {"error": (proc.stderr.strip().splitlines() or ["no output"])[-1][:300], "tests": {}}
    graded = json.loads(proc.stdout.strip().splitlines()[-1])
    if saved:
        saved.parent.mkdir(parents=True, exist_ok=True)
        saved.write_text(json.dumps(graded))
    return graded


def uv_dir() -> Path:
    """A directory holding only `uv` and `uvx` (this harness's), for SCBench's local runtime: a
    version manager's shims on PATH may not offer them for every Python."""
    from uv import find_uv_bin

    uv = Path(find_uv_bin()).resolve()
    target = Path(tempfile.gettempdir()) / f"scbench-uv-{os.getuid()}"
    target.mkdir(exist_ok=True)
    for name in ("uv", "uvx"):
        link = target / name
        if not link.is_symlink() or link.resolve() != uv.with_name(name):
            link.unlink(missing_ok=True)
            link.symlink_to(uv.with_name(name))
    return target


def verdict(cp: Checkpoint) -> tuple[bool, list[str]]:
    """Whether the two grades are the same, and the tests (or the checkpoint) that differ."""
    ours, theirs = cp.ours, cp.theirs
    if "error" in ours or "error" in theirs:
        return False, [
            (
                f"could not grade: runners: {ours.get('error', '-')}; SCBench: "
                f"{theirs.get('error', '-')}"
            )
        ]
    # SCBench calls a problem it cannot collect an infrastructure failure; runners a problem error
    # (runners/engine/blame.py: the problem's own files are at fault, not the submission): the same
    # verdict.
    mine = bool(ours.get("infrastructure_failure") or ours.get("problem_error"))
    if ours.get("problem_error") and ours.get("missing_files"):
        # The checkout lacks the problem's data: the verdict the issue asks for is an error that
        # names the file, whatever SCBench's evaluator makes of it (an infrastructure failure
        # for trajectory_api 4-5, setup errors for eve_market_tools).
        return True, [f"missing data: {', '.join(ours['missing_files'])}"]
    if theirs.get("infrastructure_failure") or mine:
        if bool(theirs.get("infrastructure_failure")) == mine:
            return True, []
        why = ours.get("problem_reason") or ours.get("reason") or "-"
        return False, [
            (
                f"infrastructure failure: runners {mine} ({why}), "
                f"SCBench {bool(theirs.get('infrastructure_failure'))}"
            )
        ]
    differ = []
    for test in sorted(ours["tests"].keys() | theirs["tests"].keys()):
        mine, other = ours["tests"].get(test), theirs["tests"].get(test)
        if mine is None or other is None:
            differ.append(f"{test}: only in {'SCBench' if mine is None else 'runners'}")
        elif (mine["status"] == "passed") != (other["status"] == "passed") or mine[
            "group"
        ] != other["group"]:
            differ.append(
                f"{test}: runners {mine['status']} {mine['group']}, SCBench {other['status']} "
                f"{other['group']}: {mine.get('message', '')[:160]}"
            )
    return not differ, differ


def start_busy(count: int) -> list[subprocess.Popen]:
    return [
        subprocess.Popen([sys.executable, "-c", BUSY_LOOP], start_new_session=True)
        for _ in range(count)
    ]


def missing_data(cp: Checkpoint) -> bool:
    return bool(cp.ours.get("problem_error") and cp.ours.get("missing_files"))


def stop_busy(processes: list[subprocess.Popen]) -> None:
    for proc in processes:
        proc.kill()
        proc.wait()


def markdown(
    rows: list[Checkpoint], sandbox: str | None, busy: int, busy_both: bool = False
) -> str:
    exact = sum(verdict(cp)[0] and not missing_data(cp) for cp in rows)
    missing = sum(missing_data(cp) for cp in rows)
    ran = (
        ", ".join(
            sorted(
                {
                    f"{cp.ours.get('sandbox')}, Python {cp.ours.get('python')}"
                    for cp in rows
                    if cp.ours.get("sandbox")
                }
            )
        )
        or "-"
    )
    lines = [
        (
            f"SCBench {UPSTREAM} (`run_checkpoint_pytest`, local-py, Python 3.12) against "
            f"`runners run` ({'--sandbox ' + sandbox if sandbox else 'no options'}: ran on "
            f"{ran}{f', {busy} busy processes beside' if busy else ''}"
            f"{' each side' if busy and busy_both else ''}): **{exact} of "
            f"{len(rows) - missing} checkpoints exact**"
            + (
                f", and {missing} whose data the checkout lacks an error naming the file"
                if missing
                else ""
            )
            + "."
        ),
        "",
        (
            "| checkpoint | tests (runners / SCBench) | passed (runners / SCBench) | same | "
            "grades taken | seconds (runners / SCBench) | what differs |"
        ),
        "|---|---|---|---|---|---|---|",
    ]
    for cp in rows:
        same, differ = verdict(cp)
        counts = [len(cp.ours.get("tests", {})), len(cp.theirs.get("tests", {}))]
        passed = [
            sum(t["status"] == "passed" for t in side.get("tests", {}).values())
            for side in (cp.ours, cp.theirs)
        ]
        note = "; ".join(differ[:3]) + (f"; … {len(differ) - 3} more" if len(differ) > 3 else "")
        lines.append(
            f"| {cp.label} | {counts[0]} / {counts[1]} | {passed[0]} / {passed[1]} | "
            f"{'=' if same else '≠'} | {cp.attempts} | {cp.ours.get('seconds', 0):.0f} / "
            f"{cp.theirs.get('seconds', 0):.0f} | {_cell(note)} |"
        )
    return "\n".join(lines)


def _cell(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("|", "\\|"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="bench/scbench_pytest_compare.py", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("source", type=Path, help=f"a checkout of {UPSTREAM}")
    parser.add_argument(
        "--scbench-python", required=True, help="the interpreter of SCBench's environment"
    )
    parser.add_argument(
        "--sandbox", help="our side's --sandbox (default: none given, as a new user runs it)"
    )
    parser.add_argument(
        "--busy", type=int, default=0, help="CPU-bound processes to run beside our runs"
    )
    parser.add_argument(
        "--busy-both",
        action="store_true",
        help="run the --busy processes beside SCBench's own evaluator too (graded afresh, not "
        "from --cache): whether a test that fails here under load fails there as well",
    )
    parser.add_argument(
        "--retries",
        type=int,
        default=0,
        help="grade a checkpoint whose grades differ again, both sides afresh, up to N times "
        "(a timing-bound test on a loaded machine); the table says how many it took",
    )
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        help="this problem (NAME) or checkpoint (NAME/checkpoint_N) only (repeatable)",
    )
    parser.add_argument(
        "--cache", type=Path, help="keep and reuse SCBench's grades here (one JSON per checkpoint)"
    )
    parser.add_argument("--json", type=Path, help="write both grades of every checkpoint here")
    parser.add_argument(
        "--markdown", action="store_true", help="print the table as Markdown (docs/scbench.md)"
    )
    parser.add_argument(
        "--from-json",
        type=Path,
        action="append",
        help="grade nothing: print the table of earlier --json files (repeatable: merged)",
    )
    args = parser.parse_args(argv)
    if args.from_json:
        rows = [
            Checkpoint(
                c["problem"], c["checkpoint"], Path(), c["ours"], c["theirs"], c.get("attempts", 1)
            )
            for path in args.from_json
            for c in json.loads(path.read_text())
        ]
        print(markdown(rows, args.sandbox, args.busy))
        return 0 if all(verdict(cp)[0] for cp in rows) else 1  # missing data: same verdict
    rows = checkpoints(args.source.resolve(), args.only)
    with tempfile.TemporaryDirectory(prefix="scbench-pytest-compare-") as tmp:
        for cp in rows:
            for attempt in range(1 + args.retries):
                cp.attempts = attempt + 1
                beside = start_busy(args.busy) if args.busy_both else []
                try:
                    cp.theirs = grade_theirs(
                        args.source.resolve(),
                        args.scbench_python,
                        cp,
                        args.cache if attempt == 0 and not args.busy_both else None,
                    )
                finally:
                    stop_busy(beside)
                busy = start_busy(args.busy)
                try:
                    cp.ours = grade_ours(args.source.resolve(), cp, args.sandbox, Path(tmp))
                finally:
                    stop_busy(busy)
                same, differ = verdict(cp)
                if same:
                    break
                print(
                    f"{cp.label}: differs at attempt {attempt + 1}"
                    + "".join(f"\n    {line}" for line in differ[:5]),
                    flush=True,
                )
            print(
                f"{cp.label}: "
                f"{'exact' if same else 'differs'}"
                f"{f' at attempt {cp.attempts}' if same and cp.attempts > 1 else ''} "
                f"({len(cp.ours.get('tests', {}))} tests, "
                f"{cp.ours.get('seconds', 0):.0f} s / SCBench {cp.theirs.get('seconds', 0):.0f} s)"
                + "".join(f"\n    {line}" for line in differ[:5]),
                flush=True,
            )
            if args.json:
                args.json.write_text(
                    json.dumps(
                        [
                            {
                                "problem": c.problem,
                                "checkpoint": c.name,
                                "ours": c.ours,
                                "theirs": c.theirs,
                                "attempts": c.attempts,
                            }
                            for c in rows
                            if c.ours
                        ],
                        indent=1,
                    )
                )
    exact = sum(verdict(cp)[0] and not missing_data(cp) for cp in rows)
    missing = sum(missing_data(cp) for cp in rows)
    print(
        f"\n{exact} of {len(rows) - missing} checkpoints exact"
        + (f"; {missing} lack their data and are errors naming the file" if missing else "")
    )
    if args.markdown:
        print("\n" + markdown(rows, args.sandbox, args.busy, args.busy_both))
    return 0 if exact + missing == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
