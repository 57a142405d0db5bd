"""`runners batch --agents agents.yaml`: every agent of the file works through every problem, then
the usual batch grades the snapshots they left (`<output>/submissions/<agent>/<problem>/<cp>/`).

Chains (one agent on one problem) run `-j` at a time, their checkpoints in order. Resumable like
the batch: a step whose record and snapshot are there is not run again (`--overwrite` runs the
selected chains from scratch), and the grading then keeps the cells whose snapshot did not change.
"""

from __future__ import annotations

import shutil
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from rich.console import Console
from rich.text import Text

from runners.agents.chain import ensure_steps
from runners.agents.layout import RunLayout, StepRecord
from runners.agents.render import steps_table, unset_notes
from runners.agents.solve import agent_sandbox, guard, repeats_of
from runners.agents.spec import AgentSpec, load_agents_file
from runners.model.config import CONFIG_FILE, ProblemConfig
from runners.model.environment import EnvironmentSpec
from runners.model.errors import UserInputError
from runners.model.problem_loader import load_problem
from runners.outputs.render import fit, make_console
from runners.util.progress import Subject, above, for_cli, running
from runners.util.suggest import did_you_mean


def _select(names: list[str], wanted: tuple[str, ...], option: str) -> set[str]:
    unknown = sorted(set(wanted) - set(names))
    if unknown:
        raise UserInputError(
            f"option {option}: unknown "
            f"{', '.join(repr(u) + did_you_mean(u, names) for u in unknown)} (known: "
            f"{', '.join(sorted(names)) or 'none'})"
        )
    return set(wanted or names)


def run_agents(
    agents_file: Path,
    problems_root: Path,
    output: Path,
    environment: EnvironmentSpec,
    *,
    jobs: int = 1,
    agents: tuple[str, ...] = (),
    problems: tuple[str, ...] = (),
    overwrite: bool = False,
    console: Console | None = None,
    progress: bool = True,
) -> tuple[Path, list[StepRecord]]:
    """Run the agent steps; returns the submissions root to grade and every step's record."""
    console = console or make_console()
    specs = load_agents_file(agents_file)
    chosen = _select([s.name for s in specs], agents, "--agent")
    specs = [s for s in specs if s.name in chosen]
    root = Path(problems_root).resolve()
    if not root.is_dir():
        raise UserInputError(f"option --problems: {root} is not a directory")
    dirs = sorted(
        p for p in root.iterdir() if (p / CONFIG_FILE).is_file() and not p.name.startswith(".")
    )
    keep = _select([d.name for d in dirs], problems, "--problem")
    loaded = [load_problem(d) for d in dirs if d.name in keep]
    layout = RunLayout(Path(output).resolve())
    chains = [(each, problem) for spec in specs for each in repeats_of(spec) for problem in loaded]
    for spec, problem in chains:
        guard(spec, problem, layout, environment, f"{agents_file}: agent {spec.name!r}")
        if overwrite:
            for path in (
                layout.chain_dir(spec.name, problem.path.name),
                layout.submissions / spec.name / problem.path.name,
            ):
                shutil.rmtree(path, ignore_errors=True)
    by_name = {spec.name: agent_sandbox(spec, environment) for spec in specs}
    sandboxes = {each.name: by_name[spec.name] for spec in specs for each in repeats_of(spec)}
    lock = threading.Lock()

    for spec in specs:
        for note in unset_notes(spec):
            console.print(note)
    repeats = sum(spec.repeat for spec in specs)
    console.print(
        Text.assemble(
            (f"{len(chains)} agent chains", "bold"),
            f" ({len(specs)} agents × {len(loaded)} problems"
            + (f", {repeats} runs with the repeats" if repeats > len(specs) else "")
            + f"), {jobs} at a time",
        )
    )
    with for_cli(
        lambda: make_console(stderr=True), progress, total=len(chains), title="agent chains"
    ) as reporter:

        def announce(record: StepRecord) -> None:
            with lock:
                what = (
                    f"failed: {record.failure}"
                    if record.failed
                    else f"done in {record.duration:.1f} s"
                )
                above(
                    reporter,
                    Text(
                        f"{record.agent} · {record.problem} · {record.checkpoint}: {what}",
                        style="red" if record.failed else "dim",
                    ),
                    console,
                )

        def chain(item: tuple[AgentSpec, ProblemConfig]) -> list[StepRecord]:
            spec, problem = item
            last = problem.ordered_checkpoints()[-1]
            # The subject is the chain; its stages name the checkpoint of each step.
            with running(Subject(problem.path.name, "", spec.name), reporter):
                return ensure_steps(
                    spec, problem, last, layout, environment, sandboxes[spec.name], on_step=announce
                )

        with ThreadPoolExecutor(max_workers=max(jobs, 1)) as pool:
            records = [record for found in pool.map(chain, chains) for record in found]
    console.print(fit(console, steps_table(records)))
    failed = [r for r in records if r.failed]
    if failed:
        console.print(
            Text(
                f"{len(failed)} agent step(s) failed; their snapshots are graded all the same "
                f"(see {layout.root / 'agent-steps'}; --overwrite runs their chains again)",
                style="yellow",
            )
        )
    return layout.submissions, records
