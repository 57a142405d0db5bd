"""The script the model server follows: per checkpoint, the turns of the model's side of the run.

    # script.yaml
    checkpoints:
      checkpoint_1:
        - write: src/calc.py          # a tool call writing a file (relative to the workspace)
          content: |
            print(1 + 2)
        - write: README.md
          from: notes/readme.md       # the content of a file, relative to this script
        - run: python src/calc.py     # a tool call running a shell command
        - tools:                      # several tool calls in one turn
            - write: a.txt
              content: a
            - run: ls
        - say: Added the calculator.  # the final answer: the run ends
    default:                          # for a checkpoint not listed (optional)
      - say: Nothing to do.

Each action is written once, neutrally; the server translates it into the tools the client
offered (Claude Code's `Write`/`Bash`, Codex's `exec_command`, Gemini CLI's `write_file`/
`run_shell_command`, a fenced file for Aider, a bash block for mini-swe-agent). A checkpoint's
turns end with its `say` (or, without one, "Done."). A recorded session can be turned into a
script too (`runners.modelserver.replay`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, model_validator

from runners.model.errors import ConfigError
from runners.model.validation import describe_validation_error, load_yaml_mapping

DEFAULT_SAY = "Done."


class Write(BaseModel):
    """Write a whole file (created or replaced), relative to the agent's workspace."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    write: str = Field(min_length=1, description="the file's path, relative to the workspace")
    content: str | None = Field(None, description="the file's text")
    source: str | None = Field(
        None, alias="from", description="a file (relative to the script) whose text it is"
    )

    @model_validator(mode="after")
    def _one_content(self) -> Write:
        if (self.content is None) == (self.source is None):
            raise ValueError(
                "give the file's text as `content` or a file to read it from as `from` (one of "
                "them)"
            )
        if Path(self.write).is_absolute() or ".." in Path(self.write).parts:
            raise ValueError(
                f"`write: {self.write}` must be a path inside the workspace (relative, no `..`)"
            )
        return self

    @property
    def text(self) -> str:
        assert self.content is not None, "Script.load reads `from` files into `content`"
        return self.content


class Run(BaseModel):
    """Run a shell command in the workspace."""

    model_config = ConfigDict(extra="forbid")

    run: str = Field(min_length=1, description="a shell command")


Action = Annotated[
    Annotated[Write, Tag("write")] | Annotated[Run, Tag("run")],
    Discriminator(
        lambda v: _kind(v, ("write", "run")),
        custom_error_type="action",
        custom_error_message="an action has exactly one of the keys `write:` or `run:`",
    ),
]


class Tools(BaseModel):
    """Several tool calls in one turn."""

    model_config = ConfigDict(extra="forbid")

    tools: list[Action] = Field(min_length=1)


class Say(BaseModel):
    """The final answer of the checkpoint's run."""

    model_config = ConfigDict(extra="forbid")

    say: str


Turn = Annotated[
    Annotated[Write, Tag("write")]
    | Annotated[Run, Tag("run")]
    | Annotated[Tools, Tag("tools")]
    | Annotated[Say, Tag("say")],
    Discriminator(
        lambda v: _kind(v, ("write", "run", "tools", "say")),
        custom_error_type="turn",
        custom_error_message=(
            "a turn has exactly one of the keys `write:`, `run:`, `tools:` or `say:`"
        ),
    ),
]


def _kind(value: Any, kinds: tuple[str, ...]) -> str | None:
    """The turn's kind: the one of `kinds` its mapping has as a key (None: pydantic says what is
    expected)."""
    if isinstance(value, BaseModel):
        value = value.model_dump(by_alias=True)
    if not isinstance(value, dict):
        return None
    found = [k for k in kinds if k in value]
    return found[0] if len(found) == 1 else None


class Script(BaseModel):
    """The whole script file."""

    model_config = ConfigDict(extra="forbid")

    checkpoints: dict[str, list[Turn]] = Field(
        default_factory=dict, description="the turns of each checkpoint"
    )
    default: list[Turn] | None = Field(None, description="the turns of a checkpoint not listed")

    @model_validator(mode="after")
    def _well_formed(self) -> Script:
        problems = []
        sessions = {
            **{f"checkpoints.{k}": v for k, v in self.checkpoints.items()},
            **({"default": self.default} if self.default is not None else {}),
        }
        if not sessions:
            problems.append(
                "field `checkpoints`: the script has no turns (give `checkpoints:` or `default:`)"
            )
        for where, turns in sessions.items():
            for index, turn in enumerate(turns[:-1]):
                if isinstance(turn, Say):
                    problems.append(
                        f"field `{where}.{index}`: `say` ends the run, so it must be the last turn"
                    )
        if problems:
            raise ValueError("; ".join(problems))
        return self

    def turns_for(self, checkpoint: str | None) -> list[Turn]:
        """The checkpoint's turns, each run ending with a `say`; KeyError naming what there is."""
        turns = self.checkpoints.get(checkpoint or "") if checkpoint else None
        if (
            turns is None
            and checkpoint is None
            and len(self.checkpoints) == 1
            and self.default is None
        ):
            turns = next(iter(self.checkpoints.values()))
        if turns is None:
            turns = self.default
        if turns is None:
            raise KeyError(
                f"the script has no turns for {checkpoint or 'this run'} (it has "
                f"{', '.join(self.checkpoints) or 'none'}, and no `default:`)"
            )
        return turns if turns and isinstance(turns[-1], Say) else [*turns, Say(say=DEFAULT_SAY)]

    @classmethod
    def load(cls, path: Path) -> Script:
        """The script at `path` (YAML or JSON), `from:` files read; a ConfigError naming the file
        and field."""
        from pydantic import ValidationError

        path = Path(path).resolve()
        data = load_yaml_mapping(path)
        try:
            script = cls.model_validate(data)
        except ValidationError as exc:
            raise ConfigError(path, describe_validation_error(exc, cls)) from None
        for where, turns in [
            *((f"checkpoints.{k}", v) for k, v in script.checkpoints.items()),
            *([("default", script.default)] if script.default is not None else []),
        ]:
            for index, turn in enumerate(turns):
                actions = turn.tools if isinstance(turn, Tools) else [turn]
                for number, action in enumerate(actions):
                    if isinstance(action, Write) and action.source is not None:
                        field = f"{where}.{index}" + (
                            f".tools.{number}" if isinstance(turn, Tools) else ""
                        )
                        action.content = _read_source(path, action.source, field)
        return script


def check_script(path: Path, checkpoints: list[str], where: str) -> Script:
    """The script at `path`, with turns for every checkpoint of a run; bad input said before any
    step runs (`where` names who gave it)."""
    script = Script.load(path)
    missing = [
        name for name in checkpoints if name not in script.checkpoints and script.default is None
    ]
    if missing:
        raise ConfigError(
            path,
            f"field `checkpoints`: no turns for {', '.join(missing)} (it has "
            f"{', '.join(script.checkpoints) or 'none'}; add them, or a `default:`), "
            f"for {where}",
        )
    return script


def _read_source(script: Path, source: str, field: str) -> str:
    file = (script.parent / source).resolve()
    try:
        return file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(script, f"field `{field}.from`: {file} not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(
            script, f"field `{field}.from`: cannot read {file} as UTF-8 text ({exc})"
        ) from None
