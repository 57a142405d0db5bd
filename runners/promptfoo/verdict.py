"""What a finished `promptfoo eval` says, for a script: were its rows graded, or did some not run?

    python -m runners.promptfoo.verdict RESULTS.json     # the JSON `promptfoo eval -o` wrote

promptfoo exits 100 both when rows failed their grade and when rows errored. This reads the
eval's results and prints one line per kind of row that is no grade, then exits with the
project's codes (`runners.model.exitcodes`), the first that applies of:

| code | rows |
| --- | --- |
| 2 | an ERROR row of bad input: a provider config, a problem's config.yaml, a missing submission, an agent that never started |
| 4 | an ERROR row of a problem error: the problem's own files failed to load |
| 3 | a row that is an infrastructure failure (the tests could not be run, or their report cannot be trusted) |
| 0 | every row is a grade (passed or failed) |

`scripts/compare.sh` runs it after the eval.
"""  # noqa: E501

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from runners.model import exitcodes

PROBLEM_ERROR = "PROBLEM ERROR"  # runners.promptfoo.output's words for it


def kind(row: dict[str, Any]) -> str:
    """`config`, `problem`, `infra` or `graded`."""
    response = _mapping(row.get("response"))
    metadata = _mapping(response.get("metadata"))
    if row.get("failureReason") == 2:
        text = str(row.get("error") or response.get("error") or "")
        return "problem" if PROBLEM_ERROR in text or metadata.get("problem_error") else "config"
    if metadata.get("infrastructure_failure"):
        return "infra"
    return "graded"


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def rows(results: dict[str, Any]) -> list[dict[str, Any]]:
    found = (results.get("results") or {}).get("results") if isinstance(results, dict) else None
    return [row for row in found or [] if isinstance(row, dict)]


def verdict(results: dict[str, Any]) -> tuple[int, list[str]]:
    """(exit code, lines that say why)."""
    found = rows(results)
    counts = Counter(kind(row) for row in found)
    lines = []
    for name, what in (
        ("config", "bad input (a config, a submission path, an agent that never started)"),
        ("problem", "a problem error (the problem's own files failed to load)"),
        ("infra", "an infrastructure failure"),
    ):
        if counts[name]:
            first = next(row for row in found if kind(row) == name)
            label = (
                (first.get("provider") or {}).get("label")
                if isinstance(first.get("provider"), dict)
                else None
            )
            meta = (
                ((first.get("testCase") or {}).get("metadata") or {})
                if isinstance(first.get("testCase"), dict)
                else {}
            )
            where = " · ".join(
                str(x) for x in (label, meta.get("problem"), meta.get("checkpoint")) if x
            )
            why = " ".join(str(first.get("error") or "see the row").split())
            lines.append(f"{counts[name]} row(s) are no grade: {what}; first: {where}: {why[:400]}")
    if counts["config"]:
        return exitcodes.BAD_INPUT, lines
    if counts["problem"]:
        return exitcodes.PROBLEM, lines
    if counts["infra"]:
        return exitcodes.INFRA, lines
    return exitcodes.MET, lines


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m runners.promptfoo.verdict RESULTS.json", file=sys.stderr)
        return exitcodes.BAD_INPUT
    try:
        results = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        print(f"error: {argv[0]}: cannot read the eval's results: {exc}", file=sys.stderr)
        return exitcodes.BAD_INPUT
    code, lines = verdict(results)
    for line in lines:
        print(f"compare: {line}")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
