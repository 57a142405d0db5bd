"""Who broke a test file that failed to load: the problem, or the submission.

A test file that cannot be loaded (pytest's collection error, a conftest that fails, a vitest or
jest suite that failed to run) is the *submission's* failure when the submission caused it: its
module raised or has a syntax error when a test imported it, or a module it was to provide is
missing. It is the *problem's* error when the problem's own files did: a syntax error in its
tests, conftest or helpers, a module its tests import that is not installed (and that the
submission could not have provided), a data file it reads that is missing (as a file loads, or
in a fixture's setup). A problem's error is
no grade for anyone: the result says so (`ExecutionResult.problem_error`) and names the file and
line, instead of failing every agent and turning into Regression failures at the next checkpoint.

The rules, the same for every framework (the facts come from our pytest plugin where it records
them, else from the error's text: `facts_from_text`):

1. A frame of the traceback, or a file the error names, inside the submission (not a problem
   file laid into it): the submission's.
2. A module not found: the submission's when the submission could have provided it (pytest: it
   was on the import path, as a repository always is; JavaScript: the specifier points into the
   submission, or names a package of a repository), else the problem's.
3. Otherwise a frame or a named file among the problem's files: the problem's.
4. No evidence either way: the submission's, as before (a grade is never withheld without one).

A submission can only make its own failure look like the problem's from inside the test process
(a library problem), where it can forge anything and the scan flags it (`runners.scan`).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from runners.model.records import LoadError, RawRecord

# Exceptions that say the submission was run (and misbehaved) while a file loaded.
_RAN_THE_SUBMISSION = ("CalledProcessError", "TimeoutExpired")
_RAN_THE_SUBMISSION_TEXT = re.compile(r"\bCommand failed\b|\bspawnSync\b.*\bETIMEDOUT\b")
# The records of files that failed to load (not a suite's hook that failed: a hook may start the
# submission, and its failure is then the submission's).
LOAD_FAILURES = ("collection_error", "suite_failed_to_run")


@dataclass(frozen=True)
class Places:
    """Where things are, as the sandbox saw them."""

    submission: str
    # Root -> how the user finds it in the problem directory ("tests", "overlay/tests/test_a.py").
    problem: Mapping[str, str]
    # What relative paths are relative to: the tool's root, then the working directory (the copy).
    bases: tuple[str, ...]
    repository: bool = False

    def resolve(self, path: str) -> str:
        if path.startswith("/"):
            return posixpath.normpath(path)
        candidates = [posixpath.normpath(posixpath.join(base, path)) for base in self.bases]
        known = (
            c
            for c in candidates
            if self._problem_root(c) is not None or _inside(c, self.submission)
        )
        return next(known, candidates[0])

    def owner(self, path: str) -> str | None:
        """ "problem", "submission" or None (the toolchain, the standard library, `<frozen
        ...>`)."""
        if not path or path.startswith("<"):
            return None
        full = self.resolve(path)
        if self._problem_root(full) is not None:
            return "problem"
        return "submission" if _inside(full, self.submission) else None

    def shown(self, path: str) -> str:
        """A problem file as the user finds it in the problem directory."""
        full = self.resolve(path)
        root = self._problem_root(full)
        if root is None:
            return path
        rest = posixpath.relpath(full, root)
        return self.problem[root] if rest == "." else f"{self.problem[root]}/{rest}"

    def in_problem_terms(self, text: str) -> str:
        """`text` with the problem's paths as the sandbox saw them (`/harness/tests/data/x.json`)
        written as the user finds them in the problem directory (`tests/data/x.json`)."""
        for root in sorted(self.problem, key=len, reverse=True):
            text = re.sub(
                re.escape(root.rstrip("/")) + r"(?=/|\b)",
                self.problem[root].replace("\\", "\\\\"),
                text,
            )
        return text

    def _problem_root(self, full: str) -> str | None:
        # Longest first: a problem file laid into the submission wins over the submission.
        for root in sorted(self.problem, key=len, reverse=True):
            if _inside(full, root):
                return root
        return None


def problem_fault(record: RawRecord, places: Places) -> str | None:
    """Why `record` (a file that failed to load) is the problem's error, naming its file and
    line; None when it is the submission's failure (or nothing says otherwise)."""
    text = "\n".join(filter(None, (record.message, record.traceback)))
    facts = record.load_error or facts_from_text(text)
    located = [*facts.frames, *facts.files]
    owners = [places.owner(path) for path, _ in located]
    if (
        "submission" in owners
        or facts.error.split(":", 1)[0] in _RAN_THE_SUBMISSION
        or (record.load_error is None and _RAN_THE_SUBMISSION_TEXT.search(text))
    ):
        return None
    if facts.missing_module is not None and _submission_could_provide(facts, places):
        return None
    problem = [(path, line) for (path, line), owner in zip(located, owners) if owner == "problem"]
    if not problem:
        return None
    # The innermost problem frame (where it broke), or the file a SyntaxError names.
    named = [(path, line) for path, line in facts.files if places.owner(path) == "problem" and line]
    path, line = (
        named[-1] if named else next(((p, n) for p, n in reversed(problem) if n), problem[-1])
    )
    where = places.shown(path) + (f", line {line}" if line else "")
    error = places.in_problem_terms(
        facts.error or (record.message or "failed to load").strip().splitlines()[0]
    )
    hint = ""
    if facts.missing_module is not None and not facts.missing_module.startswith((".", "/")):
        hint = (
            f" (the module {facts.missing_module!r} is neither installed for the tests nor "
            "something the submission could provide: a missing test dependency?)"
        )
    return f"{where}: {error}{hint}"


