"""Reading any YAML the harness reads is bounded: an alias bomb (a few lines whose aliases stand
for billions of values) in a problem's config, an agents file or a case file is refused at once,
naming the file; before, a bomb in a validated field (`tags`) held the harness for minutes at 2
GB."""

from __future__ import annotations

import pytest
from support import make_problem

from runners.agents.spec import load_agents_file
from runners.cases.bounded_yaml import YAMLBoundsError, load
from runners.cases.casefile import CaseFileError
from runners.cases.loading import read_document
from runners.model.errors import ConfigError
from runners.model.problem_loader import load_problem

# Nine levels of ten: 10^9 values in 12 lines.
BOMB = "\n".join(
    ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    + [
        f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 10) + "]"
        for i in range(8)
    ]
)


def _problem_config(tags: str) -> str:
    return (
        f"{BOMB}\nname: demo\nversion: 1\ndescription: d\ntags: {tags}\nentry_file: main\n"
        "checkpoints: {checkpoint_1: {version: 1}}\n"
    )


@pytest.mark.timeout(30)
def test_an_alias_bomb_in_a_problem_config_is_refused_naming_the_file(tmp_path):
    problem = make_problem(tmp_path, {"test_checkpoint_1.py": "def test_a(): pass\n"})
    (problem / "config.yaml").write_text(_problem_config("*i"), encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_problem(problem)
    message = str(info.value)
    assert str(problem / "config.yaml") in message
    assert "its aliases (*name) expand its 44 written values to 2,345,679,035" in message
    assert "alias bomb" in message


@pytest.mark.timeout(30)
def test_an_alias_bomb_in_an_agents_file_is_refused(tmp_path):
    path = tmp_path / "agents.yaml"
    path.write_text(
        f"{BOMB}\nagents:\n  a:\n    command: echo\n    env: {{X: y}}\n    mounts: *i\n"
    )
    with pytest.raises(ConfigError) as info:
        load_agents_file(path)
    assert str(path) in str(info.value) and "alias bomb" in str(info.value)


@pytest.mark.timeout(30)
def test_an_alias_bomb_in_a_case_file_is_refused(tmp_path):
    path = tmp_path / "case_1.yaml"
    path.write_text(f"{BOMB}\ncase: {{args: *i}}\nexpected: {{output: x}}\n")
    with pytest.raises(CaseFileError) as info:
        read_document(path, "case_1")
    assert "case_1.yaml" in str(info.value) and "alias bomb" in str(info.value)


def test_a_recursive_alias_is_refused():
    with pytest.raises(YAMLBoundsError, match="recursive alias"):
        load("a: &a [1, *a]\n")


def test_ordinary_aliases_and_merge_keys_still_load(tmp_path):
    shared = "defaults: &d {timeout: 5, env: {A: '1'}}\nfirst:\n  <<: *d\n  name: one\nsecond: *d\n"
    assert load(shared) == {
        "defaults": {"timeout": 5, "env": {"A": "1"}},
        "first": {"timeout": 5, "env": {"A": "1"}, "name": "one"},
        "second": {"timeout": 5, "env": {"A": "1"}},
    }
    problem = make_problem(tmp_path, {"test_checkpoint_1.py": "def test_a(): pass\n"})
    (problem / "config.yaml").write_text(
        "name: demo\nversion: 1\ndescription: d\ntags: &t [x, y]\n"
        "entry_file: main\ncheckpoints:\n  checkpoint_1: &cp {version: 1}\n"
        "  checkpoint_2: *cp\n",
        encoding="utf-8",
    )
    assert load_problem(problem).tags == ["x", "y"]
