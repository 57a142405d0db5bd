"""The README's and the reference pages' examples work exactly as written: the Python API snippet
runs (from the project directory, as the page says), the worked case files are the problems' own,
every command shown runs in the project's environment, and the README's two commands and its
"compare your own agents" config are the real ones."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from support import need_sandbox

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = ROOT / "docs"
# The README and the pages that took over its sections (the other docs pages are the subjects' own).
PAGES = {
    path: path.read_text(encoding="utf-8")
    for path in [ROOT / "README.md", DOCS / "index.md", *sorted(DOCS.glob("*/*.md"))]
}


def _page(rel: str) -> str:
    return (DOCS / rel).read_text(encoding="utf-8")


def test_every_command_runs_in_the_projects_environment():
    # A bare `python -m runners` fails outside the venv (`No module named 'click'`); the one
    # place that says so is the only bare mention allowed.
    bare = [
        f"{path.relative_to(ROOT)}: {text[max(0, m.start() - 60) : m.end() + 20]}"
        for path, text in PAGES.items()
        for m in re.finditer(r"python -m runners", text)
        if not re.search(r"uv run (--no-sync )?$", text[: m.start()])
        and "outside it, " not in text[m.start() - 15 : m.start()]
    ]
    assert not bare, f"commands without `uv run`: {bare}"


def test_the_readme_is_short_and_starts_with_the_two_commands():
    assert len(README.encode()) <= 10_000, (
        f"README.md is {len(README.encode())} bytes (at most 10 KB)"
    )
    first = re.search(r"```bash\n(.*?)```", README, re.DOTALL)[1]
    commands = [
        line.split("#")[0].strip() for line in first.splitlines() if line.split("#")[0].strip()
    ]
    assert commands == ["make demo", "make test"]
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^demo:", makefile, re.MULTILINE) and re.search(
        r"^test:", makefile, re.MULTILINE
    )
    assert "make test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()[-1]


def test_the_readmes_own_agents_config_is_a_valid_provider_config():
    """The README's ten lines for one's own agents: every provider config and the generator's
    config are what the provider and the generator accept (a renamed key fails here)."""
    from runners.promptfoo.config import ProviderConfig

    block = re.search(r"```yaml\n# my-agents\.yaml\n(.*?)```", README, re.DOTALL)[1]
    config = yaml.safe_load(block)
    assert len(config["providers"]) >= 2
    for provider in config["providers"]:
        assert provider["id"] == "file://providers/test_runner.py"
        assert (ROOT / "providers" / "test_runner.py").is_file()
        ProviderConfig.model_validate(provider["config"])
    generator = config["tests"][0]
    module, function = generator["path"].removeprefix("file://").split(":")
    assert function == "generate_tests" and (ROOT / module).is_file()
    assert set(generator["config"]) <= {"problems", "only", "checkpoints"}
    assert config["defaultTest"]["assert"][0]["value"] == "file://providers/assertions.py"


@pytest.mark.slow
@pytest.mark.bubblewrap
def test_the_python_api_snippet_runs_as_written(tmp_path):
    need_sandbox("bubblewrap")
    blocks = re.findall(r"```python\n(.*?)```", _page("reference/python-api.md"), re.DOTALL)
    assert len(blocks) == 1
    snippet = blocks[0]
    # The paths are relative to the project directory; the outputs land in tmp_path, not the tree.
    for name in ("problems", "examples"):
        (tmp_path / name).symlink_to(ROOT / name)
    out = subprocess.run(
        [sys.executable, "-c", snippet],
        cwd=tmp_path,
        capture_output=True,
        check=False,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    promised = re.search(r"print\(result\.summary\)\s+# (.+)", snippet).group(1).strip()
    assert lines[0] == promised  # the summary the comment promises
    assert lines[1] == "True 1.0 1.0"
    assert lines[2].startswith(promised)  # the SCBench-shaped runner, same agent code
    assert (tmp_path / "runs" / "alpha-1" / "result.json").is_file()


def test_the_case_files_the_problem_format_shows_are_the_problems_own():
    """Each worked example of a case file is the file itself, not a paraphrase that drifts."""
    blocks = re.findall(
        r"```yaml\n# (problems/\S+\.yaml)\n(.*?)```", _page("reference/problems.md"), re.DOTALL
    )
    assert len(blocks) == 3
    for path, text in blocks:
        assert yaml.safe_load(text) == yaml.safe_load((ROOT / path).read_text(encoding="utf-8")), (
            path
        )
