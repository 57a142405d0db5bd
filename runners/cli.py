"""Command line: `python -m runners run|evaluate ...`.

Exit codes (`runners.model.exitcodes`): 0 the pass policy is met, 1 it is not, 2 bad input (config,
path, option), 3 infrastructure failure (the tests could not be run or their report cannot be
trusted), 4 problem error (the problem's own files failed to load: no grade).
"""

from __future__ import annotations

import gc
import re
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import click

from runners.engine import preload
from runners.model import exitcodes
from runners.model.errors import InfrastructureError, UserInputError
from runners.model.policy import PassPolicy
from runners.sandbox.registry import BUILTINS as SANDBOX_BUILTINS
from runners.util.choice import Choice

# What a command needs is imported inside it: `--help`, a usage error or `image build` must not
# pay for pydantic, the runners and the sandboxes (about 0.3 s of every start-up).
if TYPE_CHECKING:
    from rich.console import Console

    from runners.model.environment import EnvironmentSpec
    from runners.model.results import ExecutionResult
    from runners.util.progress import Reporter

EXIT_MET, EXIT_NOT_MET, EXIT_BAD_INPUT, EXIT_INFRA, EXIT_PROBLEM = (
    exitcodes.MET,
    exitcodes.NOT_MET,
    exitcodes.BAD_INPUT,
    exitcodes.INFRA,
    exitcodes.PROBLEM,
)

F = TypeVar("F", bound=Callable[..., object])


@click.group(name="runners", context_settings={"help_option_names": ["-h", "--help"]})
def app() -> None:
    """Run hidden checkpoint test suites against agent submissions, in a sandbox."""


# True while the collector is off for the start-up (see runners/entry.py and main()).
startup_gc_paused = False


def _pause_gc_for_startup() -> None:
    global startup_gc_paused
    if gc.isenabled():
        gc.disable()
        startup_gc_paused = True


def _started() -> None:
    """A command has imported what it needs (its runner and sandbox backend): the collector
    runs again, for the run itself."""
    global startup_gc_paused
    if startup_gc_paused:
        startup_gc_paused = False
        gc.enable()


@cache
def console(stderr: bool = False) -> Console:
    """The CLI's console (created on first output, so `--help` does not import rich)."""
    from runners.outputs.render import make_console

    return make_console(stderr=stderr)


def _reporting(
    enabled: bool, total: int | None = None, title: str = ""
) -> AbstractContextManager[Reporter | None]:
    """What runs, said on stderr (runners.util.progress): a live display on a terminal, plain lines
    in a pipe or a file, nothing with --no-progress. Without a terminal, rich is imported while the
    tests run (`runners.engine.preload`), not before."""
    from runners.util.progress import for_cli

    if not sys.stdout.isatty():
        preload.after_run("runners.outputs.render")
    return for_cli(lambda: console(stderr=True), enabled, total, title)


def _status(text: str) -> AbstractContextManager[object]:
    """A spinner on stderr when it is a terminal (a command with no stages of its own to report)."""
    out = console(stderr=True)
    return out.status(text) if out.is_terminal else nullcontext()


def _options(*decorators: Callable[[F], F]) -> Callable[[F], F]:
    """Several click options as one decorator (shared by the commands)."""

    def apply(function: F) -> F:
        for decorator in reversed(decorators):
            function = decorator(function)
        return function

    return apply


