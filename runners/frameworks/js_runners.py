"""vitest and jest, through their built-in JSON reporters.

The problem ships `package.json` + `package-lock.json` (its test toolchain); `npm ci` installs
them in the prepare step and the result is mounted read-only as `node_modules` beside the tests.
The runner writes its own config file and passes it explicitly, with an explicit root that is not
the submission's, so a submission's vitest/jest config, setup files or reporters are never loaded.

Tests reach the submission through the environment: `RUNNERS_ENTRYPOINT` (a shell-quoted command,
e.g. `node /workspace/main.js`), `RUNNERS_ENTRY_FILE` (absolute path, to `import()`/`require()` a
library) and `SUBMISSION_PATH`; the checkpoint is in `SCBENCH_CHECKPOINT`.

The reports directory must be writable by the test run, so the submission, or a process it leaves
behind, can write there too: a forged report followed by `process.exit(0)` (jest runs a single
test file inside its own process), or one rewritten right after the framework wrote the real one.
So the JSON report is written by a small reporter of ours, which vitest/jest load before any test
runs: it reads a one-time key, deletes the key file, and signs the report it writes
(`<report>.sig`, HMAC-SHA256 of the exact bytes). A report without the run's signature is an
infrastructure failure.

The JavaScript itself (reporters, signing, snapshot resolver, vitest config) is shipped as files in
`js/` and installed by `js_report`; `--select` is translated by `js_select`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from runners.frameworks.base import (
    ExitContract,
    Invocation,
    RunContext,
    Runner,
    Verdict,
    entry_file_name,
    shell_command,
)
from runners.frameworks.js_report import (
    check_signature,
    install,
    obsolete_snapshots,
    write_reporter,
    write_snapshot_resolver,
)
from runners.frameworks.js_select import js_escape, keep_selected, select_tests
from runners.model.config import BUILTIN_MARKERS
from runners.model.records import ParsedReport
from runners.parsers.jest_json import parse_jest_json
from runners.parsers.report_file import ReportError, read_report
from runners.parsers.vitest_json import parse_vitest_json
from runners.plugins.runners_report_signature import KEY_FILE_ENV, KEY_FILE_NAME
from runners.sandbox.base import SandboxResult
from runners.toolchains.hosts import toolchain_host
from runners.toolchains.node import NodeEnv, NodeToolchains

_JS_TEST = re.compile(r"^.+\.(?:test|spec)\.[cm]?[jt]sx?$")
EXTENSIONS = ("ts", "js", "mjs", "cjs", "mts", "cts", "tsx", "jsx")
# What the problem's `env` may change: a project whose snapshots record colours runs with
# FORCE_COLOR=1, as its own `jest --color` would.
ENV_DEFAULTS = {"NODE_ENV": "test", "NO_COLOR": "1", "FORCE_COLOR": "0"}


@dataclass(frozen=True)
class PreparedNode:
    """What `JsRunner.prepare` made for one run: kept in `ctx.prepared`."""

    toolchains: NodeToolchains
    node_env: NodeEnv  # node and the problem's test toolchain (vitest or jest)


def prepared_node(ctx: RunContext) -> PreparedNode:
    prepared = ctx.prepared
    assert isinstance(prepared, PreparedNode), "prepare() must run before invocation()"
    return prepared


class JsRunner(Runner):
    report_name: str
    signs_reports = True
    selects = True

    def test_files(self, checkpoint: str) -> list[str]:
        return [f"{checkpoint}.{kind}.{ext}" for kind in ("test", "spec") for ext in EXTENSIONS]

    def is_test_file(self, name: str) -> bool:
        return bool(_JS_TEST.match(name))

    def prepare(self, ctx: RunContext) -> None:
        toolchains = NodeToolchains(
            ctx.sandbox,
            ctx.environment.cache_dir,
            ctx.environment.node,
            ctx.environment.prepare_timeout,
            ctx.run_id,
        )
        ctx.prepared = PreparedNode(toolchains, toolchains.problem_env(ctx.problem))
        ctx.node = toolchains.version

    def selected_tests(self, ctx: RunContext) -> list[str]:
        """The checkpoint test files copied into the workspace, relative to the layout root."""
        wanted = self.test_files_up_to(ctx.checkpoint)
        return sorted(f"tests/{p.name}" for p in ctx.workspace.tests.iterdir() if p.name in wanted)

    def selection(self, ctx: RunContext) -> tuple[list[str], str | None]:
        """(test files to run, anchored name pattern) for `--select` (see js_select)."""
        return select_tests(self.name, self.selected_tests(ctx), ctx.select, self.full_name_pattern)

    def full_name_pattern(self, titles: list[str]) -> str:
        """A regex for the full name the framework matches `--testNamePattern` against."""
        raise NotImplementedError

    def entry_env(self, ctx: RunContext) -> tuple[str, dict[str, str]]:
        node = prepared_node(ctx).node_env.node
        entry_file = f"{ctx.layout.submission}/{entry_file_name(ctx.problem.entry_file, '.js')}"
        entrypoint = shell_command([node, entry_file])
        return entrypoint, {
            **self.run_env(ctx),
            "RUNNERS_ENTRYPOINT": entrypoint,
            "RUNNERS_ENTRY_FILE": entry_file,
        }

    def run_env(self, ctx: RunContext) -> dict[str, str]:
        """The test step's environment, whatever the problem kind."""
        node = prepared_node(ctx).node_env.node
        return {
            "PATH": f"{Path(node).parent}:/usr/local/bin:/usr/bin:/bin",
            "SUBMISSION_PATH": ctx.layout.submission,
            "CI": "true",
            "npm_config_offline": "true",
            KEY_FILE_ENV: f"{ctx.layout.reports}/{KEY_FILE_NAME}",
        }

    def timeout_ms(self, ctx: RunContext) -> int:
        return int((ctx.checkpoint.timeout or 30) * 1000)

    def collect(self, ctx: RunContext, outcome: SandboxResult) -> Verdict:
        try:
            data = read_report(ctx.workspace.reports / self.report_name, not_before=ctx.started_at)
            check_signature(ctx, self.report_name, ctx.report_key, data)
            parsed = self.parse(data, self.parse_root(ctx))
        except ReportError as exc:
            return Verdict(
                ParsedReport(),
                infrastructure_reason=f"{exc} ({self.name} exit code {outcome.exit_code})",
            )
        keep_selected(ctx.select, parsed)
        # jest fails a run for obsolete snapshots alone; they are no test's failure.
        verdict = Verdict(parsed, exit_explained=obsolete_snapshots(data))
        verdict.errors += parsed.errors
        verdict.errors += [
            r.message or f"could not load {r.id}" for r in parsed.records if r.collection_error
        ]
        return verdict

    def parse(self, data: bytes, root: str) -> ParsedReport:
        raise NotImplementedError

    def write_reporter(self, ctx: RunContext, name: str) -> str:
        """Our signing reporter in the config dir (the engine left it the run's key)."""
        return write_reporter(ctx, name)


