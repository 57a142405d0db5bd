"""Run only some hostile cases and put their rows into the existing docs/SECURITY.md, keeping the
figures of the last full run (`python -m tests.hostile.report` regenerates everything at once).

    uv run --frozen python -m tests.hostile.splice sparse-64g deep-chain

Rows of the named cases are replaced or inserted (in the order of `CASES`, before the
harness-crash row) and the table renumbered; the prose around the table comes from the current
template. Exits 1 when a run shows a violation.
"""

from __future__ import annotations

import re
import sys

from .cases import BACKENDS, BY_ID, CASES
from .harness import World, available_backends, cache_digest
from .report import CRASH_ROW, DOC, Run, cache_changes, cell, expected_text, render

ROW = re.compile(r"^\| (\d+) \| `([^`]+)` \|")


def main(argv: list[str]) -> int:
    wanted = [BY_ID[name] for name in argv]
    probes = available_backends(BACKENDS)
    usable = [name for name, reason in probes.items() if reason is None]
    with World(usable) as world:
        before = cache_digest()
        world.warm_up({case.framework for case in wanted})
        observations = {(o.case, o.backend): o for o in world.run_matrix(wanted, workers=3, crash=False)}
        changes = cache_changes(before, cache_digest())
    fresh = render(Run(observations, usable, {b: r for b, r in probes.items() if r}, 0.0, changes))
    rows = {m.group(2): line for line in fresh.splitlines() if (m := ROW.match(line))}
    old = DOC.read_text(encoding="utf-8").splitlines()
    kept = {m.group(2): line for line in old if (m := ROW.match(line))}
    for case in wanted:
        kept[case.id] = rows[case.id]
    order = [case.id for case in [*CASES, CRASH_ROW] if case.id in kept]
    table = [re.sub(r"^\| \d+ \|", f"| {n} |", kept[cid]) for n, cid in enumerate(order, start=1)]
    head = [line for line in fresh.splitlines()]
    start = next(i for i, line in enumerate(head) if ROW.match(line))
    end = max(i for i, line in enumerate(head) if ROW.match(line))
    # The figures of the last full run stay: its "Generated ..." paragraph.
    generated = [i for i, line in enumerate(old) if line.startswith("Generated ")]
    text = head[:start] + table + head[end + 1:]
    if generated:
        g = generated[0]
        paragraph = old[g:old.index("", g)]
        paragraph[0] = re.sub(r"The \d+ cases", f"The {len(order)} cases", paragraph[0])
        new_g = next(i for i, line in enumerate(text) if line.startswith("Generated "))
        text = text[:new_g] + paragraph + text[text.index("", new_g):]
    DOC.write_text("\n".join(text) + "\n", encoding="utf-8")
    bad = [o for o in observations.values() if o.violations]
    for obs in observations.values():
        print(f"{obs.case} on {obs.backend}: {obs.outcome} in {obs.elapsed:.1f} s; "
              f"{cell(BY_ID[obs.case], obs)}; expected {expected_text(BY_ID[obs.case], obs.backend)}")
    for obs in bad:
        print(f"VIOLATION {obs.case} on {obs.backend}: " + "\n    ".join(obs.violations), file=sys.stderr)
    return 1 if bad or changes else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
