"""Run every hostile case under every backend and write docs/SECURITY.md from what happened.

    uv run --frozen python -m tests.hostile.report                 # all usable backends
    uv run --frozen python -m tests.hostile.report --load          # plus the load figures
    uv run --frozen python -m tests.hostile.report --backends docker,bubblewrap --output /tmp/S.md

Needs Docker (with the runners images: `python -m runners image build`) and bubblewrap; run as
root for bubblewrap's per-run cgroups. Exits 1 when any case shows a violation (the document is
written anyway, with the violations in it). `pytest tests/hostile` runs the same cases as
assertions; with RUNNERS_WRITE_SECURITY_DOC=1 it writes the document too.
"""

from __future__ import annotations

import argparse
import platform
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from .cases import ANY, BACKENDS, CASES, INFRA, PASS, REFUSED, Case
from .harness import GRACE, LIMITS, Observation, World, available_backends, cache_digest
from .problems import REPO

DOC = REPO / "docs" / "SECURITY.md"
CRASH_ROW = Case(
    "harness-crash",
    "§6.25",
    "the harness process and its direct children are SIGKILLed while a run spins (in a child "
    "harness; a Ray worker does that to a force-cancelled task): within 10 s, before any other "
    "harness starts, nothing of the run is left (processes, container, cgroups, workspace); then "
    "a new harness starts and runs the honest submission",
    {},
    frozenset({PASS}),
    "the run's janitor (runners/util/janitor.py: a process of its own session, not the harness's "
    "child) removes the container, cgroups and workspace when the harness's pipe closes; "
    "bubblewrap: --die-with-parent; `none`: the supervisor is a grandchild, and the killed link "
    "above it fires its parent-death signal; every backend: the next start sweeps what a killed "
    "janitor left",
)
# The rows that are not a submission's case (World.run_special runs them).
SPECIAL_ROWS = [
    CRASH_ROW,
    Case(
        "batch-crash",
        "issue 24",
        "`runners batch -j 2` is SIGKILLed while both workers run a spinning cell: within 10 s "
        "its workers, their sandboxes, workspaces, cgroups and containers and its scratch "
        "directory are gone",
        {},
        frozenset({PASS}),
        "a worker watches its parent's sentinel and cancels its cell when the batch is gone "
        "(then exits within 5 s); each worker's janitor and the batch's remove what is left",
    ),
    Case(
        "workspace-fs-full",
        "issue 24",
        "the workspace file system is full while the submission is copied in "
        "(a 2 MiB tmpfs as RUNNERS_WORKSPACE_DIR, a 5 MiB submission)",
        {},
        frozenset({INFRA}),
        "an infrastructure failure (exit 3) naming the file system and what was being copied; "
        "the half copy is removed",
    ),
    Case(
        "yaml-alias-bomb",
        "issue 24",
        "the problem's config.yaml holds a YAML alias bomb (10^9 values in 12 lines) "
        "in a validated field (`tags`)",
        {},
        frozenset({REFUSED}),
        "every YAML the harness reads is composed first and refused when its aliases expand by "
        "more than 100,000 values (runners/cases/bounded_yaml.py): bad input naming the file, at "
        "once, in bounded memory",
    ),
]


@dataclass
class Run:
    observations: dict[tuple[str, str], Observation]
    backends: list[str]
    unavailable: dict[str, str]
    seconds: float
    cache_changes: list[str] = field(default_factory=list)
    load: dict[str, float] | None = None


def run_all(backends: list[str] | None = None, workers: int = 6, load: bool = False) -> Run:
    probes = available_backends(backends or BACKENDS)
    usable = [name for name, reason in probes.items() if reason is None]
    unavailable = {name: reason for name, reason in probes.items() if reason is not None}
    with World(usable) as world:
        before = cache_digest()
        world.warm_up()
        started = time.monotonic()
        observations = world.run_matrix(CASES, workers=workers)
        seconds = time.monotonic() - started
        changes = cache_changes(before, cache_digest())
        figures = load_figures(world) if load else None
    return Run(
        {(o.case, o.backend): o for o in observations},
        usable,
        unavailable,
        seconds,
        changes,
        figures,
    )