class VitestRunner(JsRunner):
    name = "vitest"
    exit_contract = ExitContract("vitest", no_tests="vitest found no tests")
    report_name = "vitest-report.json"
    report_files = ("vitest-report.json", "vitest-report.json.sig", "vitest-junit.xml")

    def write_config(self, ctx: RunContext) -> None:
        tags = [{"name": name, "description": desc} for name, (desc, _) in BUILTIN_MARKERS.items()]
        tags += [
            {"name": name, "description": m.description or m.group.value}
            for name, m in ctx.problem.markers.items()
        ]
        config = {
            "root": ctx.layout.root,
            "cacheDir": f"{ctx.layout.tmp}/vite-cache",
            "test": {
                "include": self.selection(ctx)[0],
                "includeTaskLocation": True,
                "watch": False,
                "globals": False,
                "setupFiles": [],
                "globalSetup": [],
                "pool": "forks",
                "testTimeout": self.timeout_ms(ctx),
                "hookTimeout": self.timeout_ms(ctx),
                "allowOnly": False,
                "passWithNoTests": False,
                "tags": tags,
                "reporters": [
                    [
                        self.write_reporter(ctx, "runners-vitest-reporter.mjs"),
                        {"outputFile": f"{ctx.layout.reports}/{self.report_name}"},
                    ],
                    ["junit", {"outputFile": f"{ctx.layout.reports}/vitest-junit.xml"}],
                ],
            },
        }
        # The shipped vitest.config.mjs reads this JSON and adds the snapshot resolver.
        write_snapshot_resolver(ctx)
        install(ctx, "vitest.config.mjs", ("runners-vitest-config.json", config))

    def invocation(self, ctx: RunContext) -> Invocation:
        prepared = prepared_node(ctx)
        layout = ctx.layout
        entrypoint, env = self.entry_env(ctx)
        argv = [
            prepared.node_env.node,
            prepared.node_env.bin("vitest", "vitest.mjs"),
            "run",
            "--config",
            f"{layout.config}/vitest.config.mjs",
            "--configLoader",
            "runner",
            "--root",
            layout.root,
            *ctx.extra_args,
        ]
        pattern = self.selection(ctx)[1]
        if pattern:
            argv += ["--testNamePattern", pattern]
        return Invocation(
            argv=argv,
            env=env,
            mounts=prepared.toolchains.mounts() + node_modules_mount(prepared.node_env, ctx),
            image=toolchain_host(ctx.sandbox).image_for("node"),
            entrypoint=entrypoint,
            env_defaults=dict(ENV_DEFAULTS),
        )

    def full_name_pattern(self, titles: list[str]) -> str:
        # Suites and title joined by " " up to vitest 4, by " > " from vitest 5.
        return "(?: | > )".join(map(js_escape, titles))

    def parse(self, data: bytes, root: str) -> ParsedReport:
        return parse_vitest_json(data, root=root)