_PathType = click.Path(path_type=Path)
_sandbox_opt = click.option(
    "--sandbox", default="auto", show_default=True, help=" | ".join(["auto", *SANDBOX_BUILTINS])
)
_policy_opt = click.option(
    "--pass-policy",
    "pass_policy",
    type=Choice([p.value for p in PassPolicy]),
    default=PassPolicy.ALL_CASES.value,
    show_default=True,
    callback=lambda _c, _p, value: PassPolicy(value),
    help="When a checkpoint counts as passed.",
)
_output_opt = click.option(
    "--output",
    type=_PathType,
    default=None,
    help=(
        "Directory for result.json, raw reports and logs (default: "
        "runs/<time>-<problem>-<checkpoint>)."
    ),
)
_workers_opt = click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Spread one suite over N processes.",
)
_wall_opt = click.option(
    "--wall-timeout",
    type=click.FloatRange(min=1),
    default=None,
    help=(
        "Seconds for the whole test run (default: 900, plus the problem's per-test timeout for "
        "each test)."
    ),
)
_cache_opt = click.option(
    "--cache-dir", type=_PathType, default=None, help="Where prepared toolchains are kept."
)
_keep_opt = click.option(
    "--keep-workspace", is_flag=True, help="Keep the temporary workspace for debugging."
)
_junit_opt = click.option(
    "--junit-xml", type=_PathType, default=None, help="Also write the result as JUnit XML."
)
_ctrf_opt = click.option(
    "--ctrf", type=_PathType, default=None, help="Also write the result as CTRF JSON."
)
_python_opt = click.option(
    "--python",
    default=None,
    help="The submission's Python: a version (3.12), a range (>=3.12) or an "
    "interpreter path (default: the problem's `python`, else the harness's own).",
)
_node_opt = click.option(
    "--node",
    default=None,
    help="The Node JavaScript tests run on: a version (22), a range (>=22) or a node "
    "binary's path (default: node on PATH; docker: the node image's). The version that ran is in "
    "the result.",
)
_submission_limits = _options(
    click.option(
        "--max-submission-mb",
        type=click.IntRange(min=1),
        default=None,
        help="Largest submission, sum of file sizes in MiB (default 1024).",
    ),
    click.option(
        "--max-submission-disk-mb",
        type=click.IntRange(min=1),
        default=None,
        help="Largest submission, allocated on disk in MiB (default 1024).",
    ),
    click.option(
        "--max-submission-files",
        type=click.IntRange(min=1),
        default=None,
        help="Most files, directories and links in a submission (default 50000).",
    ),
    click.option(
        "--max-submission-depth",
        type=click.IntRange(min=1),
        default=None,
        help="Deepest directory nesting in a submission (default 64).",
    ),
)
_problem_arg = click.argument("problem_dir", type=_PathType)
_progress_opt = click.option(
    "--progress/--no-progress",
    "show_progress",
    default=True,
    show_default=True,
    help="Say what runs on stderr: a live display on a terminal, plain lines in a pipe.",
)
_quality_opt = click.option(
    "--quality/--no-quality",
    default=True,
    show_default=True,
    help="Measure the code-quality figures of each submission (lines, complexity, "
    "duplicates, lint; docs/quality.md) beside the tests.",
)


def _python_option(python: str | None) -> str | None:
    from runners.toolchains.which_python import validate_option

    return validate_option(python)


def _node_option(node: str | None) -> str | None:
    from runners.toolchains.which_node import validate_option

    return validate_option(node)


def _environment(
    sandbox: str,
    workers: int,
    wall_timeout: float | None,
    cache_dir: Path | None,
    keep: bool,
    python: str | None = None,
    submission: tuple[int | None, ...] = (),
    quality: bool = True,
    *,
    node: str | None = None,
) -> EnvironmentSpec:
    from runners.model.environment import EnvironmentSpec
    from runners.sandbox.registry import check_sandbox_name

    check_sandbox_name(sandbox)
    spec = EnvironmentSpec(sandbox=sandbox, workers=workers, keep_workspace=keep)  # type: ignore[arg-type]
    if python:
        spec.python = _python_option(python)
    if node:
        spec.node = _node_option(node)
    if wall_timeout:
        spec.limits = spec.limits.model_copy(update={"wall_timeout": wall_timeout})
    names = ("submission_mb", "submission_disk_mb", "submission_files", "submission_depth")
    chosen = {name: value for name, value in zip(names, submission) if value is not None}
    if chosen:
        spec.limits = spec.limits.model_copy(update=chosen)
    if cache_dir:
        spec.cache_dir = cache_dir.resolve()
    if not quality:
        spec.quality = False
    return spec


def _default_output(problem: str, checkpoint: str) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    return Path("runs") / f"{stamp}-{_slug(problem)}-{_slug(checkpoint)}"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text)


def _write_extra(
    result: ExecutionResult, json_file: Path | None, junit: Path | None, ctrf: Path | None
) -> None:
    if json_file:
        result.save(json_file)
    if junit or ctrf:
        from runners.outputs.writers import write_ctrf, write_junit

        if junit:
            write_junit(result, junit)
        if ctrf:
            write_ctrf(result, ctrf)


def _exit_code(result: ExecutionResult, policy: PassPolicy) -> int:
    return exitcodes.for_results([result], policy)


