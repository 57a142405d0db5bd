"""The four tools behind the code-quality figures, each run on the private copy of the sources.

| Figure | Tool | How it is kept from the submission's settings and code |
| --- | --- | --- |
| lines of code, cyclomatic complexity | lizard (Python library, in `lizard_json.py`) | reads the files it is given, nothing else |
| Python lint findings | ruff | `--isolated` (no configuration file), `--ignore-noqa`, a fixed rule list |
| JavaScript / TypeScript lint findings | ESLint | `--config` ours (no lookup), `--no-inline-config`, plugins only ours |
| duplicated blocks | jscpd | run from an empty directory (its config files are looked up there), `--no-gitignore` |

All of them are static analysis: none runs, imports or loads the submission's code. Each runs
in its own process group with a time limit (and a memory limit), from a directory the harness
owns, with HOME pointing into it; a tool that fails or runs out of time leaves its figure unset
and a note, never an exception. The Node tools come from the project's node_modules
(package.json pins them; `npm ci` installs them): without them, those figures are unset.
"""  # noqa: E501

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from runners.quality.model import COMPLEX_ABOVE

TOOL_TIMEOUT = 120.0  # seconds per tool
MEMORY_BYTES = 4 * 1024**3  # address space of lizard, ruff and jscpd
NODE_HEAP_MB = 2048  # ESLint's heap (V8 reserves far more address space than it uses)
OUTPUT_BYTES = 64 * 1024 * 1024  # the most of a tool's stdout that is read
HOTSPOTS = 5
TOP_RULES = 10
LIZARD_SCRIPT = Path(__file__).with_name("lizard_json.py")
ESLINT_CONFIG = Path(__file__).with_name("eslint.config.mjs")

#: ruff's rules: pyflakes (undefined names, unused imports and variables), pycodestyle's errors
#: that are not layout, bugbear (likely bugs; B905 `zip()` without `strict=` left out), and the
#: rule sets that catch what piles up over checkpoints: needless branches and returns, blind
#: excepts, unused arguments, commented-out code, debugger calls, blanket suppressions.
RUFF_SELECT = (
    "F",
    "E4",
    "E7",
    "E9",
    "B",
    "SIM",
    "PLE",
    "PLW",
    "BLE",
    "RET",
    "PIE",
    "ARG",
    "ERA",
    "T10",
    "PGH",
)
RUFF_IGNORE = ("B905",)
#: jscpd's defaults, written out: a clone is at least 50 tokens and 5 lines.
JSCPD_MIN_TOKENS, JSCPD_MIN_LINES = 50, 5


def project_root() -> Path:
    return Path(__file__).resolve().parents[2]


def node_modules() -> Path:
    """The project's node_modules (RUNNERS_NODE_MODULES overrides)."""
    explicit = os.environ.get("RUNNERS_NODE_MODULES")
    return Path(explicit) if explicit else project_root() / "node_modules"


def node_binary() -> str | None:
    """The project's Node (the npm package `node`), else `node` on PATH."""
    local = node_modules() / ".bin" / "node"
    if local.exists():
        return str(local)
    from shutil import which

    return which("node")


def ruff_binary() -> str | None:
    try:
        from ruff.__main__ import find_ruff_bin

        return str(find_ruff_bin())
    except (ImportError, FileNotFoundError):
        return None