def problem_faults(records: Iterable[RawRecord], places: Places) -> list[str]:
    """`problem_fault` of every collection error among `records` that is the problem's, and of
    every test whose setup missed one of the problem's own files."""
    return [
        fault
        for record in records
        if (
            (record.collection_error and record.raw_status in LOAD_FAILURES)
            or _setup_missed_a_problem_file(record, places)
        )
        and (fault := problem_fault(record, places)) is not None
    ]


def _setup_missed_a_problem_file(record: RawRecord, places: Places) -> bool:
    """A test that errored in its setup (a fixture) because a file of the problem's own is not
    there (`orders.csv.gz` read by a conftest fixture): the problem's data is missing, whoever
    runs it. Setup only: a test's body may read a file named after the submission's output, and
    a wrong output is then the submission's failure. The file must be the problem's (the tests'
    tree is read-only to the submission, which cannot have removed it), and `problem_fault`
    still rules a frame of the submission's, or a run of it, the submission's."""
    if record.status != "error" or not (record.message or "").startswith("[setup]"):
        return False
    text = "\n".join(filter(None, (record.message, record.traceback)))
    if not re.search(r"\bFileNotFoundError\b", text):
        return False
    return any(places.owner(found["path"]) == "problem" for found in _MISSING_FILE.finditer(text))


def problem_reason(faults: list[str]) -> str | None:
    """The result's reason for a problem error made of `faults` (None: there are none)."""
    if not faults:
        return None
    shown = list(dict.fromkeys(faults))
    more = [f"... and {len(shown) - 10} more"] if len(shown) > 10 else []
    return "\n".join([*shown[:10], *more])


def _submission_could_provide(facts: LoadError, places: Places) -> bool:
    module = facts.missing_module or ""
    if facts.submission_on_path is not None:
        return facts.submission_on_path
    if module.startswith((".", "/")):  # a JavaScript path: where it points
        return (
            False  # resolved by the caller into `files` (rule 1) when it points into the submission
        )
    return places.repository  # a bare name: the repository's dependency, else the problem's


# ---- facts from an error's text ------------------------------------------------------------------

