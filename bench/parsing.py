"""4. Normalizing a pytest-json-report of 100,000 tests against `json.load` of the same file.

The report comes from a real pytest run (the harness's toolchain, plugins and flags, signed by
our plugin) of a generated suite: per 1,000 tests, 600 plain passes (some printing), 200
`functionality` tests (4 % failing with an assertion diff), 150 `error` tests (some raising), 30
with the problem's custom marker `bulk`, 10 skips and xfails, 10 with fixtures failing in setup,
spread over three checkpoints' files (so two thirds end up in Regression). It is generated once
into bench/data/parse-<N>/ (gitignored) and reused.

Each timing runs in a fresh process (imports excluded), one operation per process, so peak
memory is that process's peak RSS above its level after the imports (`ru_maxrss`).

- json.load: `json.load` of the file.
- normalize: `read_report` + `parse_pytest_json` + `categorize` + `ExecutionResult(...)`.
- the harness's whole collect: `PytestRunner.collect` (safe read, signature check, parse, CTRF
  cross-check) + building the `ExecutionResult` (engine._result) + writing result.json.
"""

from __future__ import annotations

import json
import os
import resource
import secrets
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

from bench.common import (
    PYTHON,
    ROOT,
    BenchError,
    Row,
    Sample,
    Section,
    Settings,
    Variant,
    child_env,
    compare,
    interleave,
    median,
    run_timed,
)
from runners.batch.store import rmtree_forcibly

NAME = "parsing"
TITLE = "4. Normalizing a pytest-json-report (parse + categorize + ExecutionResult) vs json.load"
GENERATOR_VERSION = 2
RATIO_TARGET = 3.0
SECONDS_TARGET = 2.0
CHECKPOINTS = ("checkpoint_1", "checkpoint_2", "checkpoint_3")

CONFIG = """
name: generated
version: 1
description: a generated suite for `python -m bench` (parsing)
tags: [bench]
entry_file: main
timeout: 600
markers:
  bulk: {description: "bulk cases", group: Functionality}
checkpoints:
  checkpoint_1: {version: 1}
  checkpoint_2: {version: 1}
  checkpoint_3: {version: 1}
"""

CONFTEST = """
import pytest


def pytest_addoption(parser):
    parser.addoption("--entrypoint", action="store", default="true")
    parser.addoption("--checkpoint", action="store", default="checkpoint_3")


@pytest.fixture
def resource_ok():
    return {"ready": True}


@pytest.fixture
def flaky_resource(request):
    index = request.node.callspec.params["i"]
    if index % 5 == 0:
        raise RuntimeError(f"resource {index} could not be set up")
    return index
"""

TEST_FILE = """
import pytest


@pytest.mark.parametrize("i", range(600))
def test_core_behaviour(i, resource_ok):
    if i % 50 == 0:
        print(f"core case {i}: computing the expected ledger")
    assert resource_ok["ready"] and i * 2 == i + i


@pytest.mark.functionality
@pytest.mark.parametrize("i", range(200))
def test_functionality(i):
    expected = {"sku": f"A-{i}", "qty": i, "tags": ["x", "y"]}
    actual = dict(expected)
    if i % 25 == 0:
        actual["qty"] = i + 1
    assert actual == expected, f"report row {i} differs"


@pytest.mark.error
@pytest.mark.parametrize("i", range(150))
def test_error_handling(i):
    if i % 75 == 0:
        raise ValueError(f"unexpected input {i!r}")
    assert str(i).isdigit()


@pytest.mark.bulk
@pytest.mark.parametrize("i", range(30))
def test_bulk_import(i):
    assert sum(range(i)) == i * (i - 1) // 2


@pytest.mark.parametrize("i", range(10))
def test_skips_and_xfails(i):
    if i % 2 == 0:
        pytest.skip(f"platform case {i} not applicable")
    if i % 3 == 0:
        pytest.xfail("known bug #12")
    assert True


@pytest.mark.parametrize("i", range(10))
def test_with_setup(i, flaky_resource):
    assert flaky_resource == i
"""
TESTS_PER_FILE = 1000