def _package_version(name: str) -> str | None:
    try:
        data = json.loads((node_modules() / name / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    version = data.get("version")
    return version if isinstance(version, str) else None


def _python_version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def tool_versions() -> dict[str, str | None]:
    """The version of each tool that is here (None: missing): part of the figures' cache key."""
    node = node_binary()
    return {
        "lizard": _python_version("lizard"),
        "ruff": _python_version("ruff") if ruff_binary() else None,
        "eslint": _package_version("eslint") if node else None,
        "typescript-eslint": _package_version("typescript-eslint") if node else None,
        "jscpd": _package_version("jscpd") if node else None,
    }


# ---- running a tool ------------------------------------------------------------------------------


@dataclass
class Outcome:
    code: int | None
    stdout: bytes
    stderr: str
    timed_out: bool = False

    def trouble(self, tool: str) -> str:
        if self.timed_out:
            return f"{tool} did not finish within {TOOL_TIMEOUT:g} s"
        last = self.stderr.strip().splitlines()[-1:] or ["no output"]
        return f"{tool} failed (exit {self.code}): {last[0][:300]}"


@dataclass
class Running:
    """The tools' process groups, so that a cancelled measurement kills them."""

    groups: set[int] = field(default_factory=set)
    cancelled: bool = False

    def kill(self) -> None:
        self.cancelled = True
        for pgid in list(self.groups):
            try:
                os.killpg(pgid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


def run_tool(
    argv: list[str],
    cwd: Path,
    home: Path,
    running: Running,
    *,
    limit_memory: bool = True,
    env: dict[str, str] | None = None,
) -> Outcome:
    """`argv` in a process group of its own, within TOOL_TIMEOUT; the group is killed after."""
    if running.cancelled:
        return Outcome(None, b"", "cancelled", timed_out=True)
    environment = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "NO_COLOR": "1",
        "JSCPD_NO_TIPS": "1",
        **(env or {}),
    }
    with tempfile.TemporaryFile(dir=home) as out, tempfile.TemporaryFile(dir=home) as err:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=environment,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=True,
        )
        running.groups.add(proc.pid)
        try:
            if limit_memory:  # set from here: no preexec_fn in a threaded process
                try:
                    resource.prlimit(proc.pid, resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
                except (ProcessLookupError, PermissionError, OSError):
                    pass
            try:
                code: int | None = proc.wait(timeout=TOOL_TIMEOUT)
                timed_out = False
            except subprocess.TimeoutExpired:
                code, timed_out = None, True
        finally:
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # the tool and anything it left running
            except (ProcessLookupError, PermissionError):
                pass
            proc.wait()
            running.groups.discard(proc.pid)
        out.seek(0)
        stdout = out.read(OUTPUT_BYTES)
        err.seek(0)
        stderr = err.read(64 * 1024).decode("utf-8", "replace")
    return Outcome(code, stdout, stderr, timed_out=timed_out or running.cancelled)


# ---- the tools ---------------------------------------------------------------------------------


@dataclass
class Findings:
    """What the tools found, merged into CodeMetrics by `runners.quality.measure`."""

    loc: int = 0
    functions: list[tuple[int, str]] = field(default_factory=list)  # (complexity, "file:line name")
    measured_complexity: bool = False
    duplicate_blocks: int | None = None
    duplicated_lines: int | None = None
    lint: Counter[str] | None = None
    notes: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)

    def add_lint(self, rules: Counter[str]) -> None:
        self.lint = (self.lint or Counter()) + rules


def _json_of(
    tool: str,
    argv: list[str],
    kind: type,
    figure: str,
    where: tuple[Path, Path, Running, Findings],
    *,
    ok: tuple[int, ...] = (0,),
    **options: Any,
) -> Any:
    """`argv`'s stdout as JSON of type `kind`; None (and a note that `figure` is not counted) when
    the tool failed, ran out of time or wrote something else."""
    root, home, running, found = where
    started = time.monotonic()
    outcome = run_tool(argv, root, home, running, **options)
    found.seconds[tool] = time.monotonic() - started
    try:
        data = json.loads(outcome.stdout) if outcome.code in ok else None
    except ValueError:
        data = None
    if not isinstance(data, kind):
        found.notes.append(f"{figure}: " + outcome.trouble(tool))
        return None
    return data


def lizard(files: list[str], root: Path, home: Path, running: Running, found: Findings) -> None:
    listing = home / "lizard-files.json"
    listing.write_text(json.dumps(files), encoding="utf-8")
    argv = [sys.executable, "-I", str(LIZARD_SCRIPT), str(listing)]
    where = (root, home, running, found)
    data = _json_of("lizard", argv, dict, "lines of code and complexity not measured", where)
    if data is None:
        return
    for rel, info in data.get("files", {}).items():
        found.loc += int(info.get("nloc", 0))
        for ccn, line, name in info.get("functions", []):
            found.functions.append((int(ccn), f"{rel}:{line} {name}"))
    found.measured_complexity = True


def ruff(files: list[str], root: Path, home: Path, running: Running, found: Findings) -> None:
    binary = ruff_binary()
    if binary is None:
        found.notes.append("Python lint findings not counted: ruff is not installed")
        return
    argv = [
        binary,
        "check",
        "--isolated",
        "--no-cache",
        "--ignore-noqa",
        "--exit-zero",
        "--quiet",
        "--output-format",
        "json",
        "--select",
        ",".join(RUFF_SELECT),
        "--ignore",
        ",".join(RUFF_IGNORE),
        "--",
        *files,
    ]
    items = _json_of(
        "ruff", argv, list, "Python lint findings not counted", (root, home, running, found)
    )
    if items is None:
        return
    found.add_lint(
        Counter(str(item.get("code") or "syntax-error") for item in items if isinstance(item, dict))
    )


def eslint(files: list[str], root: Path, home: Path, running: Running, found: Findings) -> None:
    node, modules = node_binary(), node_modules()
    script = modules / "eslint" / "bin" / "eslint.js"
    if node is None or not script.is_file() or not (modules / "typescript-eslint").is_dir():
        found.notes.append(
            "JavaScript/TypeScript lint findings not counted: ESLint is not installed "
            "(run `npm ci` in the project)"
        )
        return
    argv = [
        node,
        f"--max-old-space-size={NODE_HEAP_MB}",
        str(script),
        "--config",
        str(ESLINT_CONFIG),
        "--no-inline-config",
        "--no-warn-ignored",
        "--no-error-on-unmatched-pattern",
        "--format",
        "json",
        "--",
        *files,
    ]
    typescript = any(Path(rel).suffix.lower() in (".ts", ".mts", ".cts", ".tsx") for rel in files)
    env = {
        "RUNNERS_NODE_MODULES": str(modules),
        "RUNNERS_ESLINT_TYPESCRIPT": "1" if typescript else "0",
    }
    reports = _json_of(
        "eslint",
        argv,
        list,
        "JavaScript/TypeScript lint findings not counted",
        (root, home, running, found),
        ok=(0, 1),  # 1: findings; 2: ESLint itself failed
        limit_memory=False,
        env=env,
    )
    if reports is None:
        return
    rules: Counter[str] = Counter()
    for report in reports:
        for message in report.get("messages", []) if isinstance(report, dict) else []:
            rules[str(message.get("ruleId") or "syntax-error")] += 1
    found.add_lint(rules)


def jscpd(root: Path, home: Path, running: Running, found: Findings) -> None:
    node, script = node_binary(), node_modules() / "jscpd" / "run-jscpd.js"
    if node is None or not script.is_file():
        found.notes.append(
            "duplicated blocks not counted: jscpd is not installed (run `npm ci` in the project)"
        )
        return
    output = home / "jscpd"
    argv = [
        node,
        str(script),
        "--min-tokens",
        str(JSCPD_MIN_TOKENS),
        "--min-lines",
        str(JSCPD_MIN_LINES),
        "--no-gitignore",
        "--reporters",
        "json",
        "--output",
        str(output),
        "--silent",
        "--no-tips",
        str(root),
    ]
    started = time.monotonic()
    outcome = run_tool(
        argv, home, home, running
    )  # from `home`: no .jscpd.json or package.json there
    found.seconds["jscpd"] = time.monotonic() - started
    try:
        report = (
            json.loads((output / "jscpd-report.json").read_bytes()) if outcome.code == 0 else None
        )
        total = report["statistics"]["total"] if isinstance(report, dict) else None
    except (OSError, ValueError, KeyError, TypeError):
        total = None
    if not isinstance(total, dict):
        found.notes.append("duplicated blocks not counted: " + outcome.trouble("jscpd"))
        return
    found.duplicate_blocks = int(total.get("clones", 0))
    found.duplicated_lines = int(total.get("duplicatedLines", 0))


def hotspots(functions: list[tuple[int, str]]) -> list[str]:
    worst = sorted(functions, key=lambda item: -item[0])[:HOTSPOTS]
    return [f"{where} (CC {ccn})" for ccn, where in worst if ccn > COMPLEX_ABOVE // 2]
