"""What a preset knows about one coding-agent CLI: its package at a pinned version, its headless
command, how it is pointed at a model server, where it keeps its transcript, how its output reads.

A preset fills an agent's `command`, `env` and `pass_env` (runners.agents.spec); at each step the
harness installs it (an agent image for docker, a cached toolchain elsewhere: install.py), writes
its home files, points it at the scripted model server on a dry run (or at the user's `base_url`),
then keeps its transcript and reads its report.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from runners.agents.prices import estimate_cost
from runners.agents.report import AgentReport, read_report

#: A dry run's API key: the CLIs refuse to start without one, and the scripted server takes any.
DRY_RUN_KEY = "runners-dry-run"


@dataclass(frozen=True)
class Preset:
    name: str  # claude-code: what `preset:` says, and the model server's client path segment
    title: str
    package: str  # the npm or PyPI package
    version: str  # pinned (docs/agents.md says how to change it)
    installer: Literal["npm", "pip"]
    program: str  # the executable the package installs
    key_env: str  # the variable holding the API key, passed by name from the host
    env: Mapping[str, str] = field(default_factory=dict)  # set on every run
    home_files: Mapping[str, str] = field(
        default_factory=dict
    )  # written into the private home first
    transcripts: tuple[str, ...] = ()  # globs, relative to the home, of the session logs it writes
    extra_keys: tuple[str, ...] = ()  # other key variables a dry run fills (LiteLLM picks by model)

    def argv(self, model: str | None) -> list[str]:
        """The headless command (a template: runners.agents.command), `--model` included when
        given."""
        raise NotImplementedError

    def key_for(self, model: str | None) -> str:
        """The variable the key is read from for `model` (LiteLLM-based CLIs: by provider)."""
        return self.key_env

    def model_env(self, url: str) -> dict[str, str]:
        """Variables that point the CLI at a model server at `url` (a base URL ending in the
        client's path segment)."""
        return {}

    def model_args(self, url: str) -> list[str]:
        """Flags that point the CLI at `url` (when variables cannot)."""
        return []

    def dry_run_args(self) -> list[str]:
        """Flags only a dry run needs (e.g. the edit format the scripted server writes)."""
        return []

    def parse(self, stdout: str, stderr: str, transcripts: dict[str, str]) -> AgentReport:
        """The CLI's own account (final text, error, tokens, cost, turns)."""
        return read_report(stdout, stderr)

    def report(
        self, stdout: str, stderr: str, transcripts: dict[str, str], model: str | None
    ) -> AgentReport:
        """`parse`, with the cost estimated from the price table when the CLI gave tokens but
        none."""
        report = self.parse(stdout, stderr, transcripts)
        if report.cost_usd is None and model:
            estimated = estimate_cost(model, report)
            if estimated is not None:
                report.cost_usd, report.cost_note = estimated
                report.cost_estimated = True
        return report

    @property
    def image(self) -> str:
        """The docker image with the CLI installed (built on first use: install.py)."""
        return f"runners-agent-{self.name}:{self.version}"

    @property
    def requirement(self) -> str:
        return (
            f"{self.package}@{self.version}"
            if self.installer == "npm"
            else f"{self.package}=={self.version}"
        )
