"""Which Node runs a JavaScript problem's tests: recorded in the result, chosen with `--node`.

Issue 26: under bubblewrap the Node that ran was whatever came first on PATH (v20 here, where the
README says 22), and nothing said which. Real vitest runs, on this machine's two Nodes: the one
on PATH (/usr/bin/node) and the project's pinned one (node_modules/.bin/node, the npm package
`node`); the test file itself checks `process.version`, so the run proves which Node ran it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from support import make_problem, make_submission, need, need_sandbox

from runners import EnvironmentSpec, run_checkpoint
from runners.model.errors import UserInputError
from runners.toolchains.which_node import find_host_node, host_candidates, node_version

pytestmark = [pytest.mark.toolchain]

ROOT = Path(__file__).resolve().parent.parent

# The test asserts the Node it runs on: the problem's `env` says which one the run must have.
TEST = """
import { expect, test } from "vitest";
test("runs on the Node asked for", () => {
  expect(process.version).toBe(process.env.WANT_NODE);
});
"""


def _nodes() -> dict[str, str]:
    """major version -> a node binary here."""
    found: dict[str, str] = {}
    for node in host_candidates():
        version = node_version(node)
        if version:
            found.setdefault(version.split(".")[0], node)
    return found


@pytest.fixture(scope="module")
def two_nodes() -> dict[str, str]:
    found = _nodes()
    need(
        len(found) >= 2,
        f"two Node major versions are needed (PATH's and node_modules/.bin/node), found {found}",
    )
    return found


def _problem(root: Path, want: str) -> Path:
    problem = make_problem(
        root,
        {"checkpoint_1.test.ts": TEST},
        name=f"which_node_{want.replace('.', '_')}",
        conftest=None,
        framework="vitest",
        entry_file="main.mjs",
        timeout=60,
        env={"WANT_NODE": f"v{want}"},
    )
    for name in ("package.json", "package-lock.json"):
        shutil.copy(ROOT / "problems" / "text_layout" / name, problem / name)
    return problem


@pytest.mark.parametrize("sandbox", ["none", "bubblewrap"])
def test_the_node_asked_for_runs_the_tests_and_is_recorded(two_nodes, sandbox, tmp_path):
    if sandbox != "none":
        need_sandbox(sandbox)
    sub = make_submission(tmp_path, {"main.mjs": "export {};\n"})
    for major, node in two_nodes.items():
        version = node_version(node)
        assert version is not None
        result = run_checkpoint(
            _problem(tmp_path / major, version),
            "checkpoint_1",
            sub,
            EnvironmentSpec(sandbox=sandbox, node=major),
        )
        assert not result.infrastructure_failure, result.infrastructure_reason
        assert [t.status for t in result.tests] == ["passed"], [
            t.failure_message for t in result.tests
        ]
        assert result.node == version
        # And the same choice as a path to the binary.
        again = run_checkpoint(
            _problem(tmp_path / f"{major}-path", version),
            "checkpoint_1",
            sub,
            EnvironmentSpec(sandbox=sandbox, node=node),
        )
        assert again.node == version and [t.status for t in again.tests] == ["passed"]


def test_without_a_choice_the_node_on_path_runs_and_is_recorded(tmp_path):
    path_node = shutil.which("node")
    need(path_node is not None, "no node on PATH")
    version = node_version(path_node)
    sub = make_submission(tmp_path, {"main.mjs": "export {};\n"})
    result = run_checkpoint(
        _problem(tmp_path, version), "checkpoint_1", sub, EnvironmentSpec(sandbox="none")
    )
    assert result.node == version and [t.status for t in result.tests] == ["passed"]
    saved = json.loads(result.model_dump_json())
    assert saved["node"] == version  # in result.json, the batch tables and the Promptfoo metadata


def test_a_node_not_here_is_refused_naming_what_was_found(tmp_path):
    with pytest.raises(
        UserInputError, match=r"--node 7: no Node matching ==7\.\* here \(found: .*v\d+\.\d+\.\d+"
    ):
        find_host_node("7")
    sub = make_submission(tmp_path, {"main.mjs": "export {};\n"})
    problem = _problem(tmp_path, "7.0.0")
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "runners",
            "run",
            str(problem),
            "-c",
            "checkpoint_1",
            "-s",
            str(sub),
            "--sandbox",
            "none",
            "--node",
            "7",
            "--no-progress",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (
        out.returncode == 2
        and "no Node matching ==7.*" in out.stderr
        and "Traceback" not in out.stderr
    )
    bad = subprocess.run(
        [
            sys.executable,
            "-m",
            "runners",
            "run",
            str(problem),
            "-c",
            "checkpoint_1",
            "-s",
            str(sub),
            "--node",
            "latest",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (
        bad.returncode == 2
        and "option --node: 'latest': expected a Node version (e.g. 22)" in bad.stderr
    )


def test_the_cli_the_provider_and_batch_take_the_choice(two_nodes, tmp_path):
    # Not the Node on PATH: what the run would get without the choice.
    default = os.path.realpath(shutil.which("node") or "")
    major = next(m for m, node in two_nodes.items() if os.path.realpath(node) != default)
    version = node_version(two_nodes[major])
    assert version is not None
    problem = _problem(tmp_path / "problems", version)
    sub = make_submission(tmp_path, {"main.mjs": "export {};\n"})
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "runners",
            "run",
            str(problem),
            "-c",
            "checkpoint_1",
            "-s",
            str(sub),
            "--sandbox",
            "none",
            "--node",
            major,
            "--json",
            str(tmp_path / "r.json"),
            "--no-progress",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert json.loads((tmp_path / "r.json").read_text())["node"] == version
    assert f"Node {version}" in out.stdout

    from importlib.util import module_from_spec, spec_from_file_location

    spec = spec_from_file_location("node_choice_provider", ROOT / "providers" / "test_runner.py")
    assert spec and spec.loader
    provider = module_from_spec(spec)
    spec.loader.exec_module(provider)
    submissions = tmp_path / "subs"
    make_submission(submissions / problem.name, {"main.mjs": "export {};\n"}, "checkpoint_1")
    config = {
        "agent": "a",
        "submissions": str(submissions),
        "problems": str(problem.parent),
        "sandbox": "none",
        "node": major,
        "output": str(tmp_path / "pf"),
        "progress": False,
    }
    answer = provider.call_api(
        "", {"config": config}, {"vars": {"problem": problem.name, "checkpoint": "checkpoint_1"}}
    )
    assert answer["metadata"]["node"] == version and answer["metadata"]["passed"] is True
    wrong = provider.call_api(
        "",
        {"config": {**config, "node": 22.1}},
        {"vars": {"problem": problem.name, "checkpoint": "checkpoint_1"}},
    )
    assert "field `node`: expected a quoted version" in wrong["error"]

    agents = tmp_path / "batch-subs"
    make_submission(agents / "a" / problem.name, {"main.mjs": "export {};\n"}, "checkpoint_1")
    batch = subprocess.run(
        [
            sys.executable,
            "-m",
            "runners",
            "batch",
            "--problems",
            str(problem.parent),
            "--submissions",
            str(agents),
            "--sandbox",
            "none",
            "--node",
            major,
            "-o",
            str(tmp_path / "batch"),
            "--no-progress",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert batch.returncode == 0, batch.stdout + batch.stderr
    [cell] = (tmp_path / "batch").glob("cells/*/*/*/result.json")
    assert json.loads(cell.read_text())["node"] == version
    assert yaml.safe_load((tmp_path / "batch" / "batch.json").read_text()) is not None


def test_docker_records_its_images_node_and_refuses_another(tmp_path):
    from support import need_docker_image

    need_docker_image("node")
    sub = make_submission(tmp_path, {"main.mjs": "export {};\n"})
    from runners.sandbox.registry import sandbox_class
    from runners.toolchains.docker_host import NODE_IN_IMAGE
    from runners.toolchains.hosts import toolchain_host

    host = toolchain_host(sandbox_class("docker").from_options({}))
    version = host.node_version(NODE_IN_IMAGE)
    assert version and version[0].isdigit()
    result = run_checkpoint(
        _problem(tmp_path, version), "checkpoint_1", sub, EnvironmentSpec(sandbox="docker")
    )
    assert result.node == version and [t.status for t in result.tests] == ["passed"]
    other = "7" if not version.startswith("7.") else "9"
    with pytest.raises(
        UserInputError, match=rf"--node {other}: the docker sandbox runs Node {version}"
    ):
        run_checkpoint(
            _problem(tmp_path / "other", version),
            "checkpoint_1",
            sub,
            EnvironmentSpec(sandbox="docker", node=other),
        )
