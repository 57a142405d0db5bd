"""The results table: printed with rich, written as Markdown to bench/RESULTS.md.

RESULTS.md keeps one block per measurement between `<!-- bench:begin NAME -->` and
`<!-- bench:end NAME -->`; a run with `--only` replaces its own blocks and keeps the others.
"""

from __future__ import annotations

import json
import math
import os
import platform
import re
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from bench.common import ROOT, Row, Section

ORDER = (
    "startup",
    "overhead",
    "prepare",
    "scbench",
    "parsing",
    "batch",
    "promptfoo",
    "submission",
    "agents",
    "cases",
    "agent_batch",
    "real_agents",
    "quality",
    "fairness",
)


# ---- formatting ---------------------------------------------------------------------------------


def fmt(value: float | None, unit: str, signed: bool = False) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    sign = "+" if signed and value >= 0 else ""
    if unit == "s":
        return f"{sign}{value:.3f} s" if abs(value) < 10 else f"{sign}{value:.2f} s"
    if unit == "ms":
        return f"{sign}{value:.1f} ms"
    if unit == "MB":
        return f"{sign}{value:.0f} MB" if abs(value) >= 10 else f"{sign}{value:.1f} MB"
    if unit == "cells/s":
        return f"{sign}{value:.3f} cells/s"
    if unit == "x":
        return f"{value:.2f}×"
    if unit == "B":
        return f"{sign}{value:,.0f} B"
    if unit == "count":
        return f"{sign}{value:,.0f}"
    return f"{sign}{value:g} {unit}"


def cells(row: Row) -> list[str]:
    spread = "—"
    if row.n > 1:
        spread = f"{fmt(min(row.samples), row.unit)} – {fmt(max(row.samples), row.unit)}"
    met = "" if row.met is None else ("✅ met" if row.met else "❌ missed")
    ratio = "—" if row.ratio is None or math.isnan(row.ratio) else f"{row.ratio:.3f}×"
    return [
        row.label,
        fmt(row.median, row.unit),
        spread,
        str(row.n),
        "—" if row.cpu is None else fmt(row.cpu, "s"),
        row.vs or "—",
        ratio,
        fmt(row.added, row.unit, signed=True) if row.added is not None else "—",
        row.target or "—",
        met,
        row.note,
    ]


HEADERS = [
    "variant",
    "median",
    "min – max",
    "n",
    "CPU",
    "vs",
    "ratio",
    "added",
    "target",
    "",
    "note",
]


def rich_table(section: Section) -> Table:
    table = Table(title=f"[bold]{section.title}[/]", title_justify="left", expand=False)
    for header in HEADERS:
        table.add_column(
            header,
            overflow="fold",
            no_wrap=header not in ("variant", "target", "note"),
            ratio=3 if header == "note" else None,
        )
    for row in section.rows:
        values = [escape(value) for value in cells(row)]  # labels hold [brackets]
        if row.met is not None:
            values[9] = f"[green]{values[9]}[/]" if row.met else f"[red]{values[9]}[/]"
        table.add_row(*values)
    return table


def print_results(console: Console, sections: list[Section], facts: dict[str, str]) -> None:
    console.rule("[bold]runners benchmarks")
    for section in sections:
        if section.skipped:
            console.print(
                f"[bold]{section.title}[/]: [yellow]skipped[/] {section.skipped}", highlight=False
            )
        if section.rows:
            console.print(rich_table(section))
        for note in section.notes:
            console.print(Text(f"- {note}", style="dim"), highlight=False)
        console.print()
    console.print(
        f"[dim]{facts['machine']} · kernel {facts['kernel']} · {facts['date']} · "
        f"{facts['command']}[/]",
        highlight=False,
    )


# ---- Markdown -----------------------------------------------------------------------------------


def md_escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def section_markdown(section: Section, facts: dict[str, str]) -> str:
    lines = [
        f"### {section.title}",
        "",
        f"_Measured {facts['date']} with `{facts['command']}` ({section.seconds:.0f} s)._",
        "",
    ]
    if section.skipped:
        lines += [f"Skipped: {section.skipped}", ""]
    if section.rows:
        lines.append("| " + " | ".join(h or "met" for h in HEADERS) + " |")
        lines.append("|" + "|".join(["---"] * len(HEADERS)) + "|")
        for row in section.rows:
            lines.append("| " + " | ".join(md_escape(c) for c in cells(row)) + " |")
        lines.append("")
    for note in section.notes:
        lines.append(f"- {md_escape(note)}")
    if section.notes:
        lines.append("")
    begin = (
        f"<!-- bench:begin {section.name} "
        f"{json.dumps(target_summary(section), ensure_ascii=False)} -->"
    )
    return "\n".join([begin, *lines, f"<!-- bench:end {section.name} -->"])


def target_summary(section: Section) -> list[dict[str, Any]]:
    return [
        {
            "label": f"{section.name}: {r.label}",
            "target": r.target,
            "met": r.met,
            "value": _target_value(r),
        }
        for r in section.rows
        if r.met is not None
    ]


def _target_value(row: Row) -> str:
    parts = [fmt(row.median, row.unit)]
    if row.ratio is not None and not math.isnan(row.ratio):
        parts.append(f"{row.ratio:.3f}×")
    if row.added is not None and not math.isnan(row.added):
        parts.append(fmt(row.added, row.unit, signed=True))
    return ", ".join(parts)


