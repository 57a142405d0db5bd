"""Go, through `go test -json`: hidden tests that drive the submission's program from outside.

Problem layout: `tests/go.mod` (the tests' own module, standard library only) and one file per
checkpoint, `tests/<checkpoint>_test.go`, in one package; other files there (helpers, data) are
always copied. The submission is a Go main package (with or without its own `go.mod`).

The test step, offline:
1. `go build` the submission into the run's temporary directory; the tests run that binary,
   whose path is in `RUNNERS_ENTRYPOINT` (a submission that does not build fails every test
   that runs it, and its compiler output is in the run's stderr);
2. `runners-go-report` (ours, built once per Go version, see `runners.toolchains.go`) runs
   `go test -json -count=1 -vet=off` in the tests' directory and writes the events to the report,
   signed with the run's one-time key.

Groups: `TestError_...` / `TestFunctionality_...` (and custom markers: `Test<Marker>_...`) and
`@marker` tags in subtest names; an earlier checkpoint's file counts as Regression.
`--select tests/<file>::TestName[/subtest]` runs those top-level tests (`-run`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from runners.engine.trust import check_signature_file
from runners.frameworks.base import (
    ExitContract,
    Invocation,
    RunContext,
    Runner,
    Verdict,
    shell_command,
)
from runners.model.errors import ConfigError, UserInputError
from runners.model.records import ParsedReport
from runners.parsers.go_json import go_test_functions, parse_go_json
from runners.parsers.report_file import ReportError, read_report
from runners.plugins.runners_report_signature import KEY_FILE_ENV, KEY_FILE_NAME
from runners.sandbox.base import SandboxResult
from runners.toolchains.go import GoEnv, GoToolchains, go_env

REPORT = "go-report.json"
SIGNATURE = f"{REPORT}.sig"
BUILD_DIR = "runners-go-build"
_BUILD = (
    'mkdir -p "$GOTMPDIR" "${RUNNERS_ENTRYPOINT%/*}" && cd "$SUBMISSION_PATH" && if [ -f go.mod '
    ']; then go build -o "$RUNNERS_ENTRYPOINT" .; else go build -o "$RUNNERS_ENTRYPOINT" ./*.go; '
    'fi; cd "$RUNNERS_TESTS" && exec "$@"'
)


class GoRunner(Runner):
    selects = True
    name = "go"
    report_files = (REPORT, SIGNATURE)
    exit_contract = ExitContract("go test", no_tests="go test ran no tests")
    signs_reports = True

    def test_files(self, checkpoint: str) -> list[str]:
        return [f"{checkpoint}_test.go"]

    def is_test_file(self, name: str) -> bool:
        return name in {f"{cp}_test.go" for cp in self.problem.checkpoints}

    def check_select(self, ctx: RunContext) -> None:
        defined = self._functions(ctx)
        for test_id in ctx.select:
            file, _, name = test_id.partition("::")
            top = name.split("/", 1)[0]
            if defined.get(top) != PurePosixPath(file).name or not file.startswith("tests/"):
                raise UserInputError(
                    f"option --select: {test_id!r}: no test function {top or '(none)'} "
                    f"in {file} (ids look like tests/checkpoint_1_test.go::TestName)"
                )

    def write_config(self, ctx: RunContext) -> None:
        if not (ctx.workspace.tests / "go.mod").is_file():
            raise ConfigError(
                ctx.problem.path / "tests" / "go.mod",
                "file not found: Go tests need their own module (`module hiddentests` "
                "and a `go 1.19` line)",
            )

    def prepare(self, ctx: RunContext) -> None:
        toolchains = GoToolchains(
            ctx.sandbox, ctx.environment.cache_dir, ctx.environment.prepare_timeout, ctx.run_id
        )
        ctx.prepared = PreparedGo(toolchains, toolchains.prepare())

    def invocation(self, ctx: RunContext) -> Invocation:
        prepared = ctx.prepared
        assert isinstance(prepared, PreparedGo), "prepare() must run before invocation()"
        toolchains, env_go = prepared.toolchains, prepared.env
        layout = ctx.layout
        binary = f"{layout.tmp}/{BUILD_DIR}/{ctx.problem.name}"
        go_test = [env_go.go, "test", "-json", "-count=1", "-vet=off", "-timeout=0", "-p=1"]
        if ctx.select:
            tops = sorted({test_id.partition("::")[2].split("/", 1)[0] for test_id in ctx.select})
            go_test.append("-run=^(" + "|".join(map(re.escape, tops)) + ")$")
        argv = [
            "/bin/sh",
            "-c",
            _BUILD,
            "runners-go",
            env_go.signer,
            f"{layout.reports}/{REPORT}",
            *go_test,
            *ctx.extra_args,
            "./...",
        ]
        env = {
            "PATH": f"{env_go.bin_dir}:/usr/local/bin:/usr/bin:/bin",
            **go_env(f"{layout.tmp}/runners-go"),
            "RUNNERS_ENTRYPOINT": binary,
            "RUNNERS_TESTS": layout.tests,
            "SUBMISSION_PATH": layout.submission,
            KEY_FILE_ENV: f"{layout.reports}/{KEY_FILE_NAME}",
        }
        return Invocation(
            argv=argv,
            env=env,
            mounts=toolchains.mounts(),
            image=toolchains.image,
            entrypoint=shell_command([binary]),
        )

    def collect(self, ctx: RunContext, outcome: SandboxResult) -> Verdict:
        reports = ctx.workspace.reports
        try:
            data = read_report(reports / REPORT, not_before=ctx.started_at)
            check_signature_file(
                ctx.workspace.reports / SIGNATURE, ctx.report_key, data, ctx.started_at
            )
            parsed = parse_go_json(data, self._functions(ctx))
        except ReportError as exc:
            return Verdict(
                ParsedReport(),
                infrastructure_reason=f"{exc} (go test exit code {outcome.exit_code})",
            )
        if ctx.select:  # -run picked the top-level tests; keep only the subtests asked for
            wanted = set(ctx.select)
            parsed.records = [
                r for r in parsed.records if r.collection_error or _selected(r.id, wanted)
            ]
        verdict = Verdict(parsed)
        verdict.errors += parsed.errors
        verdict.errors += [
            r.message or f"could not load {r.id}" for r in parsed.records if r.collection_error
        ]
        return verdict

    def _functions(self, ctx: RunContext) -> dict[str, str]:
        """Test function -> the file under tests/ that declares it."""
        found: dict[str, str] = {}
        for path in sorted(Path(ctx.workspace.tests).glob("*_test.go")):
            for name in go_test_functions(path.read_text(encoding="utf-8", errors="replace")):
                found.setdefault(name, path.name)
        return found


@dataclass(frozen=True)
class PreparedGo:
    toolchains: GoToolchains
    env: GoEnv


def _selected(test_id: str, wanted: set[str]) -> bool:
    """An id asked for, or a subtest of one."""
    return any(test_id == w or test_id.startswith(w + "/") for w in wanted)
