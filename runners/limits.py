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

    def merged_over(self, base: "ResourceLimits") -> "ResourceLimits":
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
)
