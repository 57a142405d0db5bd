"""The framework's own run of a JavaScript project, set up as the project itself sets up: a copy of
the checkout with its full install (dev dependencies too) by its own package manager and lock, so
the framework, its plugins and the libraries are the project's, not the problem's toolchain.

Used by `bench/repo_suites.py` for the projects whose `native_install` names a package manager
(pnpm, yarn-berry, yarn, npm); pnpm and Yarn come from the harness's package-manager cache.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path


def full_install(manager: str, repo: Path, dest: Path, node: str, npm: list[str]) -> Path:
    """`dest`: a copy of `repo` with `node_modules` installed by `manager` (install scripts off)."""
    from runners import EnvironmentSpec
    from runners.repository.node_deps import _manager_version, _package_manager
    from runners.sandbox.none import NoSandbox
    from runners.toolchains.node import NodeToolchains

    if dest.exists():
        return dest
    shutil.copytree(repo, dest, symlinks=True)
    env = dict(os.environ)
    if manager == "npm":
        argv = [*npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"]
    else:
        toolchains = NodeToolchains(NoSandbox(), EnvironmentSpec().cache_dir, None, 900, "bench")
        tool = _package_manager(toolchains, manager, _manager_version(dest, manager))
        if manager == "pnpm":
            argv = [
                node,
                tool,
                "install",
                "--frozen-lockfile",
                "--ignore-scripts",
                "--reporter=append-only",
            ]
        elif manager == "yarn":
            argv = [
                node,
                tool,
                "install",
                "--frozen-lockfile",
                "--ignore-scripts",
                "--non-interactive",
            ]
        else:  # Yarn 2+, as its .yarnrc.yml says but with node_modules and npm's registry
            registry = subprocess.run(
                [*npm, "config", "get", "registry"], capture_output=True, text=True, check=True
            ).stdout.strip()
            env.update(
                {
                    "YARN_NODE_LINKER": "node-modules",
                    "YARN_ENABLE_SCRIPTS": "0",
                    "YARN_IGNORE_PATH": "1",
                    "YARN_NPM_REGISTRY_SERVER": registry,
                    "YARN_ENABLE_TELEMETRY": "0",
                }
            )
            argv = [node, tool, "install", "--immutable", "--mode=skip-build"]
    done = subprocess.run(argv, cwd=dest, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(
            f"{manager} install in {dest} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        )
    return dest
