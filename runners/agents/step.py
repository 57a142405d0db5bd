"""One agent step: one agent, one checkpoint, in a sandbox of its own.

The step's workspace is a fresh copy of what the previous checkpoint left (or of the problem's
`starter/`, or empty); beside it, never inside it, a read-only directory with this checkpoint's
specification alone, and a private home. Inside docker or bubblewrap the agent sees only those
(`/workspace`, `/agent/prompt/<checkpoint>.md`, `/agent/home`, a private `/tmp`), its own read-only
mounts and the system's programs: not the problem directory with its hidden tests and other
specifications, not the harness's caches, not the run's results where other agents' workspaces
are. It gets only the variables it is allowed (names passed from the host, literal values), the
network only when asked for, and its limits; whatever it started is killed when the step ends.
What it left becomes the checkpoint's snapshot; what it printed, its transcript.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from runners.agents.budget import BudgetWatch, Spent, StreamTally, exhausted, step_seconds
from runners.agents.command import expand
from runners.agents.layout import RunLayout, StepRecord
from runners.agents.model_route import ModelRoute, gateway_route, start_route
from runners.agents.presets import Preset, get_preset
from runners.agents.presets.install import Installed, install
from runners.agents.repeats import split_label
from runners.agents.report import AgentReport, excerpt, read_report
from runners.agents.spec import AgentSpec
from runners.agents.tokens import check_tokens
from runners.agents.transcripts import keep_transcripts
from runners.egress.policy import NetworkPolicy, network_mode
from runners.egress.proxy import EgressProxy
from runners.egress.usage import Usage
from runners.engine.submission import copy_inventory, inventory
from runners.engine.workspace import Workspace
from runners.engine.workspace_place import workspace_base
from runners.model.case_config import CaseCheckpointConfig
from runners.model.config import CheckpointConfig, ProblemConfig
from runners.model.environment import EnvironmentSpec
from runners.model.errors import ConfigError, InfrastructureError, UserInputError
from runners.model.limits import ResourceLimits
from runners.sandbox.base import Mount, Sandbox, SandboxRequest, SandboxResult, base_env

STARTER_DIR = "starter"
MB = 1024 * 1024


@dataclass(frozen=True)
class AgentPaths:
    """The step's directories as the agent sees them."""

    workspace: str
    prompt_dir: str
    home: str
    tmp: str

    @classmethod
    def of(cls, workspace: Workspace, remap: bool) -> AgentPaths:
        if not remap:
            return cls(
                str(workspace.submission),
                str(workspace.root / "prompt"),
                str(workspace.home),
                str(workspace.tmp),
            )
        return cls("/workspace", "/agent/prompt", "/agent/home", "/tmp")


def spec_file(problem: ProblemConfig, checkpoint: CheckpointConfig) -> Path:
    """`<problem>/<checkpoint>.md`; for a case-based problem (SCBench's case format), the
    checkpoint directory's own specification first (`checkpoint_N/spec.md`, beside its cases)."""
    candidates = [problem.path / f"{checkpoint.name}.md"]
    if isinstance(checkpoint, CaseCheckpointConfig):
        candidates.insert(
            0, problem.path / (checkpoint.path or checkpoint.name) / checkpoint.specification
        )
    for path in candidates:
        if path.is_file():
            return path
    names = " or ".join(str(path.relative_to(problem.path)) for path in candidates)
    raise ConfigError(
        problem.path / "config.yaml",
        f"checkpoint `{checkpoint.name}`: its specification {names} is missing "
        f"(the agent step gives it to the agent)",
    )


def step_limits(spec: AgentSpec, environment: EnvironmentSpec) -> ResourceLimits:
    """The grader's limits (defaults, then the user's), then the agent's own; its time limit."""
    limits = environment.limits_for(spec.limits)
    return limits.model_copy(update={"wall_timeout": spec.timeout})


