"""3. SCBench's way against ours: a fresh `uvx --with ...` resolution per run vs the prepared
toolchain.

SCBench builds one shell command per run (reference: scbench-format.md, section 1.4):
`uvx --with=pytest --with=pytest-json-ctrf --with=pytest-json-report --with=pytest-timeout
--with=jsonschema --with=deepdiff [--with=<test dependency> ...] pytest --timeout=N
--entrypoint=... --checkpoint=... --ctrf=... --json-report --json-report-file=...
--json-report-omit ... -vv <tests>`, nothing pinned, plugins autoloaded. Here it runs on the same
prepared copy of the tests and submission as the bare command of bench.overhead (same entrypoint,
same interpreter, same environment but for the network), with a uv cache of its own:

- warm: the cache already holds the wheels and the tool environment (SCBench's second run);
- cold: an empty cache per run (SCBench's first run on a machine): `pytest --version` only,
  because the suite's time does not change with the cache.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from bench.bare import BareSuite, Prepared
from bench.common import (
    BenchError,
    Sample,
    Section,
    Settings,
    Unavailable,
    Variant,
    interleave,
    run_timed,
    timing_row,
)
from bench.world import world
from runners.batch.store import rmtree_forcibly

NAME = "scbench"
TITLE = "3. SCBench's `uvx --with …` per run vs the prepared toolchain (same suite)"
SCBENCH_WITH = (
    "pytest",
    "pytest-json-ctrf",
    "pytest-json-report",
    "pytest-timeout",
    "jsonschema",
    "deepdiff",
)


def uvx() -> list[str]:
    from uv import find_uv_bin

    uv = Path(find_uv_bin())
    sibling = uv.with_name("uvx")
    return [str(sibling)] if sibling.exists() else [str(uv), "tool", "run"]


def uv_default_cache() -> Path:
    """uv's own cache directory for this user (`uv cache dir`)."""
    from uv import find_uv_bin

    out = subprocess.run(
        [find_uv_bin(), "cache", "dir"], capture_output=True, text=True, check=True, timeout=60
    )
    return Path(out.stdout.strip())


def scbench_argv(test_deps: list[str]) -> list[str]:
    return [*uvx(), *(f"--with={name}" for name in (*SCBENCH_WITH, *test_deps)), "pytest"]


def uv_env(base: dict[str, str], cache: Path | None, python: str) -> dict[str, str]:
    """The test environment, with what uvx needs: network (no UV_OFFLINE), a cache (None: uv's
    default one, as SCBench's runs use), the same interpreter as the prepared toolchain, and
    plugin autoloading (SCBench does not turn it off)."""
    from runners.sandbox.base import network_env

    env = {
        k: v
        for k, v in base.items()
        if k not in ("UV_OFFLINE", "PIP_NO_INDEX", "PYTEST_DISABLE_PLUGIN_AUTOLOAD")
    }
    env.update(network_env())
    env["UV_CACHE_DIR"] = str(cache if cache is not None else uv_default_cache())
    env.update(UV_PYTHON=python, UV_PYTHON_DOWNLOADS="never", UV_NO_PROGRESS="1")
    return env


def scbench_suite_argv(
    prepared: Prepared, test_deps: list[str], timeout: float | None, checkpoint: str
) -> list[str]:
    layout = prepared.layout
    argv = scbench_argv(test_deps)
    argv += [
        "-c",
        f"{layout.config}/pytest.ini",
        f"--rootdir={layout.root}",
    ]  # SCBench: pytest.ini at the root
    if timeout:
        argv.append(f"--timeout={int(timeout)}")
    argv += [
        f"--entrypoint={prepared.entrypoint}",
        f"--checkpoint={checkpoint}",
        f"--ctrf={layout.reports}/ctrf-report.json",
        "--json-report",
        f"--json-report-file={layout.reports}/pytest-report.json",
        "--json-report-omit",
        "traceback",
        "streams",
        "log",
        "collectors",
        "warnings",
        "-vv",
        layout.tests,
    ]
    return argv


