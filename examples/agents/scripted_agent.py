"""A scripted coding agent: deterministic, offline, standard library only.

It plays an agent that already knows how to implement the example problems: its "knowledge" is a
directory of solutions, `<knowledge>/<problem>/<checkpoint>/` (the example submissions: `alpha`
right throughout, `beta` breaking earlier behaviour later). Given one checkpoint's specification
and its workspace, it works like an agent continuing its own work:

- it reads the specification it was given (and quotes its title), refusing to work without one;
- it checks that the files it wrote at the previous checkpoint are still in its workspace, as it
  left them (the workspace carries over; it never rewrites what did not change);
- it writes the files that are new or changed at this checkpoint and deletes the ones it dropped;
- it reports what it did, as plain text or (`--format claude-json`) in the shape of Claude Code's
  `--output-format json` result, with `usage` counting words: words of the specification read as
  input tokens, words of its earlier files read back as cache reads (as Claude Code's prompt cache
  serves what it saw before), words of code written as output tokens, at no cost.

    python3 scripted_agent.py --knowledge DIR --problem P --checkpoint checkpoint_2 --prompt SPEC.md
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
from pathlib import Path


def files_of(root: Path) -> dict[str, bytes]:
    found = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            found[path.relative_to(root).as_posix()] = path.read_bytes()
    return found


def checkpoint_number(name: str) -> int:
    match = re.search(r"(\d+)$", name)
    return int(match.group(1)) if match else 0


def previous_checkpoint(problem_dir: Path, checkpoint: str) -> str | None:
    earlier = [
        d.name
        for d in problem_dir.iterdir()
        if d.is_dir() and checkpoint_number(d.name) < checkpoint_number(checkpoint)
    ]
    return max(earlier, key=checkpoint_number) if earlier else None


def title_of(spec: str) -> str:
    for line in spec.splitlines():
        if line.strip():
            return line.strip().lstrip("# ").strip()
    return ""


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--knowledge", required=True, type=Path)
    parser.add_argument("--problem", required=True)
    parser.add_argument("--checkpoint", required=True)
    parser.add_argument("--prompt", required=True, type=Path)
    parser.add_argument("--workspace", type=Path, default=Path.cwd())
    parser.add_argument("--format", choices=("text", "claude-json"), default="text")
    args = parser.parse_args(argv)

    def finish(message: str, ok: bool, read: int = 0, written: int = 0, cached: int = 0) -> int:
        print(message, file=sys.stderr)
        if args.format == "claude-json":
            print(
                json.dumps(
                    {
                        "type": "result",
                        "subtype": "success" if ok else "error_during_execution",
                        "is_error": not ok,
                        "result": message,
                        "num_turns": 1,
                        "total_cost_usd": 0.0,
                        "usage": {
                            "input_tokens": read,
                            "cache_creation_input_tokens": 0,
                            "cache_read_input_tokens": cached,
                            "output_tokens": written,
                        },
                    }
                )
            )
        else:
            print(message)
        return 0 if ok else 1

    try:
        spec = args.prompt.read_text(encoding="utf-8")
    except OSError as exc:
        return finish(
            f"I was given no specification to read ({exc.strerror}: {args.prompt}).", False
        )
    if not spec.strip():
        return finish(f"The specification {args.prompt} is empty: nothing to implement.", False)
    read = len(spec.split())
    print(f"Reading the specification: {title_of(spec)!r} ({read} words).", file=sys.stderr)
    problem_dir = args.knowledge / args.problem
    target = problem_dir / args.checkpoint
    if not target.is_dir():
        return finish(
            f"I do not know how to implement {args.problem} {args.checkpoint}.", False, read
        )
    wanted = files_of(target)
    before = previous_checkpoint(problem_dir, args.checkpoint)
    mine = files_of(problem_dir / before) if before else {}
    workspace = args.workspace
    missing = [
        rel
        for rel, data in mine.items()
        if not (workspace / rel).is_file() or (workspace / rel).read_bytes() != data
    ]
    if missing:
        return finish(
            f"My work from {before} is not in my workspace as I left it "
            f"({', '.join(missing[:5])}); I will not start over.",
            False,
            read,
        )
    changed = [rel for rel, data in wanted.items() if mine.get(rel) != data]
    dropped = [rel for rel in mine if rel not in wanted]
    written = 0
    for rel in changed:
        path = workspace / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(wanted[rel])
        if os.access(target / rel, os.X_OK):
            path.chmod(0o755)
        written += len(wanted[rel].decode("utf-8", "replace").split())
    for rel in dropped:
        (workspace / rel).unlink()
    kept = len(wanted) - len(changed)
    digest = hashlib.sha256(b"".join(wanted[rel] for rel in sorted(wanted))).hexdigest()[:8]
    summary = (
        f"Implemented {title_of(spec) or args.checkpoint}: wrote {len(changed)} file(s) "
        f"({', '.join(changed) or 'none'}), kept {kept} from {before or 'nothing'}, removed "
        f"{len(dropped)}; tree {digest}."
    )
    cached = sum(len(data.decode("utf-8", "replace").split()) for data in mine.values())
    return finish(summary, True, read, written, cached)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