def cache_changes(before: dict, after: dict) -> list[str]:
    return sorted(path for path, stat in before.items() if after.get(path) != stat)[:20]


def load_figures(world: World, sequential: int = 40, concurrent: int = 8) -> dict[str, float]:
    from .load import run_load

    return run_load(world, sequential=sequential, concurrent=concurrent).figures()


# ---- the document ------------------------------------------------------------------------------


def expected_text(case: Case, backend: str | None = None) -> str:
    if case.undefended:
        return "flagged (grade may be forged)"
    outcomes = case.expected(backend) if backend else case.expect
    if outcomes == ANY:
        return "anything"
    text = " or ".join(sorted(outcomes))
    if case.statuses is not None and "FAIL" in outcomes:
        text += " (true statuses)"
    if outcomes == frozenset({PASS}) and case.id not in (
        "honest-reference",
        "vitest-honest",
        "jest-honest",
    ):
        text += " (attack blocked)" if not case.broken else ""
    return text


def cell(case: Case, obs: Observation | None) -> str:
    if obs is None:
        return "not run"
    if obs.outcome == "SKIP":
        return "n/a"
    text = obs.outcome
    if case.undefended and obs.outcome == PASS:
        text += " (forged)"
    if case.flags and obs.result is not None:
        text += ", flagged"
    if obs.violations:
        first = obs.violations[0].splitlines()[0][:160].replace("|", "\\|")
        return f"**VIOLATION** {text}: {first}"
    return f"ok: {text}"


def render(run: Run) -> str:
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    versions = _versions()
    cases = [*CASES, *SPECIAL_ROWS]
    violations = sum(1 for o in run.observations.values() if o.violations)
    header = (
        "| # | case | §6 | what the submission does | expected | "
        + " | ".join(f"{b}{' (not isolated)' if b == 'none' else ''}" for b in BACKENDS)
        + " | defence |"
    )
    rows = [header, "|" + "---|" * (6 + len(BACKENDS))]
    for number, case in enumerate(cases, start=1):
        cells = []
        for backend in BACKENDS:
            if backend in run.unavailable:
                cells.append("unavailable")
            elif backend in case.skip_on:
                cells.append("n/a")
            else:
                cells.append(cell(case, run.observations.get((case.id, backend))))
        rows.append(
            f"| {number} | `{case.id}` | {case.catalogue} | {_md(case.title)} | "
            f"{expected_text(case)} | " + " | ".join(cells) + f" | {_md(case.defence)} |"
        )
    skipped = sorted(
        {(case.id, backend, reason) for case in CASES for backend, reason in case.skip_on.items()}
    )
    skip_lines = [f"- `{cid}` on `{backend}`: {reason}" for cid, backend, reason in skipped]
    load = ""
    if run.load:
        f = run.load
        load = (
            f"\n## Load (backend `auto` = {f.get('backend', '?')})\n\n"
            f"- {int(f['sequential'])} evaluations back to back in {f['sequential_seconds']:.1f} "
            f"s ({f['sequential_seconds'] / f['sequential']:.2f} s each), then "
            f"{int(f['concurrent'])} at once in {f['concurrent_seconds']:.1f} s; results lost: "
            f"{int(f['lost'])}; workspaces left: {int(f['workspaces_left'])}; containers left: "
            f"{int(f['containers_left'])}.\n"
            f"- harness RSS: {f['rss_start_mb']:.0f} MB after warm-up, "
            f"{f['rss_after_sequential_mb']:.0f} MB after the sequential runs, "
            f"{f['rss_end_mb']:.0f} MB at the end (peak {f['rss_peak_mb']:.0f} MB).\n"
        )
    unavailable = "".join(
        f"\n- `{name}` was not usable on this machine: {reason}"
        for name, reason in run.unavailable.items()
    )
    return TEMPLATE.format(
        now=now,
        versions=versions,
        seconds=run.seconds,
        count=len(cases),
        table="\n".join(rows),
        violations=violations,
        skips="\n".join(skip_lines),
        load=load,
        unavailable=unavailable,
        cache="unchanged" if not run.cache_changes else f"**CHANGED**: {run.cache_changes[:5]}",
        grace=GRACE,
        py_limits=_limits("pytest"),
        js_limits=_limits("js"),
        cases_limits=_limits("cases"),
        agent=agent_section(),
    )


