"""One evaluation, end to end: the run protocol. `execute` calls one phase function per step:

```
ProblemConfig + CheckpointConfig + submission + EnvironmentSpec
  -> admit (a directory without the hidden tests)  -> inventory (limits checked; the clock starts)
  -> resolve_sandbox                               -> start_quality (code quality, in a thread)
  -> create_workspace -> run_context               -> copy_in (fresh copy; tests beside it)
  -> prepare (Runner.prepare: toolchains, network on)
  -> run_tests (Sandbox.run: network off, limits)  -> collect (Runner.collect: reports -> records)
  -> _result (categorize -> ExecutionResult)       -> deliver (artifacts: result.json, raw reports,
                                                     logs)
  -> release (the workspace goes, or is kept)
```
Nothing here knows which framework ran; that is the runner's business.
"""

from __future__ import annotations

import tempfile
import time
import uuid
from pathlib import Path

from runners.engine.artifacts import save_artifacts
from runners.engine.blame import problem_faults, problem_reason
from runners.engine.categorize import categorize
from runners.engine.context import Invocation, Layout, RunContext, RunnerContract, Verdict
from runners.engine.excerpt import with_output
from runners.engine.preload import Preload
from runners.engine.submission import CopyTimeout, Inventory, inventory, is_full, no_space
from runners.engine.trust import exit_reason, issue_report_key
from runners.engine.wall_clock import run_limits
from runners.engine.workspace import SUBMISSION_IGNORE, Workspace
from runners.engine.workspace_place import workspace_base
from runners.model.errors import InfrastructureError, UserInputError
from runners.model.limits import ResourceLimits
from runners.model.records import ParsedReport, RawRecord
from runners.model.results import ExecutionResult, failure_result
from runners.quality.measure import QualityJob, previous_submission
from runners.sandbox.base import Sandbox, SandboxRequest, SandboxResult, base_env
from runners.sandbox.registry import resolve_sandbox
from runners.scan import scan_submission
from runners.util import progress

TAIL_CHARS = 16_000
# Per text field of one test (captured output, message, traceback): a test that prints 100 MB
# must not make a 100 MB result, nor hold it in the harness's memory.
TEST_TEXT_CHARS = 64_000


def execute(
    runner: RunnerContract,
    submission: Path,
    *,
    extra_args: list[str],
    select: list[str],
    output_dir: Path | None,
    sandbox: Sandbox | None = None,
    previous: Path | None = None,
) -> ExecutionResult:
    """The run protocol: one phase function per step, in the order they run. A failure the
    harness can name (no sandbox, a full disk, a toolchain that would not install) is a result
    like any other; bad input is a UserInputError."""
    problem, checkpoint, environment = runner.problem, runner.checkpoint, runner.environment
    submission = admit(runner, submission)
    limits = run_limits(environment, problem, checkpoint, runner.estimated_tests())
    # The wall clock starts here: walking and copying the submission count against it.
    deadline = time.monotonic() + (limits.wall_timeout or 900.0)
    listed = inventory(
        submission, limits, SUBMISSION_IGNORE
    )  # over a limit: refused, nothing copied
    if sandbox is None:
        try:
            sandbox = resolve_sandbox(environment.sandbox, environment.sandbox_options)
        except (
            InfrastructureError
        ) as exc:  # no usable sandbox: a result that says so, like any other
            return failure_result(problem, checkpoint, runner.name, environment.sandbox, str(exc))
    # The code-quality figures are measured from the listed files meanwhile (never graded).
    quality = start_quality(runner, submission, listed, limits, previous)
    try:
        workspace = create_workspace(runner, listed, sandbox)
    except InfrastructureError as exc:  # the disk is full
        if quality is not None:
            quality.cancel()
        return failure_result(problem, checkpoint, runner.name, sandbox.name, str(exc))
    ctx = run_context(runner, sandbox, workspace, limits, select=select, extra_args=extra_args)
    try:
        timeout = copy_in(runner, ctx, submission, listed, deadline)
        prepare(runner, ctx)
        invocation = runner.invocation(ctx)
        env = run_env(runner, ctx, invocation)
        outcome = run_tests(runner, ctx, invocation, env, timeout)
        verdict = collect(runner, ctx, outcome, invocation, env, output_dir)
        result = _result(runner, ctx, invocation.entrypoint, outcome, verdict)
        return deliver(runner, ctx, result, quality, output_dir, outcome, invocation, env)
    except (InfrastructureError, OSError) as exc:
        if isinstance(exc, OSError):
            if not is_full(exc):
                raise
            exc = no_space(
                exc,
                workspace.root,
                "preparing the run (the tests, the configuration, the toolchain)",
            )
        result = _failed(runner, ctx, str(exc), timed_out=isinstance(exc, CopyTimeout))
        return deliver(runner, ctx, result, quality, output_dir)
    finally:
        release(runner, workspace, quality)