@app.command(short_help="Run one checkpoint's hidden tests against a submission.")
@_problem_arg
@click.option("--checkpoint", "-c", required=True, help="Checkpoint name, e.g. checkpoint_1.")
@click.option(
    "--submission",
    "-s",
    type=_PathType,
    required=True,
    help="The agent's code for this checkpoint.",
)
@_sandbox_opt
@_policy_opt
@click.option(
    "--json", "json_file", type=_PathType, default=None, help="Write the result JSON here too."
)
@_output_opt
@click.option("--select", multiple=True, help="Run only this test id (repeatable).")
@_workers_opt
@_wall_opt
@_cache_opt
@_keep_opt
@_junit_opt
@_ctrf_opt
@_python_opt
@_node_opt
@_submission_limits
@_progress_opt
@_quality_opt
@click.option(
    "--previous",
    type=_PathType,
    default=None,
    help="The previous checkpoint's submission, for the growth of the code-quality figures "
    "(default: ../<previous checkpoint> when the submission's directory is named after its "
    "checkpoint).",
)
def run(
    problem_dir: Path,
    checkpoint: str,
    submission: Path,
    sandbox: str,
    pass_policy: PassPolicy,
    json_file: Path | None,
    output: Path | None,
    select: tuple[str, ...],
    workers: int,
    wall_timeout: float | None,
    cache_dir: Path | None,
    keep_workspace: bool,
    junit_xml: Path | None,
    ctrf: Path | None,
    python: str | None,
    max_submission_mb: int | None,
    max_submission_disk_mb: int | None,
    max_submission_files: int | None,
    max_submission_depth: int | None,
    show_progress: bool,
    node: str | None,
    quality: bool,
    previous: Path | None,
) -> None:
    """Run one checkpoint's hidden tests against a submission and print the result."""
    from runners.api import make_runner
    from runners.model.problem_loader import load_problem

    environment = _environment(
        sandbox,
        workers,
        wall_timeout,
        cache_dir,
        keep_workspace,
        python,
        submission=(
            max_submission_mb,
            max_submission_disk_mb,
            max_submission_files,
            max_submission_depth,
        ),
        node=node,
        quality=quality,
    )
    if previous is not None and not previous.is_dir():
        raise UserInputError(f"option --previous: {previous} is not a directory")
    problem = load_problem(problem_dir)
    chosen = problem.checkpoint(checkpoint, "option --checkpoint")
    runner = make_runner(problem, chosen, submission, environment)  # imports its sandbox's
    _started()
    output = output or _default_output(problem.name, runner.checkpoint.name)
    from runners.util.progress import Subject, running

    with (
        _reporting(show_progress) as reporter,
        running(Subject(problem.name, runner.checkpoint.name), reporter) as ending,
    ):
        result = runner.run(select=list(select), output_dir=output, previous=previous)
        ending.text = result.summary
    from runners.outputs.render import render_result  # imported while the tests ran

    _write_extra(result, json_file, junit_xml, ctrf)
    render_result(console(), result, pass_policy)
    raise SystemExit(_exit_code(result, pass_policy))


