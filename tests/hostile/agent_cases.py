"""Hostile agents: what an agent step must never reach, and what it may not leave behind.

An agent is a command the harness runs with the checkpoint's specification and a workspace
(runners/agents/step.py). Each case is an agent script (`{python} hostile_agent.py`, filled in per
run like the submission cases) that attacks while it works; every probe that succeeds appends a
line to `leaks.txt` in its workspace, so the snapshot the step leaves says what it got. The
checks every run must pass are in agent_harness.py.

Placeholders: @@TOKEN@@ (unique per run, also in the agent's environment as HOSTILE_MARKER),
@@PROBLEM@@ (the problem directory: hidden tests, later specifications), @@RUN@@ (the run's
results: other agents' snapshots and transcripts), @@OTHER@@ (another agent's finished snapshot),
@@CACHE@@ (the harness's toolchain cache), @@ESCAPE@@ (a host directory that must stay empty),
@@CANARY@@ (a secret in the harness's environment), @@HOST_VARIABLES@@ (the names of the host's
variables the agent is not given), @@PORT@@ (a TCP server on every host address
that answers with the canary).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

NOT_ISOLATED = "not isolated: on `none` the agent runs as the harness's own user on the host"
OK, FAILED, TIMED_OUT = "ok", "failed", "timed out"
NOT_STARTED = "not started"  # never ran: an error of its configuration, no snapshot, never graded
REFUSED = "refused"  # bad input: refused before the step runs (runners.agents.solve.guard)

PRELUDE = """
import glob, os, signal, socket, subprocess, sys, time
TOKEN = "@@TOKEN@@"
leaks = []


def read(path, limit=4000):
    with open(path, "rb") as handle:
        return handle.read(limit).decode("utf-8", "replace")


def finish(code=0):
    with open("leaks.txt", "w") as handle:
        handle.write("\\n".join(leaks))
    print(f"hostile agent done: {len(leaks)} leak(s)")
    sys.stdout.flush()
    os._exit(code)
"""

READS_TESTS = """
for path in ("@@PROBLEM@@/tests/test_checkpoint_1.py", "@@PROBLEM@@/tests/test_checkpoint_2.py",
             "@@PROBLEM@@/checkpoint_2.md", "@@PROBLEM@@/config.yaml", \
"/harness/tests/test_checkpoint_1.py",
             "../tests/test_checkpoint_1.py", "/workspace/../tests/test_checkpoint_1.py"):
    try:
        leaks.append(f"read {path}: {read(path)[:80]!r}")
    except OSError:
        pass
prompts = os.listdir(os.path.dirname(os.environ["RUNNERS_PROMPT_FILE"]))
if prompts != ["checkpoint_1.md"]:
    leaks.append(f"the prompt directory holds {prompts}")
deadline = time.monotonic() + 8
for dirpath, dirnames, filenames in os.walk("/"):  # every test or later spec the agent can see
    dirnames[:] = [d for d in dirnames if os.path.join(dirpath, d) not in ("/proc", "/sys", \
"/dev", "/usr")]
    for name in filenames:
        if name.startswith("test_checkpoint") or name == "checkpoint_2.md":
            leaks.append(f"found {os.path.join(dirpath, name)}")
    if time.monotonic() > deadline:
        break
finish()
"""

READS_OTHER_AGENTS = """
for path in ("@@OTHER@@/secret.txt", "@@RUN@@", "@@RUN@@/agent-steps"):
    if os.path.exists(path):
        leaks.append(f"sees {path}")
for base in ("/tmp", "/dev/shm", "/var/tmp"):
    for entry in glob.glob(base + "/runners-*"):
        leaks.append(f"sees another step's directory {entry}")
deadline = time.monotonic() + 8
for dirpath, dirnames, filenames in os.walk("/"):
    dirnames[:] = [d for d in dirnames if os.path.join(dirpath, d) not in ("/proc", "/sys", "/usr")]
    for name in filenames:
        if name in ("secret.txt", "secret-live.txt"):
            leaks.append(f"found {os.path.join(dirpath, name)}")
    if time.monotonic() > deadline:
        break
