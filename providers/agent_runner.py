"""Promptfoo provider: one row = one agent solving one problem checkpoint, then graded by `runners`.

The agent is a command (any coding-agent CLI, or a script), run in a sandbox: for each checkpoint
it gets the checkpoint's specification and the workspace the previous checkpoint left; what it
leaves is saved and graded with the problem's hidden tests. One provider entry per agent:

    providers:
      - id: file://providers/agent_runner.py
        label: claude
        config:
          agent: {name: claude, command: "claude -p {prompt} --output-format json",
                  pass_env: [ANTHROPIC_API_KEY], network: true, timeout: 1800}
          problems: problems
          timeout: 7200000           # promptfoo's per-call limit (ms): a row may run several steps

Rows of later checkpoints wait for the earlier ones of the same agent and problem (a file lock,
across promptfoo's worker processes). Every `config` key is in docs/agents.md and validated by
`runners.agents.promptfoo`. Returns `output`, `metadata` (the ExecutionResult plus `agent_step`),
`latencyMs` (the agent's time), and `cost`/`tokenUsage` when the agent reported them; bad input
gives `{"error": ...}` naming the key. Only the standard library is imported at load time.
"""

from __future__ import annotations

import sys
import traceback
from typing import Any


def call_api(
    prompt: str, options: dict[str, Any] | None, context: dict[str, Any] | None
) -> dict[str, Any]:
    """Run the agent's steps up to this row's checkpoint, then grade what it left."""
    try:
        from runners.agents.promptfoo import call
    except ImportError as exc:
        return {
            "error": "runners agent provider: cannot import the `runners` package with "
            f"{sys.executable} ({exc}); set PROMPTFOO_PYTHON to the project's .venv/bin/python"
        }
    try:
        return call(options, context)
    except Exception as exc:  # noqa: BLE001 - `call` answers every mistake itself: a bug, still no traceback row
        print(traceback.format_exc(), file=sys.stderr, flush=True)
        return {"error": f"runners agent provider: {type(exc).__name__}: {exc}"}