@app.command(short_help="Run every checkpoint of a submission: one row each.")
@_problem_arg
@click.option(
    "--submission",
    "-s",
    type=_PathType,
    required=True,
    help="Root with one checkpoint_N/ directory per checkpoint.",
)
@_sandbox_opt
@_policy_opt
@_output_opt
@_workers_opt
@_wall_opt
@_cache_opt
@_keep_opt
@click.option(
    "--json", "json_file", type=_PathType, default=None, help="Write all results as one JSON list."
)
@_junit_opt
@_ctrf_opt
@_python_opt
@_node_opt
@_submission_limits
@_progress_opt
@_quality_opt
def evaluate(
    problem_dir: Path,
    submission: Path,
    sandbox: str,
    pass_policy: PassPolicy,
    output: Path | None,
    workers: int,
    wall_timeout: float | None,
    cache_dir: Path | None,
    keep_workspace: bool,
    json_file: Path | None,
    junit_xml: Path | None,
    ctrf: Path | None,
    python: str | None,
    max_submission_mb: int | None,
    max_submission_disk_mb: int | None,
    max_submission_files: int | None,
    max_submission_depth: int | None,
    show_progress: bool,
    node: str | None,
    quality: bool,
) -> None:
    """Run every checkpoint found as SUBMISSION/checkpoint_N/ and print per-checkpoint solve
    results."""
    from runners.api import make_runner
    from runners.model.metrics import CheckpointScore
    from runners.model.problem_loader import load_problem
    from runners.outputs.render import evaluation_summary, evaluation_table, fit

    environment = _environment(
        sandbox,
        workers,
        wall_timeout,
        cache_dir,
        keep_workspace,
        python,
        submission=(
            max_submission_mb,
            max_submission_disk_mb,
            max_submission_files,
            max_submission_depth,
        ),
        node=node,
        quality=quality,
    )
    problem = load_problem(problem_dir)
    if not submission.is_dir():
        raise UserInputError(f"option --submission: {submission} is not a directory")
    found = [cp for cp in problem.ordered_checkpoints() if (submission / cp.name).is_dir()]
    if not found:
        names = ", ".join(problem.checkpoints)
        raise UserInputError(
            f"option --submission: {submission} has none of the checkpoint directories ({names})"
        )
    output = output or _default_output(problem.name, "all")
    scores: list[CheckpointScore] = []
    from rich.text import Text

    from runners.util.progress import Subject, above, running

    with _reporting(show_progress, total=len(found), title=problem.name) as reporter:
        for checkpoint in found:
            runner = make_runner(problem, checkpoint, submission / checkpoint.name, environment)
            _started()  # the first runner has imported its sandbox's modules
            with running(Subject(problem.name, checkpoint.name), reporter) as ending:
                result = runner.run(output_dir=output / checkpoint.name)
                ending.text = result.summary
            scores.append(CheckpointScore(checkpoint.name, result))
            # Text, not markup: the summary may quote the tool's output (`[/]` would be read as a
            # tag).
            above(
                reporter, Text.assemble((checkpoint.name, "bold"), f": {result.summary}"), console()
            )
    results = [s.result for s in scores]
    if json_file:
        json_file.parent.mkdir(parents=True, exist_ok=True)
        json_file.write_text(
            "[\n" + ",\n".join(r.model_dump_json(indent=2) for r in results) + "\n]\n"
        )
    if junit_xml or ctrf:
        from runners.outputs.writers import write_ctrf, write_junit

        if junit_xml:
            write_junit(results, junit_xml)
        if ctrf:
            write_ctrf(results, ctrf)
    console().print(fit(console(), evaluation_table(problem.name, scores, pass_policy)))
    console().print(evaluation_summary(scores))
    console().print(f"[dim]artifacts: {output.resolve()}[/]")
    raise SystemExit(exitcodes.for_results(results, pass_policy))


