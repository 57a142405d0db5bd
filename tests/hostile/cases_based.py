"""Hostile submissions of case-based problems (framework `cases`): the CLI, API and browser
adapters run the submission as its own processes inside the sandbox, beside the case program.

The submission must not: read the case files or their expected outputs (they sit in a directory
of the tests mount only the case program can name), keep a server or its daemons alive past its
group, take the case program down by flooding or stalling, or reach outside from its web page.
"""

from __future__ import annotations

from .cases import FAIL, HONEST, PASS, PROBE_RUNNER, Case

# ---- the honest server and page ------------------------------------------------------------------

HONEST_SERVER = """
import argparse
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

# @@PRELUDE@@


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, status, payload):
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        url = urlsplit(self.path)
        if url.path == "/healthz":
            return self.reply(200, {"ok": True})
        # @@BEFORE_ANSWER@@
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        try:
            a, b = int(query["a"]), int(query["b"])
        except (KeyError, ValueError):
            return self.reply(400, {"error": "a and b must be integers"})
        if url.path == "/add":
            return self.reply(200, {"result": a + b})
        if url.path == "/sub":
            return self.reply(200, {"result": a - b})
        return self.reply(404, {"error": "not found"})


parser = argparse.ArgumentParser()
parser.add_argument("--address", default="127.0.0.1")
parser.add_argument("--port", type=int, required=True)
args = parser.parse_args()
ThreadingHTTPServer((args.address, args.port + 0), Handler).serve_forever()
"""


def server(
    prelude: str = "", before_answer: str = "", port: str = "args.port + 0"
) -> dict[str, str]:
    text = HONEST_SERVER.replace("# @@PRELUDE@@", prelude).replace(
        "# @@BEFORE_ANSWER@@", before_answer
    )
    return {"server.py": text.replace("args.port + 0", port)}


DAEMON = """
import os
import time

# A daemon (forked twice, a session of its own) that outlives the server unless killed.
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(600)
    os._exit(0)
os.wait()
"""

FLOOD = """
import os
import threading


def _flood(fd):
    chunk = b"y" * 65536
    while True:
        try:
            os.write(fd, chunk)
        except OSError:
            return


for _fd in (1, 2):
    threading.Thread(target=_flood, args=(_fd,), daemon=True).start()
"""

NEVER_ANSWERS = """
import socket
import sys
import time

# Binds the port it is given and accepts connections, but never answers a request.
_port = int(sys.argv[sys.argv.index("--port") + 1])
_sock = socket.socket()
_sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
_sock.bind(("127.0.0.1", _port))
_sock.listen(64)
_held = []
while True:
    _held.append(_sock.accept()[0])
"""

PAGE = """<!doctype html>
<html><body>
<input id="a"> <input id="b"> <button id="go">=</button> <span id="out"></span>
<script>
// @@PAGE_PRELUDE@@
document.getElementById("go").addEventListener("click", async () => {
  const sum = Number(document.getElementById("a").value) + \
Number(document.getElementById("b").value);
  // @@PAGE_BEFORE_ANSWER@@
  document.getElementById("out").textContent = String(sum);
});
</script>
</body></html>
"""

WEB_SERVER = """
import argparse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

PAGE = (Path(__file__).parent / "page.html").read_bytes()


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        body = b"ok" if self.path == "/healthz" else PAGE
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


parser = argparse.ArgumentParser()
parser.add_argument("--address", default="127.0.0.1")
parser.add_argument("--port", type=int, required=True)
args = parser.parse_args()
ThreadingHTTPServer((args.address, args.port), Handler).serve_forever()
"""

# The page tries the network before answering: an image, fetch (plain and TLS, by name and by
# address), a WebSocket and a form post to a hidden frame. Anything that gets through turns the
# answer into LEAK, so a hole turns the expected PASS into a FAIL.
OUTSIDE = """
  const targets = ["http://198.51.100.1/", "https://example.com/", "http://example.org/x.png", "http://1.1.1.1/"];
  const reached = [];
  await Promise.all(targets.map((url) => fetch(url, {mode: "no-cors"}).then(() => \
reached.push(url), () => null)));
  await new Promise((done) => {
    const img = new Image();
    img.onload = () => { reached.push("img"); done(); };
    img.onerror = () => done();
    img.src = "http://example.net/pixel.png?" + Date.now();
  });
  await new Promise((done) => {
    try {
      const ws = new WebSocket("wss://example.com/socket");
      ws.onopen = () => { reached.push("ws"); done(); };
      ws.onerror = () => done();
      setTimeout(done, 1500);
    } catch (e) { done(); }
  });
  if (reached.length) { document.getElementById("out").textContent = "LEAK " + reached.join(" "); \
return; }
"""


