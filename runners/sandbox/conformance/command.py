"""`runners sandbox check NAME`: the conformance suite against a registered backend, a line per
check as it finishes; exit 0 when nothing failed, 1 otherwise (2: bad input, 3: the backend is
not usable here)."""

from __future__ import annotations

import json
from pathlib import Path

import click

STYLE = {"passed": "green", "failed": "bold red", "error": "bold magenta", "not promised": "yellow"}


@click.command("check")
@click.argument("name")
@click.option(
    "--only",
    multiple=True,
    metavar="CHECK",
    help="A check (limits.memory) or a group (limits) to run (repeatable; default: all).",
)
@click.option(
    "--json",
    "json_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also write the outcomes as JSON here.",
)
def check_command(name: str, only: tuple[str, ...], json_file: Path | None) -> None:
    """Run the sandbox conformance suite against backend NAME (limits, network, files, kills,
    leftovers, what a submission sees): what the backend does not promise is said, not run."""
    from rich.console import Console
    from rich.text import Text

    from runners.model.errors import UserInputError
    from runners.sandbox.conformance.suite import run_suite, select_checks
    from runners.sandbox.registry import check_sandbox_name, resolve_sandbox

    if name == "auto":
        raise UserInputError("runners sandbox check: name a backend, not auto")
    check_sandbox_name(name, "runners sandbox check NAME")
    try:
        checks = select_checks(only)
    except ValueError as exc:
        raise UserInputError(f"option --only: {exc}") from None
    sandbox = resolve_sandbox(name)
    console = Console(highlight=False)
    console.print(f"conformance of the {name} sandbox: {len(checks)} checks")

    def show(outcome) -> None:  # type: ignore[no-untyped-def]
        line = Text.assemble(
            (f"{outcome.status:>12}", STYLE[outcome.status]),
            f"  {outcome.name}",
            (f"  {outcome.seconds:.1f} s" if outcome.status != "not promised" else "", "dim"),
        )
        console.print(line)
        if outcome.detail:
            console.print(Text(f"              {outcome.detail}", style="dim"), soft_wrap=True)

    outcomes = run_suite(sandbox, checks, on_outcome=show)
    counts = {status: sum(o.status == status for o in outcomes) for status in STYLE}
    console.print(", ".join(f"{n} {status}" for status, n in counts.items() if n))
    if json_file is not None:
        json_file.write_text(
            json.dumps([o.model_dump() for o in outcomes], indent=2) + "\n", encoding="utf-8"
        )
    raise SystemExit(1 if counts["failed"] or counts["error"] else 0)
