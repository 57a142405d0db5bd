"""Errors blame what the user named, and a misspelled name gets a "did you mean".

Issue 26: `--checkpoint checkpoint_9` blamed the problem's config.yaml ("invalid configuration"),
so did a problem directory that does not exist, and a misspelled key or option value got no hint.
Every place a user names a thing is covered: command-line options, config.yaml keys, the
Promptfoo provider's config keys and values, the test generator's keys, the assertion's policy,
the agents file's keys and an agent command's placeholders.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
import yaml
from support import make_problem, make_submission

from runners.model.errors import ConfigError, UserInputError
from runners.util.suggest import closest

TESTS = {
    "test_checkpoint_1.py": "def test_a():\n    pass\n",
    "test_checkpoint_2.py": "def test_b():\n    pass\n",
}


def load_provider_module(name: str) -> ModuleType:
    """providers/<name>.py by path, as promptfoo loads it."""
    spec = importlib.util.spec_from_file_location(
        f"wording_{name}", Path(__file__).parents[1] / "providers" / f"{name}.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "runners", *args], capture_output=True, text=True, check=False
    )


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Path]:
    problems = tmp_path / "problems"
    problem = make_problem(problems, TESTS, name="inventory", checkpoints=2)
    return {
        "problems": problems,
        "problem": problem,
        "submission": make_submission(tmp_path, {"main.py": ""}),
    }


def error_of(out: subprocess.CompletedProcess[str]) -> str:
    assert out.returncode == 2, out.stdout + out.stderr
    assert "Traceback" not in out.stderr
    return " ".join(out.stderr.split())


def test_an_unknown_checkpoint_blames_the_option_not_the_config(world):
    text = error_of(
        cli("run", str(world["problem"]), "-c", "checkpoint_9", "-s", str(world["submission"]))
    )
    assert "option --checkpoint: problem 'inventory' has no checkpoint 'checkpoint_9'" in text
    assert "(its checkpoints: checkpoint_1, checkpoint_2)" in text
    assert "invalid configuration" not in text and "config.yaml" not in text
    assert "did you mean" not in text  # checkpoint_1 and _2 are equally close: the list says it


def test_a_misspelled_checkpoint_gets_a_suggestion(world):
    text = error_of(
        cli("run", str(world["problem"]), "-c", "chekpoint_2", "-s", str(world["submission"]))
    )
    assert "no checkpoint 'chekpoint_2' (did you mean 'checkpoint_2'?)" in text


def test_a_missing_problem_directory_is_not_an_invalid_configuration(world):
    text = error_of(
        cli(
            "run",
            str(world["problems"] / "inventori"),
            "-c",
            "checkpoint_1",
            "-s",
            str(world["submission"]),
        )
    )
    assert (
        f"problem directory not found: {world['problems'] / 'inventori'} "
        "(did you mean 'inventory'?)"
    ) in text
    assert "invalid configuration" not in text
    # The problems root instead of a problem: what to give instead.
    text = error_of(
        cli("run", str(world["problems"]), "-c", "checkpoint_1", "-s", str(world["submission"]))
    )
    assert (
        f"{world['problems']} is not a problem directory: it has no config.yaml "
        "(it holds problems: inventory"
    ) in text
    assert "invalid configuration" not in text


def test_a_misspelled_config_key_gets_a_suggestion(world):
    config = world["problem"] / "config.yaml"
    data = yaml.safe_load(config.read_text())
    data["entry_fle"] = data.pop("entry_file")
    config.write_text(yaml.safe_dump(data))
    text = error_of(
        cli("run", str(world["problem"]), "-c", "checkpoint_1", "-s", str(world["submission"]))
    )
    assert f"{config}: invalid configuration" in text  # here the config is at fault
    assert "field `entry_fle`: unknown key (did you mean 'entry_file'?) (allowed keys:" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--sandbox", "bubblwrap"],
            (
                "option --sandbox: 'bubblwrap' is not one of auto, docker, bubblewrap, none, "
                "podman "
                "(did you mean 'bubblewrap'?)"
            ),
        ),
        (["--pass-policy", "all-case"], "(did you mean 'all-cases'?)"),
    ],
)
def test_misspelled_option_values_of_run_get_a_suggestion(world, args, message):
    text = error_of(
        cli(
            "run",
            str(world["problem"]),
            "-c",
            "checkpoint_1",
            "-s",
            str(world["submission"]),
            *args,
        )
    )
    assert message in text


@pytest.mark.slow
def test_misspelled_option_values_of_batch_get_a_suggestion(world, tmp_path):
    submissions = tmp_path / "subs"
    make_submission(submissions / "alpha" / "inventory", {"main.py": ""}, "checkpoint_1")
    base = [
        "batch",
        "--problems",
        str(world["problems"]),
        "--submissions",
        str(submissions),
        "-o",
        str(tmp_path / "o"),
    ]
    assert "option --agent: unknown 'alpah' (did you mean 'alpha'?)" in error_of(
        cli(*base, "--agent", "alpah")
    )
    assert "option --problem: unknown 'inventroy' (did you mean 'inventory'?)" in error_of(
        cli(*base, "--problem", "inventroy")
    )
    assert "'locl' is not one of local, ray (did you mean 'local'?)" in error_of(
        cli(*base, "--executor", "locl")
    )
    # An option name itself: click's own suggestion.
    assert "'--problems'" in error_of(cli("batch", "--problemz", "x")).split("Did you mean", 1)[1]


def test_the_promptfoo_provider_suggests_keys_and_values(world):
    provider = load_provider_module("test_runner")
    base = {
        "agent": "alpha",
        "submissions": str(world["submission"]),
        "problems": str(world["problems"]),
        "sandbox": "none",
    }
    ctx = {"vars": {"problem": "inventory", "checkpoint": "checkpoint_1"}}

    def error(**config):
        return provider.call_api("", {"config": {**base, **config}}, ctx)["error"]

    assert "field `pass-policy`: unknown key (did you mean 'pass_policy'?)" in error(
        **{"pass-policy": "any"}
    )
    assert "field `sandbox`: 'bubblwrap' is not one of auto" in error(sandbox="bubblwrap")
    assert "(did you mean 'bubblewrap'?)" in error(sandbox="bubblwrap")
    assert "'all-case' is not one of" in error(
        pass_policy="all-case"
    ) and "(did you mean 'all-cases'?)" in error(pass_policy="all-case")
    unknown = provider.call_api(
        "", {"config": base}, {"vars": {"problem": "inventroy", "checkpoint": "checkpoint_1"}}
    )
    assert (
        "test `problem`: unknown problem 'inventroy' (did you mean 'inventory'?)"
        in unknown["error"]
    )


def test_the_test_generator_and_the_assertion_suggest(world):
    generator = load_provider_module("tests_from_problems")
    # A mistake in the generator's config is one ERROR row that says it (not a traceback).
    [row] = generator.generate_tests({"problem": str(world["problems"])})
    assert (
        "unknown config key(s) 'problem' (did you mean 'problems'?)"
        in row["metadata"]["config_error"]
    )
    [row] = generator.generate_tests({"problems": str(world["problems"]), "only": ["inventroy"]})
    assert "no problem inventroy (did you mean 'inventory'?)" in row["metadata"]["config_error"]
    assertions = load_provider_module("assertions")
    grade = assertions.get_assert(
        "",
        {
            "metadata": {"schema_version": 2, "total_counts": {}, "policies": {}},
            "config": {"pass_policy": "core-case"},
        },
    )
    assert grade["pass"] is False and "(did you mean 'core-cases'?)" in grade["reason"]


def test_the_agents_file_suggests_keys_and_placeholders(tmp_path):
    from runners.agents.spec import load_agents_file, parse_agent

    agents = tmp_path / "agents.yaml"
    agents.write_text("agent:\n  a: run\n")
    with pytest.raises(
        ConfigError, match=r"unknown top-level key\(s\) agent \(did you mean 'agents'\?\)"
    ):
        load_agents_file(agents)
    agents.write_text("agents:\n  a: {comand: run}\n")
    with pytest.raises(
        ConfigError, match=r"field `comand`: unknown key \(did you mean 'command'\?\)"
    ):
        load_agents_file(agents)
    with pytest.raises(
        ConfigError, match=r"unknown placeholder \{workspce\} \(did you mean \{workspace\}\?\)"
    ):
        parse_agent({"name": "a", "command": "run {workspce}"}, "agents.yaml")
    with pytest.raises(ConfigError, match=r"no mount named 'tols' \(did you mean 'tools'\?\)"):
        parse_agent(
            {"name": "a", "command": "run {mounts[tols]}", "mounts": {"tools": str(tmp_path)}},
            "agents.yaml",
        )


def test_a_missing_file_is_not_an_invalid_configuration(tmp_path):
    from runners.agents.spec import load_agents_file

    with pytest.raises(UserInputError) as info:
        load_agents_file(tmp_path / "agents.yml")
    assert str(info.value) == f"{tmp_path / 'agents.yml'}: file not found"
    assert not isinstance(info.value, ConfigError)


def test_no_suggestion_when_nothing_is_close_or_two_are_as_close():
    assert closest("checkpoint_9", ["checkpoint_1", "checkpoint_2"]) is None
    assert closest("zzz", ["core-cases", "all-cases"]) is None
    assert closest("bubblwrap", ["auto", "docker", "bubblewrap", "none"]) == "bubblewrap"
