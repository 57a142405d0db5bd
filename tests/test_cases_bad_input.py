"""Case-based problems and submissions as users get them wrong: each gives a message naming the
file, the field or the case, never a traceback of the harness; a submission that crashes is graded
with the reason in the table."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from support import need_sandbox, write_files

from runners import EnvironmentSpec, run_checkpoint
from runners.model.errors import ConfigError

ROOT = Path(__file__).resolve().parent.parent
ECHO = {"main.py": "import sys\nprint(' '.join(sys.argv[1:]))\n"}
GOOD_CASE = 'case: {args: [hi]}\nexpected: {output: "hi\\n"}\n'
SCBENCH_LOADER = """import json
from slop_code.evaluation.adapters import CLICase, CLIResult
from slop_code.evaluation.loaders import BaseLoader, helpers


class Loader(BaseLoader):
    def __call__(self, group, store):
        for path in sorted(helpers.get_group_path(group, self.problem, self.checkpoint).iterdir()):
            spec = json.loads(path.read_text())
            case = CLICase(id=path.stem, group=group.name, group_type=group.type,
                           checkpoint=self.checkpoint.name, arguments=spec["args"])
            yield case, CLIResult(id=path.stem, group=group.name, group_type=group.type,
                                  output=spec["out"])
"""


def problem_with(root: Path, files: dict[str, str], **config) -> Path:
    problem = root / "problem"
    data = {
        "name": "p",
        "version": 1,
        "description": "d",
        "tags": ["t"],
        "entry_file": "main",
        "timeout": 10,
        "adapter": {"type": "cli"},
        "checkpoints": {"checkpoint_1": {"version": 1, "groups": {"core": {"type": "Core"}}}},
        **config,
    }
    write_files(problem, {"config.yaml": yaml.safe_dump(data), **files})
    return problem


def run_cli(problem: Path, submission: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "runners",
            "run",
            str(problem),
            "-c",
            "checkpoint_1",
            "-s",
            str(submission),
            "--sandbox",
            "none",
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env={"PATH": "/usr/local/bin:/usr/bin:/bin", "COLUMNS": "200", "HOME": str(Path.home())},
        check=False,
    )


def refused(out: subprocess.CompletedProcess[str], *words: str) -> str:
    text = out.stdout + out.stderr
    assert out.returncode == 2, text
    assert "Traceback" not in text and "<frozen" not in text and "site-packages" not in text, text
    for word in words:
        assert word in text, (word, text)
    return text


@pytest.fixture
def echo(tmp_path: Path) -> Path:
    write_files(tmp_path / "sub", ECHO)
    return tmp_path / "sub"


@pytest.mark.parametrize("script", ["loader.py", "verifier.py"])
@pytest.mark.slow
def test_a_script_with_a_syntax_error_shows_its_line_not_the_import_machinery(
    tmp_path, echo, script
):
    source = {
        "loader.py": (
            "from slop_code.evaluation.loaders import BaseLoader\n\n"
            "class Loader(BaseLoader)\n    pass\n"
        ),
        "verifier.py": "class Verifier:\n    def __init__(self, checkpoint)\n        pass\n",
    }[script]
    problem = problem_with(tmp_path, {script: source, "checkpoint_1/core/a.yaml": GOOD_CASE})
    refused(
        run_cli(problem, echo),
        str(problem / script),
        f"SyntaxError: expected ':' ({script}, line",
        "class Loader(BaseLoader)" if script == "loader.py" else "def __init__(self, checkpoint)",
    )


@pytest.mark.slow
def test_a_loader_failing_on_a_malformed_case_file_shows_where_in_the_loader(tmp_path, echo):
    problem = problem_with(
        tmp_path,
        {
            "loader.py": SCBENCH_LOADER,
            "checkpoint_1/core/a_good.json": '{"args": ["hi"], "out": "hi\\n"}',
            "checkpoint_1/core/b_bad.json": '{"args": ["hi"], "out": "hi\\n"',
        },
    )
    text = refused(
        run_cli(problem, echo),
        str(problem / "loader.py"),
        "group 'core', after case 'a_good'",
        "JSONDecodeError: Expecting ',' delimiter",
        f"at {problem / 'loader.py'}:9 in __call__: spec = json.loads(path.read_text())",
    )
    assert (
        "json/decoder.py" not in text and "- case 'a_good'" not in text
    )  # the good case is not blamed


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ("        return iter(())\n", ["group 'core': the loader gave no case"]),
        (
            "        pass\n",
            [
                (
                    "group 'core': the loader returned NoneType, "
                    "not an iterator of (case, expected) pairs"
                )
            ],
        ),
    ],
)
@pytest.mark.slow
def test_a_loader_that_gives_nothing_is_refused_naming_it_and_the_group(
    tmp_path, echo, body, words
):
    loader = (
        "from slop_code.evaluation.loaders import BaseLoader\n\nclass Loader(BaseLoader):\n"
        "    def __call__(self, group, store):\n" + body
    )
    problem = problem_with(tmp_path, {"loader.py": loader})
    refused(run_cli(problem, echo), str(problem / "loader.py"), *words)


def test_a_group_the_loader_leaves_empty_is_a_note_when_others_have_cases(tmp_path, echo):
    loader = (
        "from runners.cases.loading import CaseFileLoader\n\nclass Loader(CaseFileLoader):\n"
        "    def __call__(self, group, store):\n"
        "        if group.name == 'core':\n            yield from super().__call__(group, store)\n"
    )
    problem = problem_with(
        tmp_path,
        {"loader.py": loader, "checkpoint_1/core/a.yaml": GOOD_CASE},
        checkpoints={
            "checkpoint_1": {
                "version": 1,
                "groups": {"core": {"type": "Core"}, "extra": {"type": "Error"}},
            }
        },
    )
    result = run_checkpoint(problem, "checkpoint_1", echo, EnvironmentSpec(sandbox="none"))
    assert [t.id for t in result.tests] == ["core/a"] and result.tests[0].passed
    assert any("loader.py: group 'extra': the loader gave no case" in e for e in result.errors), (
        result.errors
    )


def test_case_files_in_no_group_are_refused_naming_the_checkpoint(tmp_path, echo):
    problem = problem_with(tmp_path, {"checkpoint_1/core/README": "no cases yet\n"})
    refused(
        run_cli(problem, echo),
        str(problem / "checkpoint_1"),
        "checkpoint 'checkpoint_1' has no case file in any of its groups (core)",
    )


@pytest.mark.parametrize(
    ("config", "words"),
    [
        (
            {"entry_file": "main.rb"},
            [
                "field `entry_file`: runners does not know how to run a `.rb` entry file",
                "adapter.command",
            ],
        ),
        (
            {"adapter": {"type": "cli", "command": "node {entry}.js"}},
            [
                (
                    "field `adapter.command`: unknown placeholder {entry} "
                    "(known: {python}, {node}, {submission}, {entry_file})"
                )
            ],
        ),
        (
            {"adapter": {"type": "cli", "command": "node {port}.js"}},
            ["field `adapter.command`: unknown placeholder {port}"],
        ),
        (
            {"adapter": {"type": "cli", "command": "node 'x.js"}},
            [
                (
                    "field `adapter.command`: cannot be split like a shell "
                    "command (No closing quotation)"
                )
            ],
        ),
        (
            {"adapter": {"type": "cli", "trackedfiles": ["x"]}},
            [
                (
                    "field `adapter.trackedfiles`: unknown key (did you mean 'tracked_files'?) "
                    "(allowed keys: command, setup_script, "
                    "teardown_script, tracked_files, type)"
                )
            ],
        ),
        (
            {"adapter": {"type": "api", "arguments": ["--data", "{{static:seed}}"]}},
            ["field `adapter.arguments`: no static asset named 'seed' (declared: none)"],
        ),
        (
            {"adapter": {"type": "playwright"}},
            ["field `adapter`: unknown adapter type (expected cli, api or browser)"],
        ),
    ],
)
def test_config_mistakes_name_the_field(tmp_path, config, words):
    problem = problem_with(tmp_path, {"checkpoint_1/core/a.yaml": GOOD_CASE}, **config)
    with pytest.raises(ConfigError) as caught:
        run_checkpoint(problem, "checkpoint_1", tmp_path, EnvironmentSpec(sandbox="none"))
    text = str(caught.value)
    assert (
        str(problem / "config.yaml") in text
        and "(top level)" not in text
        and "adapter.cli" not in text
    )
    for word in words:
        assert word in text, (word, text)


@pytest.mark.parametrize(
    ("adapter", "missing"),
    [
        ({"type": "cli"}, "main.py"),
        ({"type": "cli", "command": "./tool --fast"}, "tool"),
        ({"type": "cli", "command": ["node", "{submission}/{entry_file}.js"]}, "main.js"),
    ],
)
@pytest.mark.slow
def test_a_submission_without_its_entry_file_is_graded_with_a_note(tmp_path, adapter, missing):
    problem = problem_with(tmp_path, {"checkpoint_1/core/a.yaml": GOOD_CASE}, adapter=adapter)
    (tmp_path / "empty").mkdir()
    out = run_cli(problem, tmp_path / "empty")
    assert out.returncode == 1, out.stdout + out.stderr
    assert f"note: the submission has no {missing}, which the problem's command runs" in out.stdout


@pytest.mark.slow
def test_a_crashing_cli_shows_the_end_of_its_stderr_in_the_table(tmp_path):
    problem = problem_with(tmp_path, {"checkpoint_1/core/a.yaml": GOOD_CASE})
    write_files(tmp_path / "sub", {"main.py": "import json\njson.loads('{')\n"})
    out = run_cli(problem, tmp_path / "sub")
    assert out.returncode == 1
    assert (
        "stderr (not checked), last lines:" in out.stdout
        and "JSONDecodeError: Expecting property name" in out.stdout
    )


def test_a_server_that_crashes_mid_group_is_said_so_on_every_later_case(tmp_path):
    """The 2nd request kills the server: that case says so with the server's last words, the
    following cases that the server is gone; all of them fail (the submission's fault), none
    errs."""
    need_sandbox("bubblewrap")
    server = (
        "import argparse, os, sys\nfrom http.server import BaseHTTPRequestHandler, HTTPServer\n"
        "SEEN = []\n"
        "class H(BaseHTTPRequestHandler):\n"
        "    def log_message(self, *a):\n        pass\n"
        "    def do_GET(self):\n"
        "        SEEN.append(self.path)\n"
        "        if self.path == '/boom':\n"
        "            print('fatal: boom requested', file=sys.stderr, flush=True)\n"
        "            os._exit(13)\n"
        "        self.send_response(200)\n        self.end_headers()\n"
        "        self.wfile.write(b'ok')\n"
        "p = argparse.ArgumentParser()\np.add_argument('--address')\n"
        "p.add_argument('--port', type=int)\n"
        "a = p.parse_args()\nHTTPServer((a.address, a.port), H).serve_forever()\n"
    )
    cases = {
        f"checkpoint_1/core/{name}.yaml": (
            f"case: {{path: {path}}}\nexpected: {{status_code: 200}}\n"
        )
        for name, path in (("a_first", "/"), ("b_boom", "/boom"), ("c_after", "/"), ("d_last", "/"))
    }
    problem = problem_with(tmp_path, cases, adapter={"type": "api"})
    write_files(tmp_path / "sub", {"main.py": server})
    result = run_checkpoint(
        problem, "checkpoint_1", tmp_path / "sub", EnvironmentSpec(sandbox="bubblewrap")
    )
    statuses = {t.id: t.status for t in result.tests}
    assert statuses == {
        "core/a_first": "passed",
        "core/b_boom": "failed",
        "core/c_after": "failed",
        "core/d_last": "failed",
    }
    boom = next(t for t in result.tests if t.id == "core/b_boom")
    assert "the server exited with code 13 during case 'b_boom'" in boom.case_details
    assert "fatal: boom requested" in boom.case_details
    for later in ("core/c_after", "core/d_last"):
        details = next(t for t in result.tests if t.id == later).case_details
        assert (
            "the request got no answer: the server exited with code 13 during case 'b_boom'"
            in details
        )
