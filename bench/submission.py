"""7. What a big submission costs: 20,000 small files plus a 400-deep directory chain, and a
64 GiB sparse file.

Per backend, `run_checkpoint` (in this process) of the tiny problem's good submission, against the
same submission with 20,000 files of 100 bytes (20 directories) and a 400-deep chain added (the
depth limit raised to 512 for it); rounds interleaved. Target: ≤ 3 s added.

Then the stages in this process, on the same tree: the limit walk
(`runners.engine.submission.inventory`), the copy (`copy_inventory`, and the old `shutil.copytree`
with a per-file `copy2` for comparison), the workspace cleanup; and the copy of a 64 GiB sparse file
within raised limits (its allocated size must stay small), and its refusal under the default limits.
"""

from __future__ import annotations

import os
import shutil
import stat
import time
from functools import partial
from pathlib import Path

from bench.common import (
    BenchError,
    Row,
    Sample,
    Section,
    Settings,
    interleave,
    timed_call,
    timing_row,
    usable_sandboxes,
)
from bench.world import tiny_world
from runners.batch.store import rmtree_forcibly

NAME = "submission"
TITLE = "7. Big submissions: 20,000 small files + a 400-deep chain, a 64 GiB sparse file"
ADDED_TARGET = 3.0
FILES, DIRS, DEPTH = 20_000, 20, 400


def build_many(root: Path, files: int = FILES, depth: int = DEPTH) -> None:
    for index in range(files):
        folder = root / "many" / f"d{index % DIRS}"
        if index < DIRS:
            folder.mkdir(parents=True)
        (folder / f"f{index}.txt").write_bytes(b"x" * 100)
    chain = root / "deep" / Path(*(["d"] * depth))
    chain.mkdir(parents=True)
    (chain / "leaf.txt").write_text("leaf\n")


def run(settings: Settings) -> Section:
    from runners.api import run_checkpoint
    from runners.model.limits import ResourceLimits

    section = Section(NAME, TITLE)
    files = 500 if settings.smoke else FILES
    depth = 40 if settings.smoke else DEPTH
    world = tiny_world(settings.data_dir / "submission-world")
    plain = world.cell
    scratch = settings.tmp("submission")
    try:
        big = scratch / "big"
        shutil.copytree(plain.submission, big)
        build_many(big, files, depth)
        raised = ResourceLimits(submission_depth=512)

        def variant(sandbox: str, submission: Path, limits: ResourceLimits | None):
            environment = settings.environment(sandbox)
            if limits is not None:
                environment.limits = limits

            def once() -> Sample:
                out = settings.tmp(f"sub-{sandbox}")
                try:
                    sample, result = timed_call(
                        lambda: run_checkpoint(
                            plain.problem,
                            plain.checkpoint,
                            submission,
                            environment,
                            output_dir=out / "run",
                        )
                    )
                    if result.infrastructure_failure or not result.tests:
                        raise BenchError(f"{sandbox}: {result.infrastructure_reason or 'no tests'}")
                    return sample
                finally:
                    rmtree_forcibly(out)

            return once

        for sandbox in usable_sandboxes(settings, section):
            base, many = (
                f"{sandbox} · good submission",
                f"{sandbox} · + {files:,} files + {depth}-deep chain",
            )
            samples = interleave(
                settings,
                [
                    (base, variant(sandbox, plain.submission, None)),
                    (many, variant(sandbox, big, raised)),
                ],
                settings.repeat,
                title=NAME,
            )
            section.add(timing_row(base, samples[base]))
            row = section.add(
                timing_row(
                    many, samples[many], samples[base], base, target=f"≤ {ADDED_TARGET:g} s added"
                )
            )
            row.met = row.added is not None and row.added <= ADDED_TARGET
        _stages(settings, section, big, raised)
        _sparse(settings, section, scratch)
    finally:
        rmtree_forcibly(scratch)
    section.notes.append(
        "The file-system cost of creating and deleting 20,000 inodes depends on the disk and on "
        "what else writes to it; the stage rows show where the time goes on this machine. The "
        "stage rows copy to disk (bench data dir) and into memory side by side: docker and "
        "bubblewrap runs get their workspace in memory (runners/engine/workspace_place.py)."
    )
    return section