@app.command(short_help="Run an agents x problems x checkpoints matrix.")
@click.option(
    "--problems",
    "-p",
    type=_PathType,
    required=True,
    help="Directory of problems (<name>/config.yaml).",
)
@click.option(
    "--submissions",
    "-s",
    type=_PathType,
    default=None,
    help="Root with <agent>/<problem>/checkpoint_N/ directories.",
)
@click.option(
    "--agents",
    "agents_file",
    type=_PathType,
    default=None,
    help="An agents file (YAML, name: command): run the agents first, then grade what they left "
    "(OUTPUT/submissions).",
)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help=(
        "local: worker processes (default 1); ray: cells in flight (default: all, Ray schedules "
        "by resources)."
    ),
)
@click.option("--executor", default="local", show_default=True, help="local | ray")
@click.option(
    "--address",
    default=None,
    help=(
        "Ray cluster address (host:port, auto, ray://...); default: $RAY_ADDRESS or a local Ray "
        "for this batch."
    ),
)
@click.option(
    "--output",
    "-o",
    type=_PathType,
    default=Path("runs/batch"),
    show_default=True,
    help="Results directory; rerunning with the same one resumes.",
)
@click.option(
    "--overwrite", is_flag=True, help="Run every cell again, even finished and current ones."
)
@click.option(
    "--retry-failed",
    is_flag=True,
    help="Also run again cells whose last run was an infrastructure failure.",
)
@_sandbox_opt
@_policy_opt
@click.option("--agent", multiple=True, help="Only this agent (repeatable).")
@click.option("--problem", multiple=True, help="Only this problem (repeatable).")
@_wall_opt
@_cache_opt
@_python_opt
@_node_opt
@_progress_opt
@_quality_opt
def batch(
    problems: Path,
    submissions: Path | None,
    agents_file: Path | None,
    jobs: int | None,
    executor: str,
    address: str | None,
    output: Path,
    overwrite: bool,
    retry_failed: bool,
    sandbox: str,
    pass_policy: PassPolicy,
    agent: tuple[str, ...],
    problem: tuple[str, ...],
    wall_timeout: float | None,
    cache_dir: Path | None,
    python: str | None,
    show_progress: bool,
    node: str | None,
    quality: bool,
) -> None:
    """Run every SUBMISSIONS/<agent>/<problem>/checkpoint_N/ and print the agents x problems matrix.

    Exit 0 when every cell has a grade (tests may fail), 2 bad input (or an agent of --agents that
    could not be started), 4 when a cell's problem failed to load (a problem error), 3 when a cell
    is an infrastructure failure, 130 interrupted (finished cells are kept; rerun to resume).
    """
    from runners.batch.orchestrator import EXIT_INTERRUPTED, BatchOptions, run_batch

    _started()
    if executor not in ("local", "ray"):
        from runners.util.suggest import did_you_mean

        raise UserInputError(
            f"option --executor: {executor!r} is not one of local, ray"
            f"{did_you_mean(executor, ('local', 'ray'))}"
        )
    failures: dict[
        str, str
    ] = {}  # cell id -> why its agent step failed: not solved, whatever the tests say
    not_started: dict[str, str] = {}  # cell id -> why its agent never started: no grade, exit 2
    if agents_file is not None:  # the agent step first: its snapshots are the submissions
        from runners.agents.batch import run_agents

        if submissions is not None:
            raise UserInputError(
                "option --submissions: not with --agents (the agents' snapshots are graded)"
            )
        agent_env = _environment(sandbox, 1, wall_timeout, cache_dir, False, python, node=node)
        submissions, steps = run_agents(
            agents_file,
            problems,
            output,
            agent_env,
            jobs=jobs or 1,
            agents=agent,
            problems=problem,
            overwrite=overwrite,
            console=console(),
            progress=show_progress,
        )
        failures = {
            f"{s.agent}/{s.problem}/{s.checkpoint}": s.failure
            for s in steps
            if s.failure is not None
        }
        not_started = {
            f"{s.agent}/{s.problem}/{s.checkpoint}": s.failure or "" for s in steps if s.not_started
        }
        if not_started and all(s.not_started for s in steps):  # nothing to grade at all
            raise UserInputError(
                "no agent could be started, so nothing was graded:\n"
                + "\n".join(f"  {cell}: {why}" for cell, why in not_started.items())
            )
    if submissions is None:
        raise UserInputError(
            "option --submissions: required (or --agents FILE to run agents first)"
        )
    options = BatchOptions(
        problems=problems,
        submissions=submissions,
        output=output,
        jobs=jobs,
        executor=executor,  # type: ignore[arg-type]
        address=address,
        overwrite=overwrite,
        retry_failed=retry_failed,
        sandbox=sandbox,
        policy=pass_policy,
        wall_timeout=wall_timeout,
        cache_dir=cache_dir,
        python=_python_option(python),
        node=_node_option(node),
        agents=agent,
        only_problems=problem,
        agent_failures=failures,
        agent_errors=not_started,
        progress=show_progress,
        quality=quality,
    )
    try:
        outcome = run_batch(options, console())
    except KeyboardInterrupt:  # before the cells started (discovery, hashing, starting Ray)
        console(stderr=True).print("[bold yellow]interrupted[/]")
        raise SystemExit(EXIT_INTERRUPTED) from None
    raise SystemExit(outcome.exit_code)


