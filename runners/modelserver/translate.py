"""A script's turn said in the client's own terms: the tool calls it offered, or text.

Tool-calling clients name their tools in each request; a neutral action is mapped onto the first
tool that fits (argument shapes from the tool's JSON schema):

| action | tools tried, in order | otherwise |
| --- | --- | --- |
| `write` | `Write` (Claude Code), `write_file` (Gemini CLI, but not for a build file) | a shell command writing the file |
| `run` | `Bash`, `exec_command` (Codex), `run_shell_command` (Gemini CLI), `shell`, `shell_command`, `bash` | - |

Clients without tools read text: Aider (`whole` edit format: a file's path, then its whole text
fenced), mini-swe-agent (one bash block a turn; the final answer is its submit command).
"""  # noqa: E501

from __future__ import annotations

import base64
import posixpath
import re
import shlex
from dataclasses import dataclass, field
from typing import Any

from runners.modelserver.script import Run, Say, Tools, Turn, Write

WRITE_TOOLS = ("Write", "write_file")
RUN_TOOLS = ("Bash", "exec_command", "run_shell_command", "shell", "shell_command", "bash")
COMMAND_KEYS = ("command", "cmd")
PATH_KEYS = ("file_path", "path", "absolute_path", "filename")
HEREDOC = "RUNNERS_EOF"
#: Gemini CLI (0.61) refuses `write_file` on build files in headless mode, whatever the approval
#: mode ("Build File Protection" in its policy engine): those are written through its shell.
GEMINI_BUILD_FILES = frozenset(
    {
        "BUILD",
        "BUILD.bazel",
        "WORKSPACE",
        "WORKSPACE.bazel",
        "MODULE.bazel",
        ".bazelrc",
        ".blazerc",
        "Makefile",
        "makefile",
        "GNUmakefile",
        "CMakeLists.txt",
        "package.json",
        "package-lock.json",
        "pnpm-lock.yaml",
        "yarn.lock",
        "bun.lockb",
        "setup.py",
        "setup.cfg",
        "pyproject.toml",
        "go.mod",
        "go.sum",
        "Cargo.toml",
        "Cargo.lock",
        "pom.xml",
        "build.gradle",
        "build.gradle.kts",
        "settings.gradle",
        "settings.gradle.kts",
        "Dockerfile",
        "Containerfile",
    }
)
GEMINI_BUILD_SUFFIXES = (".bzl", ".bazel", ".bzlmod", ".mk", ".cmake")
#: What mini-swe-agent's bash tool must print first to end its run (its `submit` convention).
MINI_SUBMIT = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
#: Call ids carry the turn they were made in: the next request's history says how far the run got.
CALL_ID = re.compile(r"runners_(\d+)_(\d+)")


class NoTool(ValueError):
    """The client offered no tool that can carry the action."""


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: dict[str, Any]


@dataclass
class Reply:
    """The model's answer: text, tool calls, or both."""

    text: str = ""
    calls: list[ToolCall] = field(default_factory=list)

    @property
    def final(self) -> bool:
        return not self.calls


def call_id(turn: int, number: int, prefix: str = "call") -> str:
    return f"{prefix}_runners_{turn}_{number}"


def turn_of(ids: list[str]) -> int | None:
    """The turn after the latest one these call ids were made in (None: none of ours)."""
    turns = [int(m.group(1)) for m in (CALL_ID.search(i) for i in ids) if m]
    return max(turns) + 1 if turns else None


def tool_reply(
    turn: Turn,
    index: int,
    tools: dict[str, dict[str, Any]],
    workdir: str | None,
    id_prefix: str = "call",
) -> Reply:
    """The turn as tool calls among `tools` (name -> JSON schema of its arguments)."""
    if isinstance(turn, Say):
        return Reply(text=turn.say)
    actions = turn.tools if isinstance(turn, Tools) else [turn]
    calls = [_call(action, tools, workdir) for action in actions]
    return Reply(
        calls=[
            ToolCall(call_id(index, n, id_prefix), name, args)
            for n, (name, args) in enumerate(calls)
        ]
    )


