"""Where one run of agents keeps everything, and what one agent step leaves there.

```
<run>/
  submissions/<agent>/<problem>/<checkpoint>/   the workspace each step left: the layout the grader
                                                reads
                                                (`runners batch --submissions <run>/submissions`)
  agent-steps/<agent>/<problem>/<checkpoint>/   step.json (StepRecord), stdout.txt, stderr.txt
  agent-steps/<agent>/<problem>/.lock           taken while a step of that chain runs
  grades/<agent>/<problem>/<checkpoint>/        the grader's artifacts (result.json, reports, logs)
```
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, Field

from runners.agents.report import AgentReport
from runners.agents.tokens import TokenCheck
from runners.egress.proxy import EgressRecord
from runners.modelserver.usage import Served

STEP_FILE = "step.json"
STEP_SCHEMA = 1


@dataclass(frozen=True)
class RunLayout:
    root: Path

    @property
    def submissions(self) -> Path:
        return self.root / "submissions"

    def snapshot(self, agent: str, problem: str, checkpoint: str) -> Path:
        return self.submissions / agent / problem / checkpoint

    def chain_dir(self, agent: str, problem: str) -> Path:
        return self.root / "agent-steps" / agent / problem

    def step_dir(self, agent: str, problem: str, checkpoint: str) -> Path:
        return self.chain_dir(agent, problem) / checkpoint

    def grade_dir(self, agent: str, problem: str, checkpoint: str) -> Path:
        return self.root / "grades" / agent / problem / checkpoint


class StepRecord(BaseModel):
    """What one agent step did (step.json)."""

    schema_version: int = STEP_SCHEMA
    agent: str
    problem: str
    checkpoint: str
    number: int = Field(description="the checkpoint's position, from 1")
    command: list[str] = Field(description="the command template, before placeholders are filled")
    agent_key: str = Field(
        "",
        description="a hash of the agent's settings: a step run with other settings is "
        "run again when the run is resumed",
    )
    repeat: int = Field(1, description="which repeat of the agent (from 1)")
    sandbox: str
    network: bool = False
    network_mode: str = Field(
        "none", description="none, host (the whole network) or allow-list (the proxy)"
    )
    started_from: str = Field(
        description="`starter`, `empty`, or the checkpoint whose workspace it continued"
    )
    started_at: float = 0.0
    duration: float = Field(0.0, description="the agent's wall time, seconds")
    exit_code: int | None = None
    timed_out: bool = False
    oom_killed: bool = False
    failure: str | None = Field(None, description="why the step failed (None: it did not)")
    infrastructure: bool = Field(False, description="the failure is the harness's, not the agent's")
    not_started: bool = Field(
        False,
        description="the agent never ran: its program could not be started, or "
        "it failed before doing anything (no change, no model use); an "
        "error of the agent's configuration, never graded",
    )
    report: AgentReport = Field(default_factory=AgentReport)
    excerpt: str = ""
    output_truncated: bool = False
    notes: list[str] = Field(default_factory=list)
    flags: list[str] = Field(default_factory=list)
    files: int = Field(0, description="files and directories in the snapshot")
    egress: EgressRecord | None = Field(
        None, description="allow-list: what the proxy let through, refused, counted"
    )
    budget_stop: str | None = Field(None, description="the cap that stopped (or skipped) the step")
    token_check: TokenCheck | None = Field(
        None, description="the proxy's token count against the agent's"
    )

    @property
    def tokens(self) -> int | None:
        """The step's tokens: the proxy's count when it carried the model traffic, else the
        agent's."""
        if self.egress is not None and self.egress.routed.requests:
            return self.egress.routed.total_tokens
        usage = self.report.token_usage()
        return int(usage["total"]) if usage is not None else None

    @property
    def token_mismatch(self) -> bool:
        return self.token_check is not None and self.token_check.matches is False

    preset: str | None = Field(
        None, description="the preset the agent was (runners.agents.presets)"
    )
    model: str | None = Field(None, description="the model it asked for (a preset's `model`)")
    transcript: list[str] = Field(
        default_factory=list,
        description="the session logs the CLI wrote, kept beside step.json (paths relative to it)",
    )
    model_server: Served | None = Field(
        None, description="a dry run: what the scripted model server served"
    )

    @property
    def failed(self) -> bool:
        return self.failure is not None

    def save(self, step_dir: Path) -> Path:
        step_dir.mkdir(parents=True, exist_ok=True)
        path = step_dir / STEP_FILE
        partial = path.with_suffix(".json.partial")
        partial.write_text(self.model_dump_json(indent=2), encoding="utf-8")
        partial.replace(path)  # readers see the old record or the new one, never half of one
        return path

    @classmethod
    def load(cls, step_dir: Path) -> StepRecord | None:
        path = step_dir / STEP_FILE
        try:
            return cls.model_validate_json(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
