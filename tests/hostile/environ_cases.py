"""The harness's environment, seen from a pytest, vitest or jest run: every process of the sandbox
whose environment or command line the submission can read must show only what its own
environment holds (the cases-based row is in cases_based.py, with the same probe).

The sandbox's first processes keep the environment they were started with: docker-init and
`timeout` under docker (readable as /proc/1/environ), bwrap's command line (`--setenv NAME
VALUE`, readable by anyone in the sandbox). Nothing the test process reads for itself alone (the
report key's file, once named by a variable) may be there.
"""

from __future__ import annotations

from .cases import CJS_HONEST, MJS_HONEST, PASS, Case, probing
from .cases_based import HARNESS_ENVIRON_BODY

# The same probe in JavaScript, run when the library is imported into the test worker: the
# library answers LEAK instead of the sum when it finds anything.
JS_PROBE = r"""
const __fs = require("node:fs");
const __own = new Set(Object.entries(process.env).map(([k, v]) => `${k}=${v}`));
const __leaks = [];
let __pids = __fs.readdirSync("/proc")
  .filter((p) => /^\d+$/.test(p) && Number(p) !== process.pid);
if (process.env.SUBMISSION_PATH !== "/workspace") {
  // on `none`: its ancestors up to the supervisor
  __pids = [];
  for (let pid = process.ppid; pid > 1;) {
    __pids.push(String(pid));
    try {
      if (__fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("reaper.py")) break;
      pid = Number(__fs.readFileSync(`/proc/${pid}/stat`, "utf8")
        .split(")").pop().trim().split(" ")[1]);
    } catch { break; }
  }
}
for (const pid of __pids) {
  for (const what of ["environ", "cmdline"]) {
    let values;
    try {
      values = __fs.readFileSync(`/proc/${pid}/${what}`, "utf8").split("\0");
    } catch { continue; }
    if (values.join(" ").includes("@@PROBLEM_DIR@@"))
      __leaks.push(`${pid}/${what} names the problem`);
    const extra = what === "environ"
      ? values.filter((v) => v && !__own.has(v))
      : values.flatMap((v, i) =>
        v === "--setenv" && !__own.has(`${values[i + 1]}=${values[i + 2]}`) ? [values[i + 1]] : []);
    for (const v of extra) __leaks.push(`${pid}/${what}: ${v.split("=")[0]}`);
  }
}
"""


def _leaking_js(source: str, esm: bool) -> str:
    probe = (
        JS_PROBE.replace('const __fs = require("node:fs");', 'import __fs from "node:fs";')
        if esm
        else JS_PROBE
    )
    body = source.replace(
        "return num(a) + num(b);",
        'return __leaks.length ? "LEAK " + __leaks.join("; ") : num(a) + num(b);',
    )
    body = body.replace(
        "add: (a, b) => num(a) + num(b),",
        'add: (a, b) => (__leaks.length ? "LEAK " + __leaks.join("; ") : num(a) + num(b)),',
    )
    return probe + body


DEFENCE = (
    "no variable the test process keeps to itself is in the sandbox's environment (our pytest "
    "plugin finds the report key beside its report; vitest's and jest's reporters and the tests "
    "share theirs), so docker-init, `timeout` and bwrap's command line show nothing the "
    "submission's own environment lacks"
)

ENVIRON_CASES = [
    Case(
        "harness-environ-pytest",
        "§6.19",
        "the CLI and the library compare every /proc/*/environ and bwrap `--setenv` on a command "
        "line they can read (on `none`: their ancestors up to the harness's supervisor) with "
        "their own environment, and look for the problem's host path",
        probing(HARNESS_ENVIRON_BODY),
        frozenset({PASS}),
        DEFENCE,
    ),
    Case(
        "harness-environ-vitest-honest",
        "§6.19",
        "the same, from the library in vitest's worker",
        {"calc.mjs": _leaking_js(MJS_HONEST, esm=True)},
        frozenset({PASS}),
        DEFENCE,
        framework="vitest",
    ),
    Case(
        "harness-environ-jest-honest",
        "§6.19",
        "the same, from the library in jest's worker",
        {"calc.js": _leaking_js(CJS_HONEST, esm=False)},
        frozenset({PASS}),
        DEFENCE,
        framework="jest",
    ),
]
