"""A recorded session made into a script: what a model did in a real (paid) run, served again for
free to the same or another CLI, another version of it, or a changed harness.

    runners model-server record RUN_DIR --agent NAME --problem P -o script.yaml

reads each checkpoint's session log kept beside its step (`agent-steps/<agent>/<problem>/<cp>/
transcript/`, runners.agents.transcripts) and writes one script with a section per checkpoint:

| recorded by | read | becomes |
| --- | --- | --- |
| Claude Code (`~/.claude/projects/*/*.jsonl`) | assistant `tool_use` blocks, grouped by message | `Write` -> write; `Bash` -> run; `Edit`/`MultiEdit` -> a run that edits the file in place (python3) |
| Codex CLI (`~/.codex/sessions/**/*.jsonl`) | `function_call` items | `exec_command`/`shell` -> run; `apply_patch` -> a run of `apply_patch` through its shell |
| both | the last assistant text | the final `say` |

Paths under the recorded working directory become relative to the workspace. Other tools (reads,
searches, sub-agents) change nothing in the workspace and are left out; the script says so in a
comment-free way: `skipped` counts them (`Recorded.skipped`).
"""  # noqa: E501

from __future__ import annotations

import json
import posixpath
import shlex
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runners.model.errors import UserInputError
from runners.modelserver.exchange import as_dict, as_list
from runners.modelserver.script import Run, Say, Script, Tools, Turn, Write

PY_EDIT = (
    "import pathlib, sys\npath, old, new, every = pathlib.Path(sys.argv[1]), sys.argv[2], "
    "sys.argv[3], sys.argv[4] == '1'\ntext = path.read_text()\nif old not in text:\n    "
    "sys.exit(f'{path}: the text to replace is not there')\npath.write_text(text.replace(old, "
    "new) if every else text.replace(old, new, 1))\n"
)


@dataclass
class Recorded:
    turns: list[Turn] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)


def _relative(path: str, cwd: str | None) -> str:
    if cwd and posixpath.isabs(path) and (path == cwd or path.startswith(cwd.rstrip("/") + "/")):
        return posixpath.relpath(path, cwd)
    return path


def _edit(path: str, old: str, new: str, every: bool) -> Run:
    argv = ["python3", "-c", PY_EDIT, path, old, new, "1" if every else "0"]
    return Run(run=shlex.join(argv))


def _lines(text: str) -> Iterator[dict[str, Any]]:
    for line in text.splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            yield value


def from_claude(text: str) -> Recorded:
    """Claude Code's session log: one line per content block, assistant blocks of one answer
    sharing its message id."""
    recorded, said = Recorded(), ""
    answers: dict[str, list[Write | Run]] = {}
    for entry in _lines(text):
        message = as_dict(entry.get("message"))
        if entry.get("type") != "assistant" or message.get("role") != "assistant":
            continue
        cwd = entry.get("cwd") if isinstance(entry.get("cwd"), str) else None
        actions = answers.setdefault(str(message.get("id") or len(answers)), [])
        for block in map(as_dict, as_list(message.get("content"))):
            if block.get("type") == "text" and str(block.get("text") or "").strip():
                said = str(block["text"])
            if block.get("type") != "tool_use":
                continue
            name, given = str(block.get("name")), as_dict(block.get("input"))
            if name == "Write" and isinstance(given.get("file_path"), str):
                actions.append(
                    Write(
                        write=_relative(given["file_path"], cwd),
                        content=str(given.get("content") or ""),
                    )
                )
            elif name == "Bash" and isinstance(given.get("command"), str):
                actions.append(Run(run=given["command"]))
            elif name == "Edit" and isinstance(given.get("file_path"), str):
                actions.append(
                    _edit(
                        _relative(given["file_path"], cwd),
                        str(given.get("old_string") or ""),
                        str(given.get("new_string") or ""),
                        bool(given.get("replace_all")),
                    )
                )
            elif name == "MultiEdit" and isinstance(given.get("file_path"), str):
                for edit in map(as_dict, as_list(given.get("edits"))):
                    actions.append(
                        _edit(
                            _relative(given["file_path"], cwd),
                            str(edit.get("old_string") or ""),
                            str(edit.get("new_string") or ""),
                            bool(edit.get("replace_all")),
                        )
                    )
            else:
                recorded.skipped[name] = recorded.skipped.get(name, 0) + 1
    for actions in answers.values():
        if len(actions) == 1:
            recorded.turns.append(actions[0])
        elif actions:
            recorded.turns.append(Tools(tools=actions))
    recorded.turns.append(Say(say=said or "Done."))
    return recorded


