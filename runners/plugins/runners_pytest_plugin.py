"""Our pytest plugin, loaded by name (`-p runners_pytest_plugin`) into the hidden test run.

It records each test's real markers and location in the pytest-json-report metadata, because the
report's `keywords` mix markers with parametrize ids, file and directory names. Standalone: it is
copied into the toolchain environment and imports nothing from `runners`.
"""

import pytest

# pytest's own bookkeeping marks say nothing about what a test checks.
_INTERNAL = {"parametrize", "usefixtures", "filterwarnings"}


@pytest.hookimpl(optionalhook=True)
def pytest_json_runtest_metadata(item, call):
    if call.when != "setup":
        return {}
    names = []
    for mark in item.iter_markers():
        if mark.name not in names and mark.name not in _INTERNAL:
            names.append(mark.name)
    path, lineno, _ = item.location
    return {"markers": names, "file": path, "line": (lineno + 1) if lineno is not None else None}