def admit(runner: RunnerContract, submission: Path) -> Path:
    """The submission's absolute path, once it is known to be a directory that does not carry
    the problem or its hidden tests."""
    problem = runner.problem
    submission = Path(submission).resolve()
    if not submission.is_dir():
        raise UserInputError(f"option --submission: {submission} is not a directory")
    _refuse_overlap(submission, Path(problem.path).resolve(), Path(problem.tests_dir).resolve())
    return submission


def create_workspace(runner: RunnerContract, listed: Inventory, sandbox: Sandbox) -> Workspace:
    """A fresh workspace where the run's files fit (in memory when the sandbox bounds memory);
    a full disk is an InfrastructureError."""
    keep = runner.environment.keep_workspace
    base = workspace_base(listed.allocated, sandbox.memory_bounded(), keep)
    try:
        return Workspace.create(base)
    except OSError as exc:
        if not is_full(exc):
            raise
        raise no_space(exc, base or tempfile.gettempdir(), "creating the run's workspace") from exc


def run_context(
    runner: RunnerContract,
    sandbox: Sandbox,
    workspace: Workspace,
    limits: ResourceLimits,
    *,
    select: list[str],
    extra_args: list[str],
) -> RunContext:
    problem, checkpoint = runner.problem, runner.checkpoint
    return RunContext(
        problem=problem,
        checkpoint=checkpoint,
        environment=runner.environment,
        sandbox=sandbox,
        workspace=workspace,
        layout=Layout.for_workspace(workspace, sandbox.remaps_paths),
        limits=limits,
        run_id=f"{problem.name}-{checkpoint.name}-{uuid.uuid4().hex[:10]}",
        started_at=time.time(),
        select=select,
        extra_args=extra_args,
    )


def copy_in(
    runner: RunnerContract, ctx: RunContext, submission: Path, listed: Inventory, deadline: float
) -> float:
    """The submission and the tests into the workspace, the submission scanned for what no
    sandbox stops and --select checked; returns what the copy left of the wall clock (the
    run's timeout; preparing the toolchain does not count against it)."""
    workspace = ctx.workspace
    progress.stage(progress.PREPARING_WORKSPACE)
    workspace.copy_submission(submission, listed, deadline=deadline)
    timeout = max(deadline - time.monotonic(), 1.0)
    runner.copy_tests(ctx)  # beside the copy, or (a repository) into it
    # What no sandbox stops (code the tests import runs inside the test process): flagged.
    ctx.flags += scan_submission(
        workspace.submission,
        ctx.problem.entry_file,
        protected=runner.protected(),
        skip=runner.problem_files(ctx),
    )
    runner.check_select(ctx)  # a --select id that names no test: refused before any sandbox
    return timeout


def prepare(runner: RunnerContract, ctx: RunContext) -> None:
    """Assets, the report-signing key, the framework's configuration and its toolchain (network
    on); then the tests and the configuration are sealed against the run."""
    workspace = ctx.workspace
    workspace.copy_assets(ctx.problem)
    if runner.signs_reports:
        ctx.report_key = issue_report_key(workspace.reports)
    runner.write_config(ctx)
    progress.stage(progress.PREPARING_TOOLCHAIN)
    runner.prepare(ctx)
    if not ctx.sandbox.remaps_paths:  # the backends that remap paths mount them read-only
        workspace.seal(workspace.tests, workspace.config)


def run_env(runner: RunnerContract, ctx: RunContext, invocation: Invocation) -> dict[str, str]:
    """The run's environment variables; later layers win: the runner's defaults, then the
    problem's, the checkpoint's, the environment's, the assets' and the invocation's own."""
    return {
        **base_env(),
        "HOME": ctx.layout.home,
        "TMPDIR": ctx.layout.tmp,
        **invocation.env_defaults,
        **ctx.problem.env,
        **ctx.checkpoint.env,
        **ctx.environment.env,
        **ctx.asset_env(),
        **invocation.env,
    }


