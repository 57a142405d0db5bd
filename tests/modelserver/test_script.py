"""The model server's script file: what a user writes, and the errors they get for a mistake."""

from __future__ import annotations

import subprocess

import pytest

from runners.model.errors import ConfigError
from runners.modelserver.script import Run, Say, Script, Tools, Write, check_script
from runners.modelserver.translate import aider_reply, mini_reply, tool_reply, write_command


def script_file(tmp_path, text: str):
    path = tmp_path / "script.yaml"
    path.write_text(text)
    return path


def test_a_script_reads_its_turns_and_the_files_it_names(tmp_path):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "readme.md").write_text("# Read me\n")
    path = script_file(
        tmp_path,
        """
checkpoints:
  checkpoint_1:
    - write: README.md
      from: notes/readme.md
    - tools:
        - write: a.txt
          content: a
        - run: ls
    - say: done
  checkpoint_2:
    - run: make
default:
  - say: nothing to do
""",
    )
    script = Script.load(path)
    first = script.turns_for("checkpoint_1")
    assert isinstance(first[0], Write) and first[0].text == "# Read me\n"
    assert isinstance(first[1], Tools) and [type(a) for a in first[1].tools] == [Write, Run]
    assert first[2] == Say(say="done")
    assert script.turns_for("checkpoint_2") == [
        Run(run="make"),
        Say(say="Done."),
    ]  # a final answer is added
    assert script.turns_for("checkpoint_9") == [Say(say="nothing to do")]


