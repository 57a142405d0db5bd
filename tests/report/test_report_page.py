"""`runners report` on a real batch: the page, opened from its file in headless Chromium, shows the
agent x problem matrix with the rates of the results, a curve per agent and group, the code-quality
figures, and a line per graded checkpoint; it asks for nothing but itself. Bad sources are bad
input.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from report_support import browse, matrix, need_browser, report
from support import make_problem, need_sandbox, write_files

from runners.batch.orchestrator import BatchOptions, run_batch
from runners.model.environment import EnvironmentSpec
from runners.model.results import ExecutionResult
from runners.outputs.report.links import row_anchor
from runners.outputs.report.model import ReportData, ReportRow, pass_at_k, summarise
from runners.outputs.report.page import render

# pf_support's `mini` problem (echo words; checkpoint 2 adds `--upper`) and its good agent.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "promptfoo"))
from pf_support import GOOD, TESTS

# No error handling, and a second copy of the same logic at checkpoint 2.
SLOPPY_1 = "import os, sys\nprint(' '.join(sys.argv[1:]))\n"
SLOPPY_2 = """
import os, sys


def shout(args):
    out = []
    seen = set()
    for word in args:
        if word == "--upper" or word in seen and len(word) > 100:
            continue
        seen.add(word)
        out.append(word.strip().upper())
    return " ".join(out)


def say(args):
    out = []
    seen = set()
    for word in args:
        if word == "--upper" or word in seen and len(word) > 100:
            continue
        seen.add(word)
        out.append(word.strip())
    return " ".join(out)


if sys.argv[1:2] == ["--upper"]:
    print(shout(sys.argv[2:]))
else:
    print(say(sys.argv[1:]))
