"""Open a `runners report` page in headless Debian Chromium (tests/report/report_check.cjs) and
return what it shows; the screenshot is kept in .runners/artifacts/<name>."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from support import need

ROOT = Path(__file__).resolve().parents[2]
NODE = ROOT / "node_modules" / ".bin" / "node"
CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = ROOT / ".runners" / "artifacts"
CHECK_SCRIPT = Path(__file__).with_name("report_check.cjs")


def need_browser() -> None:
    need(CHROMIUM.exists(), f"{CHROMIUM} is missing (run as root: apt-get install chromium)")
    need(
        NODE.exists() and (ROOT / "node_modules" / "playwright-core" / "package.json").is_file(),
        (
            "playwright-core and node are not installed in node_modules "
            "(run: bash scripts/setup-node.sh)"
        ),
    )


def report(*args: str) -> subprocess.CompletedProcess[str]:
    """`runners report ARGS` from the project root, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "runners", "report", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env={**os.environ, "COLUMNS": "200"},
        check=False,
    )


def browse(page: Path, tmp_path: Path, artifact: str, width: int = 1400) -> dict[str, Any]:
    screenshot = tmp_path / artifact
    options = {
        "url": page.resolve().as_uri(),
        "chromium": str(CHROMIUM),
        "width": width,
        "userDataDir": str(tmp_path / "chromium-profile"),
        "screenshot": str(screenshot),
        "timeoutMs": 90000,
    }
    proc = subprocess.run(
        [str(NODE), str(CHECK_SCRIPT), json.dumps(options)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        check=False,
    )
    shown = json.loads(proc.stdout) if proc.stdout.startswith("{") else {}
    assert proc.returncode == 0 and shown.get("ok"), (
        f"browser check failed: {shown.get('error')}\n{proc.stderr[-3000:]}"
    )
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shutil.copy2(screenshot, ARTIFACTS / artifact)
    assert screenshot.stat().st_size > 10_000
    # Self-contained: the page asked for nothing but itself, and ran without an error.
    assert shown["requests"] == [options["url"]], shown["requests"]
    assert shown["errors"] == []
    return shown


def matrix(shown: dict[str, Any]) -> dict[tuple[str, str], str]:
    """(agent, problem) -> "rate | detail" of each cell of the page's matrix."""
    return {(c["agent"], c["problem"]): f"{c['rate']} | {c['detail']}" for c in shown["matrix"]}
