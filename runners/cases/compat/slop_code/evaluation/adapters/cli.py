from runners.cases.adapters.cli import CLIAdapter
from runners.cases.model import CLICase, CLIResult
from runners.cases.spec import CLIAdapterConfig

__all__ = ["CLIAdapter", "CLIAdapterConfig", "CLICase", "CLIResult"]
