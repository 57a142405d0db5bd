"""Hostile submissions of case-based problems (framework `cases`): the CLI, API and browser
adapters run the submission as its own processes inside the sandbox, beside the case program.

The submission must not: read the case files or their expected outputs (they sit in a directory
of the tests mount only the case program can name), keep a server or its daemons alive past its
group, take the case program down by flooding or stalling, or reach outside from its web page.
"""

from __future__ import annotations

from .cases import FAIL, HONEST, PASS, PROBE_RUNNER, Case

# ---- the honest server and page --------------------------------------------------------------------

HONEST_SERVER = '''
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
'''


def server(prelude: str = "", before_answer: str = "", port: str = "args.port + 0") -> dict[str, str]:
    text = HONEST_SERVER.replace("# @@PRELUDE@@", prelude).replace("# @@BEFORE_ANSWER@@", before_answer)
    return {"server.py": text.replace("args.port + 0", port)}


DAEMON = '''
import os
import time

# A daemon (forked twice, a session of its own) that outlives the server unless killed.
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(600)
    os._exit(0)
os.wait()
'''

FLOOD = '''
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
'''

NEVER_ANSWERS = '''
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
'''

PAGE = '''<!doctype html>
<html><body>
<input id="a"> <input id="b"> <button id="go">=</button> <span id="out"></span>
<script>
// @@PAGE_PRELUDE@@
document.getElementById("go").addEventListener("click", async () => {
  const sum = Number(document.getElementById("a").value) + Number(document.getElementById("b").value);
  // @@PAGE_BEFORE_ANSWER@@
  document.getElementById("out").textContent = String(sum);
});
</script>
</body></html>
'''

WEB_SERVER = '''
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
'''

# The page tries the network before answering: an image, fetch (plain and TLS, by name and by
# address), a WebSocket and a form post to a hidden frame. Anything that gets through turns the
# answer into LEAK, so a hole turns the expected PASS into a FAIL.
OUTSIDE = '''
  const targets = ["http://198.51.100.1/", "https://example.com/", "http://example.org/x.png", "http://1.1.1.1/"];
  const reached = [];
  await Promise.all(targets.map((url) => fetch(url, {mode: "no-cors"}).then(() => reached.push(url), () => null)));
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
  if (reached.length) { document.getElementById("out").textContent = "LEAK " + reached.join(" "); return; }
'''


def web(prelude: str = "", before_answer: str = "") -> dict[str, str]:
    page = PAGE.replace("// @@PAGE_PRELUDE@@", prelude).replace("// @@PAGE_BEFORE_ANSWER@@", before_answer)
    return {"app.py": WEB_SERVER, "page.html": page}


# ---- reading the case files ---------------------------------------------------------------------------

# Looks for the case files (they carry the hidden marker, built here at run time so that this file
# does not carry it) everywhere it can: a walk of /, the tests directory beside the workspace, and
# the case program's /proc entries (cwd, descriptors, memory map, environment).
READ_CASES_BODY = '''
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
        dirnames[:] = [d for d in dirnames if os.path.join(dirpath, d) not in ("/proc", "/sys", "/dev", "/usr")
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
'''

PROBING_CLI = '''
import sys

import probe

_leaks = probe.run("cli")
if _leaks:
    print("LEAK: " + "; ".join(_leaks))
    sys.exit(3)

from main_honest import main  # noqa: E402

sys.exit(main(sys.argv[1:]))
'''

CASES_STATUS_ERROR = {"add_api": "error", "sub_api": "error", "rejects_words_api": "error"}
CASES_STATUS_FAILED = {"add_api": "failed", "sub_api": "failed", "rejects_words_api": "failed"}


def _said(pattern: str):
    import re

    def check(obs) -> list[str]:
        messages = " ".join(t.failure_message or "" for t in (obs.result.tests if obs.result else []))
        return [] if re.search(pattern, messages) else [f"no case message matches {pattern!r}: {messages[:400]}"]

    return check


CASE_BASED = [
    Case("cases-cli-honest", "control", "a correct CLI, one process per case", dict(HONEST), frozenset({PASS}),
         "control", framework="cases-cli"),
    Case("cases-cli-reads-case-files", "§6.9", "the CLI looks for the case files and their expected outputs: "
         "walks /, lists the tests directory, reads the case program's /proc cwd, descriptors, maps and "
         "environment, and prints LEAK when it finds any",
         {"main.py": PROBING_CLI, "main_honest.py": HONEST["main.py"], "calc.py": HONEST["calc.py"],
          "probe.py": "import os\nimport sys\n" + PROBE_RUNNER + READ_CASES_BODY},
         frozenset({PASS}), "the case files sit in a directory of the read-only tests mount named after the run's "
         "one-time key, in a parent that cannot be listed (mode 0111); the case program reads and deletes the "
         "key before the first case and is non-dumpable (its /proc entries are closed to the submission)",
         framework="cases-cli", expect_on={"none": frozenset({PASS, FAIL})}, wall=90),
    Case("cases-api-honest", "control", "a correct HTTP server, one per group", server(), frozenset({PASS}),
         "control", framework="cases-api"),
    Case("cases-api-never-healthy", "§6.1", "the server binds its port and accepts connections but never "
         "answers, not even the health check", {"server.py": NEVER_ANSWERS}, frozenset({FAIL}),
         "the health check has a start-up deadline (startup_timeout_s); then every case of the group is an "
         "error that says why, and the server is killed", framework="cases-api", statuses=CASES_STATUS_ERROR,
         check=_said(r"did not answer on http://127\.0\.0\.1:\d+/healthz within 5 s")),
    Case("cases-api-wrong-port", "§6.1", "the server listens on the next port instead of the one it is "
         "given", server(port="args.port + 1"), frozenset({FAIL}),
         "the health check on the given port never succeeds: every case errs, naming the port",
         framework="cases-api", statuses=CASES_STATUS_ERROR, check=_said(r"did not answer")),
    Case("cases-api-forks-daemons-honest", "§6.2", "a correct server that starts a daemon (forked twice, its "
         "own session) sleeping for 10 minutes", server(prelude=DAEMON), frozenset({PASS}),
         "the case program is a child subreaper: the daemon is re-parented to it and killed with the server "
         "at the end of the group", framework="cases-api"),
    Case("cases-api-floods-output-honest", "§6.4", "a correct server whose threads write to stdout and "
         "stderr as fast as they can", server(prelude=FLOOD), frozenset({PASS}),
         "the server's output is drained into a bounded buffer (its last 64 KiB): it costs CPU, never the "
         "case program's memory", framework="cases-api", wall=90),
    Case("cases-api-answers-slowly", "§6.3", "the server answers the health check at once but every request "
         "after 30 s", server(before_answer="import time; time.sleep(30)"), frozenset({FAIL}),
         "each request has the case's timeout (3 s here): the case fails as timed out, the run goes on",
         framework="cases-api", statuses=CASES_STATUS_FAILED, check=_said(r"no answer within 3 s")),
    Case("cases-web-honest", "control", "a correct page, driven by headless Chromium in the sandbox",
         web(), frozenset({PASS}), "control", framework="cases-browser", wall=120),
    Case("cases-web-reaches-outside-honest", "§6.6", "the page fetches outside addresses (by name and by IP, "
         "plain and TLS), loads an outside image and opens a WebSocket before answering; anything that gets "
         "through turns its answer into LEAK", web(before_answer=OUTSIDE), frozenset({PASS}),
         "no network but loopback in the sandbox; Chromium sends everything not on loopback to a closed "
         "proxy port (so even on `none` the page reaches nothing)", framework="cases-browser", wall=120),
]
