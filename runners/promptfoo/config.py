"""The Promptfoo provider's `config` block, validated, and the row it asks for, resolved.

`ProviderConfig` is what a user writes under `providers: - config:` (plus the keys promptfoo
itself adds); `resolve_cell` turns it and promptfoo's per-row context into a `Cell`: absolute
paths that exist, timeouts that fit inside promptfoo's own, the problem and checkpoint of the row.
Any mistake is a `BadInput` whose message names the key and what was expected; it becomes the
row's `{"error": ...}`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PositiveFloat,
    StrictBool,
    StrictStr,
    ValidationError,
    field_validator,
)

from runners.model.validation import describe_validation_error
from runners.outputs.report.links import DEFAULT_REPORTS, eval_report
from runners.util.suggest import did_you_mean

DEFAULT_PROBLEMS = "problems"
DEFAULT_OUTPUT = ".runners/promptfoo-runs"
DEFAULT_POLICY = "all-cases"
#: promptfoo's default per-call timeout of Python providers (REQUEST_TIMEOUT_MS), milliseconds.
PROMPTFOO_DEFAULT_TIMEOUT_MS = 300_000
#: The provider answers this many seconds before promptfoo's own per-call timeout fires.
TIMEOUT_MARGIN_S = 15.0
_SAFE_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")


class BadInput(Exception):
    """Something the user must fix in the YAML or on disk; becomes `{"error": ...}`."""


class GradingConfig(BaseModel):
    """The keys every provider that grades shares: where the problems are, how to grade, where
    to keep the artifacts, and the keys promptfoo adds itself."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    problems: StrictStr = DEFAULT_PROBLEMS
    sandbox: StrictStr = "auto"
    pass_policy: StrictStr = DEFAULT_POLICY
    wall_timeout: PositiveFloat | None = Field(
        None, strict=True, description="seconds for one test run"
    )
    overall_timeout: PositiveFloat | None = Field(
        None, strict=True, description="seconds for the whole row"
    )
    output: StrictStr = DEFAULT_OUTPUT
    report: StrictStr = Field(
        DEFAULT_REPORTS,
        description="where `runners report` writes the eval's page "
        "(each row's metadata `report` links there)",
    )
    quality: bool = Field(
        True, strict=True, description="measure the code-quality figures (docs/quality.md)"
    )
    cache_dir: StrictStr | None = None
    python: StrictStr | None = None
    node: StrictStr | None = Field(None, description="the Node JavaScript tests run on (as --node)")
    progress: StrictBool = Field(
        True, description="say each row's stage on stderr (promptfoo's log)"
    )
    # Set by promptfoo: the config file's directory, its per-call timeout (ms), and its own.
    base_path: StrictStr | None = Field(None, alias="basePath")
    timeout: PositiveFloat | None = Field(
        None, strict=True, description="promptfoo's per-call timeout (ms)"
    )
    workers: Any = None
    pythonExecutable: Any = None

    @field_validator("sandbox")
    @classmethod
    def _sandbox(cls, name: str) -> str:
        from runners.sandbox.registry import sandbox_choices

        if name not in sandbox_choices():
            raise ValueError(
                f"{name!r} is not one of "
                f"{', '.join(sandbox_choices())}{did_you_mean(name, sandbox_choices())}"
            )
        return name

    @field_validator("pass_policy")
    @classmethod
    def _policy(cls, name: str) -> str:
        from runners.model.policy import PassPolicy

        names = [p.value for p in PassPolicy]
        if name not in names:
            raise ValueError(
                f"{name!r} is not one of {', '.join(names)}{did_you_mean(name, names)}"
            )
        return name

    @field_validator("python")
    @classmethod
    def _python(cls, value: str | None) -> str | None:
        from runners.toolchains.which_python import is_path, parse_requirement

        if value and not is_path(value):
            parse_requirement(value)  # ValueError says what is wrong
        return value or None

    @field_validator("node")
    @classmethod
    def _node(cls, value: str | None) -> str | None:
        from runners.toolchains.which_node import EXPECTED, is_path, parse_requirement

        if value and not is_path(value):
            parse_requirement(value)  # ValueError: EXPECTED
        elif value and not Path(value).expanduser().is_file():
            raise ValueError(f"{value} is not a file ({EXPECTED})")
        return value or None

    @classmethod
    def parse(cls, config: Any) -> Self:
        if config is None:
            config = {}
        if not isinstance(config, dict):
            raise BadInput(f"provider `config` must be a mapping, got {type(config).__name__}")
        # `python: 3.10` in YAML is the number 3.1: say how to write it.
        for key in ("python", "node"):  # `python: 3.10` in YAML is the number 3.1
            if isinstance(config.get(key), int | float):
                raise BadInput(
                    f"provider config: field `{key}`: expected a quoted version "
                    f'("{"3.12" if key == "python" else "22"}"), a '
                    f"range or a path, got {config[key]!r}"
                )
        try:
            return cls.model_validate(config)
        except ValidationError as exc:
            raise BadInput(
                "provider config: " + "; ".join(describe_validation_error(exc, cls))
            ) from None


