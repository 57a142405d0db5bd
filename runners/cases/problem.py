"""The problem and checkpoint objects problem scripts see (SCBench's `ProblemConfig` and
`CheckpointConfig`: `problem.path`, `checkpoint.name`, `checkpoint.path`, `iterate_checkpoints()`).

Inside the sandbox the harness has already checked `config.yaml` (unknown keys refused), so
keys that are the harness's own (framework, markers, limits...) are passed over here.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, model_validator

from . import bounded_yaml
from .spec import AdapterConfig, CheckpointCases, expand_groups


class ConfigError(Exception):
    pass


class StaticAsset(BaseModel):
    model_config = ConfigDict(extra="ignore")

    path: Path
    save_path: Path | None = None


class CheckpointConfig(CheckpointCases):
    model_config = ConfigDict(extra="ignore")

    path: Path | None = None  # type: ignore[assignment]  # SCBench's scripts join paths to it
    version: int = 1
    order: int | None = None
    state: Literal["Draft", "Core Tests", "Full Tests", "Verified"] = "Draft"
    env: dict[str, str] = Field(default_factory=dict)
    timeout: float | None = None
    spec_override: str | None = Field(None, exclude=True)
    _name: str = PrivateAttr("")

    @property
    def name(self) -> str:
        return Path(self.path).name if self.path else self._name

    def get_spec_text(self) -> str:
        if self.spec_override is not None:
            return self.spec_override
        return (Path(self.path or "") / self.specification).read_text(encoding="utf-8")


class ProblemConfig(BaseModel):
    model_config = ConfigDict(extra="ignore")

    name: str
    path: Path = Path(".")
    version: int = 1
    description: str = ""
    tags: list[str] = Field(default_factory=list)
    author: str | None = None
    category: str = "NOT_SET"
    difficulty: Literal["Easy", "Medium", "Hard"] = "Easy"
    inspiration: str | None = None
    checkpoints: dict[str, CheckpointConfig]
    design_doc: str = "design_doc.md"
    static_assets: dict[str, StaticAsset] = Field(default_factory=dict)
    entry_file: str = "main"
    loader_script: str = "loader.py"
    loader_entrypoint: str = "Loader"
    adapter: AdapterConfig
    env: dict[str, str] = Field(default_factory=dict)
    timeout: float | None = None

    @model_validator(mode="after")
    def _resolve(self) -> ProblemConfig:
        items = []
        for position, (name, checkpoint) in enumerate(self.checkpoints.items(), start=1):
            checkpoint._name = name
            checkpoint.env = {**self.env, **checkpoint.env}
            if checkpoint.timeout is None:
                checkpoint.timeout = self.timeout
            if checkpoint.order is None:
                checkpoint.order = position
            items.append((name, checkpoint.order, checkpoint))
        expand_groups(items)
        return self

    @classmethod
    def from_yaml(cls, path: Path | str) -> ProblemConfig:
        path = Path(path)
        config = path / "config.yaml" if path.is_dir() else path
        if not config.is_file() or config.suffix not in (".yaml", ".yml"):
            raise ConfigError(f"{path}: not a problem directory or config file")
        data: Any = bounded_yaml.load(config.read_text(encoding="utf-8")) or {}
        problem = cls.model_validate({**data, "path": config.parent})
        for name, checkpoint in problem.checkpoints.items():
            checkpoint.path = (problem.path / (checkpoint.path or name)).resolve()
        return problem

    def load_checkpoint(self, name: str) -> CheckpointConfig:
        try:
            return self.checkpoints[name]
        except KeyError:
            raise ConfigError(
                f"no checkpoint named {name!r} (known: {', '.join(self.checkpoints)})"
            ) from None

    def iterate_checkpoint_items(self) -> Iterator[tuple[str, CheckpointConfig]]:
        yield from sorted(self.checkpoints.items(), key=lambda item: (item[1].order or 0, item[0]))

    def iterate_checkpoints(self) -> Iterator[CheckpointConfig]:
        for _, checkpoint in self.iterate_checkpoint_items():
            yield checkpoint