@app.command(short_help="One static HTML page from a batch's or a Promptfoo eval's results.")
@click.argument("source", type=_PathType, required=False)
@click.option(
    "--eval",
    "eval_id",
    default=None,
    help="A Promptfoo eval from promptfoo's own store (the project's .env): its id, or `latest`.",
)
@click.option(
    "--output",
    "-o",
    type=_PathType,
    default=None,
    help=(
        "The page (default: SOURCE/report.html for a batch; .runners/reports/<eval id>.html for "
        "an eval)."
    ),
)
@click.option(
    "--title", default=None, help="The page's title (default: the batch's or the eval's)."
)
def report(
    source: Path | None, eval_id: str | None, output: Path | None, title: str | None
) -> None:
    """Make one self-contained HTML page (docs/report.md) from SOURCE, a `runners batch` output
    directory or a Promptfoo results JSON (`promptfoo eval -o FILE.json`), or from --eval."""
    from runners.outputs.report.links import DEFAULT_REPORTS, eval_report
    from runners.outputs.report.load import from_promptfoo_store, load
    from runners.outputs.report.page import write
    from runners.quality.tools import project_root

    _started()
    if (source is None) == (eval_id is None):
        raise UserInputError(
            "give SOURCE (a batch directory or a Promptfoo results JSON) or --eval ID|latest, not "
            "both"
        )
    with _status("reading the results..."):
        data = (
            load(source)
            if source is not None
            else from_promptfoo_store(eval_id or "", project_root())
        )
    if title:
        data.title = title
    if output is None:
        if source is not None and source.is_dir():
            output = source / "report.html"
        elif data.eval_id:  # where the eval's rows link to (provider config `report`)
            output = eval_report(
                (project_root() if eval_id else Path.cwd()) / DEFAULT_REPORTS, data.eval_id
            )
        else:
            output = Path("report.html")
    with _status("making the page..."):
        page = write(data, output)
    problems = len(data.problems)
    console().print(
        f"report: {page.resolve().as_uri()}  ({len(data.agents)} agents × {problems} "
        f"problem{'s' if problems != 1 else ''}, {len(data.rows)} rows)",
        soft_wrap=True,
        highlight=False,
    )


from runners.agents.cli import register as _register_agent_commands  # it needs `app`

_register_agent_commands(app, console, _environment, _started)


@app.group("sandbox")
def sandbox_app() -> None:
    """Check a sandbox backend: `runners sandbox check NAME` runs the conformance suite."""


def _add_sandbox_commands() -> None:
    from runners.sandbox.conformance.command import check_command

    sandbox_app.add_command(check_command)


_add_sandbox_commands()


@app.group("image")
def image_app() -> None:
    """Build the Docker images the docker sandbox runs tests in."""


@image_app.command("build")
@click.option(
    "--kind", default="all", show_default=True, help="python | node | go | cases | browser | all"
)
@click.option(
    "--base-image",
    default=None,
    help="Base to build on (default: python:3.12-slim / node:22-slim, or the locally built "
    "runners-local-base when it exists).",
)
@click.option("--rebuild", is_flag=True, help="Build even when the image is current.")
@click.option(
    "--python",
    multiple=True,
    help="Also build runners-python:X.Y for this Python version (repeatable): on python:X.Y-slim, "
    "or on the local base with this machine's pyenv/uv build copied in.",
)
def image_build(kind: str, base_image: str | None, rebuild: bool, python: tuple[str, ...]) -> None:
    """Build runners-python:latest and runners-node:latest (skipped when already current)."""
    from runners.images import KINDS, check_python_version, ensure_images

    _started()
    if kind not in (*KINDS, "all"):
        from runners.util.suggest import did_you_mean

        raise UserInputError(
            f"option --kind: {kind!r} is not one of {', '.join(KINDS)}, all"
            f"{did_you_mean(kind, (*KINDS, 'all'))}"
        )
    kinds = KINDS if kind == "all" else tuple(k for k in KINDS if k == kind)
    versions = [check_python_version(v) for v in python]
    built = ensure_images(
        kinds,
        base_image,
        rebuild=rebuild,
        pythons=versions,
        log=lambda line: console().print(f"[dim]{line}[/]"),
    )
    for name, tag in built.items():
        console().print(f"[green]✔[/] {name}: {tag}")


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point: maps our errors to exit codes without tracebacks."""
    _pause_gc_for_startup()
    try:
        app.main(args=argv, prog_name="runners")  # standalone: usage errors exit 2 on their own
    except SystemExit as exc:
        return (
            exc.code if isinstance(exc.code, int) else (0 if exc.code is None else EXIT_BAD_INPUT)
        )
    except UserInputError as exc:
        from rich.text import Text

        # Text, not markup: a message quotes the user's input (`{mounts[x]}`, `test_a[1]`) as is.
        console(stderr=True).print(
            Text.assemble(("error:", "bold red"), f" {exc}"), highlight=False, soft_wrap=True
        )
        return EXIT_BAD_INPUT
    except InfrastructureError as exc:
        from rich.text import Text

        console(stderr=True).print(
            Text.assemble(("infrastructure failure:", "bold magenta"), f" {exc}"),
            highlight=False,
            soft_wrap=True,
        )
        return EXIT_INFRA
    finally:
        _started()  # also after --help or a usage error, when main() is called in a process
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
