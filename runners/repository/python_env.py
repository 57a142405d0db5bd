"""kind: repository, pytest: one interpreter whose `sys.path` holds the test toolchain, the
repository's dependencies and the repository itself, so its tests import it by name.

```
<cache>/pylayer-<hash>/      a venv over two cached environments (built once, read-only)
  lib/python3.X/site-packages/_runners_layers.pth
      <toolchain>/site-packages      pytest and its plugins, the problem's test dependencies: first,
                                     so nothing of the repository's shadows them
      <dependencies>/site-packages   the repository's declared dependencies (wheels only)
      import ...                     then the entries of $RUNNERS_REPO_PATH, this run's:
<run>/pyinstall/                     the repository's editable install (metadata: its version,
                                     entry points) and
/workspace/src (or /workspace)       the import roots that install names (or src/, or the root)
```

Only the layer's own site-packages is a *site* directory: `.pth` files of the dependencies or
written by the repository's build never run; the paths an editable install names are read from
its `.pth` files and listed as plain paths (a line that would run code is dropped). The layer
holds an empty `sitecustomize` and `usercustomize`: Python imports the first one on `sys.path` at
start-up, before pytest, so none of the repository's (a module, a package, an extension, one its
build wrote) ever runs there.

Installing the repository runs its build backend, which is the submission's code: that step has
the network off and a cache of its own. Its build requirements (`[build-system].requires`) come
first from the package index, with the network on but no submission code (wheels only, cached).
`SETUPTOOLS_SCM_PRETEND_VERSION` is set, since the copy has no VCS history to take a version from.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from runners.model.errors import InfrastructureError
from runners.repository import build_requires
from runners.sandbox.base import Mount
from runners.toolchains.cache import ensure_env
from runners.toolchains.python import PreparedPython, PythonEnv, PythonToolchains, site_packages
from runners.toolchains.which_python import python_request

if TYPE_CHECKING:
    from runners.engine.context import RunContext
    from runners.model.config import RepositoryConfig

INSTALL_DIR = "pyinstall"
SCRATCH_DIR = "pybuild"
PATH_ENV = "RUNNERS_REPO_PATH"
LAYERS_PTH = "_runners_layers.pth"
# Found before any of the repository's on sys.path: its own start-up hooks never run.
STARTUP_HOOKS = ("sitecustomize.py", "usercustomize.py")
_EMPTY_HOOK = (
    "# runners: the repository's start-up hooks (sitecustomize, usercustomize) never run\n"
)
BUILD_FILES = ("pyproject.toml", "setup.py", "setup.cfg")
DEFAULT_BUILD_REQUIRES = ["setuptools>=40.8.0"]  # PEP 517's fallback for a project without one
# A build without VCS metadata still gets a version (setuptools-scm, hatch-vcs, pdm, flit_scm).
BUILD_ENV = {"SETUPTOOLS_SCM_PRETEND_VERSION": "0.0.0", "PDM_BUILD_SCM_VERSION": "0.0.0"}
# Appends this run's paths after the cached layers (an `import` line is the only code a .pth runs).
_PATH_HOOK = (
    f"import os, sys; sys.path.extend(p for p in os.environ.get({PATH_ENV!r}, "
    "'').split(os.pathsep) if p and p not in sys.path)\n"
)


@dataclass(frozen=True)
class PreparedRepoPython(PreparedPython):
    """`PreparedPython` plus the layered interpreter and this run's import paths."""

    layer: PythonEnv | None = None
    repo_path: list[str] = field(default_factory=list)  # sandbox paths, for PATH_ENV

    @property
    def python(self) -> str:
        assert self.layer is not None
        return self.layer.python


