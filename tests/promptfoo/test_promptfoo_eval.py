"""A real, plain `npx promptfoo eval` (from the project root, no variable exported) of three
agents on a tiny problem.

Checked against its JSON output: one column per agent, each row's pass/fail equal to what
`python -m runners run` reports for the same cell (the CLI is run for comparison), per-group
named scores per row and per column, error rows for an agent whose submission path is wrong,
and the project's settings (its .env) applied: its Python, its data directory, no cache.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from pf_support import CHECKPOINTS, PROBLEM, PROMPTFOO_DIR, ROOT, need_promptfoo, plain_env

pytestmark = [pytest.mark.node, pytest.mark.slow]

GROUP_KEYS = {
    "Core": "core",
    "Functionality": "functionality",
    "Error": "error",
    "Regression": "regression",
}


def rows(run) -> list[dict]:
    # The order of results[] is not guaranteed: sort by (test, column).
    return sorted(run.results["results"]["results"], key=lambda r: (r["testIdx"], r["promptIdx"]))


def column(run, agent: str) -> int:
    labels = [p["provider"] for p in run.results["results"]["prompts"]]
    return labels.index(f"agent-{agent}")


def cell(run, agent: str, checkpoint: str) -> dict:
    idx = column(run, agent)
    found = [
        r
        for r in rows(run)
        if r["promptIdx"] == idx and r["testCase"]["metadata"]["checkpoint"] == checkpoint
    ]
    assert len(found) == 1, f"expected one row for {agent} {checkpoint}, got {len(found)}"
    return found[0]


@pytest.fixture(scope="module")
def cli_results(promptfoo_eval, tmp_path_factory) -> dict[tuple[str, str], tuple[int, dict]]:
    """`python -m runners run` on every (working agent, checkpoint) cell: exit code and JSON."""
    out = tmp_path_factory.mktemp("cli")
    world = promptfoo_eval.world
    found = {}
    for agent in ("good", "partial"):
        for checkpoint in CHECKPOINTS:
            json_file = out / f"{agent}-{checkpoint}.json"
            proc = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "runners",
                    "run",
                    str(world["problems"] / PROBLEM),
                    "--checkpoint",
                    checkpoint,
                    "--submission",
                    str(world[agent] / PROBLEM / checkpoint),
                    "--sandbox",
                    "none",
                    "--pass-policy",
                    "all-cases",
                    "--json",
                    str(json_file),
                    "--output",
                    str(out / f"{agent}-{checkpoint}"),
                ],
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
            assert proc.returncode in (0, 1), proc.stdout + proc.stderr
            found[(agent, checkpoint)] = (proc.returncode, json.loads(json_file.read_text()))
    return found


def test_plain_eval_runs_with_the_project_settings(promptfoo_eval):
    results = promptfoo_eval.results
    assert results["metadata"]["promptfooVersion"] == "0.123.1"
    major, minor = (int(x) for x in results["metadata"]["nodeVersion"].lstrip("v").split(".")[:2])
    assert (major, minor) >= (22, 22), "promptfoo must run on the Node 22 from node_modules/.bin"
    # promptfoo exits 100 when some rows did not pass: the partial and broken agents.
    assert promptfoo_eval.proc.returncode == 100, promptfoo_eval.proc.stderr[-2000:]
    # The project's Python ran the generator and the provider (the system one has no `runners`).
    assert "No module named" not in promptfoo_eval.proc.stdout + promptfoo_eval.proc.stderr
    assert all(
        r["response"] and r["response"].get("metadata")
        for r in rows(promptfoo_eval)
        if r["provider"]["label"] != "agent-broken"
    )
    # Its data is in the project, not in ~/.promptfoo.
    assert not (promptfoo_eval.home / ".promptfoo").exists()
    assert (promptfoo_eval.config_dir / "promptfoo.db").is_file()  # what the viewer reads
    assert results["evalId"] in (promptfoo_eval.config_dir / "evalLastWritten").read_text()
    # The provider cache stayed off: nothing written, nothing replayed.
    assert not (promptfoo_eval.config_dir / "cache" / "cache.json").exists()
    assert all(
        r["response"] is None or r["response"].get("cached") is False for r in rows(promptfoo_eval)
    )


def test_one_column_per_agent_and_one_row_per_checkpoint(promptfoo_eval):
    prompts = promptfoo_eval.results["results"]["prompts"]
    assert [p["provider"] for p in prompts] == [f"agent-{a}" for a in promptfoo_eval.agents]
    all_rows = rows(promptfoo_eval)
    assert len(all_rows) == len(promptfoo_eval.agents) * len(CHECKPOINTS)
    cells = sorted(
        {
            (r["testCase"]["metadata"]["problem"], r["testCase"]["metadata"]["checkpoint"])
            for r in all_rows
        }
    )
    assert cells == [(PROBLEM, cp) for cp in CHECKPOINTS]
    assert not any(
        r["testCase"].get("description") or r["vars"] for r in all_rows
    )  # no name columns
    for row in all_rows:
        assert row["provider"]["label"] == prompts[row["promptIdx"]]["provider"]
        assert row["testCase"]["metadata"]["framework"] == "pytest"


@pytest.mark.parametrize("agent", ["good", "partial"])
@pytest.mark.parametrize("checkpoint", CHECKPOINTS)
def test_row_verdict_and_counts_match_the_cli(promptfoo_eval, cli_results, agent, checkpoint):
    code, cli_json = cli_results[(agent, checkpoint)]
    row = cell(promptfoo_eval, agent, checkpoint)
    meta = row["response"]["metadata"]
    assert row["success"] is (code == 0), f"promptfoo says {row['success']}, the CLI exited {code}"
    assert row["failureReason"] == (0 if code == 0 else 1)
    assert meta["passed"] is (code == 0)
    assert meta["pass_counts"] == cli_json["pass_counts"]
    assert meta["total_counts"] == cli_json["total_counts"]
    assert [(t["id"], t["status"]) for t in meta["tests"]] == [
        (t["id"], t["status"]) for t in cli_json["tests"]
    ]
    # Score and named scores per group, from the CLI's counts.
    passed, total = cli_json["pass_counts"], cli_json["total_counts"]
    expected = {GROUP_KEYS[g]: passed[g] / total[g] for g in total}
    rate = sum(passed.values()) / sum(total.values())
    assert row["score"] == pytest.approx(rate)
    # Besides the groups', the code-quality figures of the submission (never the score).
    quality = meta["quality"]["metrics"]
    figures = {
        "code_dup": quality["duplicated_lines"] / quality["loc"],
        "code_lint": quality["lint_findings"] / quality["loc"],
    }
    if checkpoint == "checkpoint_2":  # the growth since checkpoint_1's lines
        figures["code_growth"] = (
            meta["quality"]["growth"]["loc"] / meta["quality"]["previous"]["loc"]
        )
    assert row["namedScores"] == pytest.approx({"tests": rate, **expected, **figures})
    assert row["gradingResult"]["pass"] is (code == 0)
    # One check per row (the viewer's badge is the verdict); its reason says why in one line.
    checks = row["gradingResult"].get("componentResults") or [row["gradingResult"]]
    assert len(checks) == 1
    reason = checks[0]["reason"]
    assert (
        reason == ("policy all-cases met" if code == 0 else meta["headline"]) and "\n" not in reason
    )
    # Weighted by the number of tests: the column sums are counts of tests.
    weights = row["gradingResult"]["namedScoreWeights"]
    assert {k: v for k, v in weights.items() if not k.startswith("code_")} == {
        **{GROUP_KEYS[g]: total[g] for g in total},
        "tests": sum(total.values()),
    }
    # The row's text: its name, the verdict and the counts (each once), and the provider's own
    # latency (not promptfoo's queue-inclusive one).
    verdict = "PASS" if code == 0 else "FAIL"
    lines = row["response"]["output"].splitlines()
    assert (
        lines[0]
        == f"{PROBLEM} · {checkpoint}: {verdict} {sum(passed.values())}/{sum(total.values())} tests"
    )
    short = [
        f"{g} {passed[g]}/{total[g]}" for g in GROUP_KEYS if g in total and passed[g] < total[g]
    ]
    assert lines[1] == (" · ".join(short) if short else "flags: unsandboxed")
    assert row["latencyMs"] == meta["run_ms"] > 0
    # Nothing is lost: the run's artifacts are kept beside its JSON result.
    assert (Path(meta["artifacts_dir"]) / "result.json").is_file()


def test_expected_outcomes_of_the_example_agents(promptfoo_eval):
    assert cell(promptfoo_eval, "good", "checkpoint_2")["success"] is True
    partial = cell(promptfoo_eval, "partial", "checkpoint_2")
    assert partial["success"] is False
    groups = {
        k: v for k, v in partial["namedScores"].items() if k in ("tests", *GROUP_KEYS.values())
    }
    assert groups == pytest.approx({"tests": 4 / 6, "core": 0.5, "error": 1.0, "regression": 2 / 3})


def test_column_metrics_count_the_tests_of_each_group_over_the_rows(promptfoo_eval, cli_results):
    """What the viewer shows in a column header: namedScores / namedScoreWeights, as
    `pct% (namedScores/namedScoreWeights)`. Both are counts of tests: the passed ones and all."""
    for agent in ("good", "partial"):
        metrics = promptfoo_eval.results["results"]["prompts"][column(promptfoo_eval, agent)][
            "metrics"
        ]
        passed_sum: dict[str, int] = {}
        total_sum: dict[str, int] = {}
        for checkpoint in CHECKPOINTS:
            _, cli_json = cli_results[(agent, checkpoint)]
            for group, total in cli_json["total_counts"].items():
                key = GROUP_KEYS[group]
                total_sum[key] = total_sum.get(key, 0) + total
                passed_sum[key] = passed_sum.get(key, 0) + cli_json["pass_counts"].get(group, 0)
        total_sum["tests"], passed_sum["tests"] = sum(total_sum.values()), sum(passed_sum.values())
        assert {k: metrics["namedScoreWeights"][k] for k in total_sum} == total_sum
        assert {k: metrics["namedScores"][k] for k in passed_sum} == pytest.approx(passed_sum)
        assert "mean_pass_rate" not in metrics["namedScores"]
        assert metrics["testPassCount"] + metrics["testFailCount"] == len(CHECKPOINTS)
        assert metrics["testErrorCount"] == 0


def test_a_piped_eval_says_what_runs_as_it_runs(promptfoo_eval):
    """`npx promptfoo eval | cat` printed nothing for minutes: the provider's stage lines (its
    worker's stderr) are in promptfoo's log, naming the agent, the problem and the checkpoint,
    before the eval's end."""
    out = promptfoo_eval.proc.stdout
    end = out.index("Eval complete")
    for agent in ("good", "partial"):
        for checkpoint in CHECKPOINTS:
            for stage in ("preparing toolchain", "running tests", "collecting"):
                line = (
                    f"Python worker stderr: INFO runners: {agent} · {PROBLEM} · {checkpoint}: "
                    f"{stage}"
                )
                assert 0 <= out.find(line) < end, (
                    f"{line!r} not logged before the end:\n{out[:3000]}"
                )
    assert re.search(
        rf"INFO runners: partial · {PROBLEM} · checkpoint_2: FAIL · Core 1/2, Error 1/1, "
        r"Regression 2/3 \(\d+\.\d s\)",
        out,
    )
    assert "Python worker crashed" not in out + promptfoo_eval.proc.stderr


