"""Promptfoo provider: one row = one agent's submission for one problem checkpoint, graded by
`runners`.

Used from promptfooconfig.yaml, one provider entry (= one column in the viewer) per agent:

    providers:
      - id: file://providers/test_runner.py
        label: alpha
        config: {agent: alpha, submissions: examples/submissions/alpha, problems: problems}

Each test names its cell in `metadata` (providers/tests_from_problems.py writes them there; `vars`
with the same keys are read first, for hand-written tests): `{problem: ..., checkpoint: ...}`.
The submission is `<submissions>/<problem>/<checkpoint>/`, the problem `<problems>/<problem>/`.
Every `config` key (sandbox, pass_policy, wall_timeout, overall_timeout, output, cache_dir, python,
ray_address) is described in docs/promptfoo.md and validated by `runners.promptfoo.config`.

Returns `output` (a short readable summary), `metadata` (the whole `ExecutionResult` as JSON plus
`agent`, `problem`, `checkpoint`, `policy`, `passed`, `policies`) and `latencyMs`; bad input gives
`{"error": ...}` naming the key. Nothing here raises to promptfoo.

Only the standard library is imported at module level: promptfoo waits at most 30 s for a worker
to import this file, and `runners` (pydantic, ...) is imported on the first call instead.
"""

from __future__ import annotations

import sys
import traceback
from typing import Any


def call_api(
    prompt: str, options: dict[str, Any] | None, context: dict[str, Any] | None
) -> dict[str, Any]:
    """Run one checkpoint's hidden tests against one agent's submission."""
    try:
        from runners.promptfoo.call import call
    except ImportError as exc:
        return {
            "error": f"runners provider: cannot import the `runners` package with {sys.executable} "
            f"({exc}); set PROMPTFOO_PYTHON to the project's .venv/bin/python"
        }
    try:
        return call(options, context)
    except Exception as exc:  # noqa: BLE001 - `call` answers every mistake itself: a bug, still no traceback row
        print(traceback.format_exc(), file=sys.stderr, flush=True)
        return {"error": f"runners provider: {type(exc).__name__}: {exc}"}


def summarize(metadata: dict[str, Any]) -> str:
    """The row's short text (runners.promptfoo.output)."""
    from runners.promptfoo.output import summarize as _summarize

    return _summarize(metadata)
