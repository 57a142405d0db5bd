"""Python environments through uv: the pinned test toolchain, and the submission's own deps.

Both are prepared in the sandbox's prepare step (network allowed) into the content-hashed cache,
and mounted read-only into the test step, which runs with the network off.
"""

from __future__ import annotations

import shutil
import tomllib
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from runners.engine.excerpt import with_output
from runners.model.errors import InfrastructureError
from runners.model.limits import ResourceLimits
from runners.sandbox.base import Mount, Sandbox, SandboxRequest, base_env
from runners.toolchains.cache import CachedEnv, ensure_env
from runners.toolchains.hosts import toolchain_host
from runners.toolchains.tools import SubmissionTools
from runners.toolchains.which_python import PythonRequest, python_request

if TYPE_CHECKING:
    from runners.frameworks.base import RunContext

TOOLS_FILE = Path(__file__).with_name("python-tools.txt")
PLUGIN_DIR = Path(__file__).parent.parent / "plugins"
PLUGIN_MODULE = "runners_pytest_plugin"
# Copied into the toolchain's site-packages: the plugin and the signing code it imports.
PLUGIN_FILES = (PLUGIN_DIR / f"{PLUGIN_MODULE}.py", PLUGIN_DIR / "runners_report_signature.py")
REQUIREMENTS_NAME = "requirements.txt"
# Environments are byte-compiled when built (`uv pip install --compile-bytecode`); part of the
# cache key, so environments built before that are rebuilt once instead of being reused.
BYTECODE = "compiled"


@dataclass(frozen=True)
class PythonEnv:
    cached: CachedEnv

    @property
    def python(self) -> str:
        return f"{self.cached.sandbox_dir}/bin/python"

    @property
    def bin_dir(self) -> str:
        return f"{self.cached.sandbox_dir}/bin"


