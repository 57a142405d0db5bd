"""The allow-list (`network: {allow, routes}`) in real sandboxes: the agent reaches its model (a
server on this machine's loopback standing in for it) and nothing else — not a second server on
this machine, not the host's own services on its other addresses. Every address used here is
this machine's own."""

from __future__ import annotations

import json
import socket
import subprocess
import textwrap
from pathlib import Path

import pytest
from agent_support import agent, answer_problem, environment, snapshot_files
from egress_support import ANTHROPIC_USAGE, serving

from runners.agents.layout import RunLayout
from runners.agents.solve import solve
from runners.model.errors import ConfigError
from runners.model.policy import PassPolicy

ISOLATED = [
    pytest.param("bubblewrap", marks=pytest.mark.bubblewrap, id="bubblewrap"),
    pytest.param("docker", marks=pytest.mark.docker, id="docker"),
]

# The agent: asks its model through the route (plain and streamed), fetches an allowed URL
# through the proxy, then tries everything else; it writes what happened to net.json and
# answers like Claude Code's JSON result, claiming `claimed` prompt tokens.
PROBE = textwrap.dedent("""
    import json, os, socket, sys, urllib.request
    model, secret = int(sys.argv[1]), int(sys.argv[2])
    hosts, claimed = sys.argv[3].split(","), int(sys.argv[4])
    seen = {"env_proxy": os.environ.get("HTTPS_PROXY")}
    base = os.environ["ANTHROPIC_BASE_URL"]
    def ask(stream):
        request = urllib.request.Request(base + "/v1/messages",
                                         data=json.dumps({"stream": stream}).encode(),
                                         headers={"content-type": "application/json"})
        return urllib.request.urlopen(request, timeout=20).read().decode()
    seen["plain"] = json.loads(ask(False))["content"][0]["text"]
    seen["streamed"] = "streamed hello" in ask(True)
    for name in ("NO_PROXY", "no_proxy"):  # urllib would bypass the proxy for 127.0.0.1
        os.environ.pop(name, None)
    via = urllib.request.build_opener(
        urllib.request.ProxyHandler({"http": os.environ["HTTP_PROXY"]}))
    def fetch(url):
        try:
            return "ok: " + via.open(url, timeout=10).read().decode()
        except urllib.error.HTTPError as exc:
            return f"http {exc.code}"
        except Exception as exc:
            return f"error {type(exc).__name__}"
    seen["allowed"] = fetch(f"http://127.0.0.1:{model}/")
    seen["secret_via_proxy"] = fetch(f"http://127.0.0.1:{secret}/")
    def connect(host, port, how=None):
        try:
            with socket.create_connection((host, port), timeout=3) as sock:
                if how is None:
                    sock.sendall(b"GET / HTTP/1.0\\r\\n\\r\\n")
                    return "reached: " + sock.recv(200).decode(errors="replace")
                sock.sendall(how.encode())
                return "answered: " + sock.recv(200).decode(errors="replace").splitlines()[0]
        except OSError as exc:
            return f"error {exc.errno}"
    proxy_port = int(os.environ["HTTPS_PROXY"].rsplit(":", 1)[1])
    seen["connect_secret"] = connect(
        "127.0.0.1", proxy_port, f"CONNECT 127.0.0.1:{secret} HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n")
    seen["direct_loopback"] = connect("127.0.0.1", secret)
    seen["direct_hosts"] = {host: connect(host, secret) for host in hosts if host}
    try:
        socket.getaddrinfo("localhost.example", 80)
        seen["dns"] = "resolved"
    except OSError:
        seen["dns"] = "no"
    open("net.json", "w").write(json.dumps(seen))
    open("answer.txt", "w").write("forty-two\\n")
    print(json.dumps({"type": "result", "subtype": "success", "is_error": False, "result": "done",
                      "num_turns": 2, "usage": {"input_tokens": claimed, "output_tokens": 60}}))
""")


