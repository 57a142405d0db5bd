"""What the case-based measurements run on, generated under bench/data:

- a CLI problem of N cases in SCBench's case format (loader.py and verifier.py importing
  `slop_code` names), so that runners and SCBench's own evaluator can grade the very same files;
  its submission, a small word-count tool; and the N invocations as a plain shell script;
- an API problem of M GET requests (built-in case files) with its server, and the same requests
  as a plain Python loop against the same server, timing each request.
"""

from __future__ import annotations

import json
import shlex
import shutil
import textwrap
from dataclasses import dataclass
from pathlib import Path

CLI_CONFIG = """
name: bench_cases_cli
version: 1
description: word counts, one CLI invocation per case
tags: [bench]
entry_file: tool
timeout: 10
adapter:
  type: cli
checkpoints:
  checkpoint_1:
    version: 1
    groups:
      core:
        type: Core
"""

CLI_LOADER = """
import json

from slop_code.evaluation.adapters import CLICase, CLIResult
from slop_code.evaluation.loaders import BaseLoader, helpers
from slop_code.execution.file_ops import FileType, InputFile


class Loader(BaseLoader):
    def __call__(self, group, store):
        path = helpers.get_chkpt_path(group, self.problem, self.checkpoint) / f"{group.name}.json"
        for name, spec in json.loads(path.read_text()).items():
            files = [InputFile(path=p, content=c, file_type=FileType.TEXT)
                     for p, c in spec["files"].items()]
            case = CLICase(id=name, group=group.name, group_type=group.type,
                           checkpoint=self.checkpoint.name,
                           arguments=spec["args"], input_files=files)
            yield case, CLIResult(id=name, group=group.name, group_type=group.type, status_code=0,
                                  output=spec["output"])
"""

CLI_VERIFIER = """
from slop_code.evaluation.verifiers import verifiers


class Verifier:
    def __init__(self, checkpoint_config):
        self.checkpoint_config = checkpoint_config

    def __call__(self, group_name, case_name, actual, expected):
        return {"status_code": verifiers.matches_status_code(actual.status_code,
                                                             expected.status_code),
                "output": verifiers.deepdiff_verify(actual.output, expected.output)}
"""

TOOL = """
import json
import sys


def main(argv):
    if len(argv) != 2 or argv[0] != "count":
        print("usage: tool.py count FILE", file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as handle:
        text = handle.read()
    print(json.dumps({"lines": text.count("\\n"), "words": len(text.split()), "chars": len(text)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
"""

API_CONFIG = """
name: bench_cases_api
version: 1
description: GET requests to a tiny JSON service
tags: [bench]
entry_file: server
framework: cases
timeout: 10
adapter:
  type: api
  health_path: /healthz
  response_is_json: true
checkpoints:
  checkpoint_1:
    version: 1
    groups:
      core:
        type: Core
"""

SERVER = """
import argparse
import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        parts = self.path.strip("/").split("/")
        body = json.dumps({"ok": True} if parts == ["healthz"]
                          else {"square": int(parts[-1]) ** 2}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


parser = argparse.ArgumentParser()
parser.add_argument("--address", default="127.0.0.1")
parser.add_argument("--port", type=int, required=True)
args = parser.parse_args()
ThreadingHTTPServer((args.address, args.port), Handler).serve_forever()
"""

# The same requests without the harness: start the server, wait for /healthz, send them, stop it.
API_BARE = """
import http.client
import json
import socket
import subprocess
import sys
import time

python, server, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
with socket.socket() as sock:
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
proc = subprocess.Popen([python, server, "--address", "127.0.0.1", "--port", str(port)])
try:
    while True:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/healthz")
            conn.getresponse().read()
            break
        except OSError:
            time.sleep(0.05)
    took = []
    for n in range(count):
        started = time.perf_counter()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", f"/square/{n}")
        assert json.loads(conn.getresponse().read()) == {"square": n * n}
        conn.close()
        took.append((time.perf_counter() - started) * 1000)
    print(json.dumps(took))
finally:
    proc.kill()
    proc.wait()
"""


@dataclass(frozen=True)
class CasesWorld:
    cli_problem: Path
    cli_submission: Path
    cli_script: Path  # the N invocations, bare
    scbench_script: Path  # the N invocations, SCBench's way (uv init, uv add, uv run per case)
    api_problem: Path
    api_count: int
    api_submission: Path
    api_bare: Path
    count: int


def _text(n: int) -> str:
    words = " ".join(f"w{(n * 7 + i) % 13}" for i in range(n % 9 + 1))
    return f"{words}\nline two of case {n}\n"


def _count(text: str) -> str:
    return (
        json.dumps({"lines": text.count("\n"), "words": len(text.split()), "chars": len(text)})
        + "\n"
    )


def build(root: Path, count: int, api_count: int) -> CasesWorld:
    if root.exists():
        shutil.rmtree(root)
    cli = root / "bench_cases_cli"
    (cli / "checkpoint_1").mkdir(parents=True)
    (cli / "config.yaml").write_text(textwrap.dedent(CLI_CONFIG).lstrip())
    (cli / "loader.py").write_text(CLI_LOADER.lstrip())
    (cli / "verifier.py").write_text(CLI_VERIFIER.lstrip())
    cases = {
        f"case_{n:03d}": {
            "args": ["count", f"input_{n}.txt"],
            "files": {f"input_{n}.txt": _text(n)},
            "output": _count(_text(n)),
        }
        for n in range(count)
    }
    (cli / "checkpoint_1" / "core.json").write_text(json.dumps(cases, indent=1))
    sub = root / "submission_cli"
    sub.mkdir()
    (sub / "tool.py").write_text(TOOL.lstrip())
    (sub / "requirements.txt").write_text("")
    bare, scbench = ["set -e"], ["set -e", 'root="$PWD"']
    for spec in cases.values():
        ((name, text),) = spec["files"].items()
        write = f"printf %s {shlex.quote(text)} > {name}"
        bare += [write, f'"$PYTHON" tool.py {shlex.join(spec["args"])} > /dev/null']
        scbench += [
            'work="$(mktemp -d)"',
            'cp -r "$SUBMISSION"/. "$work"',
            'cd "$work"',
            "uv init -q >/dev/null 2>&1 || true",
            "uv add -q -r requirements.txt >/dev/null 2>&1 || true",
            write,
            f"uv run -q tool.py {shlex.join(spec['args'])} > /dev/null",
            'cd "$root"',
            'rm -rf "$work"',
        ]
    (root / "bare.sh").write_text("\n".join(bare) + "\n")
    (root / "scbench.sh").write_text("\n".join(scbench) + "\n")
    api = root / "bench_cases_api"
    group = api / "checkpoint_1" / "core"
    group.mkdir(parents=True)
    (api / "config.yaml").write_text(textwrap.dedent(API_CONFIG).lstrip())
    for n in range(api_count):
        (group / f"r{n:04d}.json").write_text(
            json.dumps(
                {
                    "case": {"path": f"/square/{n}"},
                    "expected": {"status_code": 200, "output": {"square": n * n}},
                }
            )
        )
    api_sub = root / "submission_api"
    api_sub.mkdir()
    (api_sub / "server.py").write_text(SERVER.lstrip())
    (root / "api_bare.py").write_text(API_BARE.lstrip())
    return CasesWorld(
        cli,
        sub,
        root / "bare.sh",
        root / "scbench.sh",
        api,
        api_count,
        api_sub,
        root / "api_bare.py",
        count,
    )