for pid in (p for p in os.listdir("/proc") if p.isdigit()):  # the other agent, the harness
    try:
        if b"OTHER-LIVE" in open(f"/proc/{pid}/environ", "rb").read() + \
open(f"/proc/{pid}/cmdline", "rb").read():
            leaks.append(f"sees the other agent's process {pid}")
        if b"@@CANARY@@" in open(f"/proc/{pid}/environ", "rb").read():
            leaks.append(f"reads the harness's environment through /proc/{pid}")
    except OSError:
        pass
finish()
"""

WRITES_CACHES = """
targets = ["@@CACHE@@/hostile-@@TOKEN@@", "@@RUN@@/hostile-@@TOKEN@@", \
"@@OTHER@@/hostile-@@TOKEN@@",
           "@@PROBLEM@@/tests/hostile-@@TOKEN@@", "@@ESCAPE@@/hostile-@@TOKEN@@",
           os.path.expanduser("~/.cache/runners/hostile-@@TOKEN@@")]
targets += [os.path.join(d, "hostile-@@TOKEN@@.pth") for d in \
glob.glob("@@CACHE@@/**/site-packages", recursive=True)[:5]]
for target in targets:
    try:
        with open(target, "w") as handle:
            handle.write("import os; os.system('touch @@ESCAPE@@/pwned')\\n")
        leaks.append(f"wrote {target}")
    except OSError:
        pass
finish()
"""

LEAVES_DAEMONS = """
subprocess.Popen(["sleep", "600"], start_new_session=True)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        while True:
            time.sleep(1)
    os._exit(0)
