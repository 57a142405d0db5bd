"""Our grade against SCBench's own case-based evaluator, case by case, on problems in SCBench's
format: a documented cross-check outside the test suite (SCBench's code is not in this repository,
and CI cannot fetch it). The recorded table is in docs/CASES.md.

    SCBENCH_SRC=/path/to/slop-code-bench SCBENCH_PYTHON=/path/to/python \\
        uv run --no-sync python bench/scbench_compare.py [--markdown [--all]] [--sandbox bubblewrap]
        ... bench/scbench_compare.py --problems $SCBENCH_SRC/problems [--only NAME ...] \\
            [--cache DIR]

Without `--problems`: our fixtures in SCBench's format. With it: every problem of that directory
(SCBench's own 19 in its `problems/`; nothing is copied), each checkpoint with its reference
`solution/`. `--cache DIR` keeps SCBench's grade of each checkpoint as JSON (its evaluator takes
about a second a case). SCBench's local-py spec runs the submission on uv's default Python: set
UV_PYTHON to a 3.12 (its docker spec's version, which its reference solutions need) when that
default is older.

SCBENCH_SRC: a checkout of SprocketLab/slop-code-bench at 086518d (the parent of 2a9800e, its move
to pytest); SCBENCH_PYTHON: a Python 3.12 that imports its `src/` (pydantic, PyYAML, structlog,
deepdiff, jsonschema, httpx, jinja2, pandas, pyarrow, numpy, rich, docker, gitpython).
bench/scbench_eval.py drives it on each checkpoint with its local-py environment spec.

Every case where the two grades differ must be a known difference of SCBench's evaluator
(`KNOWN`, each documented in docs/CASES.md); the exit code is 1 when one is not.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from runners.model.errors import RunnersError

ROOT = Path(__file__).resolve().parent.parent
COMPAT = ROOT / "tests" / "fixtures" / "scbench_cases"
OUTSIDE = ROOT / "tests" / "fixtures" / "outside_cases"
UPSTREAM = "SprocketLab/slop-code-bench 086518dee044299dddb7752fae6a3dc0ece12bc5"

# Why SCBench's grade is not ours, per kind (docs/CASES.md, "Deliberate differences").
REASONS = {
    "uv-stderr": "SCBench's local runtime puts `uv run`'s build lines on the program's stderr",
    "hidden-tracked": "SCBench strips the leading '.' of a tracked pattern: `.tally` is never read",
    "uv-init-flake": (
        "SCBench's local runtime: a workspace named `tmp…_` fails `uv init` (ModuleNotFoundError)"
    ),
}
# (problem, case id without a regression prefix) -> the reason SCBench grades it otherwise.
KNOWN = {
    ("ledger_cli", "missing_input"): "uv-stderr",
    ("ledger_cli", "bad_amount"): "uv-stderr",
    ("tally", "missing_input"): "uv-stderr",
    ("tally", "bad_format"): "uv-stderr",
    ("tally", "add_fruit"): "hidden-tracked",
    ("tally", "add_more"): "hidden-tracked",
    ("tally", "show_list"): "hidden-tracked",
}


@dataclass
class Cell:
    problem: Path
    checkpoint: str
    submission: (
        str  # a directory, or `partial:<name>` (made by tests/fixtures/outside_cases/partial.py)
    )


CELLS = [
    Cell(COMPAT / p, c, str(COMPAT / p / "checkpoint_2" / "solution"))
    for p in ("ledger_cli", "counter_api")
    for c in ("checkpoint_1", "checkpoint_2")
]
CELLS += [
    Cell(OUTSIDE / p, c, s)
    for p, s in (
        ("tally", "reference"),
        ("tally", "partial:tally_partial"),
        ("shelf_api", "reference"),
        ("shelf_api", "partial:shelf_partial"),
    )
    for c in ("checkpoint_1", "checkpoint_2")
]


def submission_dir(cell: Cell, scratch: Path) -> Path:
    if cell.submission == "reference":
        return cell.problem / "checkpoint_2" / "solution"
    if cell.submission.startswith("partial:"):
        sys.path.insert(0, str(OUTSIDE))
        import partial  # the fixture's own module

        name = cell.submission.split(":", 1)[1]
        return partial.make(name, scratch / name)
    return Path(cell.submission)


def ours(cell: Cell, submission: Path, sandbox: str) -> dict[str, tuple[bool, float]]:
    from runners import EnvironmentSpec, run_checkpoint

    result = run_checkpoint(
        cell.problem, cell.checkpoint, submission, EnvironmentSpec(sandbox=sandbox)
    )
    if (
        not result.graded
    ):  # an infrastructure failure or a problem error: no test results to compare
        raise SystemExit(f"{cell.problem.name} {cell.checkpoint}: {result.summary}")
    return {t.id: (t.passed, round(t.score or 0.0, 4)) for t in result.tests}


def external_cells(problems: Path, only: list[str]) -> list[Cell]:
    """Each checkpoint of each problem under `problems` with its own reference solution."""
    if not problems.is_dir():
        raise SystemExit(f"--problems {problems}: not a directory")
    names = only or sorted(p.name for p in problems.iterdir() if (p / "config.yaml").is_file())
    return [
        Cell(problems / name, ck.name, str(ck / "solution"))
        for name in names
        for ck in sorted(
            (problems / name).glob("checkpoint_*"), key=lambda c: int(c.name.rsplit("_", 1)[1])
        )
        if (ck / "solution").is_dir()
    ]


def _plain_environment() -> dict[str, str]:
    """Ours without `uv run`'s VIRTUAL_ENV: SCBench's local runtime passes the environment on to its
    own `uv run`, which would warn about it on every program's stderr."""
    return {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}


