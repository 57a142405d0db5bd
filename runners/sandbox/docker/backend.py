"""`docker`: every command in a fresh, locked-down container (the first choice of `auto`).

One container per request, removed in every case when the call returns; the profile is in
`spec.py`, the container's life in `lifecycle.py`, the sweep of a dead harness's containers in
`sweep.py`. Where toolchains live in the images: `runners/toolchains/docker_host.py`.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any

from runners.errors import InfrastructureError
from runners.processes import owner_label
from runners.sandbox.base import Sandbox, SandboxRequest, SandboxResult, register_sandbox
from runners.sandbox.docker import client as engine
from runners.sandbox.docker.client import cgroup_parent, default_image, docker_client, image_id
from runners.sandbox.docker.lifecycle import (
    SANDBOX_GID,
    SANDBOX_UID,
    grant_to_sandbox_user,
    run_container,
)
from runners.sandbox.docker.spec import CA_FILE_VARS, MB, container_spec, sandbox_user
from runners.sandbox.docker.sweep import sweep_once, sweep_orphans


@register_sandbox
class DockerSandbox(Sandbox):
    name = "docker"
    isolated = True
    remaps_paths = True

    def __init__(self, python_image: str | None = None, node_image: str | None = None) -> None:
        self.python_image = python_image or default_image("python")
        self.node_image = node_image or default_image("node")

    @classmethod
    def from_environment(cls, environment: Any) -> DockerSandbox:
        return cls(python_image=environment.docker_python_image,
                   node_image=environment.docker_node_image)

    @classmethod
    def probe(cls) -> str | None:
        return engine.probe()

    def memory_bounded(self) -> bool:
        return True  # every container gets a memory limit; bind-mounted tmpfs pages count in it

    # ---- running ---------------------------------------------------------------------------------

    def run(self, request: SandboxRequest) -> SandboxResult:
        client = docker_client()
        sweep_once()
        mounts = []
        for mount in request.mounts:
            source = Path(mount.source)
            if not source.exists():
                raise InfrastructureError(f"sandbox mount source {source} does not exist")
            if mount.writable:
                grant_to_sandbox_user(source)
            mounts.append(mount.model_copy(update={"source": source.resolve()}))
        request_id = uuid.uuid4().hex[:16]
        bundle = _ca_bundle(request.env) if request.network else None
        spec, notes = container_spec(
            request.model_copy(update={"mounts": mounts}), image=image_id(request.image or self.python_image),
            user=sandbox_user(os.geteuid(), os.getegid(), SANDBOX_UID, SANDBOX_GID), owner=owner_label(),
            request_id=request_id, cpu_count=os.cpu_count() or 1, ca_bundle=bundle,
            cgroup_parent=cgroup_parent(client))
        outcome = run_container(client, spec, request_id, request.timeout, request.limits.output_bytes or 4 * MB)
        notes += outcome.notes
        if outcome.oom_killed:
            notes.append(f"killed for exceeding the memory limit of {request.limits.memory_mb} MB")
        return SandboxResult(
            exit_code=outcome.exit_code,
            stdout=outcome.out.text(),
            stderr=outcome.err.text(),
            stdout_truncated=outcome.out.truncated,
            stderr_truncated=outcome.err.truncated,
            timed_out=outcome.timed_out,
            oom_killed=outcome.oom_killed,
            duration=outcome.duration,
            notes=notes,
        )

    def sweep_orphans(self) -> int:
        """Remove containers labelled `runners.managed` whose owning process on this host is gone."""
        return sweep_orphans()


def _ca_bundle(env: dict[str, str]) -> Path | None:
    """The host CA file a prepare step gets: the one the request names, else the host's."""
    from runners.images import host_ca_bundle

    for name in CA_FILE_VARS:
        value = env.get(name)
        if value and Path(value).is_file():
            return Path(value).resolve()
    bundle = host_ca_bundle()
    return bundle.resolve() if bundle is not None else None