def test_broken_submission_path_gives_error_rows(promptfoo_eval):
    broken = promptfoo_eval.world["broken"]
    idx = column(promptfoo_eval, "broken")
    broken_rows = [r for r in rows(promptfoo_eval) if r["promptIdx"] == idx]
    assert len(broken_rows) == len(CHECKPOINTS)
    for row in broken_rows:
        assert row["success"] is False
        assert row["failureReason"] == 2  # ERROR, not a failed assertion
        assert f"provider config `submissions`: {broken} is not a directory" in row["error"]
        assert "Traceback" not in row["error"]
        assert row["gradingResult"] is None
    metrics = promptfoo_eval.results["results"]["prompts"][idx]["metrics"]
    assert metrics["testErrorCount"] == len(CHECKPOINTS) and metrics["testPassCount"] == 0
    stats = promptfoo_eval.results["results"]["stats"]
    assert stats["errors"] == len(CHECKPOINTS)


def test_plain_eval_of_the_project_config(tmp_path):
    """The README's own command on the project's promptfooconfig.yaml, one cell of it: from the
    project root, with only PATH and HOME (so the developer's toolchain cache is used)."""
    need_promptfoo()
    home = Path(os.environ.get("HOME") or tmp_path)
    had_home_dir = (home / ".promptfoo").exists()
    out = tmp_path / "results.json"
    proc = subprocess.run(
        [
            "npx",
            "promptfoo",
            "eval",
            "--filter-providers",
            "alpha",
            "--filter-metadata",
            "problem=inventory_cli",
            "--filter-metadata",
            "checkpoint=checkpoint_1",
            "-o",
            str(out),
            "--no-table",
        ],
        cwd=ROOT,
        env=plain_env(home),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0 and out.is_file(), proc.stdout[-3000:] + proc.stderr[-3000:]
    results = json.loads(out.read_text(encoding="utf-8"))
    try:
        [row] = results["results"]["results"]
        assert row["success"] is True, row.get("error")
        assert row["response"]["output"].startswith("inventory_cli · checkpoint_1: PASS")
        meta = row["response"]["metadata"]
        expected = yaml.safe_load((ROOT / "examples" / "expected.yaml").read_text(encoding="utf-8"))
        assert {
            g: [meta["pass_counts"][g], n] for g, n in meta["total_counts"].items()
        } == expected["inventory_cli"]["alpha"]["checkpoint_1"]
        assert results["evalId"] in (PROMPTFOO_DIR / "evalLastWritten").read_text()
        assert (home / ".promptfoo").exists() is had_home_dir
        assert not (PROMPTFOO_DIR / "cache" / "cache.json").exists()
    finally:
        subprocess.run(
            ["npx", "promptfoo", "delete", "eval", results["evalId"]],
            cwd=ROOT,
            env=plain_env(home),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )


def test_make_demo_leaves_the_three_agent_comparison_for_the_viewer():
    """`npx promptfoo view` opens the latest eval: `make demo` runs the comparison the README
    describes (three agents) last, and each of its two evals is named for what it is."""
    recipe = subprocess.run(
        ["make", "-n", "-s", "demo"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    evals = [line for line in recipe.splitlines() if "scripts/compare.sh" in line]
    assert evals == [
        "bash scripts/compare.sh -c promptfooconfig.agents.yaml",
        "bash scripts/compare.sh",
    ], recipe
    comparison = yaml.safe_load((ROOT / "promptfooconfig.yaml").read_text(encoding="utf-8"))
    agents = yaml.safe_load((ROOT / "promptfooconfig.agents.yaml").read_text(encoding="utf-8"))
    assert [p["label"] for p in comparison["providers"]] == ["alpha", "beta", "gamma"]
    assert "alpha, beta, gamma" in comparison["description"] and "demo" in comparison["description"]
    assert "scripted agents run, then graded" in agents["description"]


def test_compare_says_which_eval_the_viewer_opens(promptfoo_eval, tmp_path):
    out = tmp_path / "one.json"
    proc = subprocess.run(
        [
            "bash",
            "scripts/compare.sh",
            "-c",
            str(promptfoo_eval.config),
            "--filter-providers",
            "agent-good",
            "--filter-metadata",
            "checkpoint=checkpoint_1",
            "-o",
            str(out),
            "--no-table",
        ],
        cwd=ROOT,
        env=plain_env(promptfoo_eval.home),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    try:
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        assert (
            "compare: every row is a grade; open the viewer with: npx promptfoo view   "
            "(http://localhost:15500; it opens this eval: "
            "runners promptfoo test)"
        ) in proc.stdout
    finally:
        if out.is_file():
            subprocess.run(
                ["npx", "promptfoo", "delete", "eval", json.loads(out.read_text())["evalId"]],
                cwd=ROOT,
                env=plain_env(promptfoo_eval.home),
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