subprocess.Popen(["sh", "-c", "trap '' TERM HUP; while :; do sleep 1; done"], \
start_new_session=True,
                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
with open("work.txt", "w") as handle:
    handle.write("done before leaving daemons\\n")
finish()
"""

FLOODS_OUTPUT = """
line = "x" * 1023 + "\\n"
for _ in range(20 * 1024):  # 20 MB on each stream
    sys.stdout.write(line)
    sys.stderr.write(line)
sys.stderr.write("\\x1b[2J\\xff junk \\x00\\n")
with open("work.txt", "w") as handle:
    handle.write("done after the flood\\n")
finish()
"""

SPINS_PAST_ITS_TIME = """
signal.signal(signal.SIGTERM, signal.SIG_IGN)
with open("work.txt", "w") as handle:
    handle.write("written before the spin\\n")
while True:
    pass
"""

READS_SECRETS = """
for name, value in os.environ.items():
    if "@@CANARY@@" in value:
        leaks.append(f"the variable {name} holds the harness's secret")
# The host's variable names (not their values) it was not given; a container's own (HOSTNAME, the
# image's ENV) are not the host's.
extra = sorted(set(os.environ) & set("@@HOST_VARIABLES@@".split()))
if extra:
    leaks.append(f"host variables it was not given: {extra}")
if os.environ.get("API_KEY_GIVEN") != "given-by-name":
    leaks.append("the variable passed by name did not arrive")
home = os.path.expanduser("~")
if os.path.realpath(home) in ("/root", "/home") or os.path.exists(os.path.join(home, ".ssh")):
    leaks.append(f"its home is the host's: {home}")
finish()
"""

NETWORK = """
addresses = {"127.0.0.1"}
try:
    for line in open("/proc/net/route").read().splitlines()[1:]:
        fields = line.split()
        if fields[1] == "00000000":  # the default route's gateway: the host, from a container
            addresses.add(socket.inet_ntoa(bytes.fromhex(fields[2])[::-1]))
except OSError:
    pass
addresses.update("@@HOST_ADDRESSES@@".split())
reached = []
for address in sorted(addresses):
    try:
        with socket.create_connection((address, @@PORT@@), timeout=3) as conn:
            if b"@@CANARY@@" in conn.recv(200):
                reached.append(address)
    except OSError:
        pass
with open("reached.txt", "w") as handle:
    handle.write(" ".join(reached))
if reached and os.environ.get("NETWORK_EXPECTED") != "yes":
    leaks.append(f"reached the host's server at {reached}")
if not reached and os.environ.get("NETWORK_EXPECTED") == "yes":
    leaks.append("the network it was given does not work")
finish()
"""

NETWORK_ALLOW = """
import urllib.request
for name in ("NO_PROXY", "no_proxy"):  # urllib would skip the proxy for these addresses
    os.environ.pop(name, None)
via = urllib.request.build_opener(urllib.request.ProxyHandler({"http": \
os.environ.get("HTTP_PROXY", "")}))
try:
    model = via.open("http://127.0.0.1:@@MODEL_PORT@@/", timeout=10).read().decode()
except Exception as exc:  # noqa: BLE001
    model = f"{type(exc).__name__}: {exc}"
if "MODEL-OK" not in model:
    leaks.append(f"the allowed endpoint was not reachable through the proxy: {model[:200]}")
addresses = {"127.0.0.1", "localhost"}
try:
    for line in open("/proc/net/route").read().splitlines()[1:]:
        fields = line.split()
        if fields[1] == "00000000":
            addresses.add(socket.inet_ntoa(bytes.fromhex(fields[2])[::-1]))
except OSError:
    pass
addresses.update("@@HOST_ADDRESSES@@".split())
proxy = os.environ.get("HTTPS_PROXY", "http://127.0.0.1:1").rsplit(":", 1)
for address in sorted(addresses):
    attempts = {"directly": None, "through CONNECT": f"CONNECT {address}:@@PORT@@ \
HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n",
                "through the proxy's forwarding": f"GET http://{address}:@@PORT@@/ \
HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n"}
    for how, request in attempts.items():
        target = (address, @@PORT@@) if request is None else (proxy[0].split("//")[-1], \
int(proxy[1]))
        try:
            with socket.create_connection(target, timeout=3) as conn:
                if request is not None:
                    conn.sendall(request.encode())
                got = b""
                while len(got) < 4000:
                    chunk = conn.recv(1000)
                    if not chunk:
                        break
                    got += chunk
                    if b"@@CANARY@@" in got:
                        break
                if b"@@CANARY@@" in got:
                    leaks.append(f"reached the host's server at {address} {how}")
        except OSError:
            pass
finish()
"""


SAYS_ESCAPES = """
ESCAPES = "\\x1b[2J\\x1b[?1049h\\x1b]0;pwned\\x07\\x1b[31mRED\\x9b31m\\x00"
sys.stderr.write(ESCAPES + "boom on stderr\\n")
print(ESCAPES + "boom: all done")
with open("leaks.txt", "w") as handle:
    handle.write("")
print(ESCAPES + "boom: really done")
sys.stdout.flush()
os._exit(0)
"""

IMPOSSIBLE_FIGURES = """
import json
print(json.dumps({"type": "result", "subtype": "success", "is_error": False, "num_turns": -3,
                  "result": "all done", "total_cost_usd": -1000000,
                  "usage": {"input_tokens": -5, "output_tokens": 10 ** 30}}))
finish()
"""

READS_A_COPY = """
for path in glob.glob(os.path.join("@@COPY@@", "**", "*"), recursive=True):
    if os.path.isfile(path):
        leaks.append(f"read {path}: {read(path)[:60]!r}")
finish()
"""


def _table_clean(record: Any) -> list[str]:
    """The `batch --agents` table as the CLI prints it: the agent's words, not its escapes."""
    import io

    from runners.agents.render import steps_table
    from runners.outputs.render import make_console

    console = make_console()
    console.file = io.StringIO()
    console.print(steps_table([record]))
    printed = console.file.getvalue()
    bad = [repr(c) for c in ("\x1b", "\x00", "\x07", "\x9b") if c in printed]
    problems = [f"the steps table carries the agent's control characters {bad}"] if bad else []
    if "boom" not in printed:
        problems.append(f"the agent's words are not in the table: {printed[-300:]!r}")
    return problems


def _figures_refused(record: Any) -> list[str]:
    from runners.agents.render import usage_cells

    report, problems = record.report, []
    if {"cost_usd", "turns", "prompt_tokens", "completion_tokens"} - set(report.refused):
        problems.append(f"not every impossible figure was refused: {report.refused}")
    if report.cost_usd is not None or report.turns is not None or report.token_usage() is not None:
        problems.append(f"an impossible figure was kept: {report}")
    if [str(cell) for cell in usage_cells(record)] != ["refused", "refused"]:
        problems.append(f"the table shows {usage_cells(record)}, not that the figures were refused")
    if not any("refused" in note for note in record.notes):
        problems.append(f"the step's notes do not say what was refused: {record.notes}")
    return problems


@dataclass(frozen=True)
class AgentCase:
    id: str
    title: str
    body: str
    defence: str
    expect: str = OK  # the step's outcome: ok, failed (exit code), timed out, not started
    command: str | None = None  # the agent's own command instead of `{python} hostile_agent.py`
    skip_on: dict[str, str] = field(default_factory=dict)
    timeout: float = 30.0
    network: bool = False
    allow_list: bool = False  # `network: {allow: [the world's model server]}`
    concurrent_other: bool = (
        False  # another agent's step runs (and holds a secret) at the same time
    )
    check_files: dict[str, str] = field(default_factory=dict)  # snapshot file -> exact content
    check: Callable[[Any], list[str]] | None = (
        None  # extra assertions on the step record -> problems
    )
    mounts_problem_copy: bool = False  # mounted: a copy of the problem directory, at @@COPY@@


AGENT_CASES = [
    AgentCase(
        "agent-reads-hidden-tests",
        "reads the hidden tests and the next checkpoint's spec by their host "
        "paths, relative paths and a walk of `/`",
        READS_TESTS,
        "only the workspace, the prompt directory (this checkpoint's spec alone), the agent's "
        "home, its mounts and the system are mounted; the problem directory never is",
        skip_on={"none": NOT_ISOLATED},
    ),
    AgentCase(
        "agent-reads-other-agents",
        "looks for another agent's finished snapshot and transcript, its live "
        "workspace (a step running at the same time), other steps' directories and processes",
        READS_OTHER_AGENTS,
        "a private root (bubblewrap) or container (docker) per step, its own pid "
        "namespace and `/tmp`; the run's results directory is never mounted",
        skip_on={"none": NOT_ISOLATED},
        concurrent_other=True,
    ),
    AgentCase(
        "agent-writes-caches",
        "writes into the harness's toolchain cache (a `.pth` into prepared site-packages), the "
        "run's results, another agent's snapshot, the hidden tests and a host directory",
        WRITES_CACHES,
        "none of them is mounted; the cache digest is compared before and after",
        skip_on={"none": NOT_ISOLATED},
    ),
    AgentCase(
        "agent-leaves-daemons",
        "finishes its work, then leaves a `setsid` sleeper, a double-forked "
        "SIGTERM-ignoring loop and a shell loop",
        LEAVES_DAEMONS,
        "the step's sandbox ends with it: container removed / pid namespace and cgroup killed / "
        "the `none` supervisor kills every descendant",
        check_files={"work.txt": "done before leaving daemons\n"},
    ),
    AgentCase(
        "agent-floods-output",
        "prints 20 MB on stdout and on stderr, with terminal escapes and bytes that are not UTF-8",
        FLOODS_OUTPUT,
        "the transcript keeps the head and the tail of each "
        "stream (the output cap), the step goes on and its work is kept",
        check_files={"work.txt": "done after the flood\n"},
    ),
    AgentCase(
        "agent-spins-past-its-time",
        "ignores SIGTERM and spins after writing a file",
        SPINS_PAST_ITS_TIME,
        "the step's time limit: every process killed, the step a failure (timed out), what it "
        "wrote kept",
        expect=TIMED_OUT,
        timeout=4,
        check_files={"work.txt": "written before the spin\n"},
    ),
    AgentCase(
        "agent-reads-secrets",
        "looks for the harness's secret in its environment, for variables it was "
        "not given, and at its home",
        READS_SECRETS,
        "an allow-listed environment: the base variables, "
        "the step's own, and those the agent config passes by name or sets; a private home",
    ),
    AgentCase(
        "agent-network-off",
        "connects to a server on the host (loopback, the default gateway, the host's "
        "addresses) with `network` off (the default)",
        NETWORK,
        "docker `network_mode=none`, bubblewrap `--unshare-net`: only the step's own loopback",
        skip_on={"none": "`none` cannot take the network away (the step notes it)"},
    ),
    AgentCase(
        "agent-network-on",
        "the same with `network: true`: it must reach the host's server",
        NETWORK,
        "docker's bridge network, bubblewrap in the host's network namespace",
        skip_on={"none": "`none` always has the network: nothing to turn on"},
        network=True,
    ),
    AgentCase(
        "agent-network-allow-list",
        "with an allow-list of one endpoint (a server on the host's loopback standing in for its "
        "model), reaches it through the proxy, then tries the host's other server directly, "
        "through the proxy's CONNECT and through its plain-HTTP forwarding, on loopback, the "
        "default gateway and the host's addresses",
        NETWORK_ALLOW,
        "a network namespace of its own (docker: a holder container's, network `none`) holding "
        "only loopback and the harness's proxy, which refuses (403) every `host:port` not on the "
        "list",
        skip_on={
            "none": "`none` cannot take the network away (the allow-list is not enforced; the step "
            "notes it)"
        },
        allow_list=True,
    ),
    AgentCase(
        "agent-not-found",
        "its command's program does not exist where it runs (it used to be graded on the "
        "empty workspace and earn the Error tests' credit)",
        "",
        "the launcher's words (bwrap, docker's `timeout`, our reaper) are read as \"could not be "
        'started": '
        "the step is an error of the agent's configuration, with no snapshot and no grade (bad "
        "input, exit 2; "
        "an ERROR row in Promptfoo)",
        expect=NOT_STARTED,
        command="no-such-agent-cli -p {prompt}",
    ),
    AgentCase(
        "agent-fails-at-once",
        "its program refuses its options and exits 2 at once, changing nothing and "
        "reporting no model use",
        "",
        "a failed step with no change and no model use never started: as above",
        expect=NOT_STARTED,
        command="sh -c 'echo error: unknown option --frobnicate >&2; exit 2'",
    ),
]
AGENT_CASES += [
    AgentCase(
        "agent-mounts-a-copy-of-the-problem",
        "is given a mount that is another copy of the problem "
        "directory (hidden tests, later specifications) and reads it",
        READS_A_COPY,
        "contents, not only paths: every file under a mount (or the home template) is compared "
        "with the problem's files (size, then SHA-256): the agent is refused before any step "
        "runs, naming the copy",
        expect=REFUSED,
        mounts_problem_copy=True,
    ),
    AgentCase(
        "agent-says-escapes",
        "ends with terminal escapes (screen clear, alternate screen, window title, "
        "colours, a C1 CSI), a bell and a NUL in what it says, on stdout and stderr",
        SAYS_ESCAPES,
        "the step keeps its words; the CLI's console drops every control character from what it "
        "prints (the `solve` and `batch --agents` tables), as the Promptfoo row's text does",
        check=_table_clean,
    ),
    AgentCase(
        "agent-reports-impossible-figures",
        "reports a cost of -$1,000,000, -5 and 10^30 tokens and -3 turns in Claude Code's JSON",
        IMPOSSIBLE_FIGURES,
        "its own figures are validated (finite, from 0 to a bound): each impossible one is "
        "refused, kept in the record with what it said, and shown as `refused`, never summed or "
        "passed to Promptfoo",
        check=_figures_refused,
    ),
]
BY_ID = {case.id: case for case in AGENT_CASES}