def run_tests(
    runner: RunnerContract,
    ctx: RunContext,
    invocation: Invocation,
    env: dict[str, str],
    timeout: float,
) -> SandboxResult:
    """The tests, in the sandbox with the network off and the limits on."""
    ctx.started_at = time.time()
    preload = Preload(runner.collect_modules)  # what only the end of the run needs
    progress.stage(progress.RUNNING_TESTS)
    outcome = ctx.sandbox.run(
        SandboxRequest(
            argv=invocation.argv,
            cwd=ctx.layout.submission,
            env=env,
            mounts=[*ctx.layout.mounts(ctx.workspace), *invocation.mounts],
            network=False,
            limits=ctx.limits,
            timeout=timeout,
            image=invocation.image,
            run_id=ctx.run_id,
        )
    )
    preload.join()
    return outcome


def collect(
    runner: RunnerContract,
    ctx: RunContext,
    outcome: SandboxResult,
    invocation: Invocation,
    env: dict[str, str],
    output_dir: Path | None,
) -> Verdict:
    """The runner's reading of the run, with the harness's own causes filled in: an exit code
    the framework does not explain, or a fault in the problem's files."""
    progress.stage(progress.COLLECTING)
    # A killed run's reports are never read: whatever it left behind is not graded.
    if outcome.timed_out:
        return wall_clock_verdict(ctx)
    try:
        verdict = runner.collect(ctx, outcome)
    except UserInputError as exc:  # found only now (a --select title no test has)
        _keep_refused(runner, ctx, str(exc), output_dir, outcome, invocation, env)
        raise
    if verdict.infrastructure_reason is None:
        verdict.infrastructure_reason = exit_reason(
            runner.exit_contract, outcome.exit_code, verdict
        )
    if verdict.infrastructure_reason is None and verdict.problem_reason is None:
        places = ctx.places(runner.problem_files(ctx), runner.parse_root(ctx))
        verdict.problem_reason = problem_reason(problem_faults(verdict.report.records, places))
    return verdict


def deliver(
    runner: RunnerContract,
    ctx: RunContext,
    result: ExecutionResult,
    quality: QualityJob | None,
    output_dir: Path | None,
    outcome: SandboxResult | None = None,
    invocation: Invocation | None = None,
    env: dict[str, str] | None = None,
) -> ExecutionResult:
    """The result with its code-quality figures, saved with the run's artifacts when asked."""
    result.quality = quality.report() if quality else None
    if output_dir is not None:
        result.artifacts_dir = str(Path(output_dir).resolve())
        save_artifacts(
            Path(output_dir),
            result,
            ctx.workspace,
            runner.report_paths(ctx),
            outcome,
            invocation,
            env,
        )
    return result


def release(runner: RunnerContract, workspace: Workspace, quality: QualityJob | None) -> None:
    """Whatever the run's end: the quality tools stop, and the workspace goes (or is kept)."""
    if quality is not None:
        quality.cancel()  # bad input found on the way: the tools stop
    if not runner.environment.keep_workspace:
        workspace.cleanup()
    else:
        workspace.release()


def start_quality(
    runner: RunnerContract,
    submission: Path,
    listed: Inventory,
    limits: ResourceLimits,
    previous: Path | None,
) -> QualityJob | None:
    """The code-quality figures of the submission (and the previous checkpoint's), measured in a
    thread while the tests run; None when the environment turns them off."""
    if not runner.environment.quality:
        return None
    before = runner.problem.checkpoint_before(runner.checkpoint.name)
    if previous is None:
        previous = previous_submission(submission, runner.checkpoint.name, before)
    elif before is None:
        before = "previous"
    return QualityJob(listed, previous, before, limits, runner.environment.cache_dir)


