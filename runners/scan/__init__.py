"""Static scan of a submission for grader-touching code: what a sandbox cannot stop, flagged.

The sandbox keeps a submission away from the host, the network, the hidden tests' files and the
report. It cannot keep it out of the *test process* when the tests import it (a library problem):
there, code can patch `_pytest`, vitest's or jest's `expect`, `Object.is`, take the report key, or
exit 0 before the asserts run. Those runs are graded as usual; this scan reads the submission copy
and says what in it touches the grader, as flags on the result:

    grader-touching: calc.py:1 imports _pytest: the test framework's internals, which decide the outcomes
    grader-touching: calc.py:9 reads or rewrites a frame's variables (.f_locals): the test's expected values included

Each flag points at something that can change a grade and says what it can do; what cannot
(an exit pytest turns into an error, reading the call stack, a conftest the harness never loads)
is not flagged. Flags warn, they do not change the grade. The scan is bounded (file count, bytes per
file, bytes in all) and never executes or imports anything from the submission.

`core` walks the copy and holds the bounds; each language is a `LanguageScan` (`python`,
`javascript`), listed once in `LANGUAGES` below; what is protected (report files, the key's
variable, plugin modules) comes from the run's framework runner (`Runner.protected()`).
"""  # noqa: E501

from __future__ import annotations

from pathlib import Path

from runners.scan.core import (
    MAX_FILES,
    PREFIX,
    Finding,
    LanguageScan,
    Protected,
    ScanInput,
    as_flags,
    scan_files,
)
from runners.scan.javascript import JavaScriptScan
from runners.scan.python import PythonScan

__all__ = [
    "LANGUAGES",
    "MAX_FILES",
    "PREFIX",
    "Finding",
    "LanguageScan",
    "Protected",
    "scan",
    "scan_submission",
]

LANGUAGES: tuple[LanguageScan, ...] = (PythonScan(), JavaScriptScan())


def scan_submission(
    root: Path,
    entry_file: str | None = None,
    protected: Protected | None = None,
    skip: set[str] | frozenset[str] = frozenset(),
) -> list[str]:
    """Flags for what in the submission copy at `root` touches the grader; [] for ordinary code.

    `entry_file` is the problem's entry file (a CLI may end itself, a library may not);
    `protected` is what the run's runner protects (`Runner.protected()`; every built-in runner's
    together: `runners.frameworks.registry.builtin_protected()`); `skip` lists the copy's files
    that are the problem's (a repository problem's tests), relative to `root`.
    """
    try:
        findings = scan(Path(root), entry_file, protected, skip)
    except Exception as exc:  # noqa: BLE001 - advisory: a scan that fails must never stop the grading
        return [f"{PREFIX}: the scan failed ({type(exc).__name__}: {exc})"[:300]]
    return as_flags(findings)


def scan(
    root: Path,
    entry_file: str | None = None,
    protected: Protected | None = None,
    skip: set[str] | frozenset[str] = frozenset(),
) -> list[Finding]:
    given = ScanInput(entry_file, protected if protected is not None else Protected())
    return scan_files(root, LANGUAGES, given, skip)