def theirs(
    cell: Cell, submission: Path, cache: Path | None = None
) -> dict[str, tuple[bool, float]]:
    saved = cache / f"{cell.problem.name}-{cell.checkpoint}.json" if cache else None
    if saved and saved.is_file() and "partial:" not in cell.submission:
        return _grades(cell, json.loads(saved.read_text())["cases"])
    python, source = os.environ.get("SCBENCH_PYTHON"), os.environ.get("SCBENCH_SRC")
    if not (python and source):
        raise SystemExit(
            "set SCBENCH_SRC and SCBENCH_PYTHON (see the top of bench/scbench_compare.py)"
        )
    proc = subprocess.run(
        [
            python,
            str(ROOT / "bench" / "scbench_eval.py"),
            str(cell.problem),
            cell.checkpoint,
            str(submission),
        ],
        capture_output=True,
        text=True,
        timeout=3600,
        check=False,
        env={**_plain_environment(), "SCBENCH_SRC": source},
    )
    if proc.returncode != 0:
        raise SystemExit(
            f"SCBench's evaluator failed on {cell.problem.name} "
            f"{cell.checkpoint}:\n{proc.stderr[-3000:]}"
        )
    last = proc.stdout.strip().splitlines()[-1]
    if saved and "partial:" not in cell.submission:
        saved.parent.mkdir(parents=True, exist_ok=True)
        saved.write_text(last)
    return _grades(cell, json.loads(last)["cases"])


# SCBench's local runtime flake (docs/CASES.md, quirk 16): a workspace `tmpXXXXXXX_` fails
# `uv init`.
FLAKE = re.compile(r"/tmp/tmp\w*_/.*\n(?:.*\n)*ModuleNotFoundError")
FLAKY: set[tuple[str, str]] = set()


def _grades(cell: Cell, cases: dict[str, dict]) -> dict[str, tuple[bool, float]]:
    FLAKY.update(
        (cell.problem.name, case)
        for case, grade in cases.items()
        if FLAKE.search(grade.get("stderr") or "")
    )
    return {case: (grade["passed"], round(grade["score"], 4)) for case, grade in cases.items()}


def _grade(value: tuple[bool, float] | None) -> str:
    return "missing" if value is None else f"{'pass' if value[0] else 'fail'} {value[1]:.4g}"


