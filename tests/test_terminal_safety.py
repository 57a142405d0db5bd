"""What the submission or an agent wrote never drives the user's terminal: escapes (screen clear,
colours, window title), NUL and C1 controls are dropped from every line the CLI prints (one place:
`runners.outputs.render.SafeConsole`) and from the Promptfoo row's text, and stay as they were in
the JSON result."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
import yaml
from rich.text import Text
from support import run_agents_batch, runners_cli, write_files

from runners.engine.excerpt import terminal_safe
from runners.outputs.render import SafeConsole
from runners.promptfoo.output import headline, summarize

# Clear the screen, switch to the alternate screen, set the window title, colour, a one-byte CSI
# (C1), a bell and a NUL: each would act on a terminal.
HOSTILE = "\x1b[2J\x1b[?1049h\x1b]0;pwned\x07\x1b[31mRED\x9b31m\x00boom"
CONTROLS = ("\x1b", "\x00", "\x07", "\x9b")


def _controls(text: str) -> list[str]:
    return [repr(c) for c in CONTROLS if c in text]


@pytest.mark.slow
def test_a_case_s_stderr_reaches_the_run_table_without_its_escapes(tmp_path):
    problem = tmp_path / "noisy"
    config = {
        "name": "noisy",
        "version": 1,
        "description": "d",
        "tags": ["t"],
        "entry_file": "main",
        "adapter": {"type": "cli"},
        "timeout": 20,
        "checkpoints": {"checkpoint_1": {"version": 1, "groups": {"core": {"type": "Core"}}}},
    }
    write_files(
        problem,
        {
            "config.yaml": yaml.safe_dump(config),
            "checkpoint_1/core/says.yaml": 'case: {args: [hi]}\nexpected: {output: "hi\\n"}\n',
        },
    )
    write_files(
        tmp_path / "sub",
        {"main.py": f"import sys\nsys.stderr.write({HOSTILE!r} + '\\n')\nsys.exit(1)\n"},
    )
    out = runners_cli(
        "run",
        str(problem),
        "-c",
        "checkpoint_1",
        "-s",
        str(tmp_path / "sub"),
        "--sandbox",
        "none",
        "--json",
        str(tmp_path / "r.json"),
    )
    assert out.returncode == 1, out.stdout + out.stderr
    assert "core/says" in out.stdout and "boom" in out.stdout  # the text is shown ...
    assert not _controls(out.stdout + out.stderr), out.stdout  # ... without what a terminal acts on
    # the JSON result keeps the case's stderr as it was
    [case] = json.loads((tmp_path / "r.json").read_text())["tests"]
    assert "\x1b[2J" in case["stderr"] and "\x00boom" in case["stderr"]


@pytest.mark.slow
def test_an_agent_s_words_reach_the_batch_table_without_their_escapes(tmp_path):
    sys.path.insert(0, str(Path(__file__).parent / "agents"))
    from agent_support import answer_problem

    answer_problem(tmp_path / "problems", checkpoints=1)
    script = tmp_path / "agent.py"
    script.write_text(
        f"import sys\nopen('answer.txt', 'w').write('forty-two')\nprint({HOSTILE!r})\n"
        f"sys.stderr.write({HOSTILE!r})\n"
    )
    (tmp_path / "agents.yaml").write_text(
        yaml.safe_dump({"agents": {"loud": f"{sys.executable} {script}"}})
    )
    out = run_agents_batch(tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "agent steps" in out.stdout and "boom" in out.stdout
    assert not _controls(out.stdout + out.stderr), out.stdout


def test_the_console_keeps_its_own_styles_and_drops_the_text_s_controls():
    buffer = io.StringIO()
    console = SafeConsole(file=buffer, force_terminal=True, color_system="standard", width=80)
    console.print(Text("ok", style="green"), Text(HOSTILE))
    printed = buffer.getvalue()
    assert "\x1b[32mok" in printed  # rich's own colour
    assert "RED" in printed and "boom" in printed
    for sequence in ("\x1b[2J", "\x1b[?1049h", "\x1b]0;", "\x1b[31m", "\x9b", "\x00", "\x07"):
        assert sequence not in printed, repr(sequence)


def test_the_promptfoo_row_text_is_made_safe():
    metadata = {
        "problem": "p",
        "checkpoint": "checkpoint_1",
        "passed": False,
        "policy": "all-cases",
        "pass_counts": {"Core": 0},
        "total_counts": {"Core": 1},
        "tests": [
            {"status": "failed", "group_type": "Core", "name": "t", "failure_message": HOSTILE}
        ],
    }
    text = summarize(metadata)
    assert text.startswith("p · checkpoint_1: FAIL") and not _controls(text)
    line = headline(metadata)  # the row's reason: the failing test's own words
    assert line is not None and "boom" in line and not _controls(line)
    reason = headline(
        {
            "problem": "p",
            "checkpoint": "c",
            "infrastructure_failure": True,
            "infrastructure_reason": f"pytest exited 4\n    {HOSTILE}",
        }
    )
    assert reason is not None and "boom" in reason and not _controls(reason)
    assert terminal_safe("tab\tand\nnewline") == "tab\tand\nnewline"