def _call(
    action: Write | Run, tools: dict[str, dict[str, Any]], workdir: str | None
) -> tuple[str, dict[str, Any]]:
    if isinstance(action, Write):
        for name in WRITE_TOOLS:
            if name in tools and not (name == "write_file" and _gemini_build_file(action.write)):
                key = _first_key(tools[name], PATH_KEYS) or "file_path"
                path = posixpath.join(workdir, action.write) if workdir else action.write
                return name, {key: path, "content": action.text}
        return run_call(write_command(action), tools)
    return run_call(action.run, tools)


def _gemini_build_file(path: str) -> bool:
    name = posixpath.basename(path)
    return (
        name in GEMINI_BUILD_FILES
        or name.startswith(("Dockerfile.", "Containerfile."))
        or name.lower().endswith(GEMINI_BUILD_SUFFIXES)
    )


def run_call(command: str, tools: dict[str, dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    for name in RUN_TOOLS:
        if name in tools:
            key = _first_key(tools[name], COMMAND_KEYS) or "command"
            kind = _properties(tools[name]).get(key, {}).get("type")
            return name, {key: ["bash", "-lc", command] if kind == "array" else command}
    raise NoTool(
        "the client offered no tool that runs a command (it offered: "
        f"{', '.join(sorted(tools)) or 'none'})"
    )


def _properties(schema: dict[str, Any]) -> dict[str, Any]:
    properties = schema.get("properties") if isinstance(schema, dict) else None
    return properties if isinstance(properties, dict) else {}


def _first_key(schema: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    properties = _properties(schema)
    return next((k for k in keys if k in properties), None)


def write_command(action: Write) -> str:
    """A shell command that writes the file exactly: a here-document when the text allows it,
    else its bytes in base64."""
    path = shlex.quote(action.write)
    make = (
        f"mkdir -p {shlex.quote(posixpath.dirname(action.write))} && "
        if posixpath.dirname(action.write)
        else ""
    )
    text = action.text
    if text.endswith("\n") and HEREDOC not in text.splitlines():
        return f"{make}cat > {path} <<'{HEREDOC}'\n{text}{HEREDOC}"
    encoded = base64.b64encode(text.encode()).decode()
    return f"{make}printf '%s' {encoded} | base64 -d > {path}"


def aider_reply(turns: list[Turn]) -> Reply:
    """Aider's whole-file edit format: each file the checkpoint writes (its last text), then the
    final words. Commands are left out: Aider asks before running one, and `--yes-always` does
    not answer that, so a script's `run` cannot happen in Aider."""
    files: dict[str, str] = {}
    for turn in turns:
        for action in turn.tools if isinstance(turn, Tools) else [turn]:
            if isinstance(action, Write):
                files[action.write] = action.text
    parts = [
        f"{path}\n```\n{text}{'' if text.endswith(chr(10)) else chr(10)}```"
        for path, text in files.items()
    ]
    said = next((t.say for t in turns if isinstance(t, Say)), "")
    return Reply(text="\n\n".join([*parts, said]).strip() + "\n")


def mini_reply(turn: Turn) -> Reply:
    """mini-swe-agent's text protocol: a thought, then exactly one bash block; the final answer
    is the command that prints its submit marker."""
    if isinstance(turn, Say):
        command = f"echo {MINI_SUBMIT}"
        return Reply(text=f"THOUGHT: {turn.say}\n\n```bash\n{command}\n```")
    actions = turn.tools if isinstance(turn, Tools) else [turn]
    command = (
        " && ".join(f"( {write_command(a)}\n)" if isinstance(a, Write) else a.run for a in actions)
        if len(actions) > 1
        else (write_command(actions[0]) if isinstance(actions[0], Write) else actions[0].run)
    )
    return Reply(text=f"THOUGHT: step {len(actions)} action(s).\n\n```bash\n{command}\n```")