class ProviderConfig(GradingConfig):
    """The keys of the provider's `config` (docs/guide/compare-agents.md, docs/promptfoo.md)."""

    agent: StrictStr = Field(min_length=1, description="the agent's label")
    submissions: StrictStr = Field(min_length=1, description="the agent's submission root")
    ray_address: StrictStr | None = None


@dataclass(frozen=True)
class Cell:
    """Everything one row needs, resolved and checked."""

    agent: str
    submissions: Path
    problems: Path
    problem: str
    checkpoint: str
    problem_dir: Path
    submission: Path
    sandbox: str
    policy: str
    wall_timeout: float | None
    overall: float
    cache_dir: Path | None
    ray_address: str | None
    python: str | None
    output_dir: Path
    progress: bool = True
    node: str | None = None
    report: Path | None = None  # the eval's page, when promptfoo named the eval
    quality: bool = True


def resolve_cell(options: Any, context: Any) -> Cell:
    options = options if isinstance(options, dict) else {}
    context = context if isinstance(context, dict) else {}
    config = ProviderConfig.parse(options.get("config"))
    base = Path(config.base_path).expanduser().resolve() if config.base_path else Path.cwd()
    submissions = _directory(base, "submissions", config.submissions)
    problems = _directory(base, "problems", config.problems)
    overall = _overall_cap(config)

    vars_ = _mapping(context.get("vars"))
    metadata = _mapping(_mapping(context.get("test")).get("metadata"))
    refuse_config_error(metadata)
    problem = _cell_name(vars_, metadata, "problem")
    checkpoint = _cell_name(vars_, metadata, "checkpoint")
    problem_dir = problems / problem
    if not (problem_dir / "config.yaml").is_file():
        known = sorted(p.name for p in problems.iterdir() if (p / "config.yaml").is_file())
        raise BadInput(
            f"test `problem`: unknown problem {problem!r}{did_you_mean(problem, known)}: "
            f"{problem_dir}/config.yaml not found (problems under {problems}: "
            f"{', '.join(known) or 'none'})"
        )
    return Cell(
        agent=config.agent,
        submissions=submissions,
        problems=problems,
        problem=problem,
        checkpoint=checkpoint,
        problem_dir=problem_dir,
        submission=submissions / problem / checkpoint,
        sandbox=config.sandbox,
        policy=config.pass_policy,
        wall_timeout=config.wall_timeout,
        overall=overall,
        cache_dir=_path(base, config.cache_dir) if config.cache_dir else None,
        ray_address=config.ray_address or None,
        python=config.python,
        output_dir=_path(base, config.output)
        / _run_tag(vars_, context)
        / slug(config.agent)
        / problem
        / checkpoint,
        progress=config.progress,
        node=_node(base, config.node),
        report=report_page(base, config, vars_, context),
        quality=config.quality,
    )


def _node(base: Path, node: str | None) -> str | None:
    """A node path relative to the config's directory; a version as it is."""
    from runners.toolchains.which_node import is_path

    return str(_path(base, node)) if node and is_path(node) else node