_BLOCK = re.compile(r"<!-- bench:begin (\w+) (.*?) -->\n.*?<!-- bench:end \1 -->", re.DOTALL)


def existing_blocks(path: Path) -> dict[str, tuple[str, list[dict[str, Any]]]]:
    if not path.is_file():
        return {}
    found = {}
    for match in _BLOCK.finditer(path.read_text(encoding="utf-8")):
        try:
            summary = json.loads(match.group(2))
        except ValueError:
            summary = []
        found[match.group(1)] = (match.group(0), summary)
    return found


def write_markdown(path: Path, sections: list[Section], facts: dict[str, str]) -> None:
    blocks = existing_blocks(path)
    for section in sections:
        blocks[section.name] = (section_markdown(section, facts), target_summary(section))
    names = [n for n in ORDER if n in blocks] + sorted(set(blocks) - set(ORDER))
    targets = [t for n in names for t in blocks[n][1]]
    lines = [
        "# Benchmark results",
        "",
        "Written by `make bench` (`uv run python -m bench`); do not edit by hand. How the",
        "figures are taken: [docs/benchmarks.md](../docs/benchmarks.md).",
        "",
        "## Machine and run",
        "",
        "| | |",
        "|---|---|",
        *[f"| {k} | {md_escape(v)} |" for k, v in facts.items()],
        "",
        "## Targets",
        "",
        "| measurement | target | measured (median, ratio, added) | |",
        "|---|---|---|---|",
        *[
            f"| {md_escape(t['label'])} | {md_escape(t['target'] or '')} | "
            f"{md_escape(t['value'])} | {'✅ met' if t['met'] else '❌ missed'} |"
            for t in targets
        ],
        "",
        "## Results",
        "",
        (
            "Median of the repeated runs (n); CPU is user+sys of the measured process and the "
            "children it waited for (so not the processes inside bubblewrap's pid namespace or a "
            "container: for sandboxed rows it is the harness's own CPU); `vs` names the baseline "
            "measured in the same rounds; ratio and added are medians of the per-round pairs."
        ),
        "",
    ]
    for name in names:
        lines += [blocks[name][0], ""]
    path.write_text("\n".join(lines), encoding="utf-8")


# ---- machine facts ------------------------------------------------------------------------------


def _out(argv: list[str]) -> str:
    try:
        return subprocess.run(
            argv, check=False, capture_output=True, text=True, timeout=30
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def _bytecode_fact() -> str:
    """Whether this interpreter can cache bytecode (it changes every CLI run's start-up)."""
    import site

    packages = [Path(p) for p in site.getsitepackages()]
    sources = compiled = 0
    for base in packages:
        for name in ("pydantic", "rich", "click", "yaml"):
            for path in (base / name).rglob("*.py"):
                sources += 1
                cache = path.parent / "__pycache__"
                compiled += any(cache.glob(f"{path.stem}.*.pyc"))
    setting = os.environ.get("PYTHONDONTWRITEBYTECODE")
    return (
        f"PYTHONDONTWRITEBYTECODE={setting!r}" if setting else "PYTHONDONTWRITEBYTECODE unset"
    ) + f"; {compiled} of {sources} modules of pydantic/rich/click/yaml in the venv have .pyc files"


def machine_facts(
    command: str, started: datetime, load_before: tuple[float, ...]
) -> dict[str, str]:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = ""
    try:
        kb = int(Path("/proc/meminfo").read_text().split("\n", 1)[0].split()[1])
        memory = f"{kb / 1024 / 1024:.1f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    os_name = ""
    try:
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                os_name = line.split("=", 1)[1].strip('"')
    except OSError:
        pass
    from runners.toolchains.python import TOOLS_FILE

    pinned = ", ".join(
        line
        for line in TOOLS_FILE.read_text().splitlines()
        if line and not line.startswith("#") and line.startswith(("pytest==", "pytest-json"))
    )
    from uv import find_uv_bin

    node = ROOT / "node_modules" / ".bin" / "node"
    promptfoo = ""
    try:
        promptfoo = json.loads((ROOT / "node_modules" / "promptfoo" / "package.json").read_text())[
            "version"
        ]
    except (OSError, ValueError, KeyError):
        pass
    commit = _out(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"])
    dirty = _out(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"])
    load_after = os.getloadavg()
    facts = {
        "date": started.strftime("%Y-%m-%d %H:%M UTC"),
        "command": command,
        "machine": f"{os.cpu_count()} cores ({cpu or platform.processor()}), {memory} RAM",
        "kernel": platform.release(),
        "os": os_name or platform.platform(),
        "python": platform.python_version(),
        "uv": _out([find_uv_bin(), "--version"]),
        "pytest toolchain": pinned,
        "docker engine": _out(["docker", "version", "--format", "{{.Server.Version}}"])
        if shutil.which("docker")
        else "not installed",
        "bubblewrap": _out(["bwrap", "--version"]) if shutil.which("bwrap") else "not installed",
        "node / promptfoo": (
            f"{_out([str(node), '--version']) if node.exists() else 'not installed'} / "
            f"{promptfoo or 'not installed'}"
        ),
        "runners commit": f"{commit}{' (with local changes)' if dirty else ''}",
        "python bytecode": _bytecode_fact(),
        "load average (1 min) before / after": f"{load_before[0]:.2f} / {load_after[0]:.2f}",
        "finished": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }
    return facts
