"""`python -m bench.repo_suites`: real repositories graded by their own test suites, test by test.

For each project of `bench/repo_projects.py`, at its pinned commit:

1. a problem is made from the repository itself (kind: repository; its overlay is the
   repository's own test files and trusted configuration, copied as they are: no glue file);
2. the framework runs the suite itself, on the repository, the way the project runs it (pytest in
   a venv with the project installed; vitest or jest with the test toolchain as node_modules);
3. the harness grades the unmodified repository as a submission under each sandbox;
4. both again on a broken copy (one deliberate bug).

Every test's status must be the same on both sides, and the broken copy must fail exactly the
tests the framework itself fails. The table goes to bench/RESULTS.md (section
`repo_suites`, with each upstream commit) with `--write`.

    python -m bench.repo_suites                    # every project; fetched mirrors in /work/.mirror
    python -m bench.repo_suites --only inflection  # the vendored one (tests/fixtures/repos)
    python -m bench.repo_suites --mirror DIR --sandbox bubblewrap --write

Fetched projects come from git mirrors (`DIR/<owner>+<name>/repo`); the vendored one needs none.
The network is needed for the toolchains (package index, npm registry), once per cache.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from bench.repo_projects import BY_NAME, PROJECTS, Project

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "RESULTS.md"
SANDBOXES = ("bubblewrap", "docker")
STATUSES = ("passed", "failed", "skipped", "error")
REPO_IN_SANDBOX = "/workspace"  # where the harness's sandboxes see the repository


@dataclass
class Side:
    """One run's tests: id -> status, and the counts the framework's own summary gives."""

    statuses: dict[str, str]
    summary: dict[str, int] = field(default_factory=dict)
    messages: dict[str, str] = field(default_factory=dict)  # first line of each failure

    def counts(self) -> dict[str, int]:
        return {s: sum(1 for v in self.statuses.values() if v == s) for s in STATUSES}

    def failing(self) -> set[str]:
        return {k for k, v in self.statuses.items() if v in ("failed", "error")}


@dataclass
class Comparison:
    project: Project
    native: Side
    harness: dict[str, Side]
    broken_native: Side
    broken_harness: dict[str, Side]

    def same(self) -> dict[str, bool]:
        return {sb: side.statuses == self.native.statuses for sb, side in self.harness.items()}

    def broken_same(self) -> dict[str, bool]:
        return {
            sb: side.statuses == self.broken_native.statuses
            for sb, side in self.broken_harness.items()
        }

    @property
    def ok(self) -> bool:
        return (
            all(self.same().values())
            and all(self.broken_same().values())
            and bool(self.broken_native.failing())
            and len(self.native.statuses) > 0
        )


# ---- the repository and its problem ---------------------------------------------------------


def export(project: Project, mirror: Path, dest: Path) -> Path:
    """The project's files at its commit, in `dest` (a fresh directory)."""
    source = project.source(mirror)
    if project.vendored:
        shutil.copytree(source, dest)
        return dest
    if not (source / "HEAD").is_file():
        raise SystemExit(f"{project.repo}: no git mirror at {source} (fetch it, or pass --mirror)")
    dest.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "--git-dir", str(source), "archive", project.commit],
        capture_output=True,
        check=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return dest


def break_copy(project: Project, repo: Path) -> None:
    file, text, replacement = project.breaks
    path = repo / file
    source = path.read_text(encoding="utf-8")
    if source.count(text) != 1:
        raise SystemExit(f"{project.name}: the bug's text is not found once in {file}")
    path.write_text(source.replace(text, replacement), encoding="utf-8")


def build_repo(project: Project, problem: Path, repo: Path, work: Path) -> None:
    """The project's own build command in the checkout (its CI builds before testing)."""
    if not project.build:
        return
    modules = js_toolchain(problem, work / "toolchain")
    (repo / "node_modules").symlink_to(modules)
    try:
        run(
            [node(), str(modules / project.build[0]), *project.build[1:]],
            repo,
            {**os.environ, **project.build_env},
        )
    finally:
        (repo / "node_modules").unlink()