def repo_requirements(repo: Path, settings: RepositoryConfig) -> tuple[list[str], str]:
    """The repository's declared dependencies: its `requirements.txt` (or the files
    `repository.requirements` names) and `[project].dependencies` (plus `repository.extras`)."""
    lines: list[str] = []
    sources: list[str] = []
    names = settings.requirements or ["requirements.txt"]
    for pattern in names:
        for path in sorted(repo.glob(pattern)):
            if path.is_file() and not path.is_symlink():
                sources.append(path.name)
                for raw in path.read_text(encoding="utf-8", errors="replace").splitlines():
                    line = raw.split("#", 1)[0].strip()
                    if line and not line.startswith(
                        "-"
                    ):  # options (-r, -e, --index-url) not honoured
                        lines.append(line)
    project = _pyproject(repo).get("project", {})
    if isinstance(project, dict):
        deps = project.get("dependencies", [])
        optional = project.get("optional-dependencies", {})
        chosen = [
            *(deps if isinstance(deps, list) else []),
            *(
                d
                for extra in settings.extras
                for d in (optional.get(extra, []) if isinstance(optional, dict) else [])
            ),
        ]
        if chosen:
            sources.append("pyproject.toml")
            lines += [str(d).strip() for d in chosen if str(d).strip()]
    return list(dict.fromkeys(lines)), " and ".join(sources)


def _pyproject(repo: Path) -> dict:  # type: ignore[type-arg]
    path = repo / "pyproject.toml"
    if not path.is_file() or path.is_symlink():
        return {}
    try:
        return tomllib.loads(path.read_text(encoding="utf-8", errors="replace"))
    except tomllib.TOMLDecodeError:
        return {}


def prepare_repository_python(ctx: RunContext) -> PreparedRepoPython:
    """The toolchain, the repository's dependencies and the layer over them (cached), and this
    run's install of the repository."""
    request = python_request(ctx.environment.python, ctx.problem)
    toolchains = PythonToolchains(
        ctx.sandbox, ctx.environment.cache_dir, request, ctx.environment.prepare_timeout, ctx.run_id
    )
    ctx.sandbox = toolchains.sandbox  # the runner takes the test step's image from it
    ctx.python = toolchains.host.python_version(toolchains.python)
    settings = ctx.problem.settings
    repo = ctx.workspace.submission
    toolchain = toolchains.toolchain(ctx.problem.test_dependencies)
    deps, failure = (
        toolchains.requirements_env(*repo_requirements(repo, settings))
        if settings.dependencies
        else toolchains.requirements_env([], "")
    )
    if failure:
        ctx.errors.append(f"the repository's dependencies could not be installed: {failure}")
        ctx.flags.append("submission-dependencies-failed")
    layer = _layer(toolchains, toolchain, deps)
    install = settings.install
    if install is None:
        install = any(
            (repo / name).is_file() and not (repo / name).is_symlink() for name in BUILD_FILES
        )
    paths = _install(ctx, toolchains) if install else None
    if paths is None:
        paths = [_source_root(repo, ctx.layout.submission)]
    return PreparedRepoPython(toolchains, toolchain, deps, layer=layer, repo_path=paths)


def _layer(toolchains: PythonToolchains, toolchain: PythonEnv, deps: PythonEnv) -> PythonEnv:
    sites = [_site_in_sandbox(toolchain), _site_in_sandbox(deps)]

    def build(host_tmp: Path, sandbox_tmp: str) -> None:
        toolchains._venv(
            host_tmp, sandbox_tmp, None, [], scope="tools", what="layered Python environment"
        )
        text = "".join(f"{path}\n" for path in sites) + _PATH_HOOK
        (site_packages(host_tmp) / LAYERS_PTH).write_text(text, encoding="utf-8")
        for name in STARTUP_HOOKS:
            (site_packages(host_tmp) / name).write_text(_EMPTY_HOOK, encoding="utf-8")

    material = {
        "python": toolchains.identity,
        "sites": sites,
        "hook": _PATH_HOOK,
        "startup": STARTUP_HOOKS,
    }
    return PythonEnv(
        ensure_env(toolchains.host_root, toolchains.sandbox_root, "pylayer", material, build)
    )


