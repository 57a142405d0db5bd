"""Run only some hostile cases and put their rows into the existing docs/SECURITY.md, keeping the
figures of the last full run (`python -m tests.hostile.report` regenerates everything at once).

    uv run --frozen python -m tests.hostile.splice sparse-64g deep-chain

Rows of the named cases are replaced or inserted (in the order of `CASES`, then the rows that
are not a submission's case, `report.SPECIAL_ROWS`, whose ids may be named too) and the table
renumbered; the prose around the table comes from the current template. Exits 1 when a run shows
a violation.
"""

from __future__ import annotations

import re
import sys
from datetime import UTC, datetime

from .cases import BACKENDS, BY_ID, CASES
from .harness import World, available_backends, cache_digest
from .report import DOC, SPECIAL_ROWS, Run, cache_changes, cell, expected_text, render

ROW = re.compile(r"^\| (\d+) \| `([^`]+)` \|")


def merge(old: str, fresh: str, ids: list[str], when: str) -> str:
    """`old` (the document of the last full run) with the rows of `ids` taken from `fresh` (a
    rendering with only those cases run), the prose from `fresh`, and the last full run's figures
    (its "Generated" paragraph and load section) kept, noting when the spliced rows ran."""
    old_lines, new_lines = old.splitlines(), fresh.splitlines()
    rows = {m.group(2): line for line in new_lines if (m := ROW.match(line))}
    kept = {m.group(2): line for line in old_lines if (m := ROW.match(line))}
    kept.update({cid: rows[cid] for cid in ids})
    order = [case.id for case in [*CASES, *SPECIAL_ROWS] if case.id in kept]
    table = [re.sub(r"^\| \d+ \|", f"| {n} |", kept[cid]) for n, cid in enumerate(order, start=1)]
    first = next(i for i, line in enumerate(new_lines) if ROW.match(line))
    last = max(i for i, line in enumerate(new_lines) if ROW.match(line))
    text = new_lines[:first] + table + new_lines[last + 1 :]
    g_old = next(i for i, line in enumerate(old_lines) if line.startswith("Generated "))
    paragraph = old_lines[g_old : old_lines.index("", g_old)]
    if not any("tests.hostile.splice" in line for line in paragraph):
        paragraph.append(
            f"Rows run on their own since (`python -m tests.hostile.splice`, {when}): "
            + ", ".join(f"`{cid}`" for cid in ids)
            + "."
        )
    else:
        paragraph[-1] = (
            paragraph[-1].rstrip(".") + ", " + ", ".join(f"`{cid}`" for cid in ids) + f" ({when})."
        )
    g_new = next(i for i, line in enumerate(text) if line.startswith("Generated "))
    text = text[:g_new] + paragraph + text[text.index("", g_new) :]
    if "## Load" in old and "## Load" not in fresh:
        block = old[old.index("## Load") :]
        block = block[: block.index("\n## ", 1) + 1]
        at = "\n".join(text).index("## Regenerating")
        joined = "\n".join(text)
        return joined[:at] + block + joined[at:] + "\n"
    return "\n".join(text) + "\n"


def main(argv: list[str]) -> int:
    special = {row.id: row for row in SPECIAL_ROWS}
    wanted = [BY_ID[name] for name in argv if name not in special]
    rows = [special[name] for name in argv if name in special]
    probes = available_backends(BACKENDS)
    usable = [name for name, reason in probes.items() if reason is None]
    with World(usable) as world:
        before = cache_digest()
        world.warm_up({case.framework for case in wanted} | ({"pytest"} if rows else set()))
        observations = {
            (o.case, o.backend): o
            for o in world.run_matrix(
                wanted,
                workers=3,
                specials=[(row.id, backend) for row in rows for backend in usable],
            )
        }
        changes = cache_changes(before, cache_digest())
    fresh = render(Run(observations, usable, {b: r for b, r in probes.items() if r}, 0.0, changes))
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    ids = [c.id for c in [*wanted, *rows]]
    DOC.write_text(merge(DOC.read_text(encoding="utf-8"), fresh, ids, when), encoding="utf-8")
    bad = [o for o in observations.values() if o.violations]
    for obs in observations.values():
        case = BY_ID.get(obs.case) or special[obs.case]
        print(
            f"{obs.case} on {obs.backend}: {obs.outcome} in {obs.elapsed:.1f} s; "
            f"{cell(case, obs)}; expected {expected_text(case, obs.backend)}"
        )
    for obs in bad:
        print(
            f"VIOLATION {obs.case} on {obs.backend}: " + "\n    ".join(obs.violations),
            file=sys.stderr,
        )
    return 1 if bad or changes else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