def refuse_config_error(metadata: dict[str, Any]) -> None:
    """A test the generator made for a problem it could not load (providers/tests_from_problems.py):
    its row is an ERROR saying why."""
    error = metadata.get("config_error")
    if isinstance(error, str) and error:
        raise BadInput(error)


def report_page(
    base: Path, config: GradingConfig, vars_: dict[str, Any], context: dict[str, Any]
) -> Path | None:
    """The page `runners report --eval <id>` writes for this eval (provider config `report`)."""
    eval_id = vars_.get("__evalId") or context.get("evaluationId")
    return (
        eval_report(_path(base, config.report), eval_id)
        if isinstance(eval_id, str) and eval_id
        else None
    )


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _overall_cap(config: ProviderConfig) -> float:
    """Seconds the row may take: the answer must reach promptfoo before its own per-call timeout,
    which would leave its worker busy."""
    promptfoo_ms = config.timeout or _env_timeout_ms()
    cap_limit = promptfoo_ms / 1000.0 - TIMEOUT_MARGIN_S
    overall = config.overall_timeout
    if overall is None:
        if cap_limit <= 0:
            raise BadInput(
                f"provider config `timeout`: {promptfoo_ms:g} ms leaves no time for a test "
                f"run (the provider answers {TIMEOUT_MARGIN_S:g} s before it); raise it"
            )
        overall = cap_limit
    elif overall > cap_limit:
        raise BadInput(
            f"provider config `overall_timeout`: {overall:g} s must be at least "
            f"{TIMEOUT_MARGIN_S:g} s below promptfoo's per-call `timeout` "
            f"({promptfoo_ms:g} ms); raise `timeout` or lower `overall_timeout`"
        )
    wall = config.wall_timeout
    if wall is not None and wall >= overall:
        raise BadInput(
            f"provider config `wall_timeout`: {wall:g} s does not fit in the "
            f"provider's overall cap of {overall:g} s (promptfoo `timeout` "
            f"{promptfoo_ms:g} ms minus {TIMEOUT_MARGIN_S:g} s); raise `timeout`"
        )
    return overall


def _env_timeout_ms() -> float:
    text = os.environ.get("REQUEST_TIMEOUT_MS", "")
    try:
        value = float(text)
    except ValueError:
        return PROMPTFOO_DEFAULT_TIMEOUT_MS
    return value if value > 0 else PROMPTFOO_DEFAULT_TIMEOUT_MS


def _path(base: Path, text: str) -> Path:
    path = Path(text).expanduser()
    return (path if path.is_absolute() else base / path).resolve()


def _directory(base: Path, key: str, text: str) -> Path:
    path = _path(base, text)
    if not path.is_dir():
        raise BadInput(f"provider config `{key}`: {path} is not a directory")
    return path


def _cell_name(vars_: dict[str, Any], metadata: dict[str, Any], key: str) -> str:
    """The row's `key`: from the test's vars (hand-written tests), else its metadata (generated)."""
    where, value = (
        ("var", vars_.get(key))
        if vars_.get(key) not in (None, "")
        else ("metadata", metadata.get(key))
    )
    if value is None or value == "":
        raise BadInput(
            f"test metadata `{key}` (or var `{key}`) is required (tests come from "
            "providers/tests_from_problems.py)"
        )
    if not isinstance(value, str) or not _SAFE_NAME.match(value):
        raise BadInput(
            f"test {where} `{key}`: {value!r} is not a plain name (letters, digits, '_', '.', '-')"
        )
    return value


def _run_tag(vars_: dict[str, Any], context: dict[str, Any]) -> str:
    """Groups the artifacts of one `promptfoo eval`; repeats get their own directory."""
    tag = vars_.get("__evalId") or context.get("evaluationId")
    if not isinstance(tag, str) or not tag:
        tag = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    repeat = vars_.get("__repeatIndex", context.get("repeatIndex")) or 0
    tag = slug(tag)
    return f"{tag}-repeat-{repeat}" if isinstance(repeat, int) and repeat > 0 else tag


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("._") or "_"
