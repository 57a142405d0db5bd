"""The agent's command template and settings: mistakes are refused with the field named."""

from __future__ import annotations

import pytest

from runners.agents.command import expand, split_command
from runners.agents.spec import AgentSpec, load_agents_file, parse_agent, refuse_exposure
from runners.model.errors import ConfigError, UserInputError

VALUES = {
    "prompt_file": "/agent/prompt/checkpoint_2.md",
    "prompt": "Add --upper.\n",
    "workspace": "/workspace",
    "home": "/agent/home",
    "checkpoint": "checkpoint_2",
    "checkpoint_number": "2",
    "problem": "mini",
    "python": "/usr/bin/python3",
}


def test_a_template_is_split_once_and_filled_per_argument():
    spec = parse_agent(
        {
            "name": "a",
            "command": "sh -c 'cat {prompt_file} > seen-{checkpoint_number}.md' x {{literal}}",
        },
        "t",
    )
    assert expand(spec.argv, VALUES, {}) == [
        "sh",
        "-c",
        "cat /agent/prompt/checkpoint_2.md > seen-2.md",
        "x",
        "{literal}",
    ]
    # {prompt} is one argument whatever it holds: no shell ever splits it.
    spec = parse_agent({"name": "a", "command": ["claude", "-p", "{prompt}"]}, "t")
    assert expand(spec.argv, {**VALUES, "prompt": "a 'b' $(c)\n"}, {}) == [
        "claude",
        "-p",
        "a 'b' $(c)\n",
    ]


def test_mounts_are_named_in_the_template():
    spec = parse_agent(
        {"name": "a", "command": "{python} {mounts[tool]}/run.py", "mounts": {"tool": "/opt/tool"}},
        "t",
    )
    assert spec.uses("python") and spec.uses("mounts") and not spec.uses("prompt")
    assert expand(spec.argv, VALUES, spec.mounts) == ["/usr/bin/python3", "/opt/tool/run.py"]


@pytest.mark.parametrize(
    "command, message",
    [
        (
            "run {prompt_path}",
            "unknown placeholder {prompt_path} (did you mean {prompt}?) (known: {prompt_file}",
        ),
        ("run {mounts[tool]}", "{mounts[tool]}: no mount named 'tool' (mounts: none)"),
        ("run {mounts}", "a mount is written {mounts[NAME]}"),
        ("run {prompt!r}", "placeholder {prompt} takes no format or conversion"),
        ("run {", "argument '{': Single '{' encountered"),
        ("run 'unclosed", "cannot be split into arguments"),
        ("", "is empty"),
    ],
)
def test_a_bad_template_names_the_field_and_what_to_write(command, message):
    with pytest.raises(ConfigError) as info:
        parse_agent({"name": "a", "command": command}, "agents.yaml")
    assert "agents.yaml: invalid configuration" in str(info.value)
    assert f"field `command`: {message}" in str(info.value) and "(top level)" not in str(info.value)


@pytest.mark.parametrize(
    "data, message",
    [
        ({"name": "a/b", "command": "x"}, "field `name`: may only contain"),
        (
            {"name": "a", "command": "x", "pass_env": ["API KEY"]},
            "field `pass_env`: not variable names: 'API KEY'",
        ),
        (
            {"name": "a", "command": "x", "env": {"1X": "y"}},
            "field `env`: not variable names: '1X'",
        ),
        (
            {"name": "a", "command": "x", "timeout": 0},
            "field `timeout`: Input should be greater than 0",
        ),
        (
            {"name": "a", "command": "x", "sandbox": "vm"},
            "field `sandbox`: sandbox: 'vm' is not one of auto",
        ),
        (
            {"name": "a", "command": "x", "netwrk": True},
            (
                "field `netwrk`: unknown key (did you mean 'network'?) "
                "(allowed keys: args, base_url, budget, command, dry_run, env, home"
            ),
        ),
    ],
)
def test_bad_settings_name_the_field(data, message):
    with pytest.raises(ConfigError) as info:
        parse_agent(data, "agents.yaml")
    assert message in str(info.value), str(info.value)


def test_the_agents_file_names_agents_by_key_and_resolves_paths_from_its_directory(tmp_path):
    (tmp_path / "tools").mkdir()
    (tmp_path / "agents.yaml").write_text(
        "agents:\n"
        "  quick: \"sh -c 'echo hi'\"\n"
        "  tooled:\n"
        "    command: '{python} {mounts[t]}/x.py'\n"
        "    mounts: {t: tools}\n"
        "    pass_env: [OPENAI_API_KEY]\n"
    )
    quick, tooled = load_agents_file(tmp_path / "agents.yaml")
    assert (quick.name, quick.argv, quick.network, quick.pass_env) == (
        "quick",
        ["sh", "-c", "echo hi"],
        False,
        [],
    )
    assert tooled.mounts == {"t": str(tmp_path / "tools")} and tooled.pass_env == ["OPENAI_API_KEY"]


@pytest.mark.parametrize(
    "text, message",
    [
        ("agents: []\n", "field `agents`: expected a mapping of agent name"),
        ("agent: {a: x}\n", "unknown top-level key(s) agent"),
        ("agents:\n  a: {command: x, mounts: {t: missing}}\n", "agent 'a': field `mounts.t`:"),
        (
            "agents:\n  a: {command: x, mounts: {t: /dev}}\n",
            "would cover the sandbox's own directories",
        ),
        (
            "agents:\n  a: {command: x, name: b}\n",
            "field `agents.a.name`: differs from its key 'a'",
        ),
        (
            "agents:\n  a: 3\n",
            "expected a mapping (command, pass_env, ...) or a command string, got int",
        ),
    ],
)
def test_a_bad_agents_file_is_refused_with_the_file_and_field(tmp_path, text, message):
    (tmp_path / "agents.yaml").write_text(text)
    with pytest.raises(UserInputError) as info:
        load_agents_file(tmp_path / "agents.yaml")
    assert str(tmp_path / "agents.yaml") in str(info.value) and message in str(info.value), str(
        info.value
    )


def test_a_mount_that_would_show_the_hidden_tests_or_other_agents_is_refused(tmp_path):
    problems, runs = tmp_path / "problems", tmp_path / "runs"
    for path in (problems / "mini" / "tests", runs, tmp_path / "tools"):
        path.mkdir(parents=True)
    guarded = {"the problems": problems, "the run's results": runs}

    def spec(**fields: object) -> AgentSpec:
        return parse_agent({"name": "a", "command": "x", **fields}, "t").resolved(
            tmp_path, "agent 'a'"
        )

    refuse_exposure(
        spec(mounts={"t": "tools"}), guarded, "agent 'a'"
    )  # a directory of its own: fine
    for fields, message in (
        ({"mounts": {"t": "."}}, f"field `mounts.t`: {tmp_path} holds the problems"),
        ({"mounts": {"t": "problems/mini/tests"}}, "sits inside the problems"),
        ({"home": "runs"}, "field `home`: "),
    ):
        with pytest.raises(UserInputError) as info:
            refuse_exposure(spec(**fields), guarded, "agent 'a'")
        assert message in str(info.value), str(info.value)


def test_split_command_keeps_a_list_as_given():
    assert split_command(["a b", "{prompt}"]) == ["a b", "{prompt}"]