class PythonToolchains:
    """Builds and finds Python environments for one sandbox backend."""

    def __init__(
        self,
        sandbox: Sandbox,
        cache_dir: Path,
        python: str | PythonRequest | None,
        prepare_timeout: float,
        run_id: str,
    ) -> None:
        if isinstance(python, str):
            python = PythonRequest(python, "option --python")
        toolchain_host(sandbox).use_cache(cache_dir)
        # docker: the sandbox of the image that has the requested version
        self.host, self.python = toolchain_host(sandbox).for_python(python)
        self.sandbox = self.host.sandbox
        self.host_root, self.sandbox_root = self.host.cache_root(cache_dir)
        self.host_root.mkdir(parents=True, exist_ok=True)
        self.identity = toolchain_host(sandbox).interpreter_identity(self.python)
        self.cache_dir = Path(cache_dir)
        self.prepare_timeout = prepare_timeout
        self.run_id = run_id
        self.log: list[str] = []

    @cached_property
    def tools(self) -> SubmissionTools:
        """The programs beside Python a submission finds on PATH (SCBench's image's: uv, node,
        ...)."""
        return self.host.submission_tools(self.cache_dir)

    def mounts(self) -> list[Mount]:
        """What the test step needs: the cache read-only, the interpreter and the tools."""
        return [
            Mount(source=self.host_root, target=self.sandbox_root, writable=False),
            *self.host.interpreter_mounts(self.python),
            *self.tools.mounts,
        ]

    def toolchain(
        self,
        test_dependencies: list[str],
        tools_file: Path = TOOLS_FILE,
        plugin_files: tuple[Path, ...] = PLUGIN_FILES,
        name: str = "pytools",
    ) -> PythonEnv:
        """pytest and its plugins at pinned versions (or another pinned list: `tools_file`, with
        its own `plugin_files`), plus the problem's test dependencies."""
        tools = tools_file.read_text()
        plugin = "".join(path.read_text() for path in plugin_files)
        material = {
            "python": self.identity,
            "tools": tools,
            "deps": sorted(test_dependencies),
            "plugin": plugin,
            "bytecode": BYTECODE,
        }

        def build(host_tmp: Path, sandbox_tmp: str) -> None:
            self._venv(
                host_tmp,
                sandbox_tmp,
                tools,
                test_dependencies,
                scope="tools",
                what="test toolchain",
            )
            site = site_packages(host_tmp)
            for path in plugin_files:  # two small modules: left to compile at import (a few ms)
                shutil.copy(path, site / path.name)

        return PythonEnv(ensure_env(self.host_root, self.sandbox_root, name, material, build))

    def submission_env(self, submission_dir: Path) -> tuple[PythonEnv, str | None]:
        """A venv with the submission's declared dependencies (requirements.txt or
        pyproject.toml `[project].dependencies`); empty when it declares none.

        Returns the environment and, when the submission's dependencies failed to install, the
        reason (the environment is then the empty one, so the tests fail honestly). Only wheels
        are installed: a source package's build script would be submission code running with
        the network on.
        """
        requirements, source = declared_requirements(submission_dir)
        return self.requirements_env(requirements, source or "")

    def requirements_env(
        self, requirements: list[str], source: str
    ) -> tuple[PythonEnv, str | None]:
        """A venv with `requirements` (wheels only), cached by them; see `submission_env`."""
        if not requirements:
            return self._empty_env(), None
        material = {
            "python": self.identity,
            "requirements": requirements,
            "only_wheels": True,
            "bytecode": BYTECODE,
        }

        def build(host_tmp: Path, sandbox_tmp: str) -> None:
            self._venv(
                host_tmp,
                sandbox_tmp,
                "\n".join(requirements) + "\n",
                ["--no-build"],
                scope="submission",
                what=f"submission dependencies from {source}",
            )

        try:
            return PythonEnv(
                ensure_env(self.host_root, self.sandbox_root, "subenv", material, build)
            ), None
        except InfrastructureError as exc:
            return self._empty_env(), str(exc)

    def requirements_venv(self, requirements: list[str], name: str, what: str) -> PythonEnv:
        """A venv of trusted, pinned `requirements` (source packages allowed), cached by them: a
        program the harness runs, such as an agent's CLI."""
        material = {"python": self.identity, "requirements": requirements, "bytecode": BYTECODE}

        def build(host_tmp: Path, sandbox_tmp: str) -> None:
            self._venv(
                host_tmp, sandbox_tmp, "\n".join(requirements) + "\n", [], scope=name, what=what
            )

        return PythonEnv(ensure_env(self.host_root, self.sandbox_root, name, material, build))

    def _empty_env(self) -> PythonEnv:
        def build(host_tmp: Path, sandbox_tmp: str) -> None:
            self._venv(
                host_tmp,
                sandbox_tmp,
                None,
                [],
                scope="submission",
                what="empty submission environment",
            )

        return PythonEnv(
            ensure_env(
                self.host_root,
                self.sandbox_root,
                "subenv",
                {"python": self.identity, "requirements": []},
                build,
            )
        )

    def _venv(
        self,
        host_tmp: Path,
        target: str,
        requirements: str | None,
        extra: list[str],
        scope: str,
        what: str,
    ) -> None:
        """Create a venv at `target` and install into it, byte-compiled.

        Only the new environment, a uv cache of this trust scope and a scratch home are
        writable: installing a submission's dependencies can touch neither the test toolchain
        nor the cache the toolchain is built from. The environment is mounted read-only when
        tests run, so Python could never cache bytecode there itself: without the compile here,
        every test run (and every submission process importing a dependency) would compile
        pytest and the plugins from source again (~0.3 s per pytest start on a 2-core machine).
        """
        uv = self.host.uv_binary()
        host_tmp.mkdir(parents=True)
        mounts = [Mount(source=host_tmp, target=target, writable=True)]
        self.step(
            [
                uv,
                "venv",
                "--quiet",
                "--allow-existing",
                "--relocatable",
                "--python",
                self.python,
                target,
            ],
            target,
            mounts,
            scope,
            what,
        )
        if requirements or extra:
            install = [
                uv,
                "pip",
                "install",
                "--quiet",
                "--compile-bytecode",
                "--python",
                f"{target}/bin/python",
            ]
            if requirements:
                (host_tmp / ".requirements.txt").write_text(requirements)
                install += ["-r", f"{target}/.requirements.txt"]
            self.step(install + list(extra), target, mounts, scope, what)
        (host_tmp / ".requirements.txt").unlink(missing_ok=True)

    def step(
        self,
        argv: list[str],
        cwd: str,
        mounts: list[Mount],
        scope: str,
        what: str,
        env: dict[str, str] | None = None,
        scratch_dir: tuple[Path, str] | None = None,
    ) -> None:
        """One install command in the sandbox's prepare step: `mounts` plus a uv cache and a
        scratch home of this trust scope are writable, with the network on; raises on failure.

        With `scratch_dir` (host, sandbox path), the cache and home are that directory instead,
        the toolchain cache is mounted read-only, and the network is off: a step that runs the
        submission's own code (its build backend) shares nothing with other runs and reaches
        nothing outside."""
        uv = self.host.uv_binary()
        if scratch_dir is None:
            scratch = [
                (self.host_root / f"{name}-{scope}", f"{self.sandbox_root}/{name}-{scope}")
                for name in ("uv-cache", "home")
            ]
        else:
            scratch = [
                (scratch_dir[0] / name, f"{scratch_dir[1]}/{name}") for name in ("uv-cache", "home")
            ]
        for path, _ in scratch:
            path.mkdir(exist_ok=True)
        request = SandboxRequest(
            argv=argv,
            cwd=cwd,
            env={
                **base_env(),
                "UV_CACHE_DIR": scratch[0][1],
                "HOME": scratch[1][1],
                "UV_PYTHON_DOWNLOADS": "never",
                "UV_NO_PROGRESS": "1",
                "UV_LINK_MODE": "copy",
                **(env or {}),
            },
            mounts=[
                *([Mount(source=self.host_root, target=self.sandbox_root)] if scratch_dir else []),
                *mounts,
                *(Mount(source=host, target=target, writable=True) for host, target in scratch),
                *self.host.interpreter_mounts(self.python),
                *self.host.uv_mounts(uv),
            ],
            network=scratch_dir is None,
            limits=ResourceLimits(output_bytes=256 * 1024, wall_timeout=self.prepare_timeout),
            timeout=self.prepare_timeout,
            image=self.host.image_for("python"),
            run_id=self.run_id,
            purpose="prepare",
        )
        result = self.sandbox.prepare(request) if request.network else self.sandbox.run(request)
        if result.exit_code != 0:
            why = "timed out" if result.timed_out else f"exit code {result.exit_code}"
            raise InfrastructureError(
                with_output(f"preparing the {what} failed ({why})", result.stderr, result.stdout)
            )
        self.log.append(" ".join(argv))