def agent_section() -> str:
    """The agent step's part of the document: what a hostile agent tries, and what stops it (the
    cases of agent_cases.py, run by test_agent_hostile.py on every backend)."""
    from .agent_cases import AGENT_CASES

    rows = [
        "| case | what the agent does | step | " + " | ".join(BACKENDS) + " | defence |",
        "|" + "---|" * (4 + len(BACKENDS)),
    ]
    for case in AGENT_CASES:
        cells = ["n/a" if b in case.skip_on else "checked" for b in BACKENDS]
        rows.append(
            f"| `{case.id}` | {_md(case.title)} | {case.expect} | "
            + " | ".join(cells)
            + f" | {_md(case.defence)} |"
        )
    skipped = "\n".join(
        f"- `{case.id}` on `{backend}`: {reason}"
        for case in AGENT_CASES
        for backend, reason in case.skip_on.items()
    )
    return AGENT_TEMPLATE.format(table="\n".join(rows), skips=skipped)


AGENT_TEMPLATE = """\
## The agent step

Before grading, an agent may be run (`runners solve`, `runners batch --agents`, the Promptfoo
agent provider; docs/agents.md): a command given each checkpoint's specification and the workspace
the previous checkpoint left. The agent is as untrusted as the code it writes. Its step runs in the
chosen sandbox with the same profile as a test run, except what an agent needs: its workspace
(a fresh copy of the previous snapshot) writable at `/workspace`, its checkpoint's specification
alone read-only at `/agent/prompt/`, a private home at `/agent/home` and `/tmp`, its own read-only
mounts (refused when they hold the problems, a copy of any of their files, the harness's cache or \
the
run's results), the variables it is allowed (by name from the host, or literal values), and the \
network
only with `network: true` (all of it) or an allow-list (`network: {{allow, routes}}`: a network
namespace of its own holding loopback and the harness's proxy, which lets through only the listed
`host:port` and routes). Its own account of what it spent (cost, tokens, turns) is validated like \
its
code: an impossible figure is refused and said so.
The hidden tests, the problem's other specifications, other agents' workspaces and the caches are
never mounted; what it leaves running is killed when its step ends; its output is capped. On `none`
nothing is isolated: the step is flagged `unsandboxed`, and only the environment, the time limit,
the output cap and the process-tree kill hold.

Every case below runs as a real agent step on every backend (`tests/hostile/test_agent_hostile.py`);
"checked" means it ran with every check holding: the step ended as expected within its limit, its
own account of what it reached (`leaks.txt`) is empty, no marker of the hidden tests, of a later
spec, of another agent or of the harness's secret is in its snapshot, transcript or record, nothing
of it is left running, no host file changed and the toolchain caches are unchanged.

{table}

Not run on `none`:

{skips}
"""


