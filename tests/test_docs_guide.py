"""The guide runs as written: every file it shows is written, every command it shows is run.

Each page of `docs/guide/` is read top to bottom. A code block with a `title="PATH"` is a file the
reader writes (relative to the directory the reader works in); a `bash` block is commands the
reader runs there, in order, after the files shown before it. A comment just before a `bash`
block, invisible on the site, says what the reader should see:

    <!-- expect: exit 1; output: Error 0 1 -->

(`exit` defaults to 0; `output` is text the combined output contains once table borders and runs
of spaces are collapsed). The commands run in a fresh directory that holds links to the
project's files (problems/, examples/, the promptfoo configs, node_modules, .env...), with
`UV_PROJECT` naming the project, so `uv run ...` there is the reader's `uv run ...` in the
project: nothing is written into the tree.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from support import need_sandbox

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "guide"
# What of the project a reader working in its directory sees (linked, read-only by convention).
LINKED = (
    "problems",
    "examples",
    "providers",
    "promptfooconfig.yaml",
    "promptfooconfig.agents.yaml",
    "node_modules",
    "package.json",
    ".env",
    ".venv",
    "scripts",
    "Makefile",
)
FENCE = re.compile(
    r"^```(?P<lang>[\w-]*)(?P<attrs>[^\n]*)\n(?P<body>.*?)^```\s*$", re.MULTILINE | re.DOTALL
)
EXPECT = re.compile(r"<!--\s*expect:\s*(?P<what>.*?)-->$", re.DOTALL)
BORDERS = re.compile(r"[│┃┏┓┗┛┡┩└┘├┤┼╇╈━─┳┻┬┴╋═║╔╗╚╝]+")


@dataclass
class Step:
    kind: str  # "file" | "run"
    text: str
    path: str = ""
    exit: int = 0
    output: list[str] = field(default_factory=list)
    line: int = 0


def steps(page: Path) -> list[Step]:
    text = page.read_text(encoding="utf-8")
    found = []
    for match in FENCE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        title = re.search(r'title="([^"]+)"', match["attrs"])
        if title:
            found.append(Step("file", match["body"], path=title[1], line=line))
        elif match["lang"] == "bash":
            step = Step("run", match["body"], line=line)
            # Only a comment right before the block (nothing but blank lines between).
            tail = text[: match.start()].rstrip()
            before = EXPECT.match(tail[tail.rfind("<!--") :]) if tail.endswith("-->") else None
            if before:
                for part in before["what"].split(";"):
                    key, value = re.match(r"(\w+)[:\s]\s*(.*)", part.strip(), re.DOTALL).groups()
                    if key == "exit":
                        step.exit = int(value)
                    elif key == "output":
                        step.output.append(value.strip())
            found.append(step)
    return found


def _flat(text: str) -> str:
    return " ".join(BORDERS.sub(" ", text).split())


# Pages whose commands run Promptfoo (npx) need the node mark besides the suite's slow one.
NODE_PAGES = {"compare-agents", "run-agents"}
PAGES = [
    pytest.param(p, id=p.stem, marks=[pytest.mark.node] if p.stem in NODE_PAGES else [])
    for p in sorted(GUIDE.glob("*.md"))
]


@pytest.mark.slow
@pytest.mark.bubblewrap
@pytest.mark.parametrize("page", PAGES)
def test_the_guide_page_runs_as_written(page: Path, tmp_path: Path) -> None:
    need_sandbox("bubblewrap")
    work = tmp_path / "project"
    work.mkdir()
    for name in LINKED:
        if (ROOT / name).exists():
            (work / name).symlink_to(ROOT / name)
    env = {**os.environ, "UV_PROJECT": str(ROOT), "COLUMNS": "200"}
    ran = 0
    for step in steps(page):
        where = f"{page.relative_to(ROOT)}:{step.line}"
        if step.kind == "file":
            target = work / step.path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(step.text, encoding="utf-8")
            continue
        out = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", step.text],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
        shown = out.stdout + out.stderr
        assert out.returncode == step.exit, (
            f"{where}: exit {out.returncode}, expected {step.exit}\n{shown}"
        )
        for expected in step.output:
            assert _flat(expected) in _flat(shown), (
                f"{where}: {expected!r} not in the output\n{shown}"
            )
        ran += 1
    assert ran, f"{page.name} shows no command"


def test_the_guide_harness_reads_files_commands_and_expectations() -> None:
    page = GUIDE / "first-problem.md"
    found = steps(page)
    files = [s.path for s in found if s.kind == "file"]
    assert "my-problems/greet/config.yaml" in files
    runs = [s for s in found if s.kind == "run"]
    assert [s.exit for s in runs] == [1, 0, 1, 0]
    assert runs[0].output == ["Error 0 1"]


def test_the_guide_s_provider_snippets_are_configs_the_providers_accept() -> None:
    """A YAML block that is shown but not run (real agents need their keys): each provider entry's
    `config` is what its provider accepts, and a preset it names is one the project has; a renamed
    key or preset fails here."""
    import yaml

    from runners.agents.presets import PRESETS
    from runners.agents.promptfoo import AgentProviderConfig
    from runners.agents.spec import parse_agent
    from runners.promptfoo.config import ProviderConfig

    shown = [
        (page, match["body"])
        for page in sorted(GUIDE.glob("*.md"))
        for match in FENCE.finditer(page.read_text(encoding="utf-8"))
        if match["lang"] == "yaml" and "title=" not in match["attrs"]
    ]
    assert shown, "no untitled YAML block in the guide"
    for page, body in shown:
        providers = yaml.safe_load(body)["providers"]
        assert providers, page
        for provider in providers:
            script = provider["id"].removeprefix("file://")
            assert (ROOT / script).is_file(), (page, script)
            if script.endswith("agent_runner.py"):
                config = AgentProviderConfig.parse(provider["config"])
                assert config.agent.get("preset") in PRESETS, (page, config.agent)
                parse_agent(config.agent, f"{page.name}: provider config `agent`")
            else:
                ProviderConfig.parse(provider["config"])