def web(prelude: str = "", before_answer: str = "") -> dict[str, str]:
    page = PAGE.replace("// @@PAGE_PRELUDE@@", prelude).replace(
        "// @@PAGE_BEFORE_ANSWER@@", before_answer
    )
    return {"app.py": WEB_SERVER, "page.html": page}


# ---- reading the case files ----------------------------------------------------------------------

# Looks for the case files (they carry the hidden marker, built here at run time so that this file
# does not carry it) everywhere it can: a walk of /, the tests directory beside the workspace, and
# the case program's /proc entries (cwd, descriptors, memory map, environment).
READ_CASES_BODY = """
_WALKED = []


def read(path, limit=1 << 20):
    with open(path, "rb") as handle:
        return handle.read(limit)


def probe(where, leaks, log):
    if where != "cli" or _WALKED:
        return
    _WALKED.append(1)
    import time

    marker = ("HIDDEN-" + "@@SESSION@@").encode()
    tests = os.path.join(os.path.dirname(os.getcwd()), "tests")
    for path in (tests, "/harness/tests", "/harness"):
        try:
            log.append(f"listed {path}: {os.listdir(path)[:8]}")
            for name in os.listdir(path):
                if name.startswith("cases-"):
                    leaks.append(f"the vault's name is visible in {path}: {name}")
        except OSError as exc:
            log.append(f"{path}: {exc.strerror}")
    for pid in (p for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()):
        for what in ("cwd", "root"):
            try:
                target = os.readlink(f"/proc/{pid}/{what}")
                if "cases-" in target:
                    leaks.append(f"/proc/{pid}/{what} -> {target}")
            except OSError:
                pass
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
                if "cases-" in target or target.endswith((".yaml", ".json")):
                    leaks.append(f"/proc/{pid}/fd/{fd} -> {target}")
        except OSError:
            pass
        for what in ("maps", "environ"):
            try:
                data = read(f"/proc/{pid}/{what}")
                if marker in data or b"/cases-" in data:
                    leaks.append(f"/proc/{pid}/{what} names the vault")
            except OSError:
                pass
    seen, deadline = 0, time.monotonic() + 4
    for dirpath, dirnames, filenames in os.walk("/"):
        dirnames[:] = [d for d in dirnames if os.path.join(dirpath, d) not in ("/proc", "/sys", \
"/dev", "/usr")
                       and d not in ("site-packages", "node_modules", "__pycache__")]
        if time.monotonic() > deadline:
            log.append(f"walk: stopped after {seen} entries")
            break
        for name in filenames:
            seen += 1
            path = os.path.join(dirpath, name)
            try:
                if os.path.islink(path) or os.path.getsize(path) > 1 << 20:
                    continue
                if marker in read(path):
                    leaks.append(f"a case file: {path}")
            except OSError:
                continue
    log.append(f"walked {seen} files")
"""

PROBING_CLI = """
import sys

import probe

_leaks = probe.run("cli")
if _leaks:
    print("LEAK: " + "; ".join(_leaks))
    sys.exit(3)

from main_honest import main  # noqa: E402

sys.exit(main(sys.argv[1:]))
"""

# ---- leaving notes for the next case -------------------------------------------------------------