def _result(
    runner: RunnerContract,
    ctx: RunContext,
    entrypoint: str | None,
    outcome: SandboxResult,
    verdict: Verdict,
) -> ExecutionResult:
    order = {cp.name: cp.order or 0 for cp in ctx.problem.ordered_checkpoints()}
    # The problem's fault outranks the failure it caused (a conftest that failed: no report).
    broken = verdict.problem_reason is not None
    if broken:
        verdict.infrastructure_reason = None
    # A broken problem is no grade: no test counts (the raw report stays with the artifacts).
    records = [] if broken else verdict.report.records
    cut = _bound_text(records)
    tests = categorize(
        records,
        ctx.checkpoint.name,
        order,
        ctx.problem.marker_groups(),
        checkpoint_of=runner.checkpoint_of_file,
    )
    flags = list(ctx.flags)
    if not ctx.sandbox.isolated:
        flags.append("unsandboxed")
    if outcome.truncated:
        flags.append("output-truncated")
    if cut:
        flags.append("test-output-truncated")
    reason = verdict.infrastructure_reason
    if reason is not None and not outcome.timed_out:
        # The cause is in the tool's own words ("error: unrecognized arguments: ..."); a killed
        # run's output says only what it was doing when the clock ran out.
        reason = utf8_safe(with_output(reason, outcome.stderr, outcome.stdout))
    return ExecutionResult(
        problem_name=ctx.problem.name,
        problem_version=ctx.problem.version,
        checkpoint_name=ctx.checkpoint.name,
        checkpoint_version=ctx.checkpoint.version,
        framework=runner.name,
        sandbox=ctx.sandbox.name,
        python=ctx.python,
        node=ctx.node,
        entrypoint=entrypoint,
        duration=round(outcome.duration, 3),
        tests=tests,
        exit_code=outcome.exit_code,
        collected=verdict.report.collected,
        infrastructure_failure=reason is not None,
        infrastructure_reason=reason,
        problem_error=broken,
        problem_error_reason=utf8_safe(verdict.problem_reason or "") if broken else None,
        timed_out=outcome.timed_out,
        errors=[*ctx.workspace.notes, *ctx.errors, *map(utf8_safe, verdict.errors), *outcome.notes],
        flags=flags,
        stdout=outcome.stdout[-TAIL_CHARS:],
        stderr=outcome.stderr[-TAIL_CHARS:],
        output_truncated=outcome.truncated,
    )


def _bound_text(records: list[RawRecord]) -> bool:
    """Make every record's text fit in a result: over-long text fields keep their head and tail
    (True when something was cut), and lone surrogates (a test that printed or raised with bytes
    that are not UTF-8; JSON reports escape them as `\\udcff`) become U+FFFD, since a result
    must always be writable as UTF-8."""
    cut = False
    half = TEST_TEXT_CHARS // 2
    for record in records:
        for name in ("stdout", "stderr", "message", "traceback", "diff"):
            value = getattr(record, name)
            if not value:
                continue
            if len(value) > TEST_TEXT_CHARS:
                dropped = len(value) - 2 * half
                value = f"{value[:half]}\n[... {dropped} characters truncated ...]\n{value[-half:]}"
                cut = True
            setattr(record, name, utf8_safe(value))
        record.id, record.name = utf8_safe(record.id), utf8_safe(record.name)
        if record.file:
            record.file = utf8_safe(record.file)
        record.markers = [utf8_safe(m) for m in record.markers]
    return cut


def utf8_safe(text: str) -> str:
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _failed(
    runner: RunnerContract, ctx: RunContext, reason: str, timed_out: bool = False
) -> ExecutionResult:
    outcome = SandboxResult(exit_code=None, timed_out=timed_out)
    result = _result(
        runner, ctx, None, outcome, Verdict(ParsedReport(), infrastructure_reason=reason)
    )
    return result


def _keep_refused(
    runner: RunnerContract,
    ctx: RunContext,
    reason: str,
    output_dir: Path | None,
    outcome: SandboxResult,
    invocation: Invocation,
    env: dict[str, str],
) -> None:
    """Bad input found after the run: the run's output and reports are kept all the same, so
    the user can see what ran, before the error reaches them."""
    if output_dir is None:
        return
    result = _result(
        runner,
        ctx,
        invocation.entrypoint,
        outcome,
        Verdict(ParsedReport(), infrastructure_reason=f"refused: {reason}"),
    )
    result.artifacts_dir = str(Path(output_dir).resolve())
    save_artifacts(
        Path(output_dir), result, ctx.workspace, runner.report_paths(ctx), outcome, invocation, env
    )


def wall_clock_verdict(ctx: RunContext) -> Verdict:
    return Verdict(
        ParsedReport(),
        infrastructure_reason=(
            f"the test run exceeded its wall-clock limit of {ctx.limits.wall_timeout:g} s; every "
            "process it started was killed"
        ),
    )


def _refuse_overlap(submission: Path, problem_dir: Path, tests_dir: Path) -> None:
    """A submission that contains the problem or its tests, or sits inside the tests, would carry
    the hidden tests into its copy. One elsewhere in the problem directory (SCBench keeps
    reference solutions in `<problem>/solutions/checkpoint_N/`) is copied on its own: fine."""
    if problem_dir.is_relative_to(submission):
        what = f"contains the problem directory {problem_dir}"
    elif tests_dir.is_relative_to(submission):
        what = f"contains the tests {tests_dir}"
    elif submission.is_relative_to(tests_dir):
        what = f"sits inside the tests {tests_dir}"
    else:
        return
    raise UserInputError(
        f"option --submission: {submission} {what}; "
        "the submission must not contain the problem or its tests, nor sit inside the tests"
    )
