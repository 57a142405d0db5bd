"""Where a report page is, and each row's place on it: the Promptfoo providers link every row of
the viewer there (metadata `report`) before the page exists, so both sides name it the same way."""

from __future__ import annotations

import re
from pathlib import Path

#: Where `runners report` writes the page of a Promptfoo eval (relative to the project root, from
#: which promptfoo runs), and where the providers' links point (provider config `report`).
DEFAULT_REPORTS = ".runners/reports"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("._") or "_"


def row_anchor(agent: str, problem: str, checkpoint: str) -> str:
    """The id of a row's line in the page's table (`row-<agent>--<problem>--<checkpoint>`)."""
    return "row-" + "--".join(_slug(part) for part in (agent, problem, checkpoint))


def eval_report(reports: Path, eval_id: str) -> Path:
    """The page of one Promptfoo eval."""
    return reports / f"{_slug(eval_id)}.html"


def row_link(page: Path, agent: str, problem: str, checkpoint: str) -> str:
    return f"{page.resolve().as_uri()}#{row_anchor(agent, problem, checkpoint)}"
