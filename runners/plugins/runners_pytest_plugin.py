"""Our pytest plugin, loaded by name (`-p runners_pytest_plugin`) into the hidden test run.

1. Markers: it records each test's real markers and location in the pytest-json-report metadata,
   because the report's `keywords` mix markers with parametrize ids, file and directory names.
2. Integrity: the harness leaves a one-time key in a file; the plugin reads and deletes it as it is
   imported, before any conftest, test or submission code runs, makes this process non-dumpable (so
   processes of the same user cannot read its memory or file descriptors), and signs the final JSON
   report with an HMAC. A report rewritten by anything else fails verification: an infrastructure
   failure, not a grade.
3. Blame: for each file that fails to load (collection error), it records what the harness needs to
   tell a broken problem from a broken submission (`runners.engine.blame`): the exception, the files
   of its traceback and the files it names (a SyntaxError's, an OSError's, an ImportError's), the
   module a ModuleNotFoundError misses, and whether the submission was on `sys.path` (only then
   could the submission have provided that module). They go into the report, signed with it.
4. Repository problems: it registers the groups' markers (a problem's own ini, maybe with
   `--strict-markers`, is used as it is), and a submission's module named only for its doctests
   is not collected as a test module too (pytest would import it as one, `__main__.py` included,
   and collect any `test_*` function of the library).

Standalone: it is copied into the toolchain environment and imports nothing from `runners`.
"""

import ctypes
import json
import os
import sys

import pytest
from runners_report_signature import (
    CONFTEST_ERROR_FILE,
    DOCTEST_ONLY_ENV,
    KEY_FILE_ENV,
    KEY_FILE_NAME,
    LOAD_ERRORS_FIELD,
    MARKERS_ENV,
    SIGNATURE_FIELD,
    sign,
)

# pytest's own bookkeeping marks say nothing about what a test checks.
_INTERNAL = {"parametrize", "usefixtures", "filterwarnings"}
PR_SET_DUMPABLE = 4
_key = None
_doctest_only: frozenset = frozenset()
_load_errors: list = []
_MAX_FRAMES = 60


class _DoctestOnly(pytest.File):
    """A submission's module named for its doctests: no test module (the doctest plugin still
    collects its examples)."""

    def collect(self):
        return []


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makemodule(module_path, parent):
    if str(module_path) in _doctest_only:
        return _DoctestOnly.from_parent(parent, path=module_path)
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    global _doctest_only
    for line in os.environ.get(MARKERS_ENV, "").splitlines():
        if line.strip():
            config.addinivalue_line("markers", line)
    _doctest_only = frozenset(
        p for p in os.environ.get(DOCTEST_ONLY_ENV, "").split(os.pathsep) if p
    )


def _report_file_from_argv(argv):
    """The `--json-report-file` the harness gave pytest, read from the command line: the plugin
    is imported before pytest parses its options."""
    for i, arg in enumerate(argv):
        if arg.startswith("--json-report-file="):
            return arg.split("=", 1)[1]
        if arg == "--json-report-file" and i + 1 < len(argv):
            return argv[i + 1]
    return None


def _take_key():
    """(key, reports directory): the one-time key read and its file deleted as this module is
    imported, before pytest loads any conftest (a problem's conftest may import the submission),
    and this process made non-dumpable. The harness leaves the key beside the report it reads
    (`--json-report-file`): no variable names it, as the sandbox's first processes keep their
    environment readable (/proc/1/environ under docker, bwrap's command line). xdist workers find
    no key (the controller signs)."""
    path = os.environ.pop(KEY_FILE_ENV, None)
    if not path:
        report = _report_file_from_argv(sys.argv)
        path = os.path.join(os.path.dirname(report), KEY_FILE_NAME) if report else None
    if not path:
        return None, None
    reports = os.path.dirname(path)
    try:
        with open(path, "rb") as handle:
            key = handle.read()
        os.unlink(path)
    except OSError:
        return None, reports
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    return key, reports


_key, _reports_dir = _take_key()


@pytest.hookimpl(optionalhook=True)
def pytest_json_runtest_metadata(item, call):
    if call.when != "setup":
        return {}
    names = []
    for mark in item.iter_markers():
        if mark.name not in names and mark.name not in _INTERNAL:
            names.append(mark.name)
    if type(item).__name__ == "DoctestItem":  # a docstring's examples, not a test function
        names.append("doctest")
    path, lineno, _ = item.location
    return {"markers": names, "file": path, "line": (lineno + 1) if lineno is not None else None}


@pytest.hookimpl(wrapper=True)
def pytest_load_initial_conftests(early_config, parser, args):
    """A conftest that fails as pytest starts ends the run (exit 4) before any report exists:
    its facts go into a file of their own in the reports directory."""
    try:
        return (yield)
    except Exception as exc:
        if _reports_dir:
            try:
                with open(os.path.join(_reports_dir, CONFTEST_ERROR_FILE), "w") as handle:
                    json.dump(
                        {"nodeid": str(getattr(exc, "path", "") or ""), **load_error_facts(exc)},
                        handle,
                    )
            except OSError:
                pass
        raise


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector):
    report = yield
    call = getattr(report, "call", None)  # the collection's CallInfo: pytest drops it afterwards
    if report.outcome == "failed" and call is not None and call.excinfo is not None:
        # On the report itself, so that an xdist worker's report carries it to the controller.
        report.runners_load_error = load_error_facts(call.excinfo.value)
    return report


@pytest.hookimpl(tryfirst=True)
def pytest_collectreport(report):
    facts = getattr(report, "runners_load_error", None)
    if report.outcome == "failed" and isinstance(facts, dict):
        _load_errors.append({"nodeid": report.nodeid, **facts})


def load_error_facts(exc):
    """What a file's load failure says about who broke it (see the module's docstring)."""
    chain: list = []
    seen: set = set()
    while exc is not None and id(exc) not in seen and len(chain) < 8:
        seen.add(id(exc))
        chain.append(exc)
        exc = exc.__cause__ or (None if exc.__suppress_context__ else exc.__context__)
    root = chain[-1]
    frames: list = []
    files: list = []
    for error in chain:
        tb = error.__traceback__
        while tb is not None and len(frames) < _MAX_FRAMES:
            frames.append([tb.tb_frame.f_code.co_filename, tb.tb_lineno])
            tb = tb.tb_next
        if isinstance(error, SyntaxError) and error.filename:
            files.append([str(error.filename), error.lineno])
        if isinstance(error, OSError):
            files += [[str(name), None] for name in (error.filename, error.filename2) if name]
        if isinstance(error, ImportError) and error.path:
            files.append([str(error.path), None])
    submission = os.path.realpath(os.environ.get("SUBMISSION_PATH") or "/nonexistent")
    on_path = any(_inside(os.path.realpath(entry or os.getcwd()), submission) for entry in sys.path)
    missing = root.name if isinstance(root, ModuleNotFoundError) else None
    return {
        "error": f"{type(root).__name__}: {root}"[:2000],
        "frames": frames,
        "files": files,
        "missing_module": missing,
        "submission_on_path": on_path,
    }


def _inside(path, root):
    return path == root or path.startswith(root.rstrip("/") + "/")


@pytest.hookimpl(optionalhook=True, trylast=True)
def pytest_json_modifyreport(json_report):
    if _load_errors:
        json_report[LOAD_ERRORS_FIELD] = _load_errors
    if _key:
        json_report[SIGNATURE_FIELD] = sign(json_report, _key)
