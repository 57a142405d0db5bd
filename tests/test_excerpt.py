"""The decisive lines of a tool's output: the cause of an infrastructure failure, bounded."""

from __future__ import annotations

from runners.engine.excerpt import MAX_CHARS, MAX_LINES, decisive_lines, with_output

PYTEST_USAGE = """\
ERROR: usage: python -m pytest [options] [file_or_dir] [file_or_dir] [...]
python -m pytest: error: unrecognized arguments: --checkpoint=checkpoint_1
  inifile: /harness/config/pytest.ini
  rootdir: /harness
"""

NODE_MISSING = """\
node:internal/modules/cjs/loader:1228
  throw err;
  ^

Error: Cannot find module '/x/node_modules/jest/bin/jest.js'
    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)
    at node:internal/main/run_main_module:28:49 {
  code: 'MODULE_NOT_FOUND',
  requireStack: []
}

Node.js v22.22.0
"""


def test_error_lines_are_picked_and_the_reason_keeps_its_first_line():
    reason = with_output("pytest exited 4 (usage error)", PYTEST_USAGE, "collected 0 items\n")
    head, *lines = reason.splitlines()
    assert head == "pytest exited 4 (usage error)"
    assert [line.strip() for line in lines] == [
        "ERROR: usage: python -m pytest [options] [file_or_dir] [file_or_dir] [...]",
        "python -m pytest: error: unrecognized arguments: --checkpoint=checkpoint_1",
    ]


def test_node_and_python_failures_keep_the_error_not_the_stack():
    assert decisive_lines(NODE_MISSING) == [
        "Error: Cannot find module '/x/node_modules/jest/bin/jest.js'"
    ]
    traceback = (
        'Traceback (most recent call last):\n  File "<string>", line 1, in <module>\n'
        "    import nosuch\nModuleNotFoundError: No module named 'nosuch'\n"
    )
    assert decisive_lines(traceback) == ["ModuleNotFoundError: No module named 'nosuch'"]


def test_npm_errors_are_kept_in_order():
    npm = (
        "npm error code ENOTCACHED\n"
        "npm error request to <registry>/left-pad failed: cache mode is 'only-if-cached'\n"
        "npm error A complete log of this run can be found in: /home/.npm/_logs/x.log\n"
    )
    assert decisive_lines(npm) == npm.strip().splitlines()


def test_a_heading_keeps_the_line_that_explains_it():
    jest = (
        "● Validation Error:\n\n"
        "  Module ./nope in the testEnvironment option was not found.\n\n  Docs: x\n"
    )
    assert decisive_lines(jest) == [
        "● Validation Error:",
        "Module ./nope in the testEnvironment option was not found.",
    ]


def test_without_error_lines_the_tail_is_shown():
    assert decisive_lines("", "\n".join(f"line {i}" for i in range(50))) == [
        f"line {i}" for i in range(45, 50)
    ]
    assert with_output("reason", "", "") == "reason"


def test_the_excerpt_is_bounded_in_lines_and_characters():
    flood = "\n".join(f"Error: failure number {i} " + "x" * 400 for i in range(10_000))
    lines = decisive_lines(flood)
    assert len(lines) <= MAX_LINES and sum(len(line) + 1 for line in lines) <= MAX_CHARS + 10
    assert lines[0].startswith("Error: failure number 0 ")  # the first error is the cause
    assert all(len(line) <= 300 for line in lines)
