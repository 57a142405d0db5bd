"""`runners report` on real Promptfoo evals (the session's `npx promptfoo eval` runs): from the
eval's JSON export and from promptfoo's own store (`--eval ID`, as scripts/compare.sh does), the
page each row of the viewer links to (metadata `report`), opened in headless Chromium.
"""

from __future__ import annotations

import sys
import urllib.parse
from pathlib import Path

import pytest
from pf_support import PROBLEM

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "report"))
from report_support import browse, matrix, need_browser, report

pytestmark = [pytest.mark.node, pytest.mark.slow]


def rows_of(run) -> list[dict]:
    return run.results["results"]["results"]


def linked_page(run) -> tuple[Path, set[str]]:
    """The page the rows link to, and the anchors they link to."""
    links = [
        r["response"]["metadata"]["report"]
        for r in rows_of(run)
        if (r.get("response") or {}).get("metadata")
    ]
    assert links, "no row carries a report link"
    pages = {link.split("#", 1)[0] for link in links}
    assert len(pages) == 1, pages
    return Path(urllib.parse.unquote(urllib.parse.urlparse(pages.pop()).path)), {
        link.split("#", 1)[1] for link in links
    }


def test_the_page_of_an_eval_from_promptfoos_store_is_where_its_rows_link(promptfoo_eval, tmp_path):
    need_browser()
    eval_id = promptfoo_eval.results["evalId"]
    page, anchors = linked_page(promptfoo_eval)
    # Provider config `report` (default .runners/reports) is relative to the config's directory.
    assert (
        page.parent == promptfoo_eval.root / ".runners" / "reports"
        and eval_id.split("-")[0] in page.name
    )
    made = report("--eval", eval_id, "-o", str(page))
    assert made.returncode == 0, made.stderr
    shown = browse(page, tmp_path, "report-promptfoo.png")
    assert anchors <= set(shown["anchors"]), anchors - set(shown["anchors"])
    assert f"Promptfoo eval {eval_id}" in shown["bodyText"]

    cells = matrix(shown)
    assert cells[("agent-good", PROBLEM)] == "100% | passed 2/2"
    # The broken agent's rows are error rows (its submissions do not exist): no rate, two errors.
    assert cells[("agent-broken", PROBLEM)] == "- | passed 0/2 · 2 errors"
    partial = [r for r in rows_of(promptfoo_eval) if r["provider"]["label"] == "agent-partial"]
    rates = [
        sum(m["pass_counts"].values()) / sum(m["total_counts"].values())
        for m in (r["response"]["metadata"] for r in partial)
    ]
    passed = sum(r["response"]["metadata"]["passed"] for r in partial)
    assert cells[("agent-partial", PROBLEM)] == f"{sum(rates) / len(rates):.0%} | passed {passed}/2"
    curves = shown["figures"]["curves"]
    assert sorted(curves["visible"]) == sorted(["agent-good", "agent-partial", "agent-broken"] * 4)
    assert sorted(shown["figures"]["quality"]["visible"]) == sorted(curves["visible"])

    # The same page from the eval's JSON export.
    exported = tmp_path / "from-export.html"
    assert report(str(promptfoo_eval.root / "results.json"), "-o", str(exported)).returncode == 0
    again = browse(exported, tmp_path, "report-promptfoo-export.png")
    assert matrix(again) == cells and again["anchors"] == shown["anchors"]


def test_an_unknown_eval_is_bad_input():
    made = report("--eval", "eval-that-never-was")
    assert (
        made.returncode == 2
        and "option --eval: promptfoo has no eval 'eval-that-never-was'" in made.stderr
    )


def test_the_page_of_agents_shows_score_against_tokens_and_cost(agent_eval, tmp_path):
    """The agent provider's rows carry the agents' tokens (and cost, when reported): the page
    plots each agent's score against them, and its table shows each row's."""
    need_browser()
    page, _ = linked_page(agent_eval)
    made = report(str(agent_eval.root / "results.json"), "-o", str(page))
    assert made.returncode == 0, made.stderr
    shown = browse(page, tmp_path, "report-agents.png")
    usage = shown["figures"]["usage"]
    assert sorted(usage["visible"]) == sorted(["agent-good", "agent-partial"] * 2)
    for row in rows_of(agent_eval):
        tokens = (row.get("tokenUsage") or {}).get("total")
        if tokens:
            lines = [
                line
                for line in shown["bodyText"].splitlines()
                if line.startswith(
                    f"{row['provider']['label']}\t{row['testCase']['metadata']['problem']}\t"
                    f"{row['testCase']['metadata']['checkpoint']}\t"
                )
            ]
            assert lines and f"\t{tokens:,}\t" in lines[0], (tokens, lines)
    # partial gives up on tally checkpoint_2 without changing anything: an ERROR row (no grade),
    # and the page says why on that row.
    failed = [
        line
        for line in shown["bodyText"].splitlines()
        if line.startswith("agent-partial\ttally\t") and "failed before doing anything" in line
    ]
    assert failed, "the agent that gave up is not said"