def compare(
    cells: list[Cell], sandbox: str, cache: Path | None = None
) -> tuple[list[list[str]], int]:
    rows, unexplained = [], 0
    with tempfile.TemporaryDirectory(prefix="scbench-compare-") as tmp:
        for cell in cells:
            submission = submission_dir(cell, Path(tmp))
            try:
                mine = ours(cell, submission, sandbox)
            except (
                SystemExit,
                RunnersError,
            ) as exc:  # e.g. SCBench's data missing from its git history
                rows.append(
                    [
                        cell.problem.name,
                        cell.checkpoint,
                        "reference",
                        "(checkpoint)",
                        "cannot run",
                        "-",
                        "≠",
                        str(exc).splitlines()[0][:160],
                    ]
                )
                unexplained += 1
                continue
            upstream = theirs(cell, submission, cache)
            label = (
                "reference"
                if cell.submission == "reference" or "solution" in cell.submission
                else cell.submission
            )
            for case in sorted(mine.keys() | upstream.keys()):
                same = mine.get(case) == upstream.get(case)
                reason = KNOWN.get((cell.problem.name, case.split("/", 1)[1])) if not same else None
                if not same and (cell.problem.name, case) in FLAKY:
                    reason = "uv-init-flake"
                unexplained += not same and reason is None
                note = "" if same else REASONS[reason] if reason else "UNEXPLAINED"
                rows.append(
                    [
                        cell.problem.name,
                        cell.checkpoint,
                        label,
                        case,
                        _grade(mine.get(case)),
                        _grade(upstream.get(case)),
                        "=" if same else "≠",
                        note,
                    ]
                )
    return rows, unexplained


def _summary(rows: list[list[str]]) -> list[list[str]]:
    cells: dict[tuple[str, str, str], list[list[str]]] = {}
    for row in rows:
        cells.setdefault((row[0], row[1], row[2]), []).append(row)
    return [
        [
            *key,
            str(len(group)),
            str(sum(r[6] == "=" for r in group)),
            str(sum(r[6] != "=" for r in group)),
        ]
        for key, group in cells.items()
    ]


def _markdown(header: list[str], rows: list[list[str]]) -> None:
    print("| " + " | ".join(header) + " |\n|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="bench/scbench_compare.py", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--sandbox", default="bubblewrap", help="our side's sandbox (default bubblewrap)"
    )
    parser.add_argument(
        "--markdown",
        action="store_true",
        help=(
            "markdown: a summary per checkpoint and the cases graded otherwise (as in "
            "docs/CASES.md)"
        ),
    )
    parser.add_argument(
        "--all",
        action="store_true",
        help="with --markdown: every case, not only those graded otherwise",
    )
    parser.add_argument(
        "--problems",
        type=Path,
        help=(
            "a directory of problems in SCBench's format (e.g. $SCBENCH_SRC/problems) instead of "
            "ours"
        ),
    )
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        help="with --problems: this problem only (repeatable)",
    )
    parser.add_argument(
        "--cache", type=Path, help="keep and reuse SCBench's grades here (one JSON per checkpoint)"
    )
    args = parser.parse_args(argv)
    cells = external_cells(args.problems, args.only) if args.problems else CELLS
    rows, unexplained = compare(cells, args.sandbox, args.cache)
    header = [
        "problem",
        "checkpoint",
        "submission",
        "case",
        "runners",
        "SCBench",
        "",
        "why they differ",
    ]
    if args.markdown:
        print(f"SCBench: {UPSTREAM}; runners: --sandbox {args.sandbox}\n")
        _markdown(
            ["problem", "checkpoint", "submission", "cases", "same grade", "graded otherwise"],
            _summary(rows),
        )
        print()
        _markdown(header, [row for row in rows if args.all or row[6] != "="])
    else:
        from rich.console import Console
        from rich.table import Table

        table = Table(title=f"runners vs SCBench's evaluator ({UPSTREAM})", title_justify="left")
        for name in header:
            table.add_column(name)
        for row in rows:
            table.add_row(*row)
        Console(width=200).print(table)
    same = sum(row[6] == "=" for row in rows)
    print(
        f"\n{len(rows)} cases: {same} the same grade, {len(rows) - same - unexplained} known "
        f"differences, {unexplained} unexplained"
    )
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