def host_addresses() -> list[str]:
    """This machine's own IPv4 addresses other than loopback (the host's services listen there)."""
    out = subprocess.run(
        ["ip", "-4", "-o", "addr", "show"], capture_output=True, text=True, check=False
    ).stdout
    found = [line.split()[3].split("/")[0] for line in out.splitlines() if " lo " not in line]
    return [a for a in found if not a.startswith("127.")]


def probe_agent(tmp_path: Path, model: int, secret: int, claimed: int, **fields):
    scripts = tmp_path / "agent"
    scripts.mkdir(exist_ok=True)
    (scripts / "probe.py").write_text(PROBE)
    hosts = ",".join(host_addresses())
    return agent(
        ["{python}", "{mounts[probe]}/probe.py", str(model), str(secret), hosts, str(claimed)],
        mounts={"probe": str(scripts)},
        **fields,
    )


@pytest.mark.parametrize("backend", ISOLATED)
@pytest.mark.slow
def test_an_allow_listed_agent_reaches_its_model_and_nothing_else(tmp_path, backend):
    problem = answer_problem(tmp_path / "problems", checkpoints=1)
    layout = RunLayout(tmp_path / "run")
    with serving(banner="model") as model, serving(host="0.0.0.0", banner="secret") as secret:
        policy = {
            "allow": [f"127.0.0.1:{model.port}"],
            "routes": {"ANTHROPIC_BASE_URL": f"http://127.0.0.1:{model.port}/anthropic"},
        }
        # Two requests of 132 prompt tokens each (input + cache) through the route: 264 counted.
        spec = probe_agent(tmp_path, model.port, secret.port, claimed=264, network=policy)
        solved = solve(spec, problem, layout, environment(backend))
    step = solved[0].step
    assert step.failure is None, (
        step.failure,
        (layout.step_dir("a", "answer", "checkpoint_1") / "stderr.txt").read_text(),
    )
    seen = json.loads(snapshot_files(layout, step)["net.json"])
    assert seen["plain"] == "hello" and seen["streamed"] is True  # the model, through the route
    assert seen["allowed"] == "ok: model"  # an allowed endpoint, through the proxy
    assert [r["path"] for r in model.seen] == ["/anthropic/v1/messages"] * 2
    # Nothing else: the second server is refused by the proxy, absent from the sandbox's loopback,
    # and the host's other addresses are unreachable (no route out of the namespace).
    assert seen["secret_via_proxy"] == "http 403"
    assert seen["connect_secret"].startswith("answered: HTTP/1.1 403")
    assert seen["direct_loopback"] == "error 111"  # ECONNREFUSED: its own loopback, nothing there
    assert seen["direct_hosts"] and all(v == "error 101" for v in seen["direct_hosts"].values()), (
        seen
    )
    assert seen["dns"] == "no"
    assert secret.seen == [] and len(model.seen) == 2
    egress = step.egress
    assert egress is not None and step.network_mode == "allow-list"
    assert egress.refused == {
        f"GET http://127.0.0.1:{secret.port}": 1,
        f"CONNECT 127.0.0.1:{secret.port}": 1,
    }
    prompt = (
        ANTHROPIC_USAGE["input_tokens"]
        + ANTHROPIC_USAGE["cache_creation_input_tokens"]
        + ANTHROPIC_USAGE["cache_read_input_tokens"]
    )
    assert egress.routed.requests == 2 and egress.routed.prompt_tokens == 2 * prompt
    assert egress.routed.completion_tokens == 2 * ANTHROPIC_USAGE["output_tokens"]
    assert step.token_check is not None and step.token_check.matches is True
    assert solved[0].passed(PassPolicy.ALL_CASES)


@pytest.mark.parametrize("backend", ISOLATED)
@pytest.mark.slow
def test_tokens_the_agent_claims_are_checked_against_the_proxy(tmp_path, backend):
    problem = answer_problem(tmp_path / "problems", checkpoints=1)
    layout = RunLayout(tmp_path / "run")
    with serving() as model, serving(banner="secret") as secret:
        spec = probe_agent(
            tmp_path,
            model.port,
            secret.port,
            claimed=10,
            network={"routes": {"ANTHROPIC_BASE_URL": f"http://127.0.0.1:{model.port}"}},
        )
        step = solve(spec, problem, layout, environment(backend))[0].step
    assert step.token_check is not None and step.token_check.matches is False
    assert "token-mismatch" in step.flags
    assert any("prompt: the agent said 10, the proxy counted 264" in note for note in step.notes)
    assert step.tokens == 264 + 60  # the harness's own count is the step's


