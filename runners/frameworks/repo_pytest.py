"""pytest for kind: repository: the problem's tests laid into the repository, run as its suite.

What differs from the hidden-suite runner (`pytest_runner`):

- the tests are the overlay's files at their paths in the copy (`runners.repository.overlay`);
  the submission's own `conftest.py` files and start-up hooks are removed from the copy;
- pytest runs with `--rootdir` the repository (node ids like `tests/test_x.py::test_y`) and the
  problem's trusted ini (`-c overlay/pytest.ini`: its `addopts`, `doctest_optionflags`,
  `pythonpath`, `filterwarnings` hold) or a generated one;
- it runs on the run's layered interpreter (`runners.repository.python_env`): the repository and
  its dependencies import by name, the toolchain first;
- doctests: a checkpoint's `doctests` name the repository's modules whose docstrings run
  (`--doctest-modules`), and a non-Python test file (README.md) runs through `--doctest-glob`;
  only doctests count from the submission's own files.

The harness keeps what it owns: our plugins and reporters named with `-p`, plugin autoloading off,
the signed report, the environment and the sandbox.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from runners.config import BUILTIN_MARKERS
from runners.errors import UserInputError
from runners.frameworks.base import Invocation, RunContext, Verdict
from runners.frameworks.pytest_runner import PLUGINS, PytestRunner
from runners.frameworks.pytest_select import check_pytest_select
from runners.frameworks.registry import register_runner
from runners.plugins.runners_report_signature import MARKERS_ENV
from runners.repository import overlay
from runners.repository.common import RepositoryMixin
from runners.repository.python_env import LAYER_DIR, PreparedRepoPython, prepare_repository_python
from runners.sandbox.base import Mount, SandboxResult
from runners.toolchains.hosts import toolchain_host


@register_runner
class RepositoryPytestRunner(RepositoryMixin, PytestRunner):
    kind = "repository"

    def check_select(self, ctx: RunContext) -> None:
        check_pytest_select(ctx.workspace.submission, ctx.select, files=sorted(self.selected(ctx)))

    def prepare(self, ctx: RunContext) -> None:
        ctx.prepared = prepare_repository_python(ctx)

    def entrypoint(self, ctx: RunContext) -> str:
        return ""  # the tests import the repository; there is no program to run

    def doctest_files(self, ctx: RunContext) -> list[str]:
        """The repository's own modules whose doctests run at this checkpoint."""
        files = _python_files(ctx)
        chosen: list[str] = []
        for cp in ctx.problem.checkpoints_up_to(ctx.checkpoint):
            for pattern in cp.doctests:
                found = [f for f in files if overlay._glob_regex(pattern.rstrip("/")).fullmatch(f)
                         or f == pattern or f.startswith(pattern.rstrip("/") + "/")]
                if not found:
                    raise UserInputError(f"{ctx.problem.path / 'config.yaml'}: field `checkpoints.{cp.name}.doctests`: "
                                         f"{pattern!r} matches no Python file of the submission")
                chosen += [f for f in found if f not in chosen]
        return chosen

    def write_config(self, ctx: RunContext) -> None:
        if overlay.trusted_config(ctx.problem) is None:
            super().write_config(ctx)

    def invocation(self, ctx: RunContext) -> Invocation:
        prepared = ctx.prepared
        assert isinstance(prepared, PreparedRepoPython), "prepare() must run before invocation()"
        layout = ctx.layout
        trusted = overlay.trusted_config(ctx.problem)
        ini = f"{layout.submission}/{trusted}" if trusted else f"{layout.config}/pytest.ini"
        argv = [prepared.python, "-s", "-P", "-m", "pytest", "-c", ini, f"--rootdir={layout.submission}",
                f"--confcutdir={layout.submission}", "-p", "no:cacheprovider"]
        for plugin in (*PLUGINS, *ctx.problem.settings.plugins):
            argv += ["-p", plugin]
        if ctx.environment.workers > 1:
            argv += ["-p", "xdist.plugin", "-n", str(ctx.environment.workers)]
        argv += ["--json-report", f"--json-report-file={layout.reports}/pytest-report.json",
                 "--json-report-omit", "keywords", "warnings", f"--ctrf={layout.reports}/ctrf-report.json",
                 "--continue-on-collection-errors", "--color=no", "-rA", "-v"]
        if ctx.checkpoint.timeout:
            argv.append(f"--timeout={max(1, int(ctx.checkpoint.timeout))}")
        doctests = self.doctest_files(ctx)
        if doctests:
            argv.append("--doctest-modules")
        tests = sorted(self.selected(ctx))
        for name in sorted({PurePosixPath(t).name for t in tests if not t.endswith(".py")}):
            argv.append(f"--doctest-glob={name}")  # README.md, docs/*.rst: their examples
        argv += ctx.extra_args
        if ctx.select:
            argv += [f"{layout.submission}/{test_id}" for test_id in ctx.select]
        else:
            argv += [f"{layout.submission}/{path}" for path in [*tests, *doctests]]
        markers = [f"{name}: {description}" for name, (description, _) in BUILTIN_MARKERS.items()]
        markers += [f"{name}: {m.description or m.group.value}" for name, m in ctx.problem.markers.items()]
        env = {**self.base_env(ctx, prepared), MARKERS_ENV: "\n".join(markers)}
        mounts = [*prepared.toolchains.mounts(),
                  Mount(source=ctx.workspace.root / LAYER_DIR, target=f"{layout.root}/{LAYER_DIR}"),
                  *self.overlay_mounts(ctx)]
        return Invocation(argv=argv, env=env, mounts=mounts,
                          image=toolchain_host(ctx.sandbox).image_for("python"), entrypoint=None)

    def base_env(self, ctx: RunContext, prepared: PreparedRepoPython) -> dict[str, str]:
        from runners.plugins.runners_report_signature import KEY_FILE_ENV, KEY_FILE_NAME

        return {
            "PATH": f"{ctx.layout.root}/{LAYER_DIR}/bin:/usr/local/bin:/usr/bin:/bin",
            "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONUNBUFFERED": "1",
            "PYTHONHASHSEED": "0",
            "UV_OFFLINE": "1",
            "PIP_NO_INDEX": "1",
            "SUBMISSION_PATH": ctx.layout.submission,
            KEY_FILE_ENV: f"{ctx.layout.reports}/{KEY_FILE_NAME}",
        }

    def collect(self, ctx: RunContext, outcome: SandboxResult) -> Verdict:
        verdict = super().collect(ctx, outcome)
        problem_files = set(self.selected(ctx))
        doctest_files = set(self.doctest_files(ctx))
        kept, dropped = [], []
        for record in verdict.report.records:
            file = (record.file or record.id.split("::", 1)[0]).lstrip("./")
            if file in problem_files or record.collection_error or (file in doctest_files and "doctest" in record.markers):
                kept.append(record)
            else:
                dropped.append(record)
        if dropped:
            verdict.report.records = kept
            note = (f"{len(dropped)} test(s) defined in the submission's own files were not counted "
                    "(only the problem's tests, and the doctests of the modules it names, are)")
            if outcome.exit_code == 1 and not any(r.status in ("failed", "error") for r in kept):
                verdict.exit_explained = note  # pytest's exit 1 was theirs (the engine notes it)
            else:
                verdict.errors.append(note)
        return verdict


def _python_files(ctx: RunContext) -> list[str]:
    root = ctx.workspace.submission
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.py")
                  if not any(part in ("node_modules", ".venv", "__pycache__") for part in p.parts))
