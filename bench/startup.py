"""0. What every `runners` command pays to start, and the fixed cost of one CLI evaluation.

`uv run python -m runners --help` as the README has users type it (the `uv` on PATH, from the
project directory), next to the venv's Python running the same command and the bare imports; then
`python -m runners run` on the 4-test `tiny` suite against the bare pytest command of the same
files (bench.bare), per sandbox: on a suite this small, what the CLI adds is its fixed cost
(interpreter, imports, sandbox start, workspace, scan, report checks, artifacts).
"""

from __future__ import annotations

import shutil

from bench.bare import BareSuite
from bench.common import (
    PYTHON,
    Section,
    Settings,
    Variant,
    interleave,
    timing_row,
    usable_sandboxes,
)
from bench.overhead import FIXED_TARGETS, bare_variant, cli_variant, process_variant
from bench.world import tiny_world

NAME = "startup"
TITLE = "0. Start-up, and the fixed cost of one CLI evaluation (4-test suite)"
HELP_TARGET = 0.5  # seconds for `uv run python -m runners --help`
UV_HELP = "`uv run python -m runners --help`"
BARE = "[tiny] bare pytest (no harness)"


def uv_argv() -> list[str]:
    found = shutil.which("uv")
    return [found] if found else [PYTHON, "-m", "uv"]


def run(settings: Settings) -> Section:
    section = Section(NAME, TITLE)
    sandboxes = [s for s in usable_sandboxes(settings, section) if s != "none"]
    cell = tiny_world(settings.data_dir / "smoke-world").cell
    suite = BareSuite(settings, cell)
    uv = uv_argv()
    variants: list[Variant] = [
        (UV_HELP, process_variant([*uv, "run", "python", "-m", "runners", "--help"])),
        (
            "`.venv/bin/python -m runners --help`",
            process_variant([PYTHON, "-m", "runners", "--help"]),
        ),
        ("`python -c 'import runners.cli'`", process_variant([PYTHON, "-c", "import runners.cli"])),
        ("`python -c pass`", process_variant([PYTHON, "-c", "pass"])),
        (BARE, bare_variant(suite)),
    ]
    for sandbox in sandboxes:
        variants.append((f"[tiny] {sandbox} · CLI", cli_variant(settings, cell, sandbox)))
    rounds = 1 if settings.smoke else 2 * settings.repeat
    samples = interleave(settings, variants, rounds, title=NAME)

    for label, _ in variants[:4]:
        row = section.add(timing_row(label, samples[label]))
        if label == UV_HELP:
            row.target = f"≤ {HELP_TARGET:g} s"
            row.met = row.median <= HELP_TARGET
            row.note = f"uv = {' '.join(uv)}"
    section.add(
        timing_row(
            BARE, samples[BARE], note=f"{cell.describe()}: {suite.collected} tests; caches warm"
        )
    )
    for sandbox in sandboxes:
        label = f"[tiny] {sandbox} · CLI"
        row = section.add(timing_row(label, samples[label], samples[BARE], BARE))
        if sandbox in FIXED_TARGETS:
            row.target = f"≤ +{FIXED_TARGETS[sandbox]:g} s added"
            row.met = row.added <= FIXED_TARGETS[sandbox]
    section.notes.append(
        "`uv run` is the `uv` on PATH, as a user types it (under `make bench` the venv's own uv; "
        "a pyenv shim in front of it adds ~0.1 s); scripts/setup.sh byte-compiles the "
        "environment once, so `uv run` neither compiles nor checks bytecode. Added seconds are "
        "medians of the per-round pairs against the bare pytest command of the same round."
    )
    return section