def from_codex(text: str) -> Recorded:
    """Codex CLI's rollout: `response_item` lines; each function call replayed as a turn."""
    recorded, said = Recorded(), ""
    for entry in _lines(text):
        item = as_dict(entry.get("payload"))
        if entry.get("type") != "response_item":
            continue
        if item.get("type") == "message" and item.get("role") == "assistant":
            texts = [
                str(p.get("text"))
                for p in map(as_dict, as_list(item.get("content")))
                if p.get("text")
            ]
            said = "".join(texts) or said
        elif item.get("type") == "function_call":
            try:
                given = as_dict(json.loads(str(item.get("arguments") or "{}")))
            except ValueError:
                given = {}
            command = given.get("cmd", given.get("command"))
            if isinstance(command, list):
                command = shlex.join(str(part) for part in command)
            if isinstance(command, str):
                recorded.turns.append(Run(run=command))
            else:
                name = str(item.get("name"))
                recorded.skipped[name] = recorded.skipped.get(name, 0) + 1
        elif item.get("type") == "custom_tool_call" and item.get("name") == "apply_patch":
            patch = str(item.get("input") or "")
            recorded.turns.append(Run(run=f"apply_patch <<'RUNNERS_PATCH'\n{patch}\nRUNNERS_PATCH"))
    recorded.turns.append(Say(say=said or "Done."))
    return recorded


READERS = {"claude-code": from_claude, "codex": from_codex}


def record_run(run_dir: Path, agent: str, problem: str) -> tuple[Script, dict[str, dict[str, int]]]:
    """A script of every checkpoint the agent's steps in `run_dir` recorded; the tools left out,
    per checkpoint. UserInputError when there is nothing to read."""
    from runners.agents.layout import RunLayout, StepRecord

    layout = RunLayout(Path(run_dir).resolve())
    chain = layout.chain_dir(agent, problem)
    if not chain.is_dir():
        raise UserInputError(
            f"argument RUN_DIR: no steps of agent {agent!r} on {problem!r} in {layout.root}"
        )
    sections: dict[str, list[Turn]] = {}
    skipped: dict[str, dict[str, int]] = {}
    records = [
        r
        for r in (StepRecord.load(d) for d in sorted(chain.iterdir()) if d.is_dir())
        if r is not None
    ]
    for record in sorted(records, key=lambda r: r.number):
        reader = READERS.get(record.preset or "")
        if reader is None:
            raise UserInputError(
                f"{record.checkpoint}: its agent was {record.preset or 'not a preset'}; a "
                f"recorded session can be read for {', '.join(READERS)}"
            )
        logs = [layout.step_dir(agent, problem, record.checkpoint) / p for p in record.transcript]
        if not logs:
            raise UserInputError(
                f"{record.checkpoint}: its step kept no session log (transcript) to replay"
            )
        text = "\n".join(
            p.read_text(encoding="utf-8", errors="replace") for p in logs if p.is_file()
        )
        recorded = reader(text)
        sections[record.checkpoint] = recorded.turns
        skipped[record.checkpoint] = recorded.skipped
    if not sections:
        raise UserInputError(
            f"argument RUN_DIR: no finished steps of agent {agent!r} on {problem!r} in {chain}"
        )
    return Script(checkpoints=sections), skipped


def script_yaml(script: Script) -> str:
    """The script as a YAML file Script.load reads back."""
    import yaml

    data = script.model_dump(mode="json", by_alias=True, exclude_none=True, exclude_defaults=True)

    def literal(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
        style = "|" if "\n" in value else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    class Dumper(yaml.SafeDumper):
        pass

    Dumper.add_representer(str, literal)
    return yaml.dump(data, Dumper=Dumper, sort_keys=False, allow_unicode=True, width=100)
