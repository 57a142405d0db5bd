"""kind: repository, pytest: one interpreter whose `sys.path` holds the test toolchain, the
repository's dependencies and the repository itself, so its tests import it by name.

```
<run>/pyenv/                 a venv made for this run (prepare step), mounted read-only
  lib/python3.X/site-packages/_runners_layers.pth
      <toolchain>/site-packages     pytest and its plugins, the problem's test dependencies: first,
                                    so nothing of the repository's shadows them
      <dependencies>/site-packages  the repository's declared dependencies (cached, wheels only)
      <run>/pyenv/project           the repository installed (editable: its metadata, version file)
      /workspace/src                the import roots that install points at (or src/ or the root)
```

Only the layer venv's own site-packages is a *site* directory: `.pth` files of the dependencies
or written by the repository's build are never executed; the paths the editable install names
are read from its `.pth` files and listed as plain paths (a line that would run code is dropped).
The build runs in the prepare step (network on, sandboxed, without the tests) with
`SETUPTOOLS_SCM_PRETEND_VERSION` set, since the copy has no VCS history to take a version from.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from runners.errors import InfrastructureError
from runners.sandbox.base import Mount
from runners.toolchains.python import PreparedPython, PythonEnv, prepare_python, site_packages

LAYER_DIR = "pyenv"
PROJECT_DIR = "project"
LAYERS_PTH = "_runners_layers.pth"
BUILD_FILES = ("pyproject.toml", "setup.py", "setup.cfg")
# A build without VCS metadata still gets a version (setuptools-scm, hatch-vcs, pdm, flit's).
BUILD_ENV = {"SETUPTOOLS_SCM_PRETEND_VERSION": "0.0.0", "PDM_BUILD_SCM_VERSION": "0.0.0"}


@dataclass(frozen=True)
class PreparedRepoPython(PreparedPython):
    """`PreparedPython` plus the run's layered interpreter (a sandbox path)."""

    python: str = ""
    layer_host: Path | None = None
    install_note: str | None = None


def prepare_repository_python(ctx) -> PreparedRepoPython:  # type: ignore[no-untyped-def]
    """The toolchain and dependency environments (cached) and this run's layer over them."""
    base = prepare_python(ctx)
    toolchains = base.toolchains
    layout = ctx.layout
    host_layer = ctx.workspace.root / LAYER_DIR
    target = f"{layout.root}/{LAYER_DIR}"
    toolchains._venv(host_layer, target, None, [], scope="submission", what="the run's Python environment")
    repo = ctx.workspace.submission
    roots: list[str] = []
    note = None
    install = ctx.problem.settings.install
    if install is None:
        install = any((repo / name).is_file() for name in BUILD_FILES)
    if install:
        try:
            toolchains.step(
                [toolchains.host.uv_binary(), "pip", "install", "--quiet", "--no-deps", "--compile-bytecode",
                 "--python", f"{target}/bin/python", "--target", f"{target}/{PROJECT_DIR}", "-e",
                 layout.submission],
                layout.submission,
                [Mount(source=host_layer, target=target, writable=True),
                 Mount(source=repo, target=layout.submission, writable=True)],
                scope="submission", what="the repository's install", env=BUILD_ENV)
            roots = _editable_roots(host_layer / PROJECT_DIR, layout.submission)
        except InfrastructureError as exc:
            note = f"the repository could not be installed, so it is imported from its source tree: {exc}"
            ctx.errors.append(note)
            ctx.flags.append("submission-install-failed")
    if not roots:
        roots = [_source_root(repo, layout.submission)]
    _write_layers(host_layer, [
        _site_in_sandbox(base.toolchain),
        _site_in_sandbox(base.submission_env),
        *([f"{target}/{PROJECT_DIR}"] if install and note is None else []),
        *roots,
    ])
    return PreparedRepoPython(base.toolchains, base.toolchain, base.submission_env,
                              python=f"{target}/bin/python", layer_host=host_layer, install_note=note)


def _site_in_sandbox(env: PythonEnv) -> str:
    host = site_packages(env.cached.host_dir)
    return f"{env.cached.sandbox_dir}/{host.relative_to(env.cached.host_dir).as_posix()}"


def _editable_roots(project: Path, repo_in_sandbox: str) -> list[str]:
    """The directories an editable install's `.pth` files add (inside the repository only);
    lines that would run code (`import ...`) are not kept."""
    roots: list[str] = []
    for pth in sorted(project.glob("*.pth")):
        for line in pth.read_text(encoding="utf-8", errors="replace").splitlines():
            line = line.strip()
            if not line or line.startswith(("#", "import ", "import\t")):
                continue
            path = os.path.normpath(line)
            if (path == repo_in_sandbox or path.startswith(repo_in_sandbox + "/")) and path not in roots:
                roots.append(path)
        pth.unlink()
    return roots


def _source_root(repo: Path, repo_in_sandbox: str) -> str:
    """Without an install: `src/` when the code lives there (a src layout), else the root."""
    src = repo / "src"
    if src.is_dir() and any((child / "__init__.py").is_file() or child.suffix == ".py"
                            for child in src.iterdir()):
        return f"{repo_in_sandbox}/src"
    return repo_in_sandbox


def _write_layers(layer: Path, paths: list[str]) -> None:
    site = site_packages(layer)
    (site / LAYERS_PTH).write_text("".join(f"{path}\n" for path in dict.fromkeys(paths)), encoding="utf-8")
