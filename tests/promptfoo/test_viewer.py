"""The promptfoo web viewer shows the eval as a person sees it on a 1600 px wide screen.

Starts plain `npx promptfoo view` from the project root (nothing exported: it must find the eval
that plain `npx promptfoo eval` stored in the project), waits for /health, loads the eval's page
in headless Debian Chromium through playwright-core (a small Node script run on the project's
Node 22), checks the text and the layout (every agent's column fits, the row is named once),
keeps a screenshot in .runners/artifacts/promptfoo-viewer.png, and stops the viewer.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from pf_support import (
    ARTIFACTS,
    CHROMIUM,
    NODE_BIN,
    PROBLEM,
    ROOT,
    free_port,
    need_chromium,
    plain_env,
)

pytestmark = [pytest.mark.node, pytest.mark.slow]

CHECK_SCRIPT = Path(__file__).with_name("viewer_check.cjs")


def _group_alive(pgid: int) -> list[str]:
    """Live (non-zombie) processes of a process group, as "pid cmd"."""
    alive = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            # pid (comm) state ppid pgrp ...: comm may hold spaces, so split after the last ')'.
            state, _ppid, pgrp = stat.rsplit(")", 1)[1].split()[:3]
            if int(pgrp) == pgid and state != "Z":
                cmdline = (
                    (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                )
                alive.append(f"{entry.name} {cmdline[:120]}")
        except (OSError, ValueError, IndexError):
            continue
    return alive


def _stop(proc: subprocess.Popen) -> None:
    for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 10)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue
        deadline = time.monotonic() + wait
        while _group_alive(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        if not _group_alive(proc.pid):
            return


@pytest.fixture(scope="session")
def chromium_ready() -> None:
    """Checked before the (slower) eval fixture runs: session scope, listed first."""
    need_chromium()


@contextmanager
def serve_viewer(home: Path, log_path: Path) -> Iterator[dict]:
    """Plain `npx promptfoo view` from the project root on a free port, until the block ends;
    then no process of it may be left."""
    port = free_port()
    log = log_path.open("w")
    proc = subprocess.Popen(
        ["npx", "promptfoo", "view", "-p", str(port), "-n"],
        cwd=ROOT,
        env=plain_env(home),
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(
                    f"http://127.0.0.1:{port}/health", timeout=2
                ) as response:
                    health = json.loads(response.read())
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    log.flush()
                    pytest.fail(
                        f"promptfoo view did not answer on port {port} (exit {proc.poll()}):\n"
                        f"{log_path.read_text()[-3000:]}"
                    )
                time.sleep(0.5)
        yield {"url": f"http://127.0.0.1:{port}/", "health": health, "proc": proc, "port": port}
    finally:
        _stop(proc)
        log.close()
        leftover = _group_alive(proc.pid)
        assert not leftover, f"viewer processes left behind: {leftover}"


@pytest.fixture
def viewer(chromium_ready, promptfoo_eval, tmp_path):
    with serve_viewer(promptfoo_eval.home, tmp_path / "viewer.log") as served:
        yield served


def browse(
    viewer: dict, run, expect: list[str], tmp_path: Path, artifact: str, width: int = 1600
) -> dict:
    """The eval's page at `width` px in headless Chromium: what it shows (viewer_check.cjs); the
    screenshot (and one of the first screen) is kept as .runners/artifacts/<artifact>."""
    screenshot = tmp_path / artifact
    first = tmp_path / artifact.replace(".png", "-first-screen.png")
    options = {
        "url": f"{viewer['url']}eval/{run.results['evalId']}",
        "width": width,
        "chromium": str(CHROMIUM),
        "userDataDir": str(tmp_path / f"chromium-profile-{width}"),
        "screenshot": str(screenshot),
        "firstScreen": str(first),
        "expect": expect,
        "timeoutMs": 60000,
    }
    proc = subprocess.run(
        [str(NODE_BIN / "node"), str(CHECK_SCRIPT), json.dumps(options)],
        cwd=ROOT,
        env=plain_env(run.home),
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    report = json.loads(proc.stdout or "{}") if proc.stdout.startswith("{") else {}
    assert proc.returncode == 0 and report.get("ok"), (
        f"browser check failed: {report.get('error')}\n{proc.stderr[-3000:]}"
    )
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shutil.copy2(screenshot, ARTIFACTS / artifact)
    shutil.copy2(first, ARTIFACTS / first.name)
    assert screenshot.stat().st_size > 10_000
    missing = [text for text, found in report["found"].items() if not found]
    assert not missing, f"not on the page: {missing}\n--- page text\n{report['bodyText'][:4000]}"
    return report


def test_viewer_shows_each_agent_with_per_group_scores(
    chromium_ready, promptfoo_eval, viewer, tmp_path
):
    assert viewer["health"]["status"] == "OK" and viewer["health"]["version"] == "0.123.1"
    labels = [f"agent-{a}" for a in promptfoo_eval.agents]
    expect = [
        *labels,
        "core",
        "error",
        "functionality",
        "regression",
        "tests",
        "code_dup",
        "mini · checkpoint_2: FAIL",
        "provider config `submissions`",
    ]
    report = browse(viewer, promptfoo_eval, expect, tmp_path, "promptfoo-viewer.png")
    text = report["bodyText"]
    assert "runners promptfoo test" in report["title"] or "runners promptfoo test" in text
    # Each agent's column header counts tests per group over its rows: partial passed 2 of its 3
    # Core tests (1/1 at checkpoint 1, 1/2 at checkpoint 2), not "1.50/2.00" (a sum of rates).
    header = text.split(f"{PROBLEM} · checkpoint_1", 1)[0]
    for label in labels[:2]:
        block = header.split(label, 1)[1]
        for metric in ("core", "error", "functionality", "regression", "tests"):
            assert metric in block.split("agent-", 1)[0], f"{metric} missing from {label}'s header"
    partial_header = header.split("agent-partial", 1)[1].split("agent-", 1)[0]
    assert (
        "core\n66.67% (2.00/3.00)" in partial_header
        and "tests\n66.67% (6.00/9.00)" in partial_header
    )
    assert "mean_pass_rate" not in header  # it repeated `tests`
    # Every count in the header is a whole count (of tests; of lines or functions for the code):
    # no fraction of one.
    assert not re.search(r"\((\d+\.(?!00)\d\d)/", header), header

    # The layout at 1600 px: the row is named once (its description, no var columns repeating
    # it), and every agent's column is on the screen, side by side.
    headers = [h for h in report["headers"] if h["text"].strip() != "Outputs"]  # the group header
    texts = [h["text"] for h in headers]
    agent_headers = [h for h in headers if any(label in h["text"] for label in labels)]
    assert len(agent_headers) == len(headers) == len(labels), (
        f"columns besides the agents': {texts}"
    )
    for checkpoint in ("checkpoint_1", "checkpoint_2"):  # each cell's first line names its row
        assert (
            text.count(f"{PROBLEM} · {checkpoint}: ") == len(labels) - 1
        )  # the broken agent's are errors
    for h in agent_headers:
        assert 0 <= h["left"] < h["right"] <= report["viewportWidth"], f"cut off at 1600 px: {h}"
    # The badge is the row's verdict, not a count of per-group checks ("3 FAIL 2 PASS").
    assert "2 PASS" not in text and "2 FAIL" not in text


def shown_latency(ms: int) -> str:
    """How the viewer writes a latency: `812ms` under a second, `1.8s` under a minute (a loaded
    machine makes a scripted step take more than a second)."""
    return f"{ms}ms" if ms < 1000 else f"{ms / 1000:.1f}s"


@pytest.fixture
def agent_viewer(chromium_ready, agent_eval, tmp_path):
    with serve_viewer(agent_eval.home, tmp_path / "viewer.log") as served:
        yield served


def test_viewer_shows_agents_run_then_graded_side_by_side(
    chromium_ready, agent_eval, agent_viewer, tmp_path
):
    """The agent provider's eval: a column per agent with its per-group scores and average
    latency; in each cell the grade, its latency and (when it reported them) its tokens; the
    failed step's reason (what the agent said is in the row's details)."""
    rows = {
        (
            r["provider"]["label"],
            r["testCase"]["metadata"]["problem"],
            r["testCase"]["metadata"]["checkpoint"],
        ): r
        for r in agent_eval.results["results"]["results"]
    }
    good = rows[
        ("agent-good", "tally", "checkpoint_2")
    ]  # it read its earlier code back: cache reads
    usage = good["response"]["tokenUsage"]
    expect = [
        "agent-good",
        "agent-partial",
        "Avg Latency:",
        "tally · checkpoint_1: PASS ",
        f"Latency: {shown_latency(good['latencyMs'])}",
        f"Tokens: {usage['total']} ({usage['prompt']}+{usage['completion']})",
        # partial gives up on tally checkpoint_2 changing nothing: an ERROR row, in its words.
        "the agent failed before doing anything (it changed nothing)",
        "I do not know how to implement tally checkpoint_2.",
    ]
    report = browse(agent_viewer, agent_eval, expect, tmp_path, "promptfoo-agents-viewer.png")
    text = report["bodyText"]
    assert usage["completionDetails"]["cacheReadInputTokens"] > 0
    assert (
        "(cached)" not in text
    )  # the viewer's word for a response replayed from promptfoo's cache
    header = text.split("mini · checkpoint_1", 1)[0]
    for label in ("agent-good", "agent-partial"):
        block = header.split(label, 1)[1].split("agent-", 1)[0]
        for metric in ("core", "error", "functionality", "regression", "tests", "Avg Latency:"):
            assert metric in block, f"{metric} missing from {label}'s header"
    assert (
        "100.00% passing (4/4 cases)"
        in header.split("agent-good", 1)[1].split("agent-partial", 1)[0]
    )
    for (
        label,
        _problem,
        _checkpoint,
    ), row in rows.items():  # every graded cell shows the agent's own time
        if row.get("error"):
            continue
        assert f"Latency: {shown_latency(row['latencyMs'])}" in text, label
    agent_headers = [h for h in report["headers"] if "agent-" in h["text"]]
    assert len(agent_headers) == 2
    for h in agent_headers:
        assert 0 <= h["left"] < h["right"] <= report["viewportWidth"], f"cut off at 1600 px: {h}"


# The layout a person on a 1280 px screen gets (issue 26: rows about 380 px tall, 22 rows made a
# 9,000 px page). Promptfoo gives every row the height of its tallest cell, and its own parts of a
# cell (badge, metric pills, latency) take about 150 px; the rest is ours: the verdict line, the
# counts per group, one red line saying why (here also `flags: unsandboxed`, sandbox `none`).
# Measured: 282 px here; the example comparison's 22 rows 258-321 px, a 6,706 px page (9,586
# before).
# Since then the code-quality named scores (four more pills per cell, issue 25) made rows taller
# again: 369-433 px with their text line, 321-361 px without it, and 321 px since their names are
# short (`code_dup`, `code_lint`: the pills take two lines, not three). 20 px of it is the
# `flags: unsandboxed` line of this eval's `none` sandbox, which a sandboxed run does not have.
MAX_ROW_PX = 330


def test_viewer_rows_are_a_glance_at_1280_px(chromium_ready, promptfoo_eval, viewer, tmp_path):
    labels = [f"agent-{a}" for a in promptfoo_eval.agents]
    expect = [*labels, "mini · checkpoint_2: FAIL 4/6 tests"]
    report = browse(
        viewer, promptfoo_eval, expect, tmp_path, "promptfoo-viewer-1280.png", width=1280
    )
    rows = report["rows"]
    assert len(rows) == 2, [r["text"][:80] for r in rows]
    heights = [r["height"] for r in rows]
    assert max(heights) <= MAX_ROW_PX, f"rows {heights} px tall at 1280 px"
    # The page is the header and the rows: 22 rows of the example comparison stay under 22 × 300 px.
    table_top = report["pageHeight"] - sum(heights)
    assert report["pageHeight"] <= table_top + len(rows) * MAX_ROW_PX
    text = report["bodyText"]
    # A failing cell says its counts once (the old row: in the reason and again in the text).
    cell = next(r["text"] for r in rows if "checkpoint_2" in r["text"])
    assert text.count("4/6") == 1 and "tests passed (" not in text and "(all 4/6)" not in text
    # Its red line is the test's own message, without the harness's paths.
    assert "[Core] test_upper_words: every word upper-cased (+1 more)" in cell
    assert "[Error] test_no_args_fails: no arguments must be an error: [" in text
    # (The broken agent's error rows name its own submissions path, which is the user's.)
    graded = "\n".join(
        line for line in text.splitlines() if "provider config `submissions`" not in line
    )
    for path in ("/runners-", "/bin/python", "/cache/", "pytest-of-", "/workspace"):
        assert path not in graded, f"{path} on the page"
    # At 1280 px promptfoo's 480 px agent columns need 1,472 px for three agents: the third is
    # clipped (the table scrolls sideways). Its name, pass share and each cell's verdict and first
    # words are in the part on screen; the first two columns are whole.
    agent_headers = [h for h in report["headers"] if any(label in h["text"] for label in labels)]
    assert [h["right"] <= report["viewportWidth"] for h in agent_headers] == [True, True, False]
    third = agent_headers[2]
    assert third["left"] + 250 <= report["viewportWidth"], third
