from runners.cases.adapters.api import APIAdapter
from runners.cases.model import APICase, APIResult
from runners.cases.spec import APIAdapterConfig

__all__ = ["APIAdapter", "APIAdapterConfig", "APICase", "APIResult"]