def _limits(kind: str) -> str:
    limits = LIMITS[kind]
    return (
        f"memory {limits.memory_mb} MB, pids {limits.pids}, {limits.cpus:g} CPU, nofile "
        f"{limits.nofile}, file size {limits.file_size_mb} MB, /tmp {limits.tmp_size_mb} MB, "
        f"output {limits.output_bytes // 1024} KB per stream"
    )


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _versions() -> str:
    parts = [f"Linux {platform.release()}", f"Python {platform.python_version()}"]
    for argv in (
        ["bwrap", "--version"],
        ["docker", "version", "--format", "Docker Engine {{.Server.Version}}"],
        ["node", "--version"],
    ):
        if shutil.which(argv[0]):
            try:
                out = subprocess.run(
                    argv, capture_output=True, text=True, timeout=20, check=False
                ).stdout.strip()
            except (OSError, subprocess.SubprocessError):
                continue
            if out:
                parts.append(out if argv[0] != "node" else f"Node {out}")
    return ", ".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.hostile.report", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--backends", default=",".join(BACKENDS))
    parser.add_argument("--output", type=Path, default=DOC)
    parser.add_argument("--workers", type=int, default=6)
    parser.add_argument(
        "--load", action="store_true", help="also run the load test and report its figures"
    )
    args = parser.parse_args(argv)
    run = run_all(args.backends.split(","), workers=args.workers, load=args.load)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(render(run), encoding="utf-8")
    bad = [o for o in run.observations.values() if o.violations]
    for obs in bad:
        print(
            f"VIOLATION {obs.case} on {obs.backend}: " + "\n    ".join(obs.violations),
            file=sys.stderr,
        )
    print(
        f"{len(run.observations)} runs of {len(CASES) + 1} cases on {', '.join(run.backends)} in "
        f"{run.seconds:.0f} s; {len(bad)} with violations; wrote {args.output}"
    )
    return 1 if bad or run.cache_changes else 0


