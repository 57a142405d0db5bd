from typing import Any

from runners.cases.loading import (
    BaseLoader,
    CaseStore,
    GroupLoader,
    LoaderError,
    LoaderYieldType,
    NoOpStore,
)
from runners.cases.scripts import make_loader
from slop_code.evaluation.loaders import helpers


def get_script_loader(problem: Any, checkpoint: Any, use_placeholders: bool = False) -> Any:
    """The problem's loader (its `loader_script`), instantiated as the evaluation does."""
    return make_loader(problem, checkpoint)[0]


__all__ = [
    "BaseLoader",
    "CaseStore",
    "GroupLoader",
    "LoaderError",
    "LoaderYieldType",
    "NoOpStore",
    "get_script_loader",
    "helpers",
]
