"""`runners solve PROBLEM --agent 'CMD ...'`: an agent works through every checkpoint, each graded.

Registered on the main app by `runners.cli` (`register(app, ...)`), so this module imports only
click at load time: the command's work is imported when it runs.

Exit codes (`runners.model.exitcodes`): 0 every checkpoint met the pass policy (and no agent step
failed), 1 some did not, 2 bad input (an agent that could not be started included), 4 a problem
error (the problem's own files failed to load), 3 infrastructure failure.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from runners.model.policy import PassPolicy
from runners.sandbox.registry import BUILTINS
from runners.util.choice import Choice

if TYPE_CHECKING:
    from rich.console import Console


def _pairs(values: tuple[str, ...], option: str) -> dict[str, str]:
    from runners.model.errors import UserInputError

    pairs = {}
    for value in values:
        key, sep, text = value.partition("=")
        if not sep or not key:
            raise UserInputError(f"option {option}: expected NAME=VALUE, got {value!r}")
        pairs[key] = text
    return pairs


def _network(whole: bool | None, allow: tuple[str, ...], route: tuple[str, ...]) -> Any:
    """--network (None: not given, a preset decides), or an allow-list from --allow and --route."""
    from runners.model.errors import UserInputError

    if not allow and not route:
        return whole
    if whole:
        raise UserInputError(
            "option --network: not with --allow/--route (the whole network, or an allow-list)"
        )
    return {"allow": list(allow), "routes": _pairs(route, "--route")}


def _budget(values: tuple[str, ...]) -> dict[str, dict[str, str]] | None:
    from runners.model.errors import UserInputError

    caps: dict[str, dict[str, str]] = {}
    for key, value in _pairs(values, "--budget").items():
        scope, _, cap = key.partition(".")
        if scope not in ("step", "run") or not cap:
            raise UserInputError(
                f"option --budget: {key!r}: expected step.CAP or run.CAP (tokens, cost_usd, "
                "seconds)"
            )
        caps.setdefault(scope, {})[cap] = value
    return caps or None


_PathType = click.Path(path_type=Path)
#: The option of each agent setting, for error messages.
OPTIONS = {
    "command": "--agent",
    "mounts": "--mount",
    "timeout": "--agent-timeout",
    "network": "--allow/--route",
    "args": "--arg",
}


def register(
    app: click.Group,
    console: Callable[..., Console],
    environment: Callable[..., Any],
    started: Callable[[], None],
) -> None:
    """Add `solve` (and `model-server`, `preset`) to `app`; the CLI's console, environment builder
    and start-up hook are passed in."""
    from runners.modelserver.cli import register as register_model_server

    register_model_server(app, console, environment)

    @app.command(short_help="Have an agent solve a problem, checkpoint by checkpoint, each graded.")
    @click.argument("problem_dir", type=_PathType)
    @click.option(
        "--agent",
        default=None,
        help="The agent's command template: {prompt_file} {prompt} {workspace} "
        "{checkpoint} {checkpoint_number} {problem} {python} {home} {mounts[NAME]}.",
    )
    @click.option(
        "--preset",
        default=None,
        help="A ready-made CLI instead of (or under) --agent: "
        "claude-code, codex, gemini-cli, aider, mini-swe-agent.",
    )
    @click.option("--model", default=None, help="--preset: the model it asks for.")
    @click.option(
        "--key-env",
        default=None,
        help="--preset: the variable holding its API key (default: the preset's).",
    )
    @click.option(
        "--arg", "args", multiple=True, help="--preset: a flag added to its command (repeatable)."
    )
    @click.option(
        "--base-url", default=None, help="--preset: the model API's base URL (a gateway)."
    )
    @click.option(
        "--dry-run",
        "dry_run",
        type=_PathType,
        default=None,
        help=(
            "A model-server script: the agent runs against it instead of a model, offline and free."
        ),
    )
    @click.option(
        "--name", default="agent", show_default=True, help="The agent's name (a directory name)."
    )
    @click.option(
        "--pass-env", multiple=True, help="A host variable the agent may see, by name (repeatable)."
    )
    @click.option("--env", multiple=True, help="NAME=VALUE for the agent (repeatable).")
    @click.option(
        "--mount",
        multiple=True,
        help=(
            "NAME=DIR: a read-only directory for the agent, at the same path; {mounts[NAME]} "
            "(repeatable)."
        ),
    )
    @click.option(
        "--agent-timeout",
        type=click.FloatRange(min=1),
        default=1800.0,
        show_default=True,
        help="Seconds per checkpoint for the agent.",
    )
    @click.option(
        "--network/--no-network",
        default=None,
        help=(
            "Let the agent reach the network (off by default; on for a --preset not on a "
            "--dry-run)."
        ),
    )
    @click.option(
        "--allow",
        multiple=True,
        help="HOST[:PORT] (or anthropic, openai, gemini): the agent may reach "
        "only these (and --route's), through the harness's proxy (repeatable).",
    )
    @click.option(
        "--route",
        multiple=True,
        help="VARIABLE=BASE_URL: the agent's VARIABLE points at the harness's "
        "proxy, which forwards to BASE_URL and counts its tokens (repeatable).",
    )
    @click.option(
        "--repeat",
        type=click.IntRange(1, 100),
        default=1,
        show_default=True,
        help="Independent runs of the problem (pass@k over them).",
    )
    @click.option(
        "--budget",
        multiple=True,
        help="A cap: step.tokens=N, step.cost_usd=X, step.seconds=S, run.tokens=N, "
        "run.cost_usd=X, run.seconds=S (repeatable).",
    )
    @click.option("--image", default=None, help="docker: the image the agent runs in.")
    @click.option(
        "--home",
        type=_PathType,
        default=None,
        help="A directory copied into the agent's private home first.",
    )
    @click.option(
        "--sandbox", default="auto", show_default=True, help=" | ".join(["auto", *BUILTINS])
    )
    @click.option(
        "--pass-policy",
        "pass_policy",
        type=Choice([p.value for p in PassPolicy]),
        default=PassPolicy.ALL_CASES.value,
        show_default=True,
        help="When a checkpoint counts as passed.",
    )
    @click.option(
        "--output",
        "-o",
        type=_PathType,
        default=None,
        help="Run directory (default: runs/<time>-solve-<problem>).",
    )
    @click.option(
        "--wall-timeout",
        type=click.FloatRange(min=1),
        default=None,
        help="Seconds for each test run.",
    )
    @click.option(
        "--cache-dir", type=_PathType, default=None, help="Where prepared toolchains are kept."
    )
    @click.option("--python", default=None, help="The submission's Python for grading.")
    @click.option(
        "--node",
        default=None,
        help="The Node JavaScript tests run on when grading: a version (22), "
        "a range (>=22) or a node binary's path.",
    )
    @click.option(
        "--json",
        "json_file",
        type=_PathType,
        default=None,
        help="Write every checkpoint's step and result as JSON.",
    )
    @click.option(
        "--progress/--no-progress",
        "show_progress",
        default=True,
        show_default=True,
        help="Say what runs on stderr: a live display on a terminal, plain lines in a pipe.",
    )
    @click.option(
        "--quality/--no-quality",
        default=True,
        show_default=True,
        help="Measure the code-quality figures of each snapshot (docs/quality.md).",
    )
    def solve(
        problem_dir: Path,
        agent: str | None,
        preset: str | None,
        model: str | None,
        key_env: str | None,
        args: tuple[str, ...],
        base_url: str | None,
        dry_run: Path | None,
        name: str,
        pass_env: tuple[str, ...],
        env: tuple[str, ...],
        mount: tuple[str, ...],
        agent_timeout: float,
        network: bool | None,
        allow: tuple[str, ...],
        route: tuple[str, ...],
        repeat: int,
        budget: tuple[str, ...],
        image: str | None,
        home: Path | None,
        sandbox: str,
        pass_policy: str,
        output: Path | None,
        wall_timeout: float | None,
        cache_dir: Path | None,
        python: str | None,
        node: str | None,
        json_file: Path | None,
        show_progress: bool,
        quality: bool,
    ) -> None:
        """Give the agent each checkpoint's specification in the workspace the previous one left, in
        a sandbox; keep what it leaves (OUTPUT/submissions/<name>/<problem>/<checkpoint>/) and grade
        it."""
        from runners.agents.spec import parse_agent_options
        from runners.model.errors import UserInputError

        if agent is None and preset is None:
            raise UserInputError("option --agent: give the agent's command, or a --preset")
        settings_ = {
            "name": name,
            "command": agent,
            "pass_env": list(pass_env),
            "env": _pairs(env, "--env"),
            "mounts": _pairs(mount, "--mount"),
            "timeout": agent_timeout,
            "network": _network(network, allow, route),
            "image": image,
            "home": str(home) if home else None,
            "repeat": repeat,
            "budget": _budget(budget),
            "preset": preset,
            "model": model,
            "key_env": key_env,
            "args": list(args),
            "base_url": base_url,
            "dry_run": str(dry_run) if dry_run else None,
        }
        spec = parse_agent_options({k: v for k, v in settings_.items() if v is not None}, OPTIONS)
        spec = spec.resolved(Path.cwd(), "option --mount/--home")
        settings = environment(
            sandbox, 1, wall_timeout, cache_dir, False, python, quality=quality, node=node
        )
        started()
        run(
            spec,
            problem_dir,
            settings,
            PassPolicy(pass_policy),
            output,
            json_file,
            console(),
            (lambda: console(stderr=True)) if show_progress else None,
        )


def run(
    spec: Any,
    problem_dir: Path,
    settings: Any,
    policy: PassPolicy,
    output: Path | None,
    json_file: Path | None,
    out: Console,
    err: Callable[[], Console] | None = None,
) -> None:
    """`err`: the stderr console progress is said on (None: no progress)."""
    import json

    from rich.text import Text

    from runners.agents.layout import RunLayout
    from runners.agents.render import solve_table, unset_notes
    from runners.agents.repeats import repeats_table
    from runners.agents.solve import SolvedCheckpoint, solve, solved_repeats
    from runners.model.problem_loader import load_problem
    from runners.outputs.render import fit
    from runners.util.progress import above, for_cli

    problem = load_problem(problem_dir)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    layout = RunLayout(
        (
            output
            or Path("runs") / f"{stamp}-solve-{re.sub(r'[^A-Za-z0-9_.-]+', '_', problem.name)}"
        ).resolve()
    )

    for note in unset_notes(spec):
        out.print(note)
    with for_cli(
        err or (lambda: out),
        err is not None,
        total=len(problem.checkpoints),
        title=f"{spec.name} · {problem.name}",
    ) as reporter:

        def graded(done: SolvedCheckpoint) -> None:
            verdict = "passed" if done.passed(policy) else "not passed"
            above(
                reporter,
                Text.assemble(
                    (
                        f"{done.step.agent} · {done.step.checkpoint}"
                        if spec.repeat > 1
                        else done.step.checkpoint,
                        "bold",
                    ),
                    f": agent {done.step.failure or 'done'} in {done.step.duration:.1f} s; "
                    f"{done.result.summary} ({verdict})",
                ),
                out,
            )

        solved = solve(spec, problem, layout, settings, on_graded=graded, reporter=reporter)
    if json_file:
        json_file.parent.mkdir(parents=True, exist_ok=True)
        rows: Any = [
            {"step": d.step.model_dump(mode="json"), "result": d.result.model_dump(mode="json")}
            for d in solved
        ]
        if spec.repeat > 1:
            rows = {
                "checkpoints": rows,
                "repeats": [
                    s.model_dump(mode="json") for s in solved_repeats(solved, problem, policy)
                ],
            }
        json_file.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    out.print(fit(out, solve_table(spec.name, problem.name, solved, policy)))
    stats = solved_repeats(solved, problem, policy)
    if stats:
        out.print(fit(out, repeats_table(stats)))
    passed = sum(d.passed(policy) for d in solved)
    out.print(
        Text(
            f"checkpoints passed: {passed}/{len(solved)}",
            style="bold green" if passed == len(solved) else "bold",
        )
    )
    out.print(
        Text(
            f"snapshots: {layout.submissions} · transcripts: {layout.root / 'agent-steps'} · "
            f"grades: {layout.root / 'grades'}",
            style="dim",
        )
    )
    from runners.model import exitcodes

    raise SystemExit(
        exitcodes.for_results([d.result for d in solved], policy, met=passed == len(solved))
    )
