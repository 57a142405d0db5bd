"""vitest and jest for kind: repository: the problem's tests laid into the repository, run as its
suite, with its relative imports (`../src`) and its dependencies.

- The tests and the configuration the problem trusts (`vitest.config.ts`, `jest.config.js` with
  its preset, `tsconfig.json`, `babel.config.js`) are overlay files in the copy, read-only; the
  same names the submission ships are removed (`runners.repository.overlay`).
- Our config (`js/runners-vitest-repo.config.mjs`, `js/runners-jest-repo.config.cjs`) loads the
  trusted one and then sets what the harness owns: the files that run, our signing reporter,
  snapshots through a private copy, no coverage, caches in /tmp, babel without the submission's
  config.
- Two `node_modules`: the repository's production dependencies (`runners.repository.node_deps`)
  at `<repo>/node_modules`, and the problem's test toolchain (its package.json: vitest or jest,
  ts-jest, typescript, test helpers) one level up, beside the repository, so the tests, the
  framework and the repository's code resolve one copy of each, and the repository's code finds
  the toolchain's packages too (a peer dependency).
- vitest type tests (`*.test-d.ts`) among a checkpoint's tests turn `--typecheck` on for them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from runners.frameworks.base import Invocation, RunContext
from runners.frameworks.js_report import install, write_reporter, write_snapshot_resolver
from runners.frameworks.js_runners import (
    ENV_DEFAULTS,
    JestRunner,
    JsRunner,
    PreparedNode,
    VitestRunner,
    prepared_node,
)
from runners.model.config import BUILTIN_MARKERS
from runners.model.errors import InfrastructureError
from runners.repository import manifest_config, overlay, selection
from runners.repository.common import RepositoryMixin
from runners.repository.node_deps import RepoNodeDeps, install_repo_deps
from runners.sandbox.base import Mount
from runners.toolchains.hosts import toolchain_host
from runners.toolchains.node import NodeToolchains


@dataclass(frozen=True)
class PreparedRepoNode(PreparedNode):
    """`PreparedNode` plus the repository's own dependencies."""

    deps: RepoNodeDeps = field(default_factory=lambda: RepoNodeDeps(None, None))


class RepositoryJsMixin(RepositoryMixin):
    """What vitest and jest share for a repository (mixed in before `JsRunner`)."""

    name: str

    def prepare(self: JsRunner, ctx: RunContext) -> None:  # type: ignore[misc]
        toolchains = NodeToolchains(
            ctx.sandbox,
            ctx.environment.cache_dir,
            ctx.environment.node,
            ctx.environment.prepare_timeout,
            ctx.run_id,
        )
        deps = RepoNodeDeps(None, None)
        if ctx.problem.settings.dependencies:
            try:
                deps = install_repo_deps(toolchains, ctx.workspace.submission)
            except InfrastructureError as exc:  # its manifest or lock: the tests run without them
                ctx.errors.append(f"the repository's dependencies could not be installed: {exc}")
                ctx.flags.append("submission-dependencies-failed")
        ctx.prepared = PreparedRepoNode(toolchains, toolchains.problem_env(ctx.problem), deps=deps)
        ctx.node = toolchains.version

    def selected_tests(self, ctx: RunContext) -> list[str]:
        return sorted(self.selected(ctx))

    def entry_env(self: JsRunner, ctx: RunContext) -> tuple[str, dict[str, str]]:  # type: ignore[misc]
        return "", self.run_env(ctx)  # the tests import the repository: no entry point

    def trusted_path(self, ctx: RunContext) -> str | None:
        trusted = overlay.trusted_config(ctx.problem)
        return f"{ctx.layout.submission}/{trusted}" if trusted else None

    def node_modules_mounts(self, ctx: RunContext) -> list[Mount]:
        """The toolchain beside the repository (`/node_modules` when the copy is `/workspace`),
        the repository's dependencies as its own `node_modules`; links on `none`."""
        prepared = ctx.prepared
        assert isinstance(prepared, PreparedRepoNode)
        toolchain = prepared.node_env.cached.host_dir / "node_modules"
        deps = prepared.deps.node_modules
        if not ctx.sandbox.remaps_paths:
            for link, target in (
                (ctx.workspace.submission.parent / "node_modules", toolchain),
                (ctx.workspace.submission / "node_modules", deps),
            ):
                if target is not None and not link.exists():
                    link.symlink_to(target)
            return []
        parent = str(Path(ctx.layout.submission).parent).rstrip("/")
        mounts = [Mount(source=toolchain, target=f"{parent}/node_modules", writable=False)]
        if deps is not None:
            mounts.append(
                Mount(source=deps, target=f"{ctx.layout.submission}/node_modules", writable=False)
            )
        return mounts

    def parse_root(self, ctx: RunContext) -> str:
        return ctx.layout.submission

    def invocation_for(self: JsRunner, ctx: RunContext, argv: list[str]) -> Invocation:  # type: ignore[misc]
        prepared = prepared_node(ctx)
        _, env = self.entry_env(ctx)
        mounts = [
            *prepared.toolchains.mounts(),
            *self.node_modules_mounts(ctx),  # type: ignore[attr-defined]
            *self.overlay_mounts(ctx),  # type: ignore[attr-defined]
        ]
        return Invocation(
            argv=argv,
            env=env,
            mounts=mounts,
            image=toolchain_host(ctx.sandbox).image_for("node"),
            entrypoint=None,
            env_defaults=dict(ENV_DEFAULTS),
        )


