"""Resource limits applied to a sandboxed run, with defaults and per-problem overrides."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class ResourceLimits(BaseModel):
    """Limits for the test step. `None` on a problem means "use the environment's value"."""

    model_config = ConfigDict(extra="forbid")

    memory_mb: int | None = Field(None, gt=0, description="Memory for the whole sandbox.")
    pids: int | None = Field(None, gt=0, description="Processes and threads in the sandbox.")
    cpus: float | None = Field(None, gt=0, description="CPU cores (fractions allowed).")
    file_size_mb: int | None = Field(None, gt=0, description="Largest file a process may write.")
    tmp_size_mb: int | None = Field(None, gt=0, description="Size of the private /tmp.")
    nofile: int | None = Field(None, gt=0, description="Open file descriptors per process.")
    wall_timeout: float | None = Field(None, gt=0, description="Seconds for the whole test run.")
    output_bytes: int | None = Field(None, gt=0, description="Captured stdout/stderr per stream.")
    # Checked before the submission is copied (runners/engine/submission.py); a submission over one
    # is refused as bad input, naming the limit and its largest entries.
    submission_mb: int | None = Field(
        None, gt=0, description="Submission: sum of file sizes (MiB)."
    )
    submission_disk_mb: int | None = Field(
        None, gt=0, description="Submission: allocated on disk (MiB)."
    )
    submission_files: int | None = Field(
        None, gt=0, description="Submission: files, directories and links."
    )
    submission_depth: int | None = Field(None, gt=0, description="Submission: directory depth.")

    def merged_over(self, base: ResourceLimits) -> ResourceLimits:
        """These limits where set, `base` elsewhere."""
        return base.model_copy(update=self.model_dump(exclude_none=True))


DEFAULT_LIMITS = ResourceLimits(
    memory_mb=2048,
    pids=512,
    cpus=2.0,
    file_size_mb=256,
    tmp_size_mb=512,
    nofile=4096,
    wall_timeout=900.0,
    output_bytes=4 * 1024 * 1024,
    # Generous for a real repository (ignored names such as .git and node_modules do not count),
    # absurd beyond: a 64 GiB sparse file, a million files, a 400-deep directory chain.
    submission_mb=1024,
    submission_disk_mb=1024,
    submission_files=50_000,
    submission_depth=64,
)
