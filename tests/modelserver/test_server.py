"""The scripted model server over real HTTP: each API's answers as a client reads them, the turn
a request is at taken from its history, and the tokens it reports adding up to its totals."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from runners.modelserver import bridge
from runners.modelserver.script import Run, Say, Script, Write
from runners.modelserver.server import ModelServer, free_port

SCRIPT = Script(
    checkpoints={
        "checkpoint_1": [
            Write(write="a.txt", content="hello\n"),
            Run(run="cat a.txt"),
            Say(say="Wrote a.txt."),
        ]
    }
)
CLAUDE_TOOLS = [
    {
        "name": "Write",
        "input_schema": {
            "type": "object",
            "properties": {"file_path": {"type": "string"}, "content": {"type": "string"}},
        },
    },
    {
        "name": "Bash",
        "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}},
    },
]


@pytest.fixture
def server():
    running = ModelServer(SCRIPT, "checkpoint_1", workdir="/workspace").start()
    yield running
    running.stop()


def post(url: str, body: dict) -> tuple[str, bytes]:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return answer.headers["Content-Type"], answer.read()


def events(raw: bytes) -> list[dict]:
    return [
        json.loads(line[6:])
        for line in raw.decode().splitlines()
        if line.startswith("data: ") and line != "data: [DONE]"
    ]


def test_anthropic_streamed_turns_follow_the_script_and_report_their_usage(server):
    url = f"{server.url}/claude-code/v1/messages?beta=true"
    prompt = {"role": "user", "content": [{"type": "text", "text": "write it"}]}
    kind, raw = post(
        url,
        {
            "model": "claude-x",
            "stream": True,
            "system": "sys",
            "tools": CLAUDE_TOOLS,
            "messages": [prompt],
        },
    )
    assert kind == "text/event-stream"
    got = events(raw)
    assert [e["type"] for e in got] == [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    block = got[1]["content_block"]
    assert (block["type"], block["name"]) == ("tool_use", "Write")
    assert json.loads(got[2]["delta"]["partial_json"]) == {
        "file_path": "/workspace/a.txt",
        "content": "hello\n",
    }
    first = got[4]["usage"]
    assert got[4]["delta"]["stop_reason"] == "tool_use"
    assert first["cache_creation_input_tokens"] > 0 and first["cache_read_input_tokens"] == 0
    # The next request carries the tool's result: the script goes on with its second turn
    history = [
        prompt,
        {"role": "assistant", "content": [{**block, "input": {}}]},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": block["id"], "content": "ok"}],
        },
    ]
    _, raw = post(
        url,
        {
            "model": "claude-x",
            "stream": False,
            "system": "sys",
            "tools": CLAUDE_TOOLS,
            "messages": history,
        },
    )
    second = json.loads(raw)
    assert second["content"][0]["name"] == "Bash" and second["content"][0]["input"] == {
        "command": "cat a.txt"
    }
    assert second["usage"]["cache_read_input_tokens"] == first["cache_creation_input_tokens"]
    # A retried request gets the same answer (the server keeps no conversation state)
    assert (
        json.loads(
            post(
                url,
                {"model": "claude-x", "system": "sys", "tools": CLAUDE_TOOLS, "messages": history},
            )[1]
        )["content"]
        == second["content"]
    )
    served = server.served()
    usages = [first, second["usage"], second["usage"]]
    assert served.requests == 3
    assert served.input_tokens == sum(
        u["input_tokens"] + u["cache_read_input_tokens"] + u["cache_creation_input_tokens"]
        for u in usages
    )
    assert served.output_tokens == sum(u["output_tokens"] for u in usages)
    assert (
        json.loads(post(f"{server.url}/v1/messages/count_tokens", {"messages": [prompt]})[1])[
            "input_tokens"
        ]
        > 0
    )


def test_openai_responses_stream_like_codex_reads_it(server):
    tools = [
        {
            "type": "function",
            "name": "exec_command",
            "parameters": {"type": "object", "properties": {"cmd": {"type": "string"}}},
        }
    ]
    body = {
        "model": "gpt-x",
        "stream": True,
        "instructions": "be brief",
        "tools": tools,
        "input": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}
        ],
    }
    _, raw = post(f"{server.url}/codex/v1/responses", body)
    got = events(raw)
    done = [e["item"] for e in got if e["type"] == "response.output_item.done"]
    assert done[0]["type"] == "function_call" and done[0]["name"] == "exec_command"
    assert "cat > a.txt" in json.loads(done[0]["arguments"])["cmd"]
    completed = got[-1]
    assert completed["type"] == "response.completed"
    body["input"] += [
        done[0],
        {"type": "function_call_output", "call_id": done[0]["call_id"], "output": "ok"},
    ]
    _, raw = post(f"{server.url}/codex/v1/responses", body)
    second = next(e["item"] for e in events(raw) if e["type"] == "response.output_item.done")
    assert json.loads(second["arguments"]) == {"cmd": "cat a.txt"}
    assert (
        server.served().input_tokens
        == completed["response"]["usage"]["input_tokens"]
        + events(raw)[-1]["response"]["usage"]["input_tokens"]
    )


def test_openai_chat_completions_streamed_and_not(server):
    tools = [
        {
            "type": "function",
            "function": {
                "name": "bash",
                "parameters": {"type": "object", "properties": {"command": {"type": "string"}}},
            },
        }
    ]
    messages = [{"role": "system", "content": "sys"}, {"role": "user", "content": "go"}]
    _, raw = post(
        f"{server.url}/v1/chat/completions", {"model": "m", "tools": tools, "messages": messages}
    )
    answer = json.loads(raw)
    call = answer["choices"][0]["message"]["tool_calls"][0]
    assert (
        answer["choices"][0]["finish_reason"] == "tool_calls" and call["function"]["name"] == "bash"
    )
    messages += [
        answer["choices"][0]["message"],
        {"role": "tool", "tool_call_id": call["id"], "content": ""},
    ]
    _, raw = post(
        f"{server.url}/v1/chat/completions",
        {"model": "m", "tools": tools, "messages": messages, "stream": True},
    )
    chunks = events(raw)
    streamed = [
        c
        for chunk in chunks
        for choice in chunk["choices"]
        for c in choice["delta"].get("tool_calls", [])
    ]
    assert json.loads(streamed[0]["function"]["arguments"]) == {"command": "cat a.txt"}
    assert chunks[-1]["usage"]["prompt_tokens_details"]["cached_tokens"] > 0


def test_gemini_generate_content_and_its_stream(server):
    tools = [
        {
            "functionDeclarations": [
                {
                    "name": "run_shell_command",
                    "parametersJsonSchema": {
                        "type": "object",
                        "properties": {"command": {"type": "string"}},
                    },
                }
            ]
        }
    ]
    contents = [{"role": "user", "parts": [{"text": "go"}]}]
    _, raw = post(
        f"{server.url}/gemini-cli/v1beta/models/gemini-x:streamGenerateContent?alt=sse",
        {"contents": contents, "tools": tools},
    )
    answer = events(raw)[0]
    part = answer["candidates"][0]["content"]["parts"][0]["functionCall"]
    assert part["name"] == "run_shell_command" and "a.txt" in part["args"]["command"]
    usage = answer["usageMetadata"]
    assert usage["totalTokenCount"] == usage["promptTokenCount"] + usage["candidatesTokenCount"]
    contents += [
        {"role": "model", "parts": [{"functionCall": part}]},
        {
            "role": "user",
            "parts": [
                {
                    "functionResponse": {
                        "id": part["id"],
                        "name": part["name"],
                        "response": {"output": ""},
                    }
                }
            ],
        },
    ]
    _, raw = post(
        f"{server.url}/v1beta/models/gemini-x:generateContent",
        {"contents": contents, "tools": tools},
    )
    assert json.loads(raw)["candidates"][0]["content"]["parts"][0]["functionCall"]["args"] == {
        "command": "cat a.txt"
    }


def test_a_request_without_tools_from_a_tool_client_is_a_side_request(server):
    _, raw = post(
        f"{server.url}/claude-code/v1/messages",
        {"model": "m", "messages": [{"role": "user", "content": "title?"}]},
    )
    assert json.loads(raw)["content"] == [{"type": "text", "text": "Wrote a.txt."}]
    assert server.served().side_requests == 1


def test_a_client_offering_no_fitting_tool_gets_an_error_the_totals_keep(server):
    with pytest.raises(urllib.error.HTTPError) as info:
        post(
            f"{server.url}/v1/messages",
            {
                "model": "m",
                "tools": [{"name": "Read", "input_schema": {}}],
                "messages": [{"role": "user", "content": "go"}],
            },
        )
    assert info.value.code == 400
    assert "no tool that runs a command" in json.loads(info.value.read())["error"]["message"]
    assert "no tool that runs a command" in server.served().errors[0]


def test_the_bridge_relays_a_loopback_port_to_the_socket_and_returns_the_agents_exit_code(tmp_path):
    socket_path = tmp_path / "model.sock"
    running = ModelServer(SCRIPT, "checkpoint_1").start(unix_socket=socket_path)
    port = free_port()
    client = (
        "import json, sys, urllib.request\n"
        f"answer = urllib.request.urlopen('http://127.0.0.1:{port}/_runners/usage', "
        "timeout=10).read()\n"
        "print(json.loads(answer)['requests']); sys.exit(7)\n"
    )
    try:
        done = subprocess.run(
            [
                sys.executable,
                bridge.__file__,
                "--port",
                str(port),
                "--socket",
                str(socket_path),
                "--",
                sys.executable,
                "-c",
                client,
            ],
            check=False,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert (done.returncode, done.stdout.strip()) == (7, "0"), done.stderr
        missing = subprocess.run(
            [
                sys.executable,
                bridge.__file__,
                "--port",
                str(free_port()),
                "--socket",
                str(socket_path),
                "--",
                "no-such-agent",
            ],
            check=False,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert missing.returncode == 127
        assert missing.stderr.startswith(
            "runners-bridge: cannot run no-such-agent: No such file or directory"
        )
    finally:
        running.stop()
    assert (
        not Path(bridge.__file__).read_text().count("import runners")
    )  # runs on any python3, alone
