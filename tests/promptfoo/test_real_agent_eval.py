"""A real `npx promptfoo eval` of two real coding-agent CLIs (presets) on a dry run: Claude Code and
Codex CLI follow the same script from the scripted model server over problems/rangeset_lib, in
bubblewrap, each checkpoint graded.

What the viewer shows must be what the server served: each row's `tokenUsage` equals the step's
served totals, a known model's cost is there (Claude Code prices its own; Codex's is estimated from
the price table and says so), a model nobody can price leaves `cost` out rather than 0, and the
CLI's session log is linked from the row's metadata.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlparse

import pytest
import yaml
from conftest import run_eval
from pf_support import PROVIDERS, ROOT, need_promptfoo
from support import need_sandbox

from runners.agents.layout import StepRecord
from runners.model.environment import EnvironmentSpec

pytestmark = [pytest.mark.node, pytest.mark.slow, pytest.mark.bubblewrap, pytest.mark.real_agent]
SCRIPT = ROOT / "examples" / "agents" / "scripts" / "rangeset_lib.yaml"
AGENTS = {
    "claude": {"preset": "claude-code", "model": "claude-sonnet-4-5"},
    "codex": {"preset": "codex", "model": "gpt-5-codex"},
    "codex-unpriced": {"preset": "codex", "model": "a-model-nobody-prices"},
}


@pytest.fixture(scope="module")
def real_eval(tmp_path_factory):
    need_promptfoo()
    need_sandbox("bubblewrap")
    root = tmp_path_factory.mktemp("pf-real-agents")
    home = root / "home"
    home.mkdir()
    common = {
        "problems": str(ROOT / "problems"),
        "sandbox": "bubblewrap",
        "pass_policy": "all-cases",
        "wall_timeout": 300,
        "timeout": 3000000,
        "output": str(root / "runs"),
        "cache_dir": str(EnvironmentSpec().cache_dir),
    }
    config = {
        "description": "runners real agents dry run",
        "sharing": False,
        "prompts": [{"label": "spec", "raw": "Implement the checkpoint's specification"}],
        "providers": [
            {
                "id": f"file://{PROVIDERS / 'agent_runner.py'}",
                "label": name,
                "config": {
                    **common,
                    "agent": {"name": name, **agent, "dry_run": str(SCRIPT), "timeout": 900},
                },
            }
            for name, agent in AGENTS.items()
        ],
        "tests": [
            {
                "path": f"file://{PROVIDERS / 'tests_from_problems.py'}:generate_tests",
                "config": {"problems": str(ROOT / "problems"), "only": ["rangeset_lib"]},
            }
        ],
        "defaultTest": {
            "assert": [
                {
                    "type": "python",
                    "value": f"file://{PROVIDERS / 'assertions.py'}",
                    "metric": "tests",
                }
            ]
        },
    }
    path = root / "promptfooconfig.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    yield from run_eval(root, {}, path, home, list(AGENTS), "-j", "2")


def test_each_row_shows_the_tokens_the_server_served_and_links_the_transcript(real_eval):
    rows = real_eval.results["results"]["results"]
    assert len(rows) == 6 and real_eval.proc.returncode == 0, real_eval.proc.stdout[-3000:]
    for row in rows:
        agent = row["provider"]["label"]
        response = row["response"]
        step = StepRecord.model_validate(response["metadata"]["agent_step"])
        served = step.model_server
        assert (
            row["success"] and step.failure is None and served is not None and served.requests > 0
        )
        usage = response["tokenUsage"]
        assert (usage["prompt"], usage["completion"]) == (
            served.input_tokens,
            served.output_tokens,
        ), agent
        assert usage["total"] == served.total_tokens
        assert usage["completionDetails"]["cacheReadInputTokens"] == served.cache_read_tokens
        transcript = Path(urlparse(response["metadata"]["transcript"]).path)
        assert transcript.is_file() and transcript.stat().st_size > 0
        if agent == "codex-unpriced":
            # Unknown, not $0: the provider sends no cost, and the step says it is unknown.
            # (Promptfoo itself stores a row's missing cost as 0: its EvalResult does
            # `cost || 0`.)
            assert "cost" not in response and step.report.cost_usd is None
            assert "$" not in response["output"]
        else:
            assert response["cost"] > 0
            assert ("(estimated)" in response["output"]) is (agent == "codex")
