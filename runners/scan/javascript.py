"""JavaScript and TypeScript in a submission: reporters, package.json entries that remap the
test framework, and library code that imports the test framework, patches built-ins or its
globals, or exits the process.

Test-runner configuration the harness never reads is not flagged for being there (a
`vitest.config.ts`, `jest.config.js`, `.babelrc`, `babel.config.js`, a `jest` key in
package.json): the harness passes its own configuration, and a repository problem removes the
submission's. What such a file names (a setup file, a reporter, a transform) is code, and is read.

Read as text with comments stripped: nothing is parsed by Node or run.
"""

from __future__ import annotations

import json
import re
from pathlib import PurePosixPath

from runners.scan.core import Finding, LanguageScan, ScanInput, is_entry, lines

JS_SUFFIXES = frozenset({".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx"})

TEST_FRAMEWORKS = (
    r"vitest|@vitest/[\w./-]+|jest|@jest/[\w./-]+|expect|jest-circus|jest-jasmine2|chai"
)
JS_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (
        re.compile(
            rf"""(?:\bfrom\s*|\brequire\s*\(\s*|\bimport\s*\(\s*|^\s*import\s+)["'](?P<m>{TEST_FRAMEWORKS})["']"""
        ),
        "imports {m}: the test framework, in the test worker: can change how it judges",
    ),
    (
        re.compile(r"""["'][^"']*node_modules/(?P<m>vitest|jest|expect|@vitest|@jest)\b"""),
        "imports the test framework's files ({m}): can change how it judges",
    ),
    (
        re.compile(r"\bexpect\s*\.\s*(?P<m>extend|addSnapshotSerializer|addEqualityTesters)\b"),
        "expect.{m}: changes how the assertions compare",
    ),
    (
        re.compile(
            r"\b(?P<m>(?:Object|Array|Function|Reflect|JSON|Math|Number|String|Promise|Error|Symbol)"
            r"(?:\.prototype)?\.\w+)\s*=(?!=)"
        ),
        "replaces {m}: a built-in the assertions use",
    ),
    (
        re.compile(
            r"\b(?:globalThis|global)\s*\.\s*(?P<m>expect|test|it|describe|vi|jest|__vitest\w*|chai)\b"
        ),
        "touches the test framework's global {m}: can change how it judges",
    ),
    (
        re.compile(r"""Symbol\.for\(\s*["'](?P<m>\$\$jest[\w-]*|expect[\w-]*)"""),
        "touches {m}: the test framework's shared state",
    ),
    (re.compile(r"\b(?P<m>__vitest_\w+)"), "touches {m}: the test framework's shared state"),
]
JS_EXIT = re.compile(
    r"\bprocess\s*\.\s*(?P<m>exit|reallyExit|abort)\s*\(|\bprocess\.kill\(\s*process\.pid"
)
JS_EXPORTS = re.compile(r"^\s*export\s|\bmodule\.exports\b|\bexports\.\w+\s*=", re.MULTILINE)


class JavaScriptScan(LanguageScan):
    suffixes = JS_SUFFIXES
    file_names = frozenset({"package.json"})

    def by_content(self, rel: PurePosixPath, text: str, given: ScanInput) -> list[Finding]:
        if rel.name == "package.json":
            return _package_json(rel, text)
        return _javascript(rel, text, given)


def _package_json(rel: PurePosixPath, text: str) -> list[Finding]:
    try:
        data = json.loads(text)
    except ValueError:
        return []
    if not isinstance(data, dict):
        return []
    found = []
    if re.fullmatch(TEST_FRAMEWORKS, str(data.get("name", ""))):
        found.append(
            Finding(
                str(rel),
                None,
                f"a package named {data['name']!r}, like the test framework: "
                "can be resolved instead of it",
            )
        )
    for key in ("imports", "exports", "browser", "overrides", "resolutions"):
        if key in data and re.search(TEST_FRAMEWORKS, json.dumps(data[key])):
            found.append(
                Finding(
                    str(rel), None, f"{key} remap the test framework: can resolve it to other code"
                )
            )
    return found


_BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
_LINE_COMMENT = re.compile(r"(^|[\s;{}()])//.*$", re.MULTILINE)


def _javascript(rel: PurePosixPath, text: str, given: ScanInput) -> list[Finding]:
    if any(p in ("test", "tests", "__tests__") for p in rel.parts[:-1]) or re.search(
        r"\.(test|spec)\.[cm]?[jt]sx?$", rel.name
    ):
        return []  # the submission's own tests: never run by the harness
    code = _BLOCK_COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    code = _LINE_COMMENT.sub(lambda m: m.group(1), code)
    library = not is_entry(rel, given.entry_file, ".js") or bool(JS_EXPORTS.search(code))
    found: list[Finding] = []
    for number, line in lines(code):
        for pattern, what in JS_PATTERNS:
            for match in pattern.finditer(line):
                found.append(Finding(str(rel), number, what.format(**match.groupdict())))
        exit_call = JS_EXIT.search(line)
        if exit_call and library:
            found.append(
                Finding(
                    str(rel),
                    number,
                    f"process.{exit_call.group('m') or 'kill'} in library code: "
                    "ends the test worker before its report (no grade)",
                )
            )
    strings = [(n, line) for n, line in lines(code) if '"' in line or "'" in line or "`" in line]
    return found + given.strings(rel, strings)