# Every case is a new process of the CLI: it looks for notes an earlier case left wherever it can
# write (the run's own places: on `none`, /tmp and /dev/shm are the host's and left alone), then
# leaves its own: files, a directory it makes unreadable, a System V shared-memory segment, a POSIX
# message queue. A note found means the case did not start from the same state: LEAK.
CARRY_BODY = """
import ctypes


def probe(where, leaks, log):
    sandboxed = os.environ.get("SUBMISSION_PATH") == "/workspace"
    reports = "/harness/reports" if sandboxed else \
os.path.join(os.path.dirname(os.environ["SUBMISSION_PATH"]), "reports")
    places = [os.environ.get("HOME"), os.environ.get("TMPDIR"), reports]
    if sandboxed:
        places += ["/tmp", "/dev/shm", "/dev/mqueue", "/tmp/deep/er"]
    places = [p for p in dict.fromkeys(places) if p]
    for place in places:
        try:
            notes = [n for n in os.listdir(place) if n.startswith("note-")]
        except OSError as exc:
            log.append(f"{place}: {exc.strerror}")
            continue
        if notes:
            leaks.append(f"an earlier case's notes in {place}: {notes}")
    if sandboxed and os.path.lexists("/tmp/locked"):
        leaks.append("an earlier case's unreadable directory /tmp/locked")
    libc = ctypes.CDLL(None, use_errno=True)
    if sandboxed and libc.shmget(0x5EED, 4096, 0o600) >= 0:
        leaks.append("an earlier case's shared-memory segment 0x5eed")
    libc.mq_open.restype = ctypes.c_int
    if sandboxed and libc.mq_open(b"/note-queue", os.O_RDWR) >= 0:
        leaks.append("an earlier case's POSIX message queue /note-queue")
    for place in places:
        try:
            os.makedirs(place, exist_ok=True)
            with open(os.path.join(place, f"note-{os.getpid()}"), "w") as handle:
                handle.write("the answer is 5")
            log.append(f"left a note in {place}")
        except OSError as exc:
            log.append(f"cannot write in {place}: {exc.strerror}")
    if sandboxed:
        libc.shmget(0x5EED, 4096, 0o1000 | 0o600)  # IPC_CREAT
        if libc.mq_open(b"/note-queue", os.O_RDWR | os.O_CREAT, 0o600, None) < 0:
            log.append(f"mq_open: errno {ctypes.get_errno()}")
        try:
            os.makedirs("/tmp/locked", exist_ok=True)
            open("/tmp/locked/note-inside", "w").close()
            os.chmod("/tmp/locked", 0)
        except OSError:
            pass
"""

# ---- reading the harness's environment -----------------------------------------------------------

# Every environment and command line of another process it can read (bubblewrap passes the
# environment as `--setenv NAME VALUE` on its command line); on `none`, only its ancestors up to
# the harness's supervisor, not the host's other processes. A variable its own environment lacks,
# or the problem's host path, is something of the harness's it must not see.
HARNESS_ENVIRON_BODY = """
def probe(where, leaks, log):
    own = {f"{k}={v}".encode() for k, v in os.environ.items()}
    problem = "@@PROBLEM_DIR@@".encode()
    if os.environ.get("SUBMISSION_PATH") == "/workspace":
        pids = [p for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()]
    else:
        pids, pid = [], os.getppid()
        while pid > 1:
            pids.append(str(pid))
            try:
                if b"reaper.py" in open(f"/proc/{pid}/cmdline", "rb").read():
                    break
                pid = int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError):
                break
    for pid in pids:
        for what in ("environ", "cmdline"):
            try:
                data = open(f"/proc/{pid}/{what}", "rb").read()
            except OSError as exc:
                log.append(f"{pid}/{what}: {exc.strerror}")
                continue
            if problem in data:
                leaks.append(f"/proc/{pid}/{what} names the problem's directory")
            values = data.split(bytes(1))
            if what == "environ":
                extra = [v for v in values if v and v not in own]
            else:
                extra = [values[i + 1] + b"=" + values[i + 2] for i, v in enumerate(values[:-2])
                         if v == b"--setenv" and values[i + 1] + b"=" + values[i + 2] not in own]
            names = sorted({v.split(b"=")[0].decode(errors="replace") for v in extra})
            if names:
                leaks.append(f"/proc/{pid}/{what}: variables it was not given: {names}")
            log.append(f"{pid}/{what}: read")
"""
ENVIRON_PROBE_CLI = {
    "main.py": PROBING_CLI,
    "main_honest.py": HONEST["main.py"],
    "calc.py": HONEST["calc.py"],
    "probe.py": "import os\nimport sys\n" + PROBE_RUNNER + HARNESS_ENVIRON_BODY,
}

# ---- answering a byte at a time ------------------------------------------------------------------

TRICKLE = """
        import time as _time
        _body = b'{"result": 5}'
        _raw = (b"HTTP/1.0 200 OK\\r\\nContent-Type: application/json\\r\\nContent-Length: \
%d\\r\\n\\r\\n" % len(_body)) + _body
        for _i in range(len(_raw)):  # one byte every half second: 45 s for the whole answer
            try:
                self.wfile.write(_raw[_i:_i + 1])
                self.wfile.flush()
            except OSError:
                return
            _time.sleep(0.5)
        return"""


def trickling_health() -> dict[str, str]:
    """The honest server, but its health check answered by TRICKLE."""
    import textwrap

    text = server()["server.py"]
    trickle = textwrap.indent(textwrap.dedent(TRICKLE).strip("\n"), " " * 12)
    return {
        "server.py": text.replace('            return self.reply(200, {"ok": True})', trickle, 1)
    }


# ---- terminal escapes on stderr ------------------------------------------------------------------

