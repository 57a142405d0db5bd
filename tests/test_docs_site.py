"""The documentation site builds with `mkdocs build --strict` (a broken link, a missing anchor, a
page left out of the nav or a reference generator that fails stops it), and what it generates from
the code is there: every field of the problem config, every command of the CLI."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent


def _nav_files(nav: list) -> list[str]:
    files = []
    for entry in nav:
        for value in entry.values() if isinstance(entry, dict) else [entry]:
            files += _nav_files(value) if isinstance(value, list) else [value]
    return files


@pytest.mark.slow
def test_the_site_builds_strict_with_every_page_in_the_nav(tmp_path: Path) -> None:
    site = tmp_path / "site"
    out = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert out.returncode == 0, out.stdout + out.stderr

    # Every page is in the nav (a page no reader can reach is a page nobody reads).
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=yaml.BaseLoader)
    in_nav = set(_nav_files(config["nav"]))
    pages = {p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")}
    assert pages <= in_nav, f"pages not in the nav: {sorted(pages - in_nav)}"
    assert [next(iter(s)) for s in config["nav"]] == ["Home", "Guide", "Reference", "Developer"]

    # Generated from the pydantic models: the fields a user had to guess are documented.
    reference = (site / "reference" / "config" / "index.html").read_text(encoding="utf-8")
    text = re.sub(r"<[^>]+>", " ", reference)
    for field in ("tags", "entry_file", "test_dependencies", "submissions", "agent", "mounts"):
        assert re.search(rf"\b{field}\b", text), field
    # Generated from the click commands: every command of the CLI has its section.
    cli = (site / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    from runners.cli import app

    for name in app.commands:
        assert f"runners {name}" in cli, name
