"""`runners solve PROBLEM --agent 'CMD ...'`: an agent works through every checkpoint, each graded.

Registered on the main app by `runners.cli` (`register(app, ...)`), so this module imports only
click at load time: the command's work is imported when it runs.

Exit codes: 0 every checkpoint met the pass policy (and no agent step failed), 1 some did not,
2 bad input, 3 infrastructure failure.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from runners.policy import PassPolicy
from runners.sandbox.registry import BUILTINS

if TYPE_CHECKING:
    from rich.console import Console


def _pairs(values: tuple[str, ...], option: str) -> dict[str, str]:
    from runners.errors import UserInputError

    pairs = {}
    for value in values:
        key, sep, text = value.partition("=")
        if not sep or not key:
            raise UserInputError(f"option {option}: expected NAME=VALUE, got {value!r}")
        pairs[key] = text
    return pairs


_PathType = click.Path(path_type=Path)
#: The option of each agent setting, for error messages.
OPTIONS = {"command": "--agent", "mounts": "--mount", "timeout": "--agent-timeout"}


def register(app: click.Group, console: Callable[..., Console], environment: Callable[..., Any],
             started: Callable[[], None]) -> None:
    """Add `solve` to `app`; the CLI's console, environment builder and start-up hook are passed in."""

    @app.command(short_help="Have an agent solve a problem, checkpoint by checkpoint, each graded.")
    @click.argument("problem_dir", type=_PathType)
    @click.option("--agent", required=True, help="The agent's command template: {prompt_file} {prompt} {workspace} "
                  "{checkpoint} {checkpoint_number} {problem} {python} {home} {mounts[NAME]}.")
    @click.option("--name", default="agent", show_default=True, help="The agent's name (a directory name).")
    @click.option("--pass-env", multiple=True, help="A host variable the agent may see, by name (repeatable).")
    @click.option("--env", multiple=True, help="NAME=VALUE for the agent (repeatable).")
    @click.option("--mount", multiple=True,
                  help="NAME=DIR: a read-only directory for the agent, at the same path; {mounts[NAME]} (repeatable).")
    @click.option("--agent-timeout", type=click.FloatRange(min=1), default=1800.0, show_default=True,
                  help="Seconds per checkpoint for the agent.")
    @click.option("--network/--no-network", default=False, help="Let the agent reach the network (off by default).")
    @click.option("--image", default=None, help="docker: the image the agent runs in.")
    @click.option("--home", type=_PathType, default=None, help="A directory copied into the agent's private home first.")
    @click.option("--sandbox", default="auto", show_default=True, help=" | ".join(["auto", *BUILTINS]))
    @click.option("--pass-policy", "pass_policy", type=click.Choice([p.value for p in PassPolicy]),
                  default=PassPolicy.ALL_CASES.value, show_default=True, help="When a checkpoint counts as passed.")
    @click.option("--output", "-o", type=_PathType, default=None, help="Run directory (default: runs/<time>-solve-<problem>).")
    @click.option("--wall-timeout", type=click.FloatRange(min=1), default=None, help="Seconds for each test run.")
    @click.option("--cache-dir", type=_PathType, default=None, help="Where prepared toolchains are kept.")
    @click.option("--python", default=None, help="The submission's Python for grading.")
    @click.option("--json", "json_file", type=_PathType, default=None,
                  help="Write every checkpoint's step and result as JSON.")
    @click.option("--quality/--no-quality", default=True, show_default=True,
                  help="Measure the code-quality figures of each snapshot (docs/quality.md).")
    def solve(problem_dir: Path, agent: str, name: str, pass_env: tuple[str, ...], env: tuple[str, ...],
              mount: tuple[str, ...], agent_timeout: float, network: bool, image: str | None, home: Path | None,
              sandbox: str, pass_policy: str, output: Path | None, wall_timeout: float | None,
              cache_dir: Path | None, python: str | None, json_file: Path | None, quality: bool) -> None:
        """Give the agent each checkpoint's specification in the workspace the previous one left, in a
        sandbox; keep what it leaves (OUTPUT/submissions/<name>/<problem>/<checkpoint>/) and grade it."""
        from runners.agents.spec import parse_agent_options

        spec = parse_agent_options({"name": name, "command": agent, "pass_env": list(pass_env),
                                    "env": _pairs(env, "--env"), "mounts": _pairs(mount, "--mount"),
                                    "timeout": agent_timeout, "network": network, "image": image,
                                    "home": str(home) if home else None}, OPTIONS)
        spec = spec.resolved(Path.cwd(), "option --mount/--home")
        settings = environment(sandbox, 1, wall_timeout, cache_dir, False, python, quality=quality)
        started()
        run(spec, problem_dir, settings, PassPolicy(pass_policy), output, json_file, console())


def run(spec: Any, problem_dir: Path, settings: Any, policy: PassPolicy, output: Path | None,
        json_file: Path | None, out: Console) -> None:
    import json

    from rich.text import Text

    from runners.agents.layout import RunLayout
    from runners.agents.render import solve_table, unset_notes
    from runners.agents.solve import SolvedCheckpoint, solve
    from runners.problem_loader import load_problem
    from runners.render import fit

    problem = load_problem(problem_dir)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    layout = RunLayout((output or Path("runs") / f"{stamp}-solve-{re.sub(r'[^A-Za-z0-9_.-]+', '_', problem.name)}").resolve())

    def graded(done: SolvedCheckpoint) -> None:
        verdict = "passed" if done.passed(policy) else "not passed"
        out.print(Text.assemble((f"{done.step.checkpoint}", "bold"),
                                f": agent {done.step.failure or 'done'} in {done.step.duration:.1f} s; "
                                f"{done.result.summary} ({verdict})"))

    for note in unset_notes(spec):
        out.print(note)
    solved = solve(spec, problem, layout, settings, on_graded=graded)
    if json_file:
        json_file.parent.mkdir(parents=True, exist_ok=True)
        json_file.write_text(json.dumps([{"step": d.step.model_dump(mode="json"), "result": d.result.model_dump(mode="json")}
                                         for d in solved], indent=2) + "\n", encoding="utf-8")
    out.print(fit(out, solve_table(spec.name, problem.name, solved, policy)))
    passed = sum(d.passed(policy) for d in solved)
    out.print(Text(f"checkpoints passed: {passed}/{len(solved)}", style="bold green" if passed == len(solved) else "bold"))
    out.print(Text(f"snapshots: {layout.submissions} · transcripts: {layout.root / 'agent-steps'} · "
                   f"grades: {layout.root / 'grades'}", style="dim"))
    if any(d.result.infrastructure_failure for d in solved) and policy is not PassPolicy.ANY:
        raise SystemExit(3)
    raise SystemExit(0 if passed == len(solved) else 1)