"""


@pytest.fixture(scope="module")
def batch(tmp_path_factory) -> Path:
    need_sandbox("bubblewrap")
    root = tmp_path_factory.mktemp("report-batch")
    problems = root / "problems"
    make_problem(problems, TESTS, name="echo", checkpoints=2, timeout=20)
    subs = root / "submissions"
    for agent, (first, second) in {
        "careful": (GOOD, GOOD),
        "sloppy": (SLOPPY_1, SLOPPY_2),
    }.items():
        write_files(subs / agent / "echo" / "checkpoint_1", {"main.py": first})
        write_files(subs / agent / "echo" / "checkpoint_2", {"main.py": second})
    output = root / "batch"
    outcome = run_batch(
        BatchOptions(
            problems=problems,
            submissions=subs,
            output=output,
            sandbox="bubblewrap",
            cache_dir=EnvironmentSpec().cache_dir,
        )
    )
    assert outcome.exit_code == 0 and len(outcome.results) == 4
    return output


@pytest.mark.node
@pytest.mark.slow
def test_the_page_of_a_batch_shows_the_matrix_the_curves_and_the_code_figures(batch, tmp_path):
    need_browser()
    made = report(str(batch))
    page = batch / "report.html"
    assert made.returncode == 0, made.stderr
    assert f"report: {page.as_uri()}  (2 agents × 1 problem, 4 rows)" in made.stdout
    shown = browse(page, tmp_path, "report-batch.png")

    results = {
        (r.parent.parts[-3], r.parent.parts[-1]): ExecutionResult.load(r)
        for r in (batch / "cells").rglob("result.json")
    }
    for agent in ("careful", "sloppy"):
        rates = [results[(agent, cp)].pass_rate for cp in ("checkpoint_1", "checkpoint_2")]
        passed = sum(
            results[(agent, cp)].passes_policy("all-cases")
            for cp in ("checkpoint_1", "checkpoint_2")
        )
        expected = f"{sum(rates) / 2:.0%} | passed {passed}/2"
        assert matrix(shown)[(agent, "echo")] == matrix(shown)[(agent, "all")] == expected
    assert matrix(shown)[("careful", "echo")] == "100% | passed 2/2"
    # A curve per agent in each of the four groups' panels; the menu has the problem.
    curves = shown["figures"]["curves"]
    assert sorted(curves["visible"]) == sorted(["careful", "sloppy"] * 4) and curves["drawn"] == 8
    assert curves["menu"] == [] or curves["menu"][0] == "All problems"
    quality = shown["figures"]["quality"]
    assert sorted(quality["visible"]) == sorted(["careful", "sloppy"] * 4)
    assert (
        "usage" not in shown["figures"]
        and "No cost or token figures in these results" in shown["bodyText"]
    )
    # A line per graded checkpoint, with the id a Promptfoo row would link to, and its figures.
    assert shown["anchors"] == [
        row_anchor(a, "echo", cp)
        for a in ("careful", "sloppy")
        for cp in ("checkpoint_1", "checkpoint_2")
    ]
    sloppy = results[("sloppy", "checkpoint_2")].quality
    assert (
        sloppy is not None
        and sloppy.metrics.duplicate_blocks == 1
        and sloppy.growth["duplicate_blocks"] == 1
    )
    lines = [
        line
        for line in shown["bodyText"].splitlines()
        if line.startswith("sloppy\techo\tcheckpoint_2")
    ]
    assert lines and f"{sloppy.metrics.loc} (+{int(sloppy.growth['loc'])})" in lines[0]


def test_a_report_of_results_without_figures_says_so(batch, tmp_path):
    """Results written before the figures existed (or with --no-quality): the page says there are
    none, and the rest is there."""
    copy = tmp_path / "old"
    subprocess.run(["cp", "-r", str(batch), str(copy)], check=True)
    for path in (copy / "cells").rglob("result.json"):
        data = json.loads(path.read_text())
        data.pop("quality")
        data["schema_version"] = 2
        path.write_text(json.dumps(data))
    made = report(str(copy), "-o", str(tmp_path / "page.html"), "--title", "Old results")
    assert made.returncode == 0, made.stderr
    html = (tmp_path / "page.html").read_text()
    assert (
        "<title>Old results</title>" in html and "No code-quality figures in these results" in html
    )
    assert 'id="quality"' not in html and 'id="curves"' in html


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (
            lambda tmp: tmp / "nothing-here",
            (
                "argument SOURCE: {tmp}/nothing-here does not exist (expected a batch "
                "directory or a Promptfoo results JSON file)"
            ),
        ),
        (
            lambda tmp: (tmp / "d").mkdir() or tmp / "d",
            "argument SOURCE: {tmp}/d is not a batch directory (no cells/",
        ),
        (lambda tmp: (tmp / "x.json").write_text("{") and tmp / "x.json", "{tmp}/x.json: not JSON"),
        (
            lambda tmp: (tmp / "y.json").write_text('{"results": {"rows": []}}') and tmp / "y.json",
            "{tmp}/y.json: field `results.results`: expected the list of a Promptfoo eval's rows",
        ),
    ],
)
def test_bad_sources_are_bad_input(tmp_path, setup, message):
    source = setup(tmp_path)
    made = report(str(source))
    assert made.returncode == 2, made.stdout + made.stderr
    assert message.format(tmp=tmp_path) in " ".join(made.stderr.split())
    assert "Traceback" not in made.stderr


@pytest.mark.slow
def test_source_and_eval_are_one_or_the_other(tmp_path):
    neither = report()
    both = report(str(tmp_path), "--eval", "latest")
    for made in (neither, both):
        assert made.returncode == 2 and "give SOURCE" in made.stderr


def test_the_batch_summary_has_the_code_quality_of_the_last_checkpoint(batch):
    """summary.md: the figures at the last checkpoint, and their growth since the first."""
    summary = (batch / "summary.md").read_text()
    assert "## Code quality" in summary
    first = ExecutionResult.load(batch / "cells" / "sloppy" / "echo" / "checkpoint_1").quality
    last = ExecutionResult.load(batch / "cells" / "sloppy" / "echo" / "checkpoint_2").quality
    assert first is not None and last is not None
    grown = last.metrics.loc - first.metrics.loc
    assert f"| sloppy | echo | checkpoint_2 | {last.metrics.loc} (+{grown}) | " in summary
    line = summary.split("| sloppy | echo | checkpoint_2 |", 1)[1].splitlines()[0]
    assert "| 1 (+1) | " in line  # the duplicated block came at checkpoint 2


def _row(agent: str, checkpoint: str, repeat: int, passed: bool, rate: float) -> ReportRow:
    return ReportRow(
        agent=agent,
        problem="p",
        checkpoint=checkpoint,
        repeat=repeat,
        anchor=row_anchor(agent, "p", checkpoint),
        passed=passed,
        pass_rate=rate,
        groups={"Core": (round(rate * 4), 4)},
    )


def test_repeats_show_pass_at_k_and_the_spread():
    """Three repeats of two checkpoints: checkpoint_1 passed by one repeat of three, checkpoint_2
    by none. pass@3 of checkpoint_1 is 1 (one of the three passed), of checkpoint_2 0."""
    rows = [
        _row("a", "checkpoint_1", 0, True, 1.0),
        _row("a", "checkpoint_1", 1, False, 0.5),
        _row("a", "checkpoint_1", 2, False, 0.5),
        _row("a", "checkpoint_2", 0, False, 0.5),
        _row("a", "checkpoint_2", 1, False, 0.25),
        _row("a", "checkpoint_2", 2, False, 0.25),
    ]
    data = ReportData(title="repeats", source="test", rows=rows)
    assert data.repeats == 3
    cell = summarise(rows, 3)
    assert cell.checkpoints == 2 and cell.passed == 1 and cell.pass_at_k == 0.5
    assert cell.mean_rate == 0.5 and cell.spread == 0.75 - 0.375
    assert pass_at_k(3, 1, 1) == pytest.approx(1 / 3) and pass_at_k(3, 1, 2) == pytest.approx(2 / 3)
    html = render(data)
    assert "pass@3 50%" in html and "spread 38%" in html and "<th>Repeat</th>" in html
    assert 'id="row-a--p--checkpoint_1--repeat-2"' in html


def test_a_batch_of_agents_shows_their_cost_tokens_and_failed_steps(batch, tmp_path):
    """`runners batch --agents` keeps each step's record in <output>/agent-steps: the page takes
    the agent's cost, tokens and failure from there."""
    from runners.agents.layout import RunLayout, StepRecord
    from runners.agents.report import AgentReport

    copy = tmp_path / "agents"
    subprocess.run(["cp", "-r", str(batch), str(copy)], check=True)
    layout = RunLayout(copy)
    for checkpoint, failure in (
        ("checkpoint_1", None),
        ("checkpoint_2", "the agent exited with code 1: stuck"),
    ):
        record = StepRecord(
            agent="sloppy",
            problem="echo",
            checkpoint=checkpoint,
            number=int(checkpoint[-1]),
            command=["x"],
            sandbox="none",
            started_from="empty",
            duration=12.5,
            failure=failure,
            report=AgentReport(cost_usd=0.25, prompt_tokens=1000, completion_tokens=234),
        )
        record.save(layout.step_dir("sloppy", "echo", checkpoint))
    made = report(str(copy))
    assert made.returncode == 0, made.stderr
    html = (copy / "report.html").read_text()
    assert 'id="usage"' in html and "No cost or token figures" not in html
    line = html.split('id="row-sloppy--echo--checkpoint_2"', 1)[1].split("</tr>", 1)[0]
    assert "$0.2500" in line and "1,234" in line and "12.5 s" in line
    assert "agent step failed: the agent exited with code 1: stuck" in line and "FAIL" in line