def _install(ctx: RunContext, toolchains: PythonToolchains) -> list[str] | None:
    """Install the repository (editable, no dependencies) into <run>/pyinstall: its build
    requirements with the network on (no submission code), then its build with the network off.
    Returns this run's import paths, or None (noted) when it cannot be installed."""
    layout, repo = ctx.layout, ctx.workspace.submission
    build_system = _pyproject(repo).get("build-system", {})
    requires = build_system.get("requires") if isinstance(build_system, dict) else None
    requires = [str(r) for r in requires] if isinstance(requires, list) else DEFAULT_BUILD_REQUIRES
    host_install = ctx.workspace.root / INSTALL_DIR
    target = f"{layout.root}/{INSTALL_DIR}"
    scratch = ctx.workspace.root / SCRATCH_DIR
    for path in (host_install, scratch):
        path.mkdir()
    extra = build_requires.learned(toolchains.host_root, requires)
    try:
        for attempt in (1, 2):
            backend, failure = toolchains.requirements_env(
                [*requires, *extra],
                "[build-system].requires" + (" and what the backend asks for" if extra else ""),
            )
            if failure:
                raise InfrastructureError(failure)
            missing = scratch / "home" / "build-requires.json"
            missing.unlink(missing_ok=True)
            build = [
                toolchains.host.uv_binary(),
                "pip",
                "install",
                "--quiet",
                "--offline",
                "--no-deps",
                "--no-build-isolation",
                "--python",
                backend.python,
                "--target",
                target,
                "-e",
                layout.submission,
            ]
            try:
                toolchains.step(
                    [
                        backend.python,
                        "-c",
                        build_requires.DRIVER,
                        f"{layout.root}/{SCRATCH_DIR}/home/{missing.name}",
                        *build,
                    ],
                    layout.submission,
                    [
                        Mount(source=host_install, target=target, writable=True),
                        Mount(source=repo, target=layout.submission, writable=True),
                    ],
                    scope="submission",
                    what="repository's install",
                    env=BUILD_ENV,
                    scratch_dir=(scratch, f"{layout.root}/{SCRATCH_DIR}"),
                )
                break
            except InfrastructureError:
                more = [r for r in build_requires.read_missing(missing) if r not in extra]
                if attempt == 2 or not more:
                    raise
                extra += more  # the backend's own editable requirements (hatchling: editables)
                build_requires.remember(toolchains.host_root, requires, extra)
    except InfrastructureError as exc:
        ctx.errors.append(
            f"the repository could not be installed, so it is imported from its source tree: {exc}"
        )
        ctx.flags.append("submission-install-failed")
        return None
    roots = _editable_roots(host_install, layout.submission)
    return [target, *(roots or [_source_root(repo, layout.submission)])]


def _site_in_sandbox(env: PythonEnv) -> str:
    host = site_packages(env.cached.host_dir)
    return f"{env.cached.sandbox_dir}/{host.relative_to(env.cached.host_dir).as_posix()}"


def _editable_roots(install: Path, repo_in_sandbox: str) -> list[str]:
    """The directories an editable install's `.pth` files add (inside the repository only);
    lines that would run code (`import ...`) are not kept, and the files are removed."""
    roots: list[str] = []
    for pth in sorted(install.glob("*.pth")):
        for line in pth.read_text(encoding="utf-8", errors="replace").splitlines():
            line = line.strip()
            if not line or line.startswith(("#", "import ", "import\t")):
                continue
            path = os.path.normpath(line)
            if (
                path == repo_in_sandbox or path.startswith(repo_in_sandbox + "/")
            ) and path not in roots:
                roots.append(path)
        pth.unlink()
    return roots


def _source_root(repo: Path, repo_in_sandbox: str) -> str:
    """Without an install: `src/` when the code lives there (a src layout), else the root."""
    src = repo / "src"
    if (
        src.is_dir()
        and not src.is_symlink()
        and any(
            (child / "__init__.py").is_file() or child.suffix == ".py" for child in src.iterdir()
        )
    ):
        return f"{repo_in_sandbox}/src"
    return repo_in_sandbox