def build_problem(project: Project, repo: Path, dest: Path, lock_cache: Path) -> Path:
    """config.yaml, overlay/ (the repository's own files) and, for JS, the test toolchain."""
    problem = dest / project.name
    overlay = problem / "overlay"
    for pattern in project.overlay:
        for path in sorted(repo.glob(pattern)):
            target = overlay / path.relative_to(repo)
            if (
                path.is_symlink() and path.is_file()
            ):  # a fixture link stays a link (copied as it is)
                target.parent.mkdir(parents=True, exist_ok=True)
                if not target.is_symlink():
                    os.symlink(os.readlink(path), target)
            elif path.is_file():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, target)
    config = {
        "name": project.name,
        "version": 1,
        "tags": ["real-project"],
        "description": f"{project.repo} at {project.commit[:12]}, graded by its own test suite",
        "kind": "repository",
        "framework": project.framework,
        "timeout": 60,
        "checkpoints": {"checkpoint_1": {"version": 1, **project.checkpoint}},
        **project.settings,
    }
    (problem / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    if project.toolchain:
        write_toolchain(project, problem, lock_cache)
    return problem


def write_toolchain(project: Project, problem: Path, lock_cache: Path) -> None:
    """package.json naming the toolchain, and its lock (made once, kept in `lock_cache`)."""
    package = {
        "name": f"{project.name}-tests",
        "version": "1.0.0",
        "private": True,
        "devDependencies": dict(sorted(project.toolchain.items())),
    }
    text = json.dumps(package, indent=2) + "\n"
    (problem / "package.json").write_text(text, encoding="utf-8")
    cached = lock_cache / f"{project.name}-{hashlib.sha256(text.encode()).hexdigest()[:12]}.json"
    if not cached.is_file():
        subprocess.run(
            [
                *npm(),
                "install",
                "--package-lock-only",
                "--ignore-scripts",
                "--no-audit",
                "--no-fund",
                "--omit-lockfile-registry-resolved",
                "--loglevel=error",
            ],
            cwd=problem,
            check=True,
        )
        lock_cache.mkdir(parents=True, exist_ok=True)
        shutil.copy(problem / "package-lock.json", cached)
    shutil.copy(cached, problem / "package-lock.json")


# ---- the framework's own run ------------------------------------------------------------------


def node() -> str:
    from runners.sandbox.none import NoSandbox
    from runners.toolchains.hosts import toolchain_host

    return toolchain_host(NoSandbox()).node_for_toolchains(None)


def npm() -> list[str]:
    from runners.sandbox.none import NoSandbox
    from runners.toolchains.hosts import toolchain_host

    return toolchain_host(NoSandbox()).npm_for_toolchains(node())


def native(project: Project, problem: Path, repo: Path, work: Path) -> Side:
    """The framework run by hand, as the project runs it, on `repo` (JSON report -> statuses)."""
    report = work / f"native-{repo.name}.json"
    if project.framework == "pytest":
        python = native_venv(project, repo, work / "venv")
        env = {**os.environ, "SETUPTOOLS_SCM_PRETEND_VERSION": "0.0.0"}
        run(
            [
                python,
                "-m",
                "pytest",
                "-p",
                "no:cacheprovider",
                "--json-report",
                f"--json-report-file={report}",
                *project.native,
            ],
            repo,
            env,
        )
        return _pytest_side(report)
    if project.native_install:  # the project's own full install, in a copy of the checkout
        from bench.repo_native import full_install

        root = full_install(
            project.native_install, repo, work / f"native-install-{repo.name}", node(), npm()
        )
        modules, link = root / "node_modules", None
    else:  # the problem's toolchain as the checkout's node_modules
        root, modules = repo, js_toolchain(problem, work / "toolchain")
        link = repo / "node_modules"
        if not link.exists():
            link.symlink_to(modules)
    if project.framework == "vitest":
        run(
            [
                node(),
                str(modules / "vitest" / "vitest.mjs"),
                *project.native,
                "--reporter=json",
                f"--outputFile={report}",
            ],
            root,
        )
        from runners.parsers.vitest_json import parse_vitest_json as parse
    else:
        run(
            [
                node(),
                str(modules / "jest" / "bin" / "jest.js"),
                *project.native,
                "--json",
                f"--outputFile={report}",
            ],
            root,
        )
        from runners.parsers.jest_json import parse_jest_json as parse
    data = json.loads(report.read_text(encoding="utf-8"))
    if link is not None:
        link.unlink()
    records = parse(data, root=str(root)).records
    for record in records:  # a test named after a fixture's absolute path (mlly): the same test
        record.id = record.id.replace(str(root), REPO_IN_SANDBOX)
    summary = {
        "passed": data["numPassedTests"],
        "failed": data["numFailedTests"],
        "skipped": data["numPendingTests"] + data.get("numTodoTests", 0),
        "total": data["numTotalTests"],
    }
    return Side({r.id: r.status for r in records}, summary, _messages(records))


def _messages(records: list) -> dict[str, str]:  # type: ignore[type-arg]
    return {
        r.id: (r.message or "").strip().splitlines()[0][:160] if r.message else ""
        for r in records
        if r.status in ("failed", "error")
    }


def _pytest_side(report: Path) -> Side:
    from runners.parsers.pytest_json import load_report_object, parse_pytest_json

    data = json.loads(report.read_text(encoding="utf-8"))
    records = parse_pytest_json(load_report_object(report.read_bytes())).records
    summary = {k: v for k, v in data.get("summary", {}).items() if isinstance(v, int)}
    return Side({r.id: r.status for r in records}, summary, _messages(records))


def native_venv(project: Project, repo: Path, venv: Path) -> str:
    """A venv with the harness's pytest, the JSON report plugin, what the project's CI adds, and
    the project installed (editable)."""
    python = venv / "bin" / "python"
    tools = (ROOT / "runners" / "toolchains" / "python-tools.txt").read_text(encoding="utf-8")
    pins = [
        line for line in tools.splitlines() if line.startswith(("pytest==", "pytest-json-report=="))
    ]
    if not python.exists():
        run(["uv", "venv", "--quiet", "--python", sys.executable, str(venv)], ROOT)
        run(
            [
                "uv",
                "pip",
                "install",
                "--quiet",
                "--python",
                str(python),
                *pins,
                *project.native_python,
            ],
            ROOT,
        )
    env = {**os.environ, "SETUPTOOLS_SCM_PRETEND_VERSION": "0.0.0"}
    extras = f"[{','.join(project.native_extras)}]" if project.native_extras else ""
    run(
        [
            "uv",
            "pip",
            "install",
            "--quiet",
            "--reinstall-package",
            project.name,
            "--python",
            str(python),
            "-e",
            f"{repo}{extras}",
        ],
        ROOT,
        env,
    )
    return str(python)


def js_toolchain(problem: Path, dest: Path) -> Path:
    """`npm ci` of the problem's package.json + lock (what the harness installs), once."""
    if not (dest / "node_modules").is_dir():
        dest.mkdir(parents=True, exist_ok=True)
        for name in ("package.json", "package-lock.json"):
            shutil.copy(problem / name, dest / name)
        run([*npm(), "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"], dest)
    return dest / "node_modules"


def run(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> None:
    """A command whose failing tests are a result: only a missing report is an error."""
    subprocess.run(
        argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False
    )


# ---- the harness's run -------------------------------------------------------------------------


def harness(problem: Path, repo: Path, sandbox: str) -> Side:
    from runners import EnvironmentSpec, run_checkpoint

    result = run_checkpoint(problem, "checkpoint_1", repo, EnvironmentSpec(sandbox=sandbox))
    if (
        not result.graded
    ):  # an infrastructure failure or a problem error: no test results to compare
        raise SystemExit(f"{problem.name} under {sandbox}: {result.summary}")
    return Side(
        {
            t.id: t.status.value if hasattr(t.status, "value") else str(t.status)
            for t in result.tests
        }
    )


def compare(project: Project, mirror: Path, work: Path, sandboxes: tuple[str, ...]) -> Comparison:
    work.mkdir(parents=True, exist_ok=True)
    repo = export(project, mirror, work / "repo")
    problem = build_problem(project, repo, work / "problem", ROOT / "bench" / "data" / "repo_locks")
    broken = export(project, mirror, work / "broken")
    break_copy(project, broken)
    for checkout in (repo, broken):
        build_repo(project, problem, checkout, work)
    return Comparison(
        project=project,
        native=native(project, problem, repo, work),
        harness={sb: harness(problem, repo, sb) for sb in sandboxes},
        broken_native=native(project, problem, broken, work),
        broken_harness={sb: harness(problem, broken, sb) for sb in sandboxes},
    )


# ---- the table -----------------------------------------------------------------------------------


def _counts(side: Side) -> str:
    c = side.counts()
    return f"{c['passed']} / {c['failed'] + c['error']} / {c['skipped']}"


def table(rows: list[Comparison], sandboxes: tuple[str, ...]) -> list[str]:
    head = [
        "project",
        "commit",
        "framework",
        "tests",
        "framework's own run: passed / failed / skipped",
        *(f"harness, {sb}" for sb in sandboxes),
        "same status, test by test",
        "broken copy: failing (framework · harness)",
        "same failing tests",
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        p = row.project
        summary = ", ".join(
            f"{k} {v}"
            for k, v in row.native.summary.items()
            if k in ("passed", "failed", "skipped", "total")
        )
        broken = " · ".join(
            [
                str(len(row.broken_native.failing())),
                *(str(len(side.failing())) for side in row.broken_harness.values()),
            ]
        )
        lines.append(
            "| "
            + " | ".join(
                [
                    f"[{p.repo}](https://github.com/{p.repo}) ({p.license})",
                    f"`{p.commit[:12]}`",
                    p.framework,
                    str(len(row.native.statuses)),
                    f"{_counts(row.native)} ({summary})",
                    *(_counts(row.harness[sb]) for sb in sandboxes),
                    "✅"
                    if all(row.same().values())
                    else "❌ " + ", ".join(sb for sb, ok in row.same().items() if not ok),
                    broken,
                    "✅"
                    if all(row.broken_same().values()) and row.broken_native.failing()
                    else "❌",
                ]
            )
            + " |"
        )
    return lines


def write_results(lines: list[str], sandboxes: tuple[str, ...], notes: list[str]) -> None:
    from datetime import UTC, datetime

    block = [
        "<!-- bench:begin repo_suites [] -->",
        "### 10. Real repositories graded by their own suites (kind: repository), test by test",
        "",
        (
            f"_Compared {datetime.now(UTC):%Y-%m-%d %H:%M} UTC with `python -m bench.repo_suites "
            f"--write` (sandboxes: {', '.join(sandboxes)})._"
        ),
        "",
        *lines,
        "",
        (
            "- Each problem's overlay is the repository's own test files and configuration, "
            "copied unchanged (bench/repo_projects.py lists which): no hand-written glue file. "
            "The framework's own run is its command as the project runs it, on the same checkout; "
            "ids and statuses are compared one by one."
        ),
        "- The broken copy changes one line of the library (bench/repo_projects.py, `breaks`).",
        *notes,
        "",
        "<!-- bench:end repo_suites -->",
    ]
    text = RESULTS.read_text(encoding="utf-8")
    start, end = (
        text.find("<!-- bench:begin repo_suites"),
        text.find("<!-- bench:end repo_suites -->"),
    )
    if start >= 0 and end >= 0:
        text = text[:start] + "\n".join(block) + text[end + len("<!-- bench:end repo_suites -->") :]
    else:
        text = text.rstrip("\n") + "\n\n" + "\n".join(block) + "\n"
    RESULTS.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.repo_suites", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--mirror",
        type=Path,
        default=Path("/work/.mirror"),
        help="where the fetched git mirrors are",
    )
    parser.add_argument(
        "--only", action="append", choices=sorted(BY_NAME), help="one project (repeatable)"
    )
    parser.add_argument(
        "--sandbox", action="append", choices=SANDBOXES, help="default: bubblewrap and docker"
    )
    parser.add_argument(
        "--write", action="store_true", help="write the table into bench/RESULTS.md"
    )
    args = parser.parse_args(argv)
    sandboxes = tuple(args.sandbox or SANDBOXES)
    projects = [BY_NAME[name] for name in args.only] if args.only else list(PROJECTS)
    rows = []
    with tempfile.TemporaryDirectory(prefix="repo-suites-") as tmp:
        for project in projects:
            print(f"{project.name}: {project.repo}@{project.commit[:12]} ...", flush=True)
            rows.append(compare(project, args.mirror, Path(tmp) / project.name, sandboxes))
    lines = table(rows, sandboxes)
    print("\n".join(lines))
    for row in rows:
        files = sorted({test_id.split("::")[0].split(" > ")[0] for test_id in row.native.statuses})
        print(f"  {row.project.name}: {len(files)} files: {', '.join(files)}")
        for test_id, message in sorted(row.native.messages.items()):
            print(
                f"  {row.project.name}: fails in the framework's own run too: {test_id}: {message}"
            )
        for sb, side in row.harness.items():
            for test_id in sorted(set(side.statuses) ^ set(row.native.statuses))[:5]:
                print(f"  {row.project.name} {sb}: only on one side: {test_id}")
    if args.write:
        write_results(
            lines, sandboxes, [f"- {row.project.name}: {row.project.covers}." for row in rows]
        )
    return 0 if all(row.ok for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