def _stages(settings: Settings, section: Section, tree: Path, limits) -> None:
    from runners.engine.submission import copy_inventory, inventory
    from runners.engine.workspace import SUBMISSION_IGNORE, Workspace
    from runners.engine.workspace_place import MEMORY_DIR, fits_in_memory

    walks, copies, olds, cleanups, in_memory, memory_cleanups = [], [], [], [], [], []
    memory = fits_in_memory(MEMORY_DIR, 0)
    for _ in range(settings.repeat):
        sample, listed = timed_call(lambda: inventory(tree, limits, SUBMISSION_IGNORE))
        walks.append(sample)
        workspace = Workspace.create(settings.data_dir / "tmp")
        copies.append(timed_call(partial(copy_inventory, listed, workspace.submission))[0])
        cleanups.append(timed_call(workspace.cleanup)[0])
        if memory:  # where the engine puts a docker or bubblewrap run's workspace
            workspace = Workspace.create(MEMORY_DIR)
            in_memory.append(timed_call(partial(copy_inventory, listed, workspace.submission))[0])
            memory_cleanups.append(timed_call(workspace.cleanup)[0])
        target = settings.tmp("copytree") / "submission"
        olds.append(
            timed_call(
                partial(
                    shutil.copytree,
                    tree,
                    target,
                    symlinks=True,
                    ignore=shutil.ignore_patterns(*SUBMISSION_IGNORE),
                )
            )[0]
        )
        rmtree_forcibly(target.parent)
    section.add(timing_row("stage · limit walk (inventory)", walks))
    section.add(timing_row("stage · copy (copy_inventory)", copies))
    section.add(timing_row("stage · copy, before (shutil.copytree + copy2)", olds))
    section.add(timing_row("stage · workspace cleanup", cleanups))
    if memory:
        section.add(
            timing_row(
                f"stage · copy into memory ({MEMORY_DIR})",
                in_memory,
                copies,
                "stage · copy (copy_inventory)",
            )
        )
        section.add(
            timing_row(
                f"stage · workspace cleanup in memory ({MEMORY_DIR})",
                memory_cleanups,
                cleanups,
                "stage · workspace cleanup",
            )
        )


def _copy_checked(source: Path, limits, target: Path) -> None:
    from runners.engine.submission import copy_inventory, inventory

    copy_inventory(inventory(source, limits), target)


def _sparse(settings: Settings, section: Section, scratch: Path) -> None:
    from runners.engine.submission import SubmissionTooLarge, inventory
    from runners.model.limits import ResourceLimits

    source = scratch / "sparse"
    source.mkdir()
    size = (2 if settings.smoke else 64) << 30
    with open(source / "big.bin", "wb") as handle:
        handle.truncate(size)
        handle.seek(size // 2)
        handle.write(b"data in the middle")
    allowed = ResourceLimits(submission_mb=size // 2**20 + 1)
    copies, refusals = [], []
    allocated = []
    for _ in range(settings.repeat):
        target = scratch / "sparse-copy"
        copies.append(timed_call(partial(_copy_checked, source, allowed, target))[0])
        info = os.stat(target / "big.bin")
        if not stat.S_ISREG(info.st_mode) or info.st_size != size:
            raise BenchError("the sparse copy has the wrong size")
        allocated.append(float(info.st_blocks * 512))
        shutil.rmtree(target)
        started = time.perf_counter()
        try:
            inventory(source, ResourceLimits())
            raise BenchError("a 64 GiB submission was not refused")
        except SubmissionTooLarge:
            refusals.append(Sample(time.perf_counter() - started))
    section.add(
        timing_row(f"sparse · copy of a {size >> 30} GiB sparse file (limits raised)", copies)
    )
    section.add(
        Row(
            "sparse · allocated size of the copy",
            allocated,
            unit="B",
            target="≤ 1 MiB",
            met=max(allocated) <= 2**20,
        )
    )
    section.add(timing_row("sparse · refusal under the default limits", refusals))