def run(settings: Settings) -> Section:
    section = Section(NAME, TITLE)
    cell = world(settings).cell
    suite = BareSuite(settings, cell)
    test_deps = list(suite.problem.test_dependencies)
    timeout = suite.checkpoint.timeout
    warm_cache = None  # uv's own cache, warm after the first run (the warm-up round)
    probe = suite.prepare()
    python = getattr(
        sys, "_base_executable", sys.executable
    )  # what our toolchain's venv is built from
    version_env = uv_env(probe.env, warm_cache, python)
    toolchain_python = probe.toolchain_python
    probe.cleanup()
    first = run_timed(
        [*scbench_argv(test_deps), "--version"], env=version_env, cwd=settings.data_dir
    )
    if first.returncode != 0:
        raise Unavailable(
            f"uvx could not resolve SCBench's tools (no package index here?): "
            f"{(first.stderr or first.stdout).strip().splitlines()[-1:]}"
        )

    def ours_suite() -> Sample:
        return suite.run().sample

    def scbench_suite() -> Sample:
        prepared = suite.prepare()
        try:
            env = uv_env(prepared.env, warm_cache, python)
            proc = run_timed(
                scbench_suite_argv(prepared, test_deps, timeout, cell.checkpoint),
                env=env,
                cwd=prepared.cwd,
            )
            proc.check((0, 1), "SCBench's uvx pytest")
            if not (prepared.workspace / "reports" / "pytest-report.json").is_file():
                raise BenchError("SCBench's uvx pytest wrote no report")
            return proc.sample
        finally:
            prepared.cleanup()

    def version(argv: list[str], env: dict[str, str]) -> Callable[[], Sample]:
        return lambda: (
            run_timed(argv, env=env, cwd=settings.data_dir).check((0,), shlex.join(argv[:3])).sample
        )

    cold_rounds = 0 if settings.smoke else min(settings.repeat, 1 if settings.quick else 2)
    cold_calls = []

    def cold_version() -> Sample | None:
        cold_calls.append(1)
        if len(cold_calls) == 1 or len(cold_calls) > cold_rounds + 1:
            return None  # not in the warm-up round, and only in the first rounds: it downloads
        cache = settings.tmp("uv-cold")
        try:
            env = uv_env(version_env, cache, python)
            return (
                run_timed([*scbench_argv(test_deps), "--version"], env=env, cwd=settings.data_dir)
                .check((0,), "uvx with an empty cache")
                .sample
            )
        finally:
            rmtree_forcibly(cache)

    ours_version_argv = [toolchain_python, "-I", "-m", "pytest", "--version"]
    labels = {
        "ours_suite": "ours · prepared toolchain: the suite (bare command)",
        "sc_suite": "SCBench · uvx --with …: the suite, uv cache warm",
        "ours_version": "ours · prepared toolchain: `pytest --version`",
        "sc_version": "SCBench · uvx --with …: `pytest --version`, uv cache warm",
        "sc_cold": "SCBench · uvx --with …: `pytest --version`, empty uv cache",
    }
    variants: list[Variant] = [
        (labels["ours_suite"], ours_suite),
        (labels["sc_suite"], scbench_suite),
        (labels["ours_version"], version(ours_version_argv, {"PATH": "/usr/bin:/bin"})),
        (labels["sc_version"], version([*scbench_argv(test_deps), "--version"], version_env)),
        (labels["sc_cold"], cold_version),
    ]
    samples = interleave(settings, variants, settings.repeat, title=NAME)

    section.add(
        timing_row(labels["ours_suite"], samples[labels["ours_suite"]], note=cell.describe())
    )
    section.add(
        timing_row(
            labels["sc_suite"],
            samples[labels["sc_suite"]],
            samples[labels["ours_suite"]],
            labels["ours_suite"],
            note="uvx resolves, then the same suite",
        )
    )
    section.add(timing_row(labels["ours_version"], samples[labels["ours_version"]]))
    section.add(
        timing_row(
            labels["sc_version"],
            samples[labels["sc_version"]],
            samples[labels["ours_version"]],
            labels["ours_version"],
            note="resolution + environment per run",
        )
    )
    if samples[labels["sc_cold"]]:
        section.add(
            timing_row(
                labels["sc_cold"],
                samples[labels["sc_cold"]],
                samples[labels["ours_version"]],
                labels["ours_version"],
                note=f"downloads every wheel (first {cold_rounds} round(s) only)",
            )
        )
    section.notes.append(
        "SCBench's command as in scbench-format.md §1.4 (unpinned `--with` list plus the "
        "problem's test_dependencies, plugins autoloaded), on the same prepared files and with "
        "the same interpreter (`UV_PYTHON`) as our toolchain, and uv's default cache (an empty "
        "one for the cold row). Our side is the harness's pytest command with the toolchain "
        "prepared once (section 2)."
    )
    return section