@pytest.mark.bubblewrap
@pytest.mark.slow
def test_the_whole_network_and_none_still_work_as_before(tmp_path):
    """`network: true` keeps the host's network (here: a server on the host's loopback)."""
    problem = answer_problem(tmp_path / "problems", checkpoints=1)
    with serving(banner="host-service") as server:
        for network, expected in ((True, "host-service"), (False, "error")):
            layout = RunLayout(tmp_path / f"run-{network}")
            command = [
                "{python}",
                "-c",
                (
                    "import urllib.request, sys\ntry:\n open('answer.txt','w').write("
                    f"urllib.request.urlopen('http://127.0.0.1:{server.port}/', timeout=5)"
                    ".read().decode())\n"
                    "except OSError: open('answer.txt','w').write('error')"
                ),
            ]
            step = solve(
                agent(command, network=network), problem, layout, environment("bubblewrap")
            )[0].step
            assert snapshot_files(layout, step)["answer.txt"] == expected
            assert step.network_mode == ("host" if network else "none") and step.egress is None


def test_a_bad_allow_list_is_refused_naming_the_field(tmp_path):
    for network, said in (
        ({"allow": ["https://api.anthropic.com"]}, "give host[:port]"),
        ({"allow": ["api.anthropic.com:70000"]}, "out of range"),
        ({"routes": {"ANTHROPIC_BASE_URL": "ftp://x"}}, "http:// or https://"),
        ({}, "reaches nothing"),
        ({"allow": ["x.com"], "deny": []}, "unknown key"),
        ("some", "expected true, false, or an allow-list"),
    ):
        with pytest.raises(ConfigError) as caught:
            agent("true", network=network)
        assert "field `network" in str(caught.value) and said in str(caught.value)


def test_the_proxy_is_not_reachable_from_the_host_side(tmp_path):
    """The proxy's listeners live only in the sandbox's namespace: the host's loopback port of
    the same number is not the proxy."""
    from runners.egress.netns import new_netns
    from runners.egress.policy import NetworkPolicy
    from runners.egress.proxy import PROXY_PORT, EgressProxy

    if socket.socket().connect_ex(("127.0.0.1", PROXY_PORT)) == 0:
        pytest.skip(f"something on the host already listens on {PROXY_PORT}")
    netns = new_netns()
    proxy = EgressProxy(NetworkPolicy(allow=["example.org"]))
    try:
        proxy.attach(netns)
        with socket.socket() as probe:
            assert probe.connect_ex(("127.0.0.1", PROXY_PORT)) != 0
    finally:
        proxy.close()


@pytest.mark.bubblewrap
def test_an_allow_list_without_root_is_refused_before_any_step(tmp_path):
    """Run as an unprivileged user (uid 65534): the harness cannot enter a namespace, and says
    so."""
    import os
    import sys

    if os.geteuid() != 0:
        pytest.skip("needs root to drop to another user")
    script = (
        "from runners.agents.spec import parse_agent\n"
        "from runners.agents.solve import agent_sandbox\n"
        "from runners.model.environment import EnvironmentSpec\n"
        "spec = parse_agent({'name': 'a', 'command': 'true', "
        "'network': {'allow': ['x.org']}}, 'w')\n"
        "agent_sandbox(spec, EnvironmentSpec(sandbox='bubblewrap'))\n"
    )
    proc = subprocess.run(
        [
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            sys.executable,
            "-c",
            script,
        ],
        capture_output=True,
        text=True,
        cwd="/",
        timeout=120,
        check=False,
    )
    assert proc.returncode != 0
    assert (
        "UserInputError: a network allow-list" in proc.stderr
        and "needs the harness to run as root" in proc.stderr
    )
