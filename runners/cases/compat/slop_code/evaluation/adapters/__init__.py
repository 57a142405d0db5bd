from typing import Protocol, Self, runtime_checkable

from runners.cases.adapters.base import Adapter as BaseAdapter
from runners.cases.adapters.base import AdapterError
from runners.cases.model import (
    APICase,
    APIResult,
    BaseCase,
    CaseResult,
    CaseResultError,
    CLICase,
    CLIResult,
)
from runners.cases.program import ADAPTERS as ADAPTER_REGISTRY
from runners.cases.spec import (
    DEFAULT_GROUP_TYPE,
    AdapterBase,
    AdapterConfig,
    APIAdapterConfig,
    CLIAdapterConfig,
    GroupType,
)
from slop_code.evaluation.adapters import api, cli, models


@runtime_checkable
class Adapter(Protocol):
    def __enter__(self) -> Self: ...

    def __exit__(self, *exc: object) -> None: ...

    def run_case(self, case: BaseCase) -> CaseResult: ...


__all__ = [
    "ADAPTER_REGISTRY",
    "DEFAULT_GROUP_TYPE",
    "APIAdapterConfig",
    "APICase",
    "APIResult",
    "Adapter",
    "AdapterBase",
    "AdapterConfig",
    "AdapterError",
    "BaseAdapter",
    "BaseCase",
    "CLIAdapterConfig",
    "CLICase",
    "CLIResult",
    "CaseResult",
    "CaseResultError",
    "GroupType",
    "api",
    "cli",
    "models",
]