def generate(settings: Settings, tests: int) -> Path:
    """bench/data/parse-<N>/ with reports/pytest-report.json, ctrf-report.json and the key."""
    root = settings.data_dir / f"parse-{tests}"
    meta_file = root / "meta.json"
    if meta_file.is_file():
        meta = json.loads(meta_file.read_text())
        if (
            meta.get("generator") == GENERATOR_VERSION
            and (root / "reports" / "pytest-report.json").is_file()
        ):
            return root
    rmtree_forcibly(root)
    (root / "problem" / "tests").mkdir(parents=True)
    (root / "reports").mkdir()
    (root / "config").mkdir()
    (root / "problem" / "config.yaml").write_text(textwrap.dedent(CONFIG).lstrip())
    tests_dir = root / "problem" / "tests"
    (tests_dir / "conftest.py").write_text(textwrap.dedent(CONFTEST).lstrip())
    files = max(1, tests // TESTS_PER_FILE)
    for index in range(files):
        checkpoint = CHECKPOINTS[index * len(CHECKPOINTS) // files]
        (tests_dir / f"test_{checkpoint}_part{index:03d}.py").write_text(
            textwrap.dedent(TEST_FILE).lstrip()
        )
    (root / "config" / "pytest.ini").write_text(
        "[pytest]\nmarkers =\n    error: e\n    functionality: f\n    regression: r\n    bulk: b\n"
    )
    key = secrets.token_bytes(32)
    (root / "key").write_bytes(key)
    key_file = root / "reports" / ".runners-report-key"
    key_file.write_bytes(key)

    from runners.frameworks.pytest_runner import CTRF_REPORT, JSON_REPORT, PLUGINS
    from runners.sandbox.registry import resolve_sandbox
    from runners.toolchains.python import PythonToolchains

    environment = settings.environment("none")
    toolchains = PythonToolchains(
        resolve_sandbox("none"),
        environment.cache_dir,
        None,
        environment.prepare_timeout,
        "bench-parsing",
    )
    python = toolchains.toolchain([]).python
    argv = [
        python,
        "-I",
        "-m",
        "pytest",
        "-c",
        str(root / "config" / "pytest.ini"),
        f"--rootdir={root / 'problem'}",
        f"--confcutdir={tests_dir}",
        "-p",
        "no:cacheprovider",
    ]
    for plugin in PLUGINS:
        argv += ["-p", plugin]
    argv += [
        "--json-report",
        f"--json-report-file={root / 'reports' / JSON_REPORT}",
        "--json-report-omit",
        "keywords",
        "warnings",
        f"--ctrf={root / 'reports' / CTRF_REPORT}",
        "--continue-on-collection-errors",
        "--color=no",
        "-q",
        "-p",
        "no:warnings",
        str(tests_dir),
    ]
    settings.log(
        f"  parsing: generating a report of {files * TESTS_PER_FILE:,} tests (once; kept in {root})"
    )
    env = {
        "PATH": "/usr/bin:/bin",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "RUNNERS_REPORT_KEY_FILE": str(key_file),
        "HOME": str(root),
        "LANG": "C.UTF-8",
    }
    proc = run_timed(argv, env=env, cwd=root, timeout=3600)
    if proc.returncode not in (0, 1):
        raise BenchError(
            "generating the report failed (pytest exited "
            f"{proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
        )
    report = root / "reports" / JSON_REPORT
    meta_file.write_text(
        json.dumps(
            {
                "generator": GENERATOR_VERSION,
                "tests": files * TESTS_PER_FILE,
                "exit_code": proc.returncode,
                "seconds": proc.sample.wall,
                "bytes": report.stat().st_size,
            },
            indent=1,
        )
    )
    return root


def child_argv(op: str, root: Path) -> list[str]:
    return [PYTHON, "-m", "bench.parsing", "child", op, str(root)]


def run(settings: Settings) -> Section:
    section = Section(NAME, TITLE)
    tests = 2_000 if settings.smoke else 100_000
    root = generate(settings, tests)
    meta = json.loads((root / "meta.json").read_text())
    ops = {
        "json.load": "json.load of the report",
        "normalize": "normalize: parse + categorize + ExecutionResult",
        "collect": "the harness's whole collect (+ signature, CTRF cross-check, result.json)",
    }
    results: dict[str, list[dict[str, Any]]] = {op: [] for op in ops}

    def variant(op: str) -> Any:
        def measure() -> Sample:
            proc = run_timed(child_argv(op, root), env=child_env(), cwd=ROOT, timeout=1800)
            proc.check((0,), f"parsing child {op}")
            data = json.loads(proc.stdout.strip().splitlines()[-1])
            results[op].append(data)
            return Sample(data["seconds"], data["cpu"], {"peak_mb": data["peak_mb"]})

        return measure

    variants: list[Variant] = [(label, variant(op)) for op, label in ops.items()]
    samples = interleave(settings, variants, settings.repeat, title=NAME)
    counted = {op: results[op][-settings.repeat :] for op in ops}
    base = [s.wall for s in samples[ops["json.load"]]]
    size_mb = meta["bytes"] / 1e6
    first = counted["normalize"][0]
    for op, label in ops.items():
        values = [s.wall for s in samples[label]]
        row = Row(label, values, cpu=median([s.cpu for s in samples[label]]))
        peak = median([d["peak_mb"] for d in counted[op]])
        row.note = f"peak +{peak:.0f} MB RSS"
        if op == "json.load":
            row.note += f"; {meta['tests']:,} tests, {size_mb:.0f} MB file"
        else:
            row.vs = ops["json.load"]
            row.ratio, row.added = compare(base, values)
            if op == "normalize":
                row.target = f"≤ {RATIO_TARGET:g}× json.load and < {SECONDS_TARGET:g} s"
                row.met = row.ratio <= RATIO_TARGET and row.median < SECONDS_TARGET
                row.note += f"; {first['tests']:,} results, {first['groups']}"
        section.add(row)
    section.notes.append(
        f"Report generated once by a real pytest run ({meta['tests']:,} tests in "
        f"{meta['seconds']:.0f} s, exit code {meta['exit_code']}) with the harness's toolchain, "
        "plugins and report flags, and reused; each figure is one operation in a fresh process, "
        "imports not included; peak memory is the process's peak RSS above its level after the "
        "imports."
    )
    return section


# ---- the child: one operation, timed -------------------------------------------------------------


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child(op: str, root: Path) -> dict[str, Any]:
    from runners.engine.categorize import categorize
    from runners.engine.protocol import _result
    from runners.engine.workspace import Workspace
    from runners.frameworks.base import Layout, RunContext
    from runners.frameworks.pytest_runner import JSON_REPORT, PytestRunner
    from runners.model.environment import EnvironmentSpec
    from runners.model.problem_loader import load_problem
    from runners.model.results import ExecutionResult
    from runners.parsers.pytest_json import parse_pytest_json
    from runners.parsers.report_file import read_report
    from runners.sandbox.base import SandboxResult
    from runners.sandbox.none import NoSandbox

    problem = load_problem(root / "problem")
    report = root / "reports" / JSON_REPORT
    order = {cp.name: cp.order or 0 for cp in problem.ordered_checkpoints()}
    custom = problem.marker_groups()
    out = root / "out"
    baseline = _rss_mb()
    cpu0 = sum(os.times()[:2])
    started = time.perf_counter()
    info: dict[str, Any] = {}
    if op == "json.load":
        with open(report, "rb") as handle:
            data = json.load(handle)
        info["tests"] = len(data["tests"])
    elif op == "normalize":
        parsed = parse_pytest_json(read_report(report))
        tests = categorize(parsed.records, "checkpoint_3", order, custom)
        result = ExecutionResult(
            problem_name=problem.name,
            problem_version=problem.version,
            checkpoint_name="checkpoint_3",
            checkpoint_version=1,
            framework="pytest",
            sandbox="none",
            tests=tests,
            exit_code=1,
            collected=parsed.collected,
        )
        info["tests"] = len(result.tests)
        info["groups"] = ", ".join(f"{g.value} {n:,}" for g, n in result.total_counts.items())
    elif op == "collect":
        environment = EnvironmentSpec(sandbox="none")
        runner = PytestRunner(problem=problem, checkpoint="checkpoint_3", environment=environment)
        workspace = Workspace(root=root, owned=False)
        sandbox = NoSandbox()
        ctx = RunContext(
            problem=problem,
            checkpoint=runner.checkpoint,
            environment=environment,
            sandbox=sandbox,
            workspace=workspace,
            layout=Layout.for_workspace(workspace, False),
            limits=environment.limits_for(problem.limits),
            run_id="bench",
            started_at=0.0,
            report_key=(root / "key").read_bytes(),
        )
        outcome = SandboxResult(exit_code=1)
        verdict = runner.collect(ctx, outcome)
        if verdict.infrastructure_reason:
            raise SystemExit(f"collect: {verdict.infrastructure_reason}")
        result = _result(runner, ctx, None, outcome, verdict)
        out.mkdir(exist_ok=True)
        result.save(out / "result.json")
        info["tests"] = len(result.tests)
    else:
        raise SystemExit(f"unknown operation {op}")
    seconds = time.perf_counter() - started
    cpu = sum(os.times()[:2]) - cpu0
    return {"op": op, "seconds": seconds, "cpu": cpu, "peak_mb": _rss_mb() - baseline, **info}


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "child":
        print(json.dumps(child(sys.argv[2], Path(sys.argv[3]))))
        sys.exit(0)
    raise SystemExit("usage: python -m bench.parsing child OP ROOT")
