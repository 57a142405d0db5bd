"""The Node toolchain of a JavaScript problem: its package.json and lock, installed with `npm ci`.

Prepared once per hash of (package.json, lock file, Node version) in the sandbox's prepare step,
then mounted read-only as the `node_modules` beside the tests, so the test step runs offline.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from runners.engine.excerpt import with_output
from runners.model.config import ProblemConfig
from runners.model.errors import ConfigError, InfrastructureError
from runners.model.limits import ResourceLimits
from runners.sandbox.base import Mount, Sandbox, SandboxRequest, SandboxResult
from runners.toolchains.cache import CachedEnv, ensure_env
from runners.toolchains.hosts import toolchain_host

PACKAGE_FILES = ("package.json", "package-lock.json")


@dataclass(frozen=True)
class NodeEnv:
    cached: CachedEnv
    node: str

    @property
    def node_modules(self) -> str:
        return f"{self.cached.sandbox_dir}/node_modules"

    def bin(self, package: str, relative: str) -> str:
        return f"{self.node_modules}/{package}/{relative}"


class NodeToolchains:
    def __init__(
        self,
        sandbox: Sandbox,
        cache_dir: Path,
        node: str | None,
        prepare_timeout: float,
        run_id: str,
    ) -> None:
        self.sandbox = sandbox
        self.host = toolchain_host(sandbox)
        self.host_root, self.sandbox_root = self.host.cache_root(cache_dir, kind="node")
        self.host_root.mkdir(parents=True, exist_ok=True)
        self.node = self.host.node_for_toolchains(node)
        self.identity = self.host.program_identity(self.node, ["--version"])
        self.version = self.host.node_version(self.node)  # recorded in the result
        self.prepare_timeout = prepare_timeout
        self.run_id = run_id

    def mounts(self) -> list[Mount]:
        return [
            Mount(source=self.host_root, target=self.sandbox_root, writable=False),
            *self.host.program_mounts(self.node),
        ]

    def problem_env(self, problem: ProblemConfig) -> NodeEnv:
        missing = [name for name in PACKAGE_FILES if not (problem.path / name).is_file()]
        if missing:
            raise ConfigError(
                problem.path / "config.yaml",
                f"framework {problem.framework!r} needs {' and '.join(missing)} next to "
                "config.yaml (the test toolchain, installed with `npm ci`)",
            )
        contents = {
            name: (problem.path / name).read_text(encoding="utf-8") for name in PACKAGE_FILES
        }
        for name, text in contents.items():
            _check_package_file(problem.path / name, text)
        _check_in_sync(problem.path, contents)
        material = {"node": self.identity, **contents}

        def build(host_tmp: Path, sandbox_tmp: str) -> None:
            host_tmp.mkdir(parents=True)
            for name in PACKAGE_FILES:
                shutil.copy(problem.path / name, host_tmp / name)
            npm = self.host.npm_for_toolchains(self.node)
            result = self._npm(npm, "ci", host_tmp, sandbox_tmp)
            if result.exit_code != 0 and "in sync" in result.stderr:
                # npm ci refuses locks that lack other platforms' optional packages (some
                # registries and mirrors omit them); `npm install` still honours the lock.
                result = self._npm(npm, "install", host_tmp, sandbox_tmp)
            if result.exit_code != 0:
                why = "timed out" if result.timed_out else f"exit code {result.exit_code}"
                raise InfrastructureError(
                    with_output(
                        f"npm for {problem.name} failed ({why})", result.stderr, result.stdout
                    )
                )

        return NodeEnv(
            ensure_env(self.host_root, self.sandbox_root, "nodemods", material, build), self.node
        )

    def _npm(self, npm: list[str], command: str, host_tmp: Path, cwd: str) -> SandboxResult:
        return self.install_step(
            [*npm, command, "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"],
            host_tmp,
            cwd,
        )

    def install_step(
        self,
        argv: list[str],
        host_tmp: Path,
        cwd: str,
        env: dict[str, str] | None = None,
        scratch: tuple[str, ...] = ("npm-cache", "home-npm"),
        read_cache: bool = False,
    ) -> SandboxResult:
        """One install command, network on: only the new directory (`host_tmp`, at `cwd`) and the
        `scratch` directories of the cache (package caches, a home) are writable; with
        `read_cache`, the rest of the cache (package managers installed there) is readable."""
        paths = [self.host_root / name for name in scratch]
        for path in paths:
            path.mkdir(exist_ok=True)
        return self.sandbox.prepare(
            SandboxRequest(
                argv=argv,
                cwd=cwd,
                env={
                    "PATH": f"{Path(self.node).parent}:/usr/local/bin:/usr/bin:/bin",
                    "npm_config_cache": f"{self.sandbox_root}/npm-cache",
                    "HOME": f"{self.sandbox_root}/home-npm",
                    "npm_config_update_notifier": "false",
                    **(env or {}),
                },
                mounts=[
                    *(
                        [Mount(source=self.host_root, target=self.sandbox_root, writable=False)]
                        if read_cache
                        else []
                    ),
                    Mount(source=host_tmp, target=cwd, writable=True),
                    *(
                        Mount(source=path, target=f"{self.sandbox_root}/{path.name}", writable=True)
                        for path in paths
                    ),
                    *self.host.program_mounts(self.node),
                ],
                network=True,
                limits=ResourceLimits(output_bytes=256 * 1024, wall_timeout=self.prepare_timeout),
                timeout=self.prepare_timeout,
                image=self.host.image_for("node"),
                run_id=self.run_id,
                purpose="prepare",
            )
        )


def _check_package_file(path: Path, text: str) -> None:
    """Fail fast, naming the file: npm would only time out or fail inside the sandbox."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ConfigError(path, f"not valid JSON ({exc}); expected the npm {path.name}") from None
    if not isinstance(data, dict):
        raise ConfigError(
            path, f"expected a JSON object (the npm {path.name}), got {type(data).__name__}"
        )
    if path.name == "package.json":
        for field in ("dependencies", "devDependencies"):
            if field in data and not isinstance(data[field], dict):
                raise ConfigError(path, f"field `{field}`: expected an object of package: version")


def _check_in_sync(folder: Path, contents: dict[str, str]) -> None:
    """The lock records what package.json asked for when it was made (`packages[""]`, lockfile v2+):
    one that differs is out of date, which `npm ci` refuses (and the fallback would resolve
    anew)."""
    package, lock = json.loads(contents["package.json"]), json.loads(contents["package-lock.json"])
    root = lock.get("packages", {}).get("") if isinstance(lock.get("packages"), dict) else None
    if not isinstance(root, dict):
        return  # a lockfile v1 records no root: npm ci checks it
    for field in ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies"):
        wanted, locked = package.get(field) or {}, root.get(field) or {}
        if not isinstance(wanted, dict) or not isinstance(locked, dict):
            continue
        for name in sorted(set(wanted) | set(locked)):
            if wanted.get(name) != locked.get(name):
                raise ConfigError(
                    folder / "package-lock.json",
                    f"out of date: package.json field `{field}.{name}` is "
                    f"{_spec(wanted.get(name))}, the lock has {_spec(locked.get(name))}; run `npm "
                    "install --package-lock-only` next to config.yaml",
                )


def _spec(value: object) -> str:
    return "no entry" if value is None else repr(value)