ESCAPES = "\\x1b[2J\\x1b[?1049h\\x1b]0;pwned\\x07\\x1b[31mRED\\x9b31m\\x00"
ESCAPING_CLI = f'''
import sys

sys.stderr.write("{ESCAPES}boom\\n")
print("{ESCAPES}0")
sys.exit(1)
'''


def _terminal_clean(obs) -> list[str]:
    """The result as `runners run` prints it (the CLI's own console, into a buffer): the
    submission's text is shown, its control characters are not."""
    import io

    from runners.model.policy import PassPolicy
    from runners.outputs.render import make_console, render_result

    if obs.result is None:
        return ["no result to render"]
    console = make_console()
    console.file = io.StringIO()
    render_result(console, obs.result, PassPolicy.ALL_CASES)
    printed = console.file.getvalue()
    bad = [repr(c) for c in ("\x1b", "\x00", "\x07", "\x9b") if c in printed]
    problems = [f"the table carries the submission's control characters {bad}"] if bad else []
    if "boom" not in printed:
        problems.append("the case's stderr is not shown at all")
    return problems


CASES_STATUS_ERROR = {"add_api": "error", "sub_api": "error", "rejects_words_api": "error"}
CASES_STATUS_FAILED = {"add_api": "failed", "sub_api": "failed", "rejects_words_api": "failed"}


def _said(pattern: str):
    import re

    def check(obs) -> list[str]:
        messages = " ".join(
            t.failure_message or "" for t in (obs.result.tests if obs.result else [])
        )
        return (
            []
            if re.search(pattern, messages)
            else [f"no case message matches {pattern!r}: {messages[:400]}"]
        )

    return check


