"""The README's examples work exactly as written: its Python API snippet runs (from the project
directory, as the README says), and every command it shows runs in the project's environment."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from support import need_sandbox

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _section(title: str) -> str:
    start = README.index(f"\n## {title}\n")
    end = README.find("\n## ", start + 1)
    return README[start:end if end > 0 else None]


def test_every_command_runs_in_the_projects_environment():
    # A bare `python -m runners` fails outside the venv (`No module named 'click'`); the one
    # place that says so is the only bare mention allowed.
    bare = [README[max(0, m.start() - 60):m.end() + 20] for m in re.finditer(r"python -m runners", README)
            if not README[:m.start()].endswith("uv run ") and "outside it, " not in README[m.start() - 15:m.start()]]
    assert not bare, f"README commands without `uv run`: {bare}"


@pytest.mark.slow
@pytest.mark.bubblewrap
def test_the_python_api_snippet_runs_as_written(tmp_path):
    need_sandbox("bubblewrap")
    blocks = re.findall(r"```python\n(.*?)```", _section("Python API"), re.DOTALL)
    assert len(blocks) == 1
    snippet = blocks[0]
    # The paths are relative to the project directory; the outputs land in tmp_path, not the tree.
    for name in ("problems", "examples"):
        (tmp_path / name).symlink_to(ROOT / name)
    out = subprocess.run([sys.executable, "-c", snippet], cwd=tmp_path, capture_output=True, check=False,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    promised = re.search(r"print\(result\.summary\)\s+# (.+)", snippet).group(1).strip()
    assert lines[0] == promised  # the summary the comment promises
    assert lines[1] == "True 1.0 1.0"
    assert lines[2].startswith(promised)  # the SCBench-shaped runner, same agent code
    assert (tmp_path / "runs" / "alpha-1" / "result.json").is_file()


def test_the_case_files_the_readme_shows_are_the_problems_own():
    """Each worked example of a case file is the file itself, not a paraphrase that drifts."""
    import yaml

    blocks = re.findall(r"```yaml\n# (problems/\S+\.yaml)\n(.*?)```", _section("Problem format"), re.DOTALL)
    assert len(blocks) == 3
    for path, text in blocks:
        assert yaml.safe_load(text) == yaml.safe_load((ROOT / path).read_text(encoding="utf-8")), path
