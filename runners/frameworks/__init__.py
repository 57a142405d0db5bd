"""Framework runners and their registry."""

from runners.frameworks.base import Invocation, Layout, RunContext, Runner, Verdict
from runners.frameworks.registry import register_runner, runner_class, runner_names

__all__ = [
    "Invocation",
    "Layout",
    "RunContext",
    "Runner",
    "Verdict",
    "register_runner",
    "runner_class",
    "runner_names",
]