TEMPLATE = """\
# Security: what a submission can and cannot do to the harness

<!-- GENERATED by `python -m tests.hostile.report` (see "Regenerating" below): edit the template in
     tests/hostile/report.py and the cases in tests/hostile/cases.py, not this file. -->

Generated {now} on {versions}. The {count} cases below ran in {seconds:.0f} s (after a warm-up of \
the
toolchains); runs with a violation: **{violations}**. Toolchain caches after the runs: \
{cache}.{unavailable}

## Threat model

A submission is code written by an agent we do not trust. The harness runs the hidden tests \
against it
and must produce a grade nobody can fake. We assume the submission knows how the harness works (this
document, the source) and acts adaptively at run time: it may fork, allocate, print, write, connect,
kill, sleep, read everything it can see, and tamper with anything in its reach.

**The harness defends** (a violation of any of these is a bug, and a case below fails):

1. *No hang*: every run ends within its wall clock plus a small grace ({grace:g} s in these tests),
   whatever the submission ignores (SIGTERM, SIGALRM) or leaves behind (daemons holding pipes).
2. *No faked grade from outside the test process*: the report that is graded is written by the test
   runner into a directory the harness owns and is read without following links, size-capped, only
   when fresh, and only when it carries an HMAC made with a one-time key that our side of the test
   run (the pytest plugin, the vitest/jest reporter) read and deleted before any submission code \
ran.
   A missing, truncated, tampered or inconsistent report, a timeout or an out-of-memory kill is an
   infrastructure failure with a reason, never a pass; skipped, missing or unreported tests never
   count as passed; grades never come from the output.
3. *No effect on the host* (docker, bubblewrap): no writes outside the run's own workspace, no \
network,
   no host sockets, no host processes or their environments, no secrets, no other runs, no \
privileges;
   nothing outlives the run (processes, containers, temporary directories).
4. *Bounded harness*: output, reports and each test's captured text are capped, so a flood costs the
   harness bounded memory and disk; the next run works.
5. *Honest failures*: a merely broken submission (syntax error, crash, wrong output, 10 MB of \
output,
   binary output) gets an ordinary failing result, not an infrastructure failure.

**How, per backend**

| | docker (first choice of `auto`) | bubblewrap (fallback) | none (only by name) |
|---|---|---|---|
| isolation | a fresh container per run, read-only root, `network_mode=none`, uid 1000, \
`cap_drop=ALL`, `no-new-privileges`, docker's seccomp (no user namespaces), docker-init as pid 1 | \
new user/pid/net/ipc/uts/cgroup namespaces, a minimal root (/usr, /etc, the interpreter, the \
mounts asked for), uid 65534 via `setpriv` (no capabilities, `no_new_privs`), a nested user \
namespace that may not nest (`--disable-userns`), a seccomp deny list (EPERM), \
`--die-with-parent`, `--new-session` | none: the harness's own user on the host |
| limits | memory = memory+swap, pids, CPUs, `nofile`/`fsize` rlimits, `/tmp` tmpfs size | a \
per-run cgroup (memory, pids, CPU), `nofile`/`fsize` rlimits, `/tmp` tmpfs size | `nofile`/`fsize` \
rlimits only |
| end of run | wall clock enforced by the harness, container killed and removed; labels let the \
next start sweep containers of a dead harness; an in-container `timeout` backstop | process group \
killed, then the pid namespace goes with bwrap (`--die-with-parent`); the cgroup is killed and \
removed | a subreaper supervisor kills every descendant at the end, on SIGTERM, and when the \
harness dies |
| what is visible | the submission copy (rw), tests and generated config (ro), the report \
directory (rw), the toolchain cache (ro) | the same, plus /usr and /etc read-only | everything the \
harness's user can see |

**Case-based problems** (`framework: cases`, rows `cases-*`): the case program is the test process
and the submission runs beside it, in the same sandbox and as the same uid: one process per CLI
case, or a server per group (with headless Chromium for browser cases). The case files and their
expected outputs sit in a directory of the read-only tests mount named after the run's one-time
key, under a parent that cannot be listed (mode 0111); the case program reads and deletes the key
before the submission's first process, signs its report with it, and is non-dumpable, so the
submission can find neither the files nor the name through /proc; its settings are a file in that
directory, never variables, so the sandbox's first processes (docker-init, `timeout`, bwrap's
command line, none's supervisor) show nothing but the submission's own environment. It is a child
subreaper: what a case or a server leaves behind (daemons in sessions of their own) is killed at
the end of the case or group. Every case (every group's server) starts from the same state: the
workspace, the run's private `/tmp` with its home, `/dev/shm`, `/dev/mqueue` and the report
directory are put back as they were before the first case, and the IPC namespace's objects removed
(on `none`: the run's HOME, TMPDIR and report directory). A server's output is drained into a
bounded buffer; a server gets a start-up deadline, and each request (each health probe) one
deadline for the whole exchange, not per socket read; Chromium is driven through a pipe (no
debugging port) and sends everything not on loopback to a closed proxy port. What the submission
wrote reaches the terminal without its control characters (the CLI's console drops them).

The cases were run with these limits: pytest {py_limits}; vitest/jest {js_limits}; case-based \
{cases_limits}; wall clocks per case
(6-8 s for the hang cases, 30-60 s otherwise).

**What the harness only detects** (`runners/scan/`, flags `grader-touching: FILE:LINE WHAT` on the
result, shown by the CLI and in the JSON): when the tests import the submission (a library problem),
its code runs *inside the test process* and can forge the grade from there: patch `_pytest`, \
return an
object whose `__eq__` is always true, find the report key in the plugin's memory and re-sign a \
forged
report at exit, extend vitest's or jest's `expect`, replace `Object.is`. No report format survives
that. Each flag points at something that can change a grade and says what it can do: pytest hooks
outside a conftest, `_pytest` imports, `os._exit` in library code (no grade), reading or rewriting
the test's frames (`.f_locals`, writes through `.f_globals`, trace functions), the collector's
`get_objects`, replaced attributes of `time`/`builtins`/`subprocess`/`_pytest`, a module replaced
in `sys.modules` or an import hook, `__eq__` always true, strings naming the hidden tests, the
report files or the report plugin, `.pth` / `sitecustomize`, setup code that extends `expect`,
imports of the test framework, replaced built-ins and `process.exit` in library code. What cannot
change a grade is not flagged, however unusual: `sys.exit` (pytest makes it an error), reading the
call stack, a debugging `sys.excepthook`, a module wrapping its own `sys.modules` entry, a fake
summary on stdout (grades never come from output), a conftest or a `pytest11` entry point (never
loaded), a file named like a reporter, a shipped `node_modules` (never copied), configuration the
harness never reads (pytest settings, vitest/jest/Babel/TypeScript configs). It is bounded (2000
files, 512 KB per file, 16 MB, 5 s) and raises no flag on the example submissions in
`examples/submissions`, on the real repositories of `bench/repo_projects.py`, nor on attrs and \
click;
boltons gets 4 (reading frame locals for its rich tracebacks, `gc.get_objects`), down from 26.

**Known limits** (documented, not defended):

- *In-process forgery* (above): detected only. Out-of-process assertions (the tests call the
  submission through a subprocess or RPC, as the CLI tests here do) are the real fix for problems \
that
  must not be forged.
- *The running checkpoint's tests are readable by the submission* (`answer-lookup`): pytest needs to
  read them and runs as the same uid in the sandbox. The tests of later checkpoints and the
  submission's git history are never copied. Detected by the scan when the code names the tests' \
paths.
- *The workspace has no disk quota* (`disk-fill`): writes are bounded per file (`fsize`) and in \
`/tmp`
  (tmpfs size), but the submission copy is a host directory: a submission can write until the wall
  clock ends the run (the directory is then deleted). Put `TMPDIR` on a size-limited filesystem \
where
  this matters. What a submission *brings* is bounded before the copy (`sparse-64g`, `deep-chain`):
  1 GiB of file sizes, 1 GiB allocated, 50,000 entries, depth 64 by default \
(`runners/model/limits.py`).
- *Copying many files costs what the disk charges per inode*: 20,000 small files are one walk and
  one kernel copy each (`many-files-deep-honest`), but creating and deleting 20,000 inodes on a busy
  disk can still take seconds (bench/RESULTS.md, section 7).
- *`none` is not a sandbox*: cases whose attack is a write outside, a kill of every process, an
  unbounded fork or allocation, a host socket or a secret are not run there (listed below); the rest
  show what `none` still guarantees (wall clock, tree kill, report integrity against files and
  daemons, capped output).
- *Case-based runs on `none`* (`cases-cli-carries-state-honest`): `/tmp`, `/dev/shm` and the IPC
  namespace are the host's, shared with every process of the machine, so they are never reset: a
  CLI could leave a note there for its next case. Only the run's own HOME, TMPDIR and report
  directory start every case as they were. The harness's own process, and its environment, are
  readable there as everything of its user is.
- *bubblewrap's seccomp filter is a short deny list*, on x86-64 only (`runners/sandbox/seccomp.py`:
  ptrace, process_vm_*, keyrings, bpf, perf events, userfaultfd, modules, kexec, mounts, unshare,
  setns, swap, reboot, host names, handle opens, I/O ports, acct, quotas; other ABIs refused); the
  rest of the kernel is reachable, where docker's default profile is an allow list. Nested user
  namespaces are refused only where bwrap is 0.8 or newer and the kernel allows unprivileged user
  namespaces (otherwise `unshare -r` works inside).
- *A harness killed together with its janitor* (`kill -9` of both, or of the whole machine's
  processes): the janitor removes what a killed harness left within a second (`harness-crash`,
  `batch-crash`); if it is killed too, a docker container runs until the next harness start sweeps
  it, or at most the wall clock plus 30 s (the in-container backstop), and the workspace and
  cgroups stay until the next start.
- *In-process blame forgery*: a submission imported into the test process can forge anything, the
  facts `runners.engine.blame` reads included (a module compiled with the test file's name, a \
rewritten
  `__file__`), and so pass its own failure off as a problem error (no grade instead of a failed
  one). The cases `fake-*` show that raising a problem's kind of error is not enough (its frames
  show); forging the frames is the in-process class above, detected by the scan only.
- *Harness memory while parsing*: a report may be up to 128 MB (more is an infrastructure failure);
  parsing it briefly costs a few times that.
- *Snapshot copies* (vitest/jest): both tools write a `.snap` back after its test file, so each \
reads
  and writes a copy in a new directory of the sandbox's `/tmp` (`runners-snapshot-*`), made just
  before it is read; the problem's `.snap` stays read-only. A process of the submission that races
  the copy (jest: within one synchronous call; vitest: one RPC round trip) could change what is \
read,
  and a `.snap` is evaluated as JavaScript. That gives a CLI submission nothing a library
  submission does not already have in-process, but it is a window, not a wall.
- *Repository problems*: the problem's files are laid into the submission's copy, so code of the
  submission that runs during the test run (imported by the tests) can read them, as it can read a
  hidden suite's; it cannot change them (read-only mounts) and never sees a later checkpoint's.
  Installing the repository runs its build backend (its code) with the network off; only its
  declared build requirements and dependencies are fetched with the network on, as wheels, with
  no submission code running.
- *Archive extraction* (§6.27): not applicable; no archive produced by a run is ever extracted (runs
  use bind mounts; the only extraction is of the Node distribution the harness downloads itself).

**Weaknesses this suite found, now fixed**: concurrent first runs saw a half-filled sandbox or \
runner
registry ("unknown sandbox 'none'"); bubblewrap let the submission create user namespaces (`unshare
-r`, then mount); on `none`, a killed harness left the whole process tree running; a killed harness
left its workspace in the temporary directory and (bubblewrap) its cgroups, forever; a test printing
60 MB inside the test process made a 60 MB result (the harness grew by 200 MB per such run); a \
killed
harness left its /dev/shm workspace (once 315 MB of memory), its cgroups and (docker) its container
running the submission until the next harness start, and a killed `batch` left its workers running
their cells for 5-30 s; a broken problem (a syntax error in its tests, a missing module or data \
file)
was graded as every agent's failure; a full workspace file system gave a traceback and exit 1; an
alias bomb in a problem's config held the harness for minutes at 2 GB. Also (issue 24): a CLI case \
left notes for the next one in `/tmp`, `$HOME` or `/dev/shm` (1 case of 9
passed instead of 9); the case program's settings, the problem's host path among them, were in
/proc/1/environ (docker), bwrap's command line and none's supervisor; an HTTP answer or health
check trickled a byte at a time outlasted every timeout (45 s against 10); a case's escapes and
NULs reached the terminal through the table, an agent's through `batch --agents`; an agent's
mounts were compared with the problem by path, not contents; its cost, tokens and turns were
stored and shown whatever they were (-$1,000,000, 10^30 tokens).

## Cases

Outcomes: PASS (every test passed), FAIL (tests ran, some failed), INFRA (infrastructure failure \
with a
reason), TIMEOUT (the wall clock ended the run), REFUSED (bad input, CLI exit 2: refused before \
anything
was copied or run, e.g. a submission over its size limits), PROBLEM (a problem error, CLI exit 4: \
the
problem's own files failed to load, no grade, the file and line named). "true statuses": the FAIL \
must list exactly the
statuses of the honest truth (e.g. every test failed); "attack blocked": a correct submission that
also attacks, and prints `LEAK` (failing its tests) if the attack worked; "flagged": the scan's \
flags
for the case must be on the result. Each cell is checked for every property above (time, host
sentinels, leftovers, canary secret, result JSON, next run); "ok" means all of them held.

{table}

Not run on `none` (not isolated, so the attack would hit the machine running the suite):

{skips}
{load}
{agent}
## Regenerating

```
uv run --frozen python -m tests.hostile.report          # writes docs/SECURITY.md; --load adds the \
load figures
uv run --frozen pytest tests/hostile                    # the same cases, as assertions (CI: `make \
test`), and the agent cases
RUNNERS_WRITE_SECURITY_DOC=1 uv run --frozen pytest tests/hostile   # both at once
```

The cases, their payloads and their expected outcomes are in `tests/hostile/cases.py`; the checks
every run must pass are in `tests/hostile/harness.py`.
"""


if __name__ == "__main__":
    sys.exit(main())