def run_step(
    spec: AgentSpec,
    problem: ProblemConfig,
    checkpoint: CheckpointConfig,
    number: int,
    start: Path | None,
    started_from: str,
    layout: RunLayout,
    environment: EnvironmentSpec,
    sandbox: Sandbox,
    spent: Spent | None = None,
) -> StepRecord:
    """Run the step, keep its snapshot and transcript in `layout`, and return its record.
    `start` is the directory the workspace is copied from (None: an empty workspace); `spent` is
    what the run's earlier steps spent (for the run's budget)."""
    spent = spent or Spent()
    limits = step_limits(spec, environment)
    prompt = spec_file(problem, checkpoint)
    preset = get_preset(spec.preset) if spec.preset else None
    record = StepRecord(
        agent=spec.name,
        problem=problem.path.name,
        checkpoint=checkpoint.name,
        number=number,
        command=spec.argv,
        agent_key=spec.key,
        repeat=split_label(spec.name)[1],
        sandbox=sandbox.name,
        network=spec.network is not False,
        network_mode=network_mode(spec.network),
        started_from=started_from,
        started_at=time.time(),
        preset=spec.preset,
        model=spec.model,
    )
    if not sandbox.isolated:
        record.flags.append("unsandboxed")
    skipped = exhausted(spec.budget, spent)
    if skipped is not None:
        record.failure, record.budget_stop = f"budget: {skipped}; the step did not run", skipped
        record.notes.append("the snapshot is the workspace the step would have started from")
        _keep_snapshot(record, None, start, layout, limits)
        return _save(record, layout, None)
    seconds, clock = step_seconds(spec.budget, spent, spec.timeout)
    limits = limits.model_copy(update={"wall_timeout": seconds})
    watch = BudgetWatch(spec.budget, spent)
    proxy = _proxy(spec, watch)
    listed = inventory(start, limits) if start is not None else None
    # On disk, not in memory: an agent installs packages and builds, which would count against its
    # memory limit (RUNNERS_WORKSPACE_DIR still chooses).
    workspace = Workspace.create(workspace_base(listed.allocated if listed else 0, False, False))
    outcome: SandboxResult | None = None
    route = ModelRoute()
    step_dir = layout.step_dir(spec.name, record.problem, checkpoint.name)
    try:
        if listed is not None:
            copy_inventory(listed, workspace.submission)
        else:
            workspace.submission.mkdir()
        (workspace.root / "prompt").mkdir()
        shutil.copyfile(prompt, workspace.root / "prompt" / f"{checkpoint.name}.md")
        if spec.home:
            shutil.copytree(spec.home, workspace.home, symlinks=True, dirs_exist_ok=True)
        installed = install(preset, sandbox, environment) if preset is not None else None
        if preset is not None:
            _write_home_files(preset, workspace.home)
        paths = AgentPaths.of(workspace, sandbox.remaps_paths)
        if spec.dry_run:
            inside = "/agent/model" if sandbox.remaps_paths else str(workspace.root / "model")
            route = start_route(
                preset,
                Path(spec.dry_run),
                checkpoint.name,
                workspace.root / "model",
                inside,
                paths.workspace,
            )
        elif preset is not None and spec.base_url:
            route = gateway_route(preset, spec.base_url)
        request = _request(
            spec,
            problem,
            checkpoint,
            number,
            workspace,
            sandbox,
            environment,
            limits,
            record,
            installed,
            route,
        )
        request = _watched(request, spec, sandbox, proxy, watch, seconds, record)
        before = _contents(workspace.submission)
        outcome = sandbox.run(request)
        if proxy is not None:
            record.egress = proxy.close()
        record.duration = round(outcome.duration, 3)
        transcripts = keep_transcripts(preset, workspace.home, step_dir, record)
        report = (
            preset.report(outcome.stdout, outcome.stderr, transcripts, spec.model)
            if preset is not None
            else read_report(outcome.stdout, outcome.stderr)
        )
        _judge(
            record,
            outcome,
            spec,
            limits,
            request,
            report,
            route.program(request.argv),
            seconds,
            clock,
            watch,
        )
        if (
            record.failed
            and not record.not_started
            and not outcome.timed_out
            and _did_nothing(record)
            and _contents(workspace.submission) == before
        ):
            record.not_started = True
            record.failure = (
                f"the agent failed before doing anything (it changed nothing): {record.failure}"
            )
        _keep_snapshot(record, workspace.submission, start, layout, limits)
    except InfrastructureError as exc:
        record.failure, record.infrastructure = f"infrastructure failure: {exc}", True
        _keep_snapshot(record, None, start, layout, limits)
    finally:
        if proxy is not None:
            proxy.close()
        if route.server is not None:
            record.model_server = route.server.stop()
            step_dir.mkdir(parents=True, exist_ok=True)
            (step_dir / "model-server.json").write_text(
                json.dumps(route.server.model.log, indent=1), encoding="utf-8"
            )
        workspace.cleanup()
    _account(record, spec)
    return _save(record, layout, outcome)


def _save(record: StepRecord, layout: RunLayout, outcome: SandboxResult | None) -> StepRecord:
    step_dir = layout.step_dir(record.agent, record.problem, record.checkpoint)
    step_dir.mkdir(parents=True, exist_ok=True)
    (step_dir / "stdout.txt").write_text(outcome.stdout if outcome else "", encoding="utf-8")
    (step_dir / "stderr.txt").write_text(outcome.stderr if outcome else "", encoding="utf-8")
    record.save(step_dir)
    return record