@pytest.mark.parametrize(
    "text, message",
    [
        ("checkpoints: {c: [{wirte: a.txt, content: x}]}", "field `checkpoints.c.0`"),
        (
            "checkpoints: {c: [{write: a.txt}]}",
            "give the file's text as `content` or a file to read it from as `from`",
        ),
        (
            "checkpoints: {c: [{write: /etc/passwd, content: x}]}",
            "must be a path inside the workspace",
        ),
        (
            "checkpoints: {c: [{write: ../up.txt, content: x}]}",
            "must be a path inside the workspace",
        ),
        ("checkpoints: {c: [{say: hi}, {run: ls}]}", "field `checkpoints.c.0`: `say` ends the run"),
        (
            "checkpoints: {c: [{run: ls, extra: 1}]}",
            "field `checkpoints.c.0.run.extra`: unknown key",
        ),
        ("checkpoints: {c: [{write: a.txt, from: missing.txt}]}", "field `checkpoints.c.0.from`:"),
        ("{}", "the script has no turns"),
    ],
)
def test_a_mistake_names_the_file_and_the_field(tmp_path, text, message):
    path = script_file(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        Script.load(path)
    assert str(path) in str(info.value)
    assert message in str(info.value), str(info.value)


def test_a_run_whose_checkpoint_has_no_turns_is_refused_before_it_starts(tmp_path):
    path = script_file(tmp_path, "checkpoints: {checkpoint_1: [{say: hi}]}")
    with pytest.raises(ConfigError, match="no turns for checkpoint_2"):
        check_script(path, ["checkpoint_1", "checkpoint_2"], "agent 'a'")


@pytest.mark.parametrize(
    "content",
    [
        "plain text\n",
        "no final newline",
        "line\nRUNNERS_EOF\nafter\n",
        "quotes ' \" $HOME `x` \\ \n",
        "ünïcode ✓\n",
    ],
)
def test_a_write_said_as_a_shell_command_writes_the_exact_text(tmp_path, content):
    command = write_command(Write(write="deep/dir/file.txt", content=content))
    subprocess.run(["bash", "-c", command], cwd=tmp_path, check=True)
    assert (tmp_path / "deep" / "dir" / "file.txt").read_text() == content


BASH = {"type": "object", "properties": {"command": {"type": "string"}}}
EXEC = {"type": "object", "properties": {"cmd": {"type": "string"}}}
ARGV = {"type": "object", "properties": {"command": {"type": "array"}}}
WRITE = {
    "type": "object",
    "properties": {"file_path": {"type": "string"}, "content": {"type": "string"}},
}


def test_each_action_becomes_the_tool_the_client_offers():
    write = Write(write="src/a.py", content="x = 1\n")
    claude = tool_reply(write, 3, {"Write": WRITE, "Bash": BASH}, "/workspace", "toolu")
    assert [(c.id, c.name, c.arguments) for c in claude.calls] == [
        ("toolu_runners_3_0", "Write", {"file_path": "/workspace/src/a.py", "content": "x = 1\n"})
    ]
    codex = tool_reply(Run(run="ls -la"), 0, {"exec_command": EXEC, "write_stdin": {}}, None)
    assert [(c.name, c.arguments) for c in codex.calls] == [("exec_command", {"cmd": "ls -la"})]
    argv = tool_reply(Run(run="ls"), 0, {"shell": ARGV}, None)
    assert argv.calls[0].arguments == {"command": ["bash", "-lc", "ls"]}
    # Gemini CLI refuses write_file on a build file in headless mode: its shell writes it
    gemini = tool_reply(
        Write(write="pyproject.toml", content="[project]\n"),
        0,
        {"write_file": WRITE, "run_shell_command": BASH},
        "/w",
    )
    assert (
        gemini.calls[0].name == "run_shell_command"
        and "pyproject.toml" in gemini.calls[0].arguments["command"]
    )
    assert tool_reply(Say(say="bye"), 5, {"Bash": BASH}, None).text == "bye"


def test_text_clients_get_their_own_formats():
    turns = [
        Write(write="a.py", content="old\n"),
        Run(run="pytest"),
        Write(write="a.py", content="new"),
        Say(say="All done."),
    ]
    whole = aider_reply(turns).text
    assert whole == "a.py\n```\nnew\n```\n\nAll done.\n"  # the file's last text; no command
    assert mini_reply(Run(run="ls")).text.endswith("```bash\nls\n```")
    assert "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT" in mini_reply(Say(say="bye")).text


def test_a_recorded_claude_session_becomes_a_script_that_edits_the_same_way(tmp_path):
    import json

    from runners.modelserver.replay import from_claude, from_codex, script_yaml

    lines = [
        {"type": "user", "cwd": "/workspace", "message": {"role": "user", "content": "go"}},
        {
            "type": "assistant",
            "cwd": "/workspace",
            "message": {
                "id": "m1",
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "name": "Write",
                        "input": {"file_path": "/workspace/a.py", "content": "x = 'old'\n"},
                    }
                ],
            },
        },
        {
            "type": "assistant",
            "cwd": "/workspace",
            "message": {
                "id": "m2",
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "name": "Read", "input": {"file_path": "/workspace/a.py"}}
                ],
            },
        },
        {
            "type": "assistant",
            "cwd": "/workspace",
            "message": {
                "id": "m2",
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "name": "Edit",
                        "input": {
                            "file_path": "/workspace/a.py",
                            "old_string": "'old'",
                            "new_string": '"it\'s new"',
                        },
                    }
                ],
            },
        },
        {
            "type": "assistant",
            "cwd": "/workspace",
            "message": {
                "id": "m3",
                "role": "assistant",
                "content": [{"type": "text", "text": "Changed a.py."}],
            },
        },
    ]
    recorded = from_claude("\n".join(json.dumps(line) for line in lines))
    assert recorded.skipped == {"Read": 1}
    write, _edit, say = recorded.turns
    assert write == Write(write="a.py", content="x = 'old'\n") and say == Say(say="Changed a.py.")
    # Written out and read back, then done by a shell: the same file as the session left
    path = tmp_path / "script.yaml"
    path.write_text(script_yaml(Script(checkpoints={"checkpoint_1": recorded.turns})))
    loaded = Script.load(path).turns_for("checkpoint_1")
    assert loaded == recorded.turns
    workspace = tmp_path / "w"
    workspace.mkdir()
    for turn in loaded[:2]:
        command = write_command(turn) if isinstance(turn, Write) else turn.run
        subprocess.run(["bash", "-c", command], cwd=workspace, check=True)
    assert (workspace / "a.py").read_text() == 'x = "it\'s new"\n'
    codex = from_codex(
        "\n".join(
            json.dumps(line)
            for line in [
                {
                    "type": "response_item",
                    "payload": {
                        "type": "function_call",
                        "name": "exec_command",
                        "arguments": json.dumps({"cmd": "echo hi > b.txt"}),
                    },
                },
                {
                    "type": "response_item",
                    "payload": {"type": "function_call", "name": "view_image", "arguments": "{}"},
                },
                {
                    "type": "response_item",
                    "payload": {
                        "type": "message",
                        "role": "assistant",
                        "content": [{"type": "output_text", "text": "Wrote b.txt."}],
                    },
                },
            ]
        )
    )
    assert codex.turns == [
        Run(run="echo hi > b.txt"),
        Say(say="Wrote b.txt."),
    ] and codex.skipped == {"view_image": 1}
