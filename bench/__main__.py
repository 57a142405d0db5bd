"""`python -m bench` (`make bench`): what the harness costs over the tests themselves.

    # everything, 5 rounds each; prints the table, writes bench/RESULTS.md
    python -m bench
    # 3 rounds, fewer batch cells (a few minutes less)
    python -m bench --quick
    # every measurement once on tiny inputs (< ~1 min), writes nothing
    python -m bench --smoke
    # one measurement (repeatable); its block in RESULTS.md is replaced
    python -m bench --only parsing
    python -m bench --repeat 9 --sandbox bubblewrap

Measurements: overhead, prepare, scbench, parsing, batch, promptfoo, submission, agents, cases,
real_agents, quality, fairness (docs/benchmarks.md).
Exit code: 0 when every measurement ran (missed targets are results, not errors), 1 when one
failed, 2 bad options. A measurement whose tools are missing here is reported as skipped.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import shlex
import sys
import time
import traceback
from datetime import UTC, datetime
from pathlib import Path

from rich.console import Console

from bench.common import ROOT, SANDBOXES, BenchError, Section, Settings, Unavailable
from bench.report import ORDER, machine_facts, print_results, write_markdown

MODULES = {name: f"bench.{name}" for name in ORDER}
REPEATS = {"full": 5, "quick": 3, "smoke": 1}
DEFAULT_RESULTS = ROOT / "bench" / "RESULTS.md"
DEFAULT_DATA = ROOT / "bench" / "data"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n\n".join(__doc__.split("\n\n")[1:]),
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="3 rounds, fewer batch cells")
    mode.add_argument(
        "--smoke",
        action="store_true",
        help="every measurement once on tiny inputs; writes RESULTS.md only with --write",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        metavar="N",
        help="rounds per measurement (default 5, quick 3, smoke 1)",
    )
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="NAME",
        help=f"run only this measurement (repeatable, or comma-separated): {', '.join(ORDER)}",
    )
    parser.add_argument(
        "--skip", action="append", default=[], metavar="NAME", help="leave this measurement out"
    )
    parser.add_argument(
        "--sandbox",
        action="append",
        default=[],
        choices=SANDBOXES,
        help="backends to measure (repeatable; default: all three, where usable)",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=DEFAULT_DATA,
        help="generated inputs and scratch space (default bench/data, gitignored)",
    )
    parser.add_argument(
        "--cache-dir",
        type=Path,
        help="the harness's toolchain cache (default: the harness default, as users run it)",
    )
    parser.add_argument(
        "--results", type=Path, default=DEFAULT_RESULTS, help="Markdown file to write"
    )
    write = parser.add_mutually_exclusive_group()
    write.add_argument(
        "--write", dest="write", action="store_true", default=None, help="write the Markdown table"
    )
    write.add_argument(
        "--no-write", dest="write", action="store_false", help="only print the table"
    )
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write the rows as JSON")
    parser.add_argument("--list", action="store_true", help="list the measurements and exit")
    parser.add_argument("-v", "--verbose", action="store_true", help="log every timed run")
    args = parser.parse_args(argv)
    names = [n.strip() for item in args.only for n in item.split(",") if n.strip()]
    skip = {n.strip() for item in args.skip for n in item.split(",") if n.strip()}
    unknown = sorted((set(names) | skip) - set(ORDER))
    if unknown:
        parser.error(f"unknown measurement(s) {', '.join(unknown)} (known: {', '.join(ORDER)})")
    if args.repeat is not None and args.repeat < 1:
        parser.error("--repeat must be at least 1")
    args.names = [n for n in ORDER if (not names or n in names) and n not in skip]
    args.mode = "smoke" if args.smoke else "quick" if args.quick else "full"
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    console = Console() if sys.stdout.isatty() else Console(width=180)
    if args.list:
        for name in ORDER:
            module = importlib.import_module(MODULES[name])
            console.print(f"{name:10} {module.TITLE}")
        return 0
    data_dir = args.data_dir.resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    settings = Settings(
        mode=args.mode,
        repeat=args.repeat or REPEATS[args.mode],
        data_dir=data_dir,
        cache_dir=args.cache_dir.resolve() if args.cache_dir else None,
        sandboxes=tuple(dict.fromkeys(args.sandbox)) or SANDBOXES,
        console=console,
        verbose=args.verbose,
    )
    command = "python -m bench" + (
        "".join(f" {shlex.quote(a)}" for a in sys.argv[1:])
        if argv is None
        else "".join(f" {shlex.quote(a)}" for a in argv)
    )
    started = datetime.now(UTC)
    load_before = os.getloadavg()
    console.print(
        f"[bold]bench[/] {args.mode}: {', '.join(args.names)} · {settings.repeat} round(s) · "
        f"data in {data_dir}",
        highlight=False,
    )
    sections: list[Section] = []
    failed = False
    for name in args.names:
        module = importlib.import_module(MODULES[name])
        console.rule(f"[bold]{module.TITLE}")
        began = time.monotonic()
        try:
            section = module.run(settings)
        except Unavailable as exc:
            section = Section(name, module.TITLE, skipped=str(exc))
        except (BenchError, Exception) as exc:  # noqa: BLE001 - one failed measurement must not hide the others
            failed = True
            detail = str(exc) if isinstance(exc, BenchError) else traceback.format_exc()
            console.print(f"[red]{name} failed:[/] {detail}", highlight=False)
            section = Section(
                name,
                module.TITLE,
                skipped=f"failed: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}",
            )
        section.seconds = time.monotonic() - began
        sections.append(section)
        console.print(f"[dim]{name}: {section.seconds:.0f} s[/]")
    facts = machine_facts(command, started, load_before)
    print_results(console, sections, facts)
    write = args.write if args.write is not None else args.mode != "smoke"
    if write:
        write_markdown(args.results, sections, facts)
        console.print(f"wrote {args.results}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(
            json.dumps(
                {"facts": facts, "sections": [_section_json(s) for s in sections]},
                indent=1,
                default=str,
            )
        )
    return 1 if failed else 0


def _section_json(section: Section) -> dict:
    return {
        "name": section.name,
        "title": section.title,
        "skipped": section.skipped,
        "seconds": section.seconds,
        "notes": section.notes,
        "rows": [{**row.__dict__, "median": row.median} for row in section.rows],
    }


if __name__ == "__main__":
    sys.exit(main())