def _write_home_files(preset: Preset, home: Path) -> None:
    """The preset's settings files, unless the user's `home` template brought its own."""
    for relative, text in preset.home_files.items():
        path = home / relative
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")


def _proxy(spec: AgentSpec, watch: BudgetWatch) -> EgressProxy | None:
    """The step's egress proxy (an allow-list only); what it counts feeds the token caps."""
    if not isinstance(spec.network, NetworkPolicy):
        return None
    proxy: EgressProxy | None = None

    def counted(total: Usage) -> None:
        watch.tokens(total.total_tokens, "counted by the proxy")
        if watch.stop.is_set() and proxy is not None:
            proxy.stop_routes(f"budget: {watch.reason}")

    proxy = EgressProxy(spec.network, on_usage=counted)
    return proxy


def _watched(
    request: SandboxRequest,
    spec: AgentSpec,
    sandbox: Sandbox,
    proxy: EgressProxy | None,
    watch: BudgetWatch,
    seconds: float,
    record: StepRecord,
) -> SandboxRequest:
    """The request with the allow-list's proxy, and the budget's clock, stop and output reader."""
    update: dict[str, object] = {"timeout": seconds}
    if proxy is not None:
        if not sandbox.isolated:
            proxy.attach(None)  # on the host's loopback: it still counts the routes' traffic
            record.notes.append(
                "network: `none` cannot enforce the allow-list (the agent had the host's "
                "network); the proxy's routes still counted the model traffic"
            )
        else:
            update["egress"] = proxy
        update["env"] = {**request.env, **proxy.env()}
    if spec.budget is not None:
        tally = StreamTally(watch, metered_by_proxy=proxy is not None and bool(proxy.upstreams))
        update.update(stop=watch.stop, on_stdout=tally.feed)
    return request.model_copy(update=update)


def _account(record: StepRecord, spec: AgentSpec) -> None:
    """The proxy's count against the agent's claims; a cap the step went over without being
    stopped (its figures came only at the end)."""
    record.token_check = check_tokens(record.egress, record.report)
    if record.token_mismatch and record.token_check is not None:
        record.flags.append("token-mismatch")
        record.notes.append(f"tokens: {record.token_check.detail}")
    caps = spec.budget.step if spec.budget is not None else None
    if caps is None or record.budget_stop is not None:
        return
    tokens, cost = record.tokens, record.report.cost_usd
    if caps.tokens is not None and tokens is not None and tokens > caps.tokens:
        record.notes.append(
            f"budget: the step used {tokens:,} tokens, over its cap of {caps.tokens:,} "
            "(known only when it ended)"
        )
    if caps.cost_usd is not None and cost is not None and cost > caps.cost_usd:
        record.notes.append(
            f"budget: the step cost ${cost:.4f}, over its cap of ${caps.cost_usd:g} "
            "(known only when it ended)"
        )