class JestRunner(JsRunner):
    name = "jest"
    exit_contract = ExitContract("jest", no_tests="jest found no tests")
    report_name = "jest-report.json"
    report_files = ("jest-report.json", "jest-report.json.sig")

    def write_config(self, ctx: RunContext) -> None:
        root = ctx.layout.root
        config = {
            "rootDir": root,
            "roots": [f"{root}/tests"],
            "testMatch": [f"{root}/{path}" for path in self.selection(ctx)[0]],
            "testEnvironment": "node",
            "cacheDirectory": f"{ctx.layout.tmp}/jest-cache",
            "watchman": False,
            "testTimeout": self.timeout_ms(ctx),
            "setupFiles": [],
            "setupFilesAfterEnv": [],
            "reporters": [
                "default",
                [
                    self.write_reporter(ctx, "runners-jest-reporter.cjs"),
                    {"outputFile": f"{ctx.layout.reports}/{self.report_name}"},
                ],
            ],
            "globalSetup": None,
            "globalTeardown": None,
            "snapshotResolver": write_snapshot_resolver(ctx),
            # Babel with no config at all: a submission's .babelrc / babel.config.js is never read.
            "transform": {
                r"\.[cm]?[jt]sx?$": ["babel-jest", {"babelrc": False, "configFile": False}]
            },
            "haste": {"enableSymlinks": False},
        }
        (ctx.workspace.config / "jest.config.json").write_text(
            json.dumps(config, indent=2), encoding="utf-8"
        )

    def invocation(self, ctx: RunContext) -> Invocation:
        prepared = prepared_node(ctx)
        entrypoint, env = self.entry_env(ctx)
        # The config goes inline: jest 30 given a config *path* still searches the working
        # directory for a config file of its own, and fails when there is none.
        config = json.loads((ctx.workspace.config / "jest.config.json").read_text(encoding="utf-8"))
        argv = [
            prepared.node_env.node,
            prepared.node_env.bin("jest", "bin/jest.js"),
            "--config",
            json.dumps(config, separators=(",", ":")),
            "--testLocationInResults",
            "--ci",
            "--no-watchman",
            *ctx.extra_args,
        ]
        pattern = self.selection(ctx)[1]
        if pattern:
            argv += ["--testNamePattern", pattern]
        return Invocation(
            argv=argv,
            env=env,
            mounts=prepared.toolchains.mounts() + node_modules_mount(prepared.node_env, ctx),
            image=toolchain_host(ctx.sandbox).image_for("node"),
            entrypoint=entrypoint,
            env_defaults=dict(ENV_DEFAULTS),
        )

    def full_name_pattern(self, titles: list[str]) -> str:
        return " ".join(map(js_escape, titles))  # jest's fullName

    def parse(self, data: bytes, root: str) -> ParsedReport:
        return parse_jest_json(data, root=root)


def node_modules_mount(env: NodeEnv, ctx: RunContext) -> list:
    """`<root>/node_modules`, so Node's resolution from the tests finds the toolchain.

    Backends that remap paths mount it there; on `none` a symlink in the workspace does it.
    """
    from runners.sandbox.base import Mount

    host = env.cached.host_dir / "node_modules"
    if ctx.sandbox.remaps_paths:
        return [Mount(source=host, target=f"{ctx.layout.root}/node_modules", writable=False)]
    link = ctx.workspace.root / "node_modules"
    if not link.exists():
        link.symlink_to(host)
    return []
