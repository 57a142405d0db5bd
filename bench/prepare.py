"""2. Cold and warm preparation of the Python toolchain (the prepare step itself).

Each timing runs in a fresh process (`python -m bench.prepare child ...`, as every CLI run is)
and covers exactly what `prepare_python` does: `PythonToolchains(...)` (cache root, interpreter
identity), `.toolchain(test_dependencies)` and `.submission_env(submission)`; interpreter start-up
and imports are not included.

- cold, new test deps: a test dependency set the cache has never seen (the problem's own plus a
  unique no-op constraint `pytest!=0.0.<nonce>`, so the content hash is new but the packages are
  the same), in the harness cache whose uv download cache is warm: a new environment is built
  from cached wheels, nothing is downloaded.
- cold, fresh cache dir: an empty cache directory, so uv downloads every wheel (capped rounds).
- warm: the same set again, right after. It must build nothing, call no installer, and is run
  in a network namespace without network (`unshare --net`), so any download would fail it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench.common import (
    PYTHON,
    ROOT,
    BenchError,
    Row,
    Section,
    Settings,
    child_env,
    median,
    run_timed,
    unique,
    usable_sandboxes,
)
from bench.world import world
from runners.batch.store import rmtree_forcibly

NAME = "prepare"
TITLE = "2. Toolchain preparation, cold and warm (the prepare step itself)"
WARM_LIMIT = 1.0


def _unshare_net() -> list[str]:
    unshare = shutil.which("unshare")
    if not unshare:
        return []
    try:
        ok = (
            subprocess.run(
                [unshare, "--net", "true"], check=False, capture_output=True, timeout=10
            ).returncode
            == 0
        )
    except (OSError, subprocess.SubprocessError):
        ok = False
    return [unshare, "--net"] if ok else []


def _tree_bytes(path: Path) -> int:
    total = 0
    for dirpath, _, filenames in os.walk(path):
        for name in filenames:
            try:
                total += os.lstat(os.path.join(dirpath, name)).st_size
            except OSError:
                pass
    return total


def prepare_child(
    sandbox: str,
    cache_dir: Path,
    deps: list[str],
    submission: Path,
    offline: list[str],
    timeout: float = 1800,
) -> dict[str, Any]:
    argv = [
        *offline,
        PYTHON,
        "-m",
        "bench.prepare",
        "child",
        "--sandbox",
        sandbox,
        "--cache-dir",
        str(cache_dir),
        "--deps",
        json.dumps(deps),
        "--submission",
        str(submission),
    ]
    proc = run_timed(argv, env=child_env(), cwd=ROOT, timeout=timeout)
    proc.check((0,), f"prepare ({sandbox})")
    try:
        data = json.loads(proc.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise BenchError(
            f"prepare child ({sandbox}) printed no "
            f"result:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
        ) from None
    data["process_wall"] = proc.sample.wall
    return data


def run(settings: Settings) -> Section:
    section = Section(NAME, TITLE)
    cell = world(settings).cell
    from runners.model.problem_loader import load_problem

    problem = load_problem(cell.problem)
    sandboxes = usable_sandboxes(settings, section)
    if settings.smoke:
        sandboxes = sandboxes[:1]  # every measurement once: one backend
    offline = _unshare_net()
    if not offline:
        section.notes.append(
            "`unshare --net` is not available: warm runs were not cut off from the network "
            "(the installer-call count and the uv cache size still show nothing was fetched)"
        )
    cache = settings.harness_cache
    fresh_rounds = 0 if settings.smoke else min(settings.repeat, 1 if settings.quick else 2)
    for sandbox in sandboxes:
        cold: list[dict[str, Any]] = []
        warm: list[dict[str, Any]] = []
        fresh: list[dict[str, Any]] = []
        fresh_warm: list[dict[str, Any]] = []
        # Builds the shared pieces (the empty submission env, the image probe) if this cache lacks
        # them.
        prepare_child(sandbox, cache, list(problem.test_dependencies), cell.submission, [])
        for index in range(settings.repeat):
            deps = [*problem.test_dependencies, f"pytest!=0.0.{int(unique(), 16) % 10**9}"]
            first = prepare_child(sandbox, cache, deps, cell.submission, [])
            second = prepare_child(sandbox, cache, deps, cell.submission, offline)
            cold.append(first)
            warm.append(second)
            settings.log(
                f"  prepare {sandbox} round {index + 1}: cold {first['total']:.3f} s, "
                f"warm {second['total']:.3f} s"
            )
            for built in first["built_dirs"]:
                rmtree_forcibly(Path(built))
        for index in range(fresh_rounds):
            scratch = settings.tmp(f"fresh-cache-{sandbox}")
            try:
                first = prepare_child(
                    sandbox, scratch, list(problem.test_dependencies), cell.submission, []
                )
                second = prepare_child(
                    sandbox, scratch, list(problem.test_dependencies), cell.submission, offline
                )
                first["uv_cache_bytes"] = _tree_bytes(
                    Path(first["host_root"]) / "uv-cache-tools"
                ) + _tree_bytes(Path(first["host_root"]) / "uv-cache-submission")
                fresh.append(first)
                fresh_warm.append(second)
                settings.log(
                    f"  prepare {sandbox} fresh cache {index + 1}: cold {first['total']:.3f} s, "
                    f"warm {second['total']:.3f} s"
                )
            finally:
                rmtree_forcibly(scratch)
        _rows(section, sandbox, cold, warm, fresh, fresh_warm, bool(offline))
    section.notes.append(
        "The prepare step only: `PythonToolchains(...)`, `.toolchain(test_dependencies)`, "
        "`.submission_env(submission)`, timed inside a fresh process after its imports. `installer "
        "calls` counts install steps the sandbox ran (uv venv / uv pip install)."
    )
    return section


def _rows(
    section: Section,
    sandbox: str,
    cold: list[dict],
    warm: list[dict],
    fresh: list[dict],
    fresh_warm: list[dict],
    offline: bool,
) -> None:
    def totals(items: list[dict]) -> list[float]:
        return [item["total"] for item in items]

    cold_label = f"{sandbox} · cold, new test deps (uv cache warm)"
    section.add(
        Row(
            cold_label,
            totals(cold),
            note=f"built {sum(len(c['built_dirs']) for c in cold)} env(s); "
            f"installer calls {median([c['installer_calls'] for c in cold]):.0f}",
        )
    )
    warm_ok = all(not w["built_dirs"] and w["installer_calls"] == 0 for w in warm + fresh_warm)
    row = Row(
        f"{sandbox} · warm (the second run)",
        totals(warm),
        vs=cold_label,
        target=f"< {WARM_LIMIT:g} s, nothing downloaded",
        note=(
            "nothing built, no installer call" + (", run without network" if offline else "")
            if warm_ok
            else "BUILT or INSTALLED something"
        ),
    )
    pairs = list(zip(totals(cold), totals(warm)))
    row.ratio = median([w / c for c, w in pairs])
    row.added = median([w - c for c, w in pairs])
    row.met = warm_ok and row.median < WARM_LIMIT
    section.add(row)
    if fresh:
        downloaded = median([f["uv_cache_bytes"] for f in fresh]) / 1e6
        fresh_label = f"{sandbox} · cold, fresh cache dir (downloads)"
        section.add(
            Row(fresh_label, totals(fresh), note=f"uv cache filled with {downloaded:.0f} MB")
        )
        row = Row(
            f"{sandbox} · warm after the fresh cold run",
            totals(fresh_warm),
            vs=fresh_label,
            target=f"< {WARM_LIMIT:g} s, nothing downloaded",
        )
        pairs = list(zip(totals(fresh), totals(fresh_warm)))
        row.ratio = median([w / c for c, w in pairs])
        row.added = median([w - c for c, w in pairs])
        row.met = (
            all(not w["built_dirs"] and w["installer_calls"] == 0 for w in fresh_warm)
            and row.median < WARM_LIMIT
        )
        section.add(row)


# ---- the child: one prepare step, timed ----------------------------------------------------------


def child(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sandbox", required=True)
    parser.add_argument("--cache-dir", type=Path, required=True)
    parser.add_argument("--deps", required=True)
    parser.add_argument("--submission", type=Path, required=True)
    args = parser.parse_args(argv)

    from runners.model.environment import EnvironmentSpec
    from runners.sandbox.registry import resolve_sandbox
    from runners.toolchains.python import PythonToolchains

    environment = EnvironmentSpec(sandbox=args.sandbox, cache_dir=args.cache_dir)
    sandbox = resolve_sandbox(args.sandbox, environment.sandbox_options)
    calls = []
    original = sandbox.prepare

    def counting(request: Any) -> Any:
        calls.append(request.argv[:3])
        return original(request)

    sandbox.prepare = counting  # type: ignore[method-assign]
    started = time.perf_counter()
    toolchains = PythonToolchains(
        sandbox,
        environment.cache_dir,
        environment.python,
        environment.prepare_timeout,
        f"bench-prepare-{unique()}",
    )
    after_init = time.perf_counter()
    toolchain = toolchains.toolchain(json.loads(args.deps))
    after_toolchain = time.perf_counter()
    submission_env, failure = toolchains.submission_env(args.submission)
    done = time.perf_counter()
    if failure:
        raise SystemExit(f"submission env failed: {failure}")
    built = [str(env.cached.host_dir) for env in (toolchain, submission_env) if env.cached.built]
    print(
        json.dumps(
            {
                "init": after_init - started,
                "toolchain": after_toolchain - after_init,
                "subenv": done - after_toolchain,
                "total": done - started,
                "built_dirs": built,
                "installer_calls": len(calls),
                "host_root": str(toolchains.host_root),
            }
        )
    )
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "child":
        sys.exit(child(sys.argv[2:]))
    raise SystemExit("usage: python -m bench.prepare child ...")