def _request(
    spec: AgentSpec,
    problem: ProblemConfig,
    checkpoint: CheckpointConfig,
    number: int,
    workspace: Workspace,
    sandbox: Sandbox,
    environment: EnvironmentSpec,
    limits: ResourceLimits,
    record: StepRecord,
    installed: Installed | None = None,
    route: ModelRoute | None = None,
) -> SandboxRequest:
    paths = AgentPaths.of(workspace, sandbox.remaps_paths)
    prompt_file = f"{paths.prompt_dir}/{checkpoint.name}.md"
    mounts = [
        Mount(source=workspace.submission, target=paths.workspace, writable=True),
        Mount(source=workspace.root / "prompt", target=paths.prompt_dir),
        Mount(source=workspace.home, target=paths.home, writable=True),
        *(Mount(source=Path(path), target=path) for path in spec.mounts.values()),
    ]
    route = route or ModelRoute()
    image = spec.image or (installed.image if installed else None)
    if installed is not None:
        mounts += installed.mounts
    if route.server is not None:
        mounts.append(Mount(source=workspace.root / "model", target=route.inside))
    python = ""
    if spec.uses("python") or route.server is not None:
        python, extra = _python(image, sandbox, environment)
        mounts += extra
    values = {
        "prompt_file": prompt_file,
        "prompt": (workspace.root / "prompt" / f"{checkpoint.name}.md").read_text(
            encoding="utf-8", errors="replace"
        ),
        "workspace": paths.workspace,
        "home": paths.home,
        "checkpoint": checkpoint.name,
        "checkpoint_number": str(number),
        "problem": problem.path.name,
        "python": python,
    }
    try:
        argv = route.wrap(expand(spec.argv, values, spec.mounts) + route.args, python)
    except ValueError as exc:
        raise UserInputError(f"agent {spec.name!r}: field `command`: {exc}") from None
    passed = {name: os.environ[name] for name in spec.pass_env if name in os.environ}
    missing = [name for name in spec.pass_env if name not in os.environ]
    if missing:
        record.notes.append(f"not set on the host, so not passed: {', '.join(missing)}")
    if spec.network is True and not sandbox.isolated:
        record.notes.append("network: `none` cannot take it away, so the agent always had it")
    env = {
        **base_env(),
        "HOME": paths.home,
        "TMPDIR": paths.tmp,
        "RUNNERS_PROBLEM": problem.path.name,
        "RUNNERS_CHECKPOINT": checkpoint.name,
        "RUNNERS_CHECKPOINT_NUMBER": str(number),
        "RUNNERS_REPEAT": str(record.repeat),
        "RUNNERS_PROMPT_FILE": prompt_file,
        "RUNNERS_WORKSPACE": paths.workspace,
        **passed,
        **spec.env,
        **route.env,
    }
    if installed is not None:
        env["PATH"] = ":".join([*installed.path, env["PATH"]])
    return SandboxRequest(
        argv=argv,
        cwd=paths.workspace,
        env=env,
        mounts=mounts,
        network=spec.network is True,
        limits=limits,
        timeout=spec.timeout,
        image=image,
        run_id=f"agent-{spec.name}-{problem.path.name}-{checkpoint.name}-{uuid.uuid4().hex[:8]}",
        purpose="agent",
    )


def _python(
    image: str | None, sandbox: Sandbox, environment: EnvironmentSpec
) -> tuple[str, list[Mount]]:
    """`{python}` (and the dry run's bridge): the image's python3 in an agent image; else the
    interpreter the backend's toolchains use (the harness's own on the host, the image's in
    docker), with what it needs mounted."""
    if image:
        return "python3", []
    from runners.toolchains.hosts import toolchain_host

    host = toolchain_host(sandbox)
    host.use_cache(environment.cache_dir)
    chosen, python = host.for_python(None)
    return python, chosen.interpreter_mounts(python)


# What each backend's launcher says when the agent's program cannot be run (none's reaper,
# bubblewrap, the `timeout` that starts it in a docker container).
_NOT_STARTED = (
    re.compile(r"^reaper: cannot run (?P<program>.+?): (?:\[Errno \d+\] )?(?P<why>.+)$"),
    re.compile(r"^runners-bridge: cannot run (?P<program>.+?): (?P<why>.+)$"),
    re.compile(r"^bwrap: execvp (?P<program>.+?): (?P<why>.+)$"),
    re.compile(r"^timeout: failed to run command [‘'](?P<program>.+?)[’']: (?P<why>.+)$"),
)


def _not_started(outcome: SandboxResult, request: SandboxRequest, program: str) -> str | None:
    """Why the agent's program (or the dry run's bridge that starts it) could not be started, said
    the same on every backend; None when it was started."""
    if outcome.exit_code == 0:
        return None
    line = _first_line(outcome.stderr)
    for pattern in _NOT_STARTED:
        found = pattern.match(line)
        if found and found["program"] in (program, request.argv[0]):
            program, why = found["program"], found["why"]
            if why.startswith("No such file or directory"):
                return (
                    f"its program {program!r} was not found where it runs (its PATH: "
                    f"{request.env.get('PATH')}; install it there, mount it, or give its absolute "
                    "path)"
                )
            return f"its program {program!r}: {why}"
    return None