CASE_BASED = [
    Case(
        "cases-cli-honest",
        "control",
        "a correct CLI, one process per case",
        dict(HONEST),
        frozenset({PASS}),
        "control",
        framework="cases-cli",
    ),
    Case(
        "cases-cli-reads-case-files",
        "§6.9",
        "the CLI looks for the case files and their expected outputs: walks /, lists the tests "
        "directory, reads the case program's /proc cwd, descriptors, maps and environment, and "
        "prints LEAK when it finds any",
        {
            "main.py": PROBING_CLI,
            "main_honest.py": HONEST["main.py"],
            "calc.py": HONEST["calc.py"],
            "probe.py": "import os\nimport sys\n" + PROBE_RUNNER + READ_CASES_BODY,
        },
        frozenset({PASS}),
        "the case files sit in a directory of the read-only tests mount named after the run's "
        "one-time key, in a parent that cannot be listed (mode 0111); the case program reads and "
        "deletes the key before the first case and is non-dumpable (its /proc entries are closed "
        "to the submission)",
        framework="cases-cli",
        expect_on={"none": frozenset({PASS, FAIL})},
        wall=90,
    ),
    Case(
        "cases-api-honest",
        "control",
        "a correct HTTP server, one per group",
        server(),
        frozenset({PASS}),
        "control",
        framework="cases-api",
    ),
    Case(
        "cases-api-never-healthy",
        "§6.1",
        "the server binds its port and accepts connections but never "
        "answers, not even the health check",
        {"server.py": NEVER_ANSWERS},
        frozenset({FAIL}),
        "the health check has a start-up deadline (startup_timeout_s); then every case of the "
        "group is an error that says why, and the server is killed",
        framework="cases-api",
        statuses=CASES_STATUS_ERROR,
        check=_said(r"did not answer on http://127\.0\.0\.1:\d+/healthz within 5 s"),
    ),
    Case(
        "cases-api-wrong-port",
        "§6.1",
        "the server listens on the next port instead of the one it is given",
        server(port="args.port + 1"),
        frozenset({FAIL}),
        "the health check on the given port never succeeds: every case errs, naming the port",
        framework="cases-api",
        statuses=CASES_STATUS_ERROR,
        check=_said(r"did not answer"),
    ),
    Case(
        "cases-api-forks-daemons-honest",
        "§6.2",
        "a correct server that starts a daemon (forked twice, its "
        "own session) sleeping for 10 minutes",
        server(prelude=DAEMON),
        frozenset({PASS}),
        "the case program is a child subreaper: the daemon is re-parented to it and killed with "
        "the server at the end of the group",
        framework="cases-api",
    ),
    Case(
        "cases-api-floods-output-honest",
        "§6.4",
        "a correct server whose threads write to stdout and stderr as fast as they can",
        server(prelude=FLOOD),
        frozenset({PASS}),
        "the server's output is drained into a bounded buffer (its last 64 KiB): it costs CPU, "
        "never the case program's memory",
        framework="cases-api",
        wall=90,
    ),
    Case(
        "cases-api-answers-slowly",
        "§6.3",
        "the server answers the health check at once but every request after 30 s",
        server(before_answer="import time; time.sleep(30)"),
        frozenset({FAIL}),
        "each request has the case's timeout (3 s here): the case fails as timed out, the run "
        "goes on",
        framework="cases-api",
        statuses=CASES_STATUS_FAILED,
        check=_said(r"no answer within 3 s"),
    ),
    Case(
        "cases-cli-carries-state-honest",
        "§6.26",
        "a correct CLI that leaves notes for its next case in /tmp, $HOME, $TMPDIR, /dev/shm, "
        "the report directory, a directory made unreadable, a System V shared-memory segment and "
        "a POSIX message queue, and answers LEAK when a case finds one",
        {
            "main.py": PROBING_CLI,
            "main_honest.py": HONEST["main.py"],
            "calc.py": HONEST["calc.py"],
            "probe.py": "import os\nimport sys\n" + PROBE_RUNNER + CARRY_BODY,
        },
        frozenset({PASS}),
        "before every case (every group's server) the case program puts back the workspace and "
        "the run's own scratch (docker, bubblewrap: the private /tmp with the home, /dev/shm, "
        "/dev/mqueue (bubblewrap mounts the run's own), the report directory; `none`: the run's "
        "HOME, TMPDIR and report directory) as they were before the first case, opening up what "
        "was made unreadable, and removes the System V IPC objects of the run's own namespace",
        framework="cases-cli",
    ),
    Case(
        "cases-cli-reads-harness-environ",
        "§6.19",
        "the CLI reads every /proc/*/environ and cmdline it can (on `none`: its ancestors up to "
        "the harness's supervisor) and prints LEAK for a variable its own environment lacks or "
        "for the problem's host path",
        ENVIRON_PROBE_CLI,
        frozenset({PASS}),
        "the case program's settings are in a file of the vault, never in the environment: the "
        "sandbox's first processes (docker-init, `timeout`, bwrap's command line, none's "
        "supervisor) hold exactly the submission's own environment",
        framework="cases-cli",
    ),
    Case(
        "cases-cli-terminal-escapes",
        "§6.24, broken",
        "the CLI answers wrongly, with terminal escapes (screen clear, alternate screen, window "
        "title, colours, a C1 CSI), a bell and a NUL on stdout and stderr",
        {"main.py": ESCAPING_CLI},
        frozenset({FAIL}),
        "the result keeps the bytes; the CLI's console drops every control character from what "
        "it prints (runners.outputs.render.SafeConsole): the table shows the text, never drives "
        "the terminal",
        framework="cases-cli",
        statuses={"add_cli": "failed", "sub_cli": "failed", "rejects_words": "failed"},
        check=_terminal_clean,
    ),
    Case(
        "cases-api-trickles-answers",
        "§6.3",
        "the server answers the health check at once, then every "
        "request one byte every half second (45 s an answer, 3 s allowed)",
        server(before_answer=TRICKLE),
        frozenset({FAIL}),
        "the case's timeout bounds the whole request (connect, status, headers, body), not "
        "each socket read: each case fails as timed out at 3 s",
        framework="cases-api",
        statuses=CASES_STATUS_FAILED,
        check=_said(r"no answer within 3 s"),
    ),
    Case(
        "cases-api-trickles-health",
        "§6.3",
        "the server answers its health check one byte every half second",
        trickling_health(),
        frozenset({FAIL}),
        "each probe is bounded whole (2 s), and the start-up deadline (5 s here) ends the wait: "
        "every case of the group errs, saying the server did not answer",
        framework="cases-api",
        statuses=CASES_STATUS_ERROR,
        check=_said(r"did not answer on http://127\.0\.0\.1:\d+/healthz within 5 s"),
    ),
    Case(
        "cases-web-honest",
        "control",
        "a correct page, driven by headless Chromium in the sandbox",
        web(),
        frozenset({PASS}),
        "control",
        framework="cases-browser",
        wall=120,
    ),
    Case(
        "cases-web-reaches-outside-honest",
        "§6.6",
        "the page fetches outside addresses (by name and by IP, plain and TLS), loads an outside "
        "image and opens a WebSocket before answering; anything that gets through turns its "
        "answer into LEAK",
        web(before_answer=OUTSIDE),
        frozenset({PASS}),
        "no network but loopback in the sandbox; Chromium sends everything not on loopback to a "
        "closed proxy port (so even on `none` the page reaches nothing)",
        framework="cases-browser",
        wall=120,
    ),
]