class RepositoryVitestRunner(RepositoryJsMixin, VitestRunner):
    kind = "repository"

    def write_config(self, ctx: RunContext) -> None:
        files, _ = self.selection(ctx)
        typecheck = [f for f in files if selection.is_typecheck_test(f)]
        tags = [{"name": name, "description": desc} for name, (desc, _) in BUILTIN_MARKERS.items()]
        tags += [
            {"name": name, "description": m.description or m.group.value}
            for name, m in ctx.problem.markers.items()
        ]
        config = {
            "root": ctx.layout.submission,
            "cacheDir": f"{ctx.layout.tmp}/vite-cache",
            "test": {
                "include": [glob_escape(f) for f in files if f not in typecheck],
                "includeTaskLocation": True,
                "watch": False,
                "allowOnly": False,
                "passWithNoTests": False,
                "testTimeout": self.timeout_ms(ctx) if ctx.checkpoint.timeout else None,
                "tags": tags,
                "typecheck": {
                    "enabled": bool(typecheck),
                    "include": [glob_escape(f) for f in typecheck],
                    "only": False,
                },
                "reporters": [
                    [
                        write_reporter(ctx, "runners-vitest-reporter.mjs"),
                        {"outputFile": f"{ctx.layout.reports}/{self.report_name}"},
                    ],
                    ["junit", {"outputFile": f"{ctx.layout.reports}/vitest-junit.xml"}],
                ],
            },
        }
        write_snapshot_resolver(ctx)
        checker = install(ctx, "runners-tsc.cjs")
        (ctx.workspace.config / "runners-tsc.cjs").chmod(0o755)
        install(
            ctx,
            "runners-vitest-repo.config.mjs",
            (
                "runners-vitest-config.json",
                {"trusted": self.trusted_path(ctx), "config": config, "checker": checker},
            ),
        )

    def invocation(self, ctx: RunContext) -> Invocation:
        prepared = prepared_node(ctx)
        argv = [
            prepared.node_env.node,
            prepared.node_env.bin("vitest", "vitest.mjs"),
            "run",
            "--config",
            f"{ctx.layout.config}/runners-vitest-repo.config.mjs",
            "--configLoader",
            "runner",
            "--root",
            ctx.layout.submission,
            *ctx.extra_args,
        ]
        pattern = self.selection(ctx)[1]
        if pattern:
            argv += ["--testNamePattern", pattern]
        invocation = self.invocation_for(ctx, argv)
        # ES modules run natively where the trusted config asks for it (`extensionsToTreatAsEsm`,
        # `.mjs` tests, ts-jest's `useESM`); without that, nothing changes.
        invocation.env["NODE_OPTIONS"] = (
            "--experimental-vm-modules --no-warnings=ExperimentalWarning"
        )
        return invocation


class RepositoryJestRunner(RepositoryJsMixin, JestRunner):
    kind = "repository"

    def write_config(self, ctx: RunContext) -> None:
        root = ctx.layout.submission
        trusted = overlay.trusted_config(ctx.problem)
        files = set(overlay.overlay_files(ctx.problem))
        babel = next(
            (
                name
                for name in (
                    "babel.config.js",
                    "babel.config.cjs",
                    "babel.config.mjs",
                    "babel.config.json",
                    ".babelrc",
                    ".babelrc.json",
                )
                if name in files
            ),
            None,
        )
        override = {
            "rootDir": root,
            "roots": [root],
            "testMatch": [glob_escape(f"{root}/{path}") for path in self.selection(ctx)[0]],
            "testPathIgnorePatterns": ["/node_modules/"],
            "cacheDirectory": f"{ctx.layout.tmp}/jest-cache",
            "watchman": False,
            "collectCoverage": False,
            "reporters": [
                "default",
                [
                    write_reporter(ctx, "runners-jest-reporter.cjs"),
                    {"outputFile": f"{ctx.layout.reports}/{self.report_name}"},
                ],
            ],
            "haste": {"enableSymlinks": False},
        }
        if ctx.checkpoint.timeout:
            override["testTimeout"] = self.timeout_ms(ctx)
        write_snapshot_resolver(ctx)
        trusted_path = f"{root}/{trusted}" if trusted else None
        if manifest_config.is_manifest("jest", trusted):  # package.json: its `jest`, never laid
            name = manifest_config.write_jest(
                ctx.problem.overlay_dir / str(trusted), ctx.workspace.config
            )
            trusted_path = f"{ctx.layout.config}/{name}"
        install(
            ctx,
            "runners-jest-repo.config.cjs",
            (
                "runners-jest-config.json",
                {
                    "trusted": trusted_path,
                    "babelConfig": f"{root}/{babel}" if babel else None,
                    "override": override,
                },
            ),
        )

    def invocation(self, ctx: RunContext) -> Invocation:
        prepared = prepared_node(ctx)
        argv = [
            prepared.node_env.node,
            prepared.node_env.bin("jest", "bin/jest.js"),
            "--config",
            f"{ctx.layout.config}/runners-jest-repo.config.cjs",
            "--rootDir",
            ctx.layout.submission,
            "--testLocationInResults",
            "--ci",
            "--no-watchman",
            *ctx.extra_args,
        ]
        pattern = self.selection(ctx)[1]
        if pattern:
            argv += ["--testNamePattern", pattern]
        invocation = self.invocation_for(ctx, argv)
        # ES modules run natively where the trusted config asks for it (`extensionsToTreatAsEsm`,
        # `.mjs` tests, ts-jest's `useESM`); without that, nothing changes.
        invocation.env["NODE_OPTIONS"] = (
            "--experimental-vm-modules --no-warnings=ExperimentalWarning"
        )
        return invocation


def glob_escape(path: str) -> str:
    """A file path as a glob that matches only itself (`[id].test.ts`, `(group)/a.test.ts`)."""
    return re.sub(r"([*?!()\[\]{}+@])", r"\\\1", path)