def _judge(
    record: StepRecord,
    outcome: SandboxResult,
    spec: AgentSpec,
    limits: ResourceLimits,
    request: SandboxRequest,
    report: AgentReport,
    program: str,
    seconds: float,
    clock: str | None,
    watch: BudgetWatch,
) -> None:
    record.report = report
    record.exit_code = outcome.exit_code
    record.timed_out, record.oom_killed = outcome.timed_out, outcome.oom_killed
    record.output_truncated = outcome.truncated
    record.excerpt = excerpt(report, outcome.stdout, outcome.stderr)
    record.notes += outcome.notes
    record.notes += [f"the agent's own figure refused: {why}" for why in report.refused.values()]
    unstarted = _not_started(outcome, request, program)
    if outcome.stopped and watch.reason is not None:
        record.budget_stop = watch.reason
        record.failure = f"budget: {watch.reason}; every process it started was killed"
    elif outcome.timed_out and clock is not None:
        record.budget_stop = f"{clock} ran out"
        record.failure = (
            f"budget: the agent did not finish within {seconds:g} s ({clock}); every process "
            "it started was killed"
        )
    elif outcome.timed_out:
        record.failure = (
            f"timed out: the agent did not finish within its limit of {spec.timeout:g} s; "
            "every process it started was killed"
        )
    elif outcome.oom_killed:
        record.failure = f"killed for exceeding the memory limit of {limits.memory_mb} MB"
    elif outcome.exit_code is None or unstarted is not None:
        record.failure = (
            "the agent could not be started: "
            f"{unstarted or _first_line(outcome.stderr) or 'no output'}"
        )
        record.not_started = True
    elif outcome.exit_code != 0:
        said = report.error or _last_line(outcome.stderr) or _last_line(outcome.stdout)
        record.failure = f"the agent exited with code {outcome.exit_code}" + (
            f": {said}" if said else ""
        )
    elif report.is_error:
        record.failure = f"the agent reported an error: {report.error}"


def _did_nothing(record: StepRecord) -> bool:
    """Whether a failed step shows no sign of work: no model use reported (tokens, cost, turns).
    With an unchanged workspace, it never got going (a wrong option, a missing key)."""
    report = record.report
    return (
        record.exit_code not in (0, None)
        and report.token_usage() is None
        and report.cost_usd is None
        and not report.turns
    )


def _contents(root: Path) -> list[tuple[str, int, int]]:
    """What a workspace holds (path, size, modification time), to tell whether a step changed it."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        for name in [*dirnames, *filenames]:
            try:
                info = os.lstat(os.path.join(dirpath, name))
            except OSError:
                continue
            found.append(
                (os.path.relpath(os.path.join(dirpath, name), root), info.st_size, info.st_mtime_ns)
            )
    return sorted(found)


def _keep_snapshot(
    record: StepRecord,
    left: Path | None,
    start: Path | None,
    layout: RunLayout,
    limits: ResourceLimits,
) -> None:
    """What the agent left becomes the snapshot; when it cannot be kept (over a submission limit,
    or no step ran), the snapshot is what the step started from, and the record says so. An
    agent that never started leaves none: nothing of it is graded, and the step runs again."""
    target = layout.snapshot(record.agent, record.problem, record.checkpoint)
    partial = target.with_name(target.name + ".partial")
    _remove(partial)
    if record.not_started:
        _remove(target)
        return
    source = left if left is not None else start
    listed = None
    if left is not None and not _real_directory(left):
        # Only possible without isolation (`none`): the agent removed its working directory, or put
        # a link or a file in its place. It left nothing; a link is never followed into the host.
        record.notes.append(
            "the agent removed its workspace directory (or replaced it): it left nothing"
        )
        left = source = None
    if left is not None:
        _make_readable(left)
        try:
            listed = inventory(left, limits)
        except UserInputError as exc:  # SubmissionTooLarge: said as the agent's failure
            first = str(exc).splitlines()[0].replace("option --submission: ", "")
            record.failure = record.failure or f"the workspace it left cannot be kept: {first}"
            record.notes.append("the snapshot is the workspace the step started from")
            source = start
    if source is not None and (listed is None or source != left):
        listed = inventory(source, limits)
    partial.parent.mkdir(parents=True, exist_ok=True)
    if listed is None:
        partial.mkdir()
    else:
        copy_inventory(listed, partial)
        record.files = len(listed.entries)
    _remove(target)
    partial.rename(target)


def _real_directory(path: Path) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _make_readable(root: Path) -> None:
    """An agent may leave directories it cannot list (mode 000): give the owner access back,
    so what it left can be copied (in its throw-away workspace only)."""
    root.chmod(stat.S_IMODE(root.stat().st_mode) | 0o700)
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            try:
                mode = os.lstat(path).st_mode
                if stat.S_ISDIR(mode):
                    os.chmod(path, stat.S_IMODE(mode) | 0o700)
                elif stat.S_ISREG(mode):
                    os.chmod(path, stat.S_IMODE(mode) | 0o600)
            except OSError:
                continue
        dirnames[:] = [d for d in dirnames if not os.path.islink(os.path.join(dirpath, d))]


def _remove(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.exists():
        shutil.rmtree(path)


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def _last_line(text: str) -> str:
    lines = [
        line.strip() for line in text.splitlines() if line.strip() and not line.startswith("[... ")
    ]
    return lines[-1][:300] if lines else ""
