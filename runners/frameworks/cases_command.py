"""The submission's command in a case-based run: the adapter's `command`, or the interpreter its
entry file's suffix calls for (`python` for `.py` and no suffix, as SCBench; `node` for `.js`),
with `{python}`, `{node}`, `{submission}` and `{entry_file}` filled in as the sandbox sees them.
`{address}` and `{port}` stay: the case program fills them in per group when it starts a server.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from runners.cases.spec import command_parts, default_command
from runners.frameworks.base import RunContext
from runners.model.case_config import CaseProblemConfig
from runners.model.errors import InfrastructureError
from runners.sandbox.base import Mount
from runners.toolchains.hosts import toolchain_host
from runners.toolchains.python import prepared_python

NODE_NAMES = ("{node}", "node")


@dataclass
class SubmissionCommand:
    argv: list[str]
    path: list[str] = field(default_factory=list)  # directories to put before the usual PATH
    mounts: list[Mount] = field(default_factory=list)  # what the sandbox needs to run it (node)
    on_python: bool = (
        True  # the default Python command: no other toolchain (docker: the python image)
    )


def template(problem: CaseProblemConfig) -> list[str]:
    if problem.adapter.command is not None:
        return command_parts(problem.adapter.command)
    return default_command(problem.entry_file)


def submission_command(ctx: RunContext, problem: CaseProblemConfig) -> SubmissionCommand:
    parts = template(problem)
    values = {
        "python": prepared_python(ctx).submission_env.python,
        "submission": ctx.layout.submission,
        "entry_file": problem.entry_file,
    }
    command = SubmissionCommand(argv=[], on_python=parts[0] == "{python}")
    if any(part in NODE_NAMES or "{node}" in part for part in parts):
        host = toolchain_host(ctx.sandbox)
        try:
            node = host.node_for_toolchains(ctx.environment.node)
        except InfrastructureError as exc:
            raise InfrastructureError(
                f"{exc}; the problem's submission command needs it: {' '.join(parts)}"
            ) from None
        values["node"] = node
        if host.image_for("node") is None:  # docker: the cases image runs it, not the node image
            ctx.node = host.node_version(node)
        command.path.append(os.path.dirname(node))
        command.mounts += host.program_mounts(node)
        parts = ["{node}" if part == "node" else part for part in parts]
    for index, part in enumerate(parts):
        if part.startswith(("{submission}/", "./")) and (
            index == 0 or part.startswith("{submission}/")
        ):
            name = part.removeprefix("{submission}/").removeprefix("./")
            _note_if_missing(ctx, name.replace("{entry_file}", problem.entry_file))
        for name, value in values.items():
            part = part.replace(f"{{{name}}}", value)
        command.argv.append(part)
    return command


def _note_if_missing(ctx: RunContext, name: str) -> None:
    """A submission without the file its command runs is graded (every case fails), with a note
    saying why rather than only each case's `can't open file`."""
    if "{" not in name and not (ctx.workspace.submission / name).is_file():
        ctx.errors.append(
            f"the submission has no {name}, which the problem's command runs "
            f"(`entry_file`, or `adapter.command`): every case will fail"
        )
