"""Our pytest plugin, loaded by name (`-p runners_pytest_plugin`) into the hidden test run.

1. Markers: it records each test's real markers and location in the pytest-json-report metadata,
   because the report's `keywords` mix markers with parametrize ids, file and directory names.
2. Integrity: the harness leaves a one-time key in a file; the plugin reads and deletes it before
   any test (or submission code) runs, makes this process non-dumpable (so processes of the same
   user cannot read its memory or file descriptors), and signs the final JSON report with an
   HMAC. A report rewritten by anything else fails verification: an infrastructure failure, not a
   grade.
3. Repository problems: it registers the groups' markers (a problem's own ini, maybe with
   `--strict-markers`, is used as it is), and a submission's module named only for its doctests
   is not collected as a test module too (pytest would import it as one, `__main__.py` included,
   and collect any `test_*` function of the library).

Standalone: it is copied into the toolchain environment and imports nothing from `runners`.
"""

import ctypes
import os

import pytest
from runners_report_signature import (
    DOCTEST_ONLY_ENV,
    KEY_FILE_ENV,
    KEY_FILE_NAME,
    MARKERS_ENV,
    SIGNATURE_FIELD,
    sign,
)

# pytest's own bookkeeping marks say nothing about what a test checks.
_INTERNAL = {"parametrize", "usefixtures", "filterwarnings"}
PR_SET_DUMPABLE = 4
_key = None
_doctest_only: frozenset = frozenset()


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
    global _key, _doctest_only
    for line in os.environ.get(MARKERS_ENV, "").splitlines():
        if line.strip():
            config.addinivalue_line("markers", line)
    _doctest_only = frozenset(p for p in os.environ.get(DOCTEST_ONLY_ENV, "").split(os.pathsep) if p)
    path = os.environ.pop(KEY_FILE_ENV, None) or _key_beside_report(config)
    if not path or hasattr(config, "workerinput"):  # xdist workers: the controller signs
        return
    try:
        with open(path, "rb") as handle:
            _key = handle.read()
        os.unlink(path)
    except OSError:
        _key = None
        return
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _key_beside_report(config):
    """The harness leaves the key beside the report it reads (`--json-report-file`): no variable
    names it, as the sandbox's first processes keep their environment readable (/proc/1/environ
    under docker, bwrap's command line)."""
    try:
        report = config.getoption("json_report_file")
    except (ValueError, AttributeError):
        return None
    return os.path.join(os.path.dirname(str(report)), KEY_FILE_NAME) if report else None


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


@pytest.hookimpl(optionalhook=True, trylast=True)
def pytest_json_modifyreport(json_report):
    if _key:
        json_report[SIGNATURE_FIELD] = sign(json_report, _key)
