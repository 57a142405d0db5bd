"""Lines of code and cyclomatic complexity of source files, with lizard, as JSON on stdout.

    python -I lizard_json.py FILES_JSON     # FILES_JSON: a JSON list of paths (relative to the cwd)

Run by `runners.quality.tools` in a process of its own (bounded in time and memory), so it is a
script that imports only the standard library and lizard, never `runners`. Output:
`{"files": {path: {"nloc": n, "functions": [[ccn, line, name], ...]}}}`.
"""

from __future__ import annotations

import json
import sys

import lizard

# Extensions lizard has no reader for, read as their language's usual one.
ALIASES = {".mts": ".ts", ".cts": ".ts"}
NAME_CHARS = 80


def measure(path: str, analyzer: lizard.FileAnalyzer) -> dict[str, object]:
    with open(path, encoding="utf-8", errors="replace") as handle:
        code = handle.read()
    name = path
    for suffix, alias in ALIASES.items():
        if name.endswith(suffix):
            name = name[: -len(suffix)] + alias
    info = analyzer.analyze_source_code(name, code)
    functions = [
        [f.cyclomatic_complexity, f.start_line, f.name[:NAME_CHARS]] for f in info.function_list
    ]
    return {"nloc": info.nloc, "functions": functions}


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as handle:
        paths = json.load(handle)
    analyzer = lizard.FileAnalyzer(lizard.get_extensions([]))
    files = {path: measure(path, analyzer) for path in paths}
    json.dump({"files": files}, sys.stdout)


if __name__ == "__main__":
    main()
