"""What every repository runner does the same way, whatever the framework: lay the overlay into
the copy, know which of the copy's files are the problem's, map a test file to its checkpoint,
and mount the overlay's files read-only over the writable copy."""

from __future__ import annotations

from typing import TYPE_CHECKING

from runners.repository import overlay, selection
from runners.sandbox.base import Mount

if TYPE_CHECKING:
    from runners.engine.context import RunContext
    from runners.model.config import ProblemConfig

OVERLAY_COPY = "overlay"  # <run>/overlay: the sealed copy the read-only mounts come from


class RepositoryMixin:
    """Mixed into a framework runner (before it) to run a kind: repository problem."""

    problem: ProblemConfig

    def copy_tests(self, ctx: RunContext) -> None:
        keep = ctx.workspace.root / OVERLAY_COPY
        ctx.workspace.tests.mkdir(exist_ok=True)  # mounted like any run's (assets go there), empty
        ctx.workspace.notes += overlay.lay(
            ctx.problem, self.laid(ctx), ctx.workspace.submission, keep
        )
        if not ctx.sandbox.remaps_paths:  # `none`: no mounts; read-only files, advisory
            for rel in self.laid(ctx):
                path = ctx.workspace.submission / rel
                if not path.is_symlink():
                    path.chmod(path.stat().st_mode & ~0o222)

    def laid(self, ctx: RunContext) -> list[str]:
        """The overlay files of this run (not the tests of later checkpoints)."""
        return overlay.laid_files(ctx.problem, ctx.checkpoint)

    def problem_files(self, ctx: RunContext) -> set[str]:
        return set(self.laid(ctx))

    def checkpoint_of_file(self, file: str | None, current: str) -> str:
        return selection.checkpoint_of(self.problem, file, current)

    def selected(self, ctx: RunContext) -> dict[str, str]:
        """The overlay test files of this run -> the checkpoint each belongs to."""
        return selection.selected_tests(
            ctx.problem, ctx.checkpoint, overlay.overlay_files(ctx.problem)
        )

    def overlay_mounts(self, ctx: RunContext) -> list[Mount]:
        """Every overlay file read-only at its path in the writable copy (on top of it)."""
        if not ctx.sandbox.remaps_paths:
            return []
        keep = ctx.workspace.root / OVERLAY_COPY
        # A link is laid as a link (its target, an overlay file, is mounted): never mounted itself.
        return [
            Mount(source=keep / rel, target=f"{ctx.layout.submission}/{rel}", writable=False)
            for rel in self.laid(ctx)
            if not (keep / rel).is_symlink()
        ]