# pytest: `tests/test_a.py:4: in <module>` (short), `tests/test_a.py:7: ` and `sub/calc.py:2:
# FileNotFoundError` (long, a test's failure), `File "/x/y.py", line 3`; JavaScript stacks:
# `at fn (/x/y.js:3:7)`, `at /x/y.js:3:7`, `❯ tests/a.test.js:3:7`, `file:///x/y.mjs:3:7`.
_PY_FRAME = re.compile(
    r"^(?P<path>[^\s:][^:\n]*\.py):(?P<line>\d+): (?:in |[A-Za-z_][\w.]*[ \t]*$|[ \t]*$)",
    re.MULTILINE,
)
_PY_FILE = re.compile(r'File "(?P<path>[^"\n]+)", line (?P<line>\d+)')
_JS_FRAME = re.compile(
    r"(?:\bat (?:[^\n(]*\()?|❯ |(?<=\s)|^)(?:file://)?(?P<path>[^\s():'\"]+\.(?:[cm]?[jt]sx?|vue|svelte))"
    r":(?P<line>\d+)(?::\d+)?\)?",
    re.MULTILINE,
)
# babel: `SyntaxError: /x/a.test.js: Unexpected token (3:10)`; vite (our reporter):
# `File: /x/a.js:3`
_JS_SYNTAX = re.compile(r"(?P<path>/[^\s:'\"]+\.[cm]?[jt]sx?): [^\n]*?\((?P<line>\d+):\d+\)")
_VITE_FILE = re.compile(r"^File: (?P<path>[^\s:]+)(?::(?P<line>\d+))?", re.MULTILINE)
# A file an error says is missing: Python's and Node's words.
_MISSING_FILE = re.compile(
    r"(?:No such file or directory|ENOENT: no such file or directory, \w+)"
    r":? '(?P<path>[^'\n]+)'"
)
_PY_ERROR = re.compile(
    r"^E\s+(?P<error>[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt)\b.*)$", re.MULTILINE
)
_JS_ERROR = re.compile(r"^\s*(?P<error>(?:[A-Z]\w*)?(?:Error|Exception)\b[:\s].*)$", re.MULTILINE)
_PY_MISSING = re.compile(r"ModuleNotFoundError: No module named '(?P<module>[^']+)'")
# jest: Cannot find module 'x' from 'tests/a.test.js'; vitest/vite: Failed to load url x (resolved
# id: x) in /x/a.test.js; node: Cannot find package 'x' imported from /x/a.js, Cannot find module
# '/x/y.js' imported from /x/a.js.
_JS_MISSING = re.compile(
    r"(?:Cannot find (?:module|package) |Failed to load url |Failed to resolve import )"
    r"['\"]?(?P<module>[^'\"\s]+)['\"]?(?:[^\n]*?(?:from|in) ['\"]?(?P<importer>[^'\"\s)]+))?"
)


def facts_from_text(text: str) -> LoadError:
    """What an error's text says (pytest's longrepr or stderr, a JavaScript suite's message)."""
    frames: list[tuple[str, int | None]] = []
    files: list[tuple[str, int | None]] = []
    for found in _PY_FRAME.finditer(text):
        frames.append((found["path"], int(found["line"])))
    for found in _PY_FILE.finditer(text):
        files.append((found["path"], int(found["line"])))
    for found in _JS_FRAME.finditer(text):
        frames.append((found["path"], int(found["line"])))
    for found in _JS_SYNTAX.finditer(text):
        files.append((found["path"], int(found["line"])))
    for found in _VITE_FILE.finditer(text):
        files.append((found["path"], int(found["line"]) if found["line"] else None))
    for found in _MISSING_FILE.finditer(text):
        files.append((found["path"], None))
    error = ""
    if errors := _PY_ERROR.findall(text):
        error = errors[-1].strip()
    elif errors := _JS_ERROR.findall(text):
        error = errors[0].strip()
    missing: str | None = None
    if python := _PY_MISSING.search(text):
        missing = python["module"]
    elif js := _JS_MISSING.search(text):
        missing = js["module"]
        if js["importer"]:
            frames.append((js["importer"], None))
        if missing.startswith((".", "/")) and js["importer"]:
            base = posixpath.dirname(js["importer"]) if not missing.startswith("/") else ""
            files.append((posixpath.normpath(posixpath.join(base, missing)), None))
        line_start = text.rfind("\n", 0, js.start()) + 1
        line_end = text.find("\n", js.end())
        error = error or text[line_start : line_end if line_end >= 0 else None].strip()
    return LoadError(error=error[:2000], frames=frames, files=files, missing_module=missing)


def _inside(path: str, root: str) -> bool:
    root = root.rstrip("/") or "/"
    return path == root or path.startswith(root + "/") or root == "/"