@dataclass(frozen=True)
class PreparedPython:
    """What `prepare_python` made for one run: kept in `ctx.prepared`."""

    toolchains: PythonToolchains
    toolchain: PythonEnv  # pytest and the harness's plugins
    submission_env: PythonEnv  # the submission's dependencies; its entrypoint runs in it


def prepared_python(ctx: RunContext) -> PreparedPython:
    prepared = ctx.prepared
    assert isinstance(prepared, PreparedPython), "prepare() must run before invocation()"
    return prepared


def prepare_python(ctx: RunContext, tools_file: Path | None = None) -> PreparedPython:
    """The test toolchain and the submission's environment for a run; a submission whose
    dependencies cannot be installed is noted and flagged, and runs in an empty environment.
    `tools_file`: another pinned tool list than pytest's (the case program's), without plugins."""
    request = python_request(ctx.environment.python, ctx.problem)
    toolchains = PythonToolchains(
        ctx.sandbox, ctx.environment.cache_dir, request, ctx.environment.prepare_timeout, ctx.run_id
    )
    ctx.sandbox = toolchains.sandbox  # the runner takes the test step's image from it
    ctx.python = toolchains.host.python_version(toolchains.python)
    if tools_file is None:
        toolchain = toolchains.toolchain(ctx.problem.test_dependencies)
    else:
        toolchain = toolchains.toolchain(
            ctx.problem.test_dependencies, tools_file, (), tools_file.stem
        )
    submission_env, failure = toolchains.submission_env(ctx.workspace.submission)
    if failure:
        ctx.errors.append(f"the submission's dependencies could not be installed: {failure}")
        ctx.flags.append("submission-dependencies-failed")
    return PreparedPython(toolchains, toolchain, submission_env)


def declared_requirements(submission_dir: Path) -> tuple[list[str], str | None]:
    """Normalized requirement lines a submission declares, and the file they came from."""
    req = submission_dir / REQUIREMENTS_NAME
    if req.is_file() and not req.is_symlink():
        lines = []
        for raw in req.read_text(encoding="utf-8", errors="replace").splitlines():
            line = raw.split("#", 1)[0].strip()
            # Options (-r, -e, --index-url ...) are not honoured: only plain requirements.
            if line and not line.startswith("-"):
                lines.append(line)
        return lines, REQUIREMENTS_NAME
    pyproject = submission_dir / "pyproject.toml"
    if pyproject.is_file() and not pyproject.is_symlink():
        try:
            data = tomllib.loads(pyproject.read_text(encoding="utf-8", errors="replace"))
        except tomllib.TOMLDecodeError:
            return [], None
        deps = data.get("project", {}).get("dependencies", [])
        if isinstance(deps, list):
            return [str(d).strip() for d in deps if str(d).strip()], "pyproject.toml"
    return [], None


def site_packages(venv: Path) -> Path:
    found = sorted(venv.glob("lib/python3*/site-packages"))
    if not found:
        raise InfrastructureError(
            f"{venv}: no site-packages directory after creating the environment"
        )
    return found[0]
