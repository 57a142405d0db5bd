"""pytest for kind: repository: the problem's tests laid into the repository, run as its suite.

What differs from the hidden-suite runner (`pytest_runner`):

- the tests are the overlay's files at their paths in the copy (`runners.repository.overlay`);
  the submission's own `conftest.py` files and start-up hooks are removed from the copy;
- pytest runs with `--rootdir` the repository (node ids like `tests/test_x.py::test_y`) and the
  problem's trusted ini (`overlay/pytest.ini`: its `addopts`, `doctest_optionflags`,
  `pythonpath`, `filterwarnings` hold) or a generated one;
- it runs on the layered interpreter (`runners.repository.python_env`): the repository and its
  dependencies import by name, the toolchain first;
- doctests: a checkpoint's `doctests` name the repository's own files whose examples run (Python
  modules through `--doctest-modules`, text files through `--doctest-glob`), and a text file among
  its `tests` (an overlaid README.md) runs the same way; from the submission's own files only
  doctests count.

The harness keeps what it owns: our plugins and reporters named with `-p`, plugin autoloading off,
the signed report, the environment and the sandbox.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path, PurePosixPath

from runners.frameworks.base import Invocation, RunContext, Verdict
from runners.frameworks.pytest_runner import PLUGINS, PytestRunner, test_env
from runners.frameworks.pytest_select import check_pytest_select
from runners.model.config import BUILTIN_MARKERS
from runners.plugins.runners_report_signature import DOCTEST_ONLY_ENV, MARKERS_ENV
from runners.repository import manifest_config, overlay, selection
from runners.repository.common import RepositoryMixin
from runners.repository.python_env import (
    INSTALL_DIR,
    PATH_ENV,
    PreparedRepoPython,
    prepare_repository_python,
)
from runners.sandbox.base import Mount, SandboxResult
from runners.toolchains.hosts import toolchain_host

_SKIP_DIRS = {
    ".git",
    "node_modules",
    "__pycache__",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    "build",
    "dist",
}


class RepositoryPytestRunner(RepositoryMixin, PytestRunner):
    kind = "repository"

    def check_select(self, ctx: RunContext) -> None:
        check_pytest_select(ctx.workspace.submission, ctx.select, files=sorted(self.selected(ctx)))

    def prepare(self, ctx: RunContext) -> None:
        ctx.prepared = prepare_repository_python(ctx)

    def doctest_files(self, ctx: RunContext) -> list[str]:
        """The repository's own files whose doctests run at this checkpoint (and a note for a
        pattern that selects none: the submission has no such file)."""
        wanted = [p for cp in ctx.problem.checkpoints_up_to(ctx.checkpoint) for p in cp.doctests]
        if not wanted:
            return []
        files = _doctest_candidates(ctx.workspace.submission)
        chosen: list[str] = []
        for pattern in wanted:
            found = selection.match(pattern, files, "doctest")
            if not found:
                note = (
                    f"doctests {pattern!r}: no such file in the submission, so none of its "
                    "doctests ran"
                )
                if note not in ctx.errors:
                    ctx.errors.append(note)
            chosen += [f for f in found if f not in chosen]
        return chosen

    def write_config(self, ctx: RunContext) -> None:
        trusted = overlay.trusted_config(ctx.problem)
        if trusted is None:
            super().write_config(ctx)
        elif manifest_config.is_manifest(
            "pytest", trusted
        ):  # its section, read from the config dir
            shutil.copyfile(ctx.problem.overlay_dir / trusted, ctx.workspace.config / trusted)

    def ini(self, ctx: RunContext) -> tuple[str, list[str]]:
        """The ini pytest runs with (`-c`), and the options that keep its paths the repository's."""
        trusted = overlay.trusted_config(ctx.problem)
        if trusted is None:
            return f"{ctx.layout.config}/pytest.ini", []
        if manifest_config.is_manifest("pytest", trusted):
            return (
                f"{ctx.layout.config}/{trusted}",
                manifest_config.pythonpath_options(
                    ctx.problem.overlay_dir / trusted, ctx.layout.submission
                ),
            )
        return f"{ctx.layout.submission}/{trusted}", []

    def parse_root(self, ctx: RunContext) -> str:
        return ctx.layout.submission  # --rootdir: the repository

    def invocation(self, ctx: RunContext) -> Invocation:
        prepared = ctx.prepared
        assert isinstance(prepared, PreparedRepoPython), "prepare() must run before invocation()"
        layout = ctx.layout
        ini, ini_options = self.ini(ctx)
        argv = [
            prepared.python,
            "-s",
            "-P",
            "-m",
            "pytest",
            "-c",
            ini,
            f"--rootdir={layout.submission}",
            f"--confcutdir={layout.submission}",
            "-p",
            "no:cacheprovider",
            *ini_options,
        ]
        for plugin in (*PLUGINS, *ctx.problem.settings.plugins):
            argv += ["-p", plugin]
        if ctx.environment.workers > 1:
            argv += ["-p", "xdist.plugin", "-n", str(ctx.environment.workers)]
        argv += [
            "--json-report",
            f"--json-report-file={layout.reports}/pytest-report.json",
            "--json-report-omit",
            "keywords",
            "warnings",
            f"--ctrf={layout.reports}/ctrf-report.json",
            "--continue-on-collection-errors",
            "--color=no",
            "-rA",
            "-v",
        ]
        if ctx.checkpoint.timeout:
            argv.append(f"--timeout={max(1, int(ctx.checkpoint.timeout))}")
        tests = sorted(self.selected(ctx))
        doctests = self.doctest_files(ctx)
        if any(path.endswith(".py") for path in doctests):
            argv.append("--doctest-modules")
        texts = sorted(
            {PurePosixPath(p).name for p in [*tests, *doctests] if not p.endswith(".py")}
        )
        argv += [
            f"--doctest-glob={name}" for name in texts
        ]  # README.md, docs/*.rst: their examples
        argv += ctx.extra_args
        if ctx.select:
            argv += [f"{layout.submission}/{test_id}" for test_id in ctx.select]
        else:
            argv += [f"{layout.submission}/{path}" for path in [*tests, *doctests]]
        markers = [f"{name}: {description}" for name, (description, _) in BUILTIN_MARKERS.items()]
        markers += [
            f"{name}: {m.description or m.group.value}" for name, m in ctx.problem.markers.items()
        ]
        env = {
            **test_env(layout, prepared.toolchains.tools.path(str(Path(prepared.python).parent))),
            PATH_ENV: os.pathsep.join(prepared.repo_path),
            MARKERS_ENV: "\n".join(markers),
            DOCTEST_ONLY_ENV: os.pathsep.join(
                f"{layout.submission}/{path}" for path in doctests if path.endswith(".py")
            ),
        }
        mounts = [*prepared.toolchains.mounts(), *self.overlay_mounts(ctx)]
        if ctx.sandbox.remaps_paths and (ctx.workspace.root / INSTALL_DIR).is_dir():
            mounts.append(
                Mount(
                    source=ctx.workspace.root / INSTALL_DIR, target=f"{layout.root}/{INSTALL_DIR}"
                )
            )
        return Invocation(
            argv=argv,
            env=env,
            mounts=mounts,
            image=toolchain_host(ctx.sandbox).image_for("python"),
            entrypoint=None,
        )

    def collect(self, ctx: RunContext, outcome: SandboxResult) -> Verdict:
        verdict = super().collect(ctx, outcome)
        problem_files = set(self.selected(ctx))
        doctest_files = set(self.doctest_files(ctx))
        kept, dropped = [], []
        for record in verdict.report.records:
            file = (record.file or record.id.split("::", 1)[0]).removeprefix("./")
            if (
                file in problem_files
                or record.collection_error
                or (file in doctest_files and "doctest" in record.markers)
            ):
                kept.append(record)
            else:
                dropped.append(record)
        if dropped:
            verdict.report.records = kept
            note = (
                f"{len(dropped)} test(s) defined in the submission's own files were not counted "
                "(only the problem's tests, and the doctests of the files it names, are)"
            )
            if outcome.exit_code == 1 and not any(r.status in ("failed", "error") for r in kept):
                verdict.exit_explained = note  # pytest's exit 1 was theirs (the engine notes it)
            else:
                verdict.errors.append(note)
        return verdict


def _doctest_candidates(root: Path) -> list[str]:
    """The repository's Python modules and text files, relative (what `doctests:` can name)."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(
            d for d in dirnames if d not in _SKIP_DIRS and not Path(dirpath, d).is_symlink()
        )
        for name in sorted(filenames):
            path = Path(dirpath, name)
            rel = path.relative_to(root).as_posix()
            if selection.is_doctest_file(rel) and path.is_file() and not path.is_symlink():
                found.append(rel)
    return found
