"""`docker`: every command in a fresh, locked-down container (the first choice of `auto`).

One container per request, removed in every case when the call returns; the profile is in
`spec.py`, the container's life in `lifecycle.py`, the sweep of a dead harness's containers in
`sweep.py`. The toolchain hooks below say where toolchains live in the images.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any

from runners.errors import InfrastructureError, UserInputError
from runners.processes import owner_label
from runners.pythons import PythonRequest
from runners.sandbox.base import Mount, Sandbox, SandboxRequest, SandboxResult, register_sandbox
from runners.sandbox.docker import client as engine
from runners.sandbox.docker.client import (
    BUILD_HINT,
    default_image,
    docker_client,
    image_id,
    image_repository,
    version_tags,
)
from runners.sandbox.docker.images import ImageInfo, image_info
from runners.sandbox.docker.lifecycle import (
    SANDBOX_GID,
    SANDBOX_UID,
    grant_to_sandbox_user,
    run_container,
)
from runners.sandbox.docker.spec import CA_FILE_VARS, MB, container_spec, sandbox_user
from runners.sandbox.docker.sweep import sweep_once, sweep_orphans

CACHE_TARGET = "/cache"
UV_IN_IMAGE = "/usr/local/bin/uv"
# Where node and npm are in both node:22-slim and our node image.
NODE_IN_IMAGE = "/usr/local/bin/node"


@register_sandbox
class DockerSandbox(Sandbox):
    name = "docker"
    isolated = True
    remaps_paths = True

    def __init__(self, python_image: str | None = None, node_image: str | None = None) -> None:
        self.python_image = python_image or default_image("python")
        self.node_image = node_image or default_image("node")
        self._host_cache: Path | None = None

    @classmethod
    def from_environment(cls, environment: Any) -> DockerSandbox:
        return cls(python_image=environment.docker_python_image,
                   node_image=environment.docker_node_image)

    @classmethod
    def probe(cls) -> str | None:
        return engine.probe()

    # ---- toolchain hooks -------------------------------------------------------------------------

    def image_for(self, kind: str) -> str:
        return self.node_image if kind == "node" else self.python_image

    def cache_root(self, host_cache: Path, kind: str = "python") -> tuple[Path, str]:
        # One cache per image: what is built there (venvs, node_modules) fits that image only.
        self._host_cache = Path(host_cache)
        short_id = image_id(self.image_for(kind)).split(":", 1)[-1][:12]
        return self._host_cache / "docker" / short_id, CACHE_TARGET

    def node_for_toolchains(self, requested: str | None) -> str:
        return requested or NODE_IN_IMAGE

    def npm_for_toolchains(self, node: str) -> list[str]:
        return [str(Path(node).parent / "npm")]

    def program_identity(self, program: str, version_args: list[str]) -> str:
        return f"docker {image_id(self.node_image)} {program}"

    def program_mounts(self, program: str) -> list[Mount]:
        return []

    def for_python(self, request: PythonRequest | None) -> tuple[DockerSandbox, str]:
        """A path is one inside the image; a version picks the image: the configured one when
        its python3 matches, else `<repository>:<major.minor>` (built with `runners image build
        --python X.Y`), verified by running it."""
        if request is not None and request.is_path:
            return self, request.spec
        if request is None or self._python_matches(self.python_image, request):
            return self, self._python_in(self.python_image)
        repository = image_repository(self.python_image)
        tried = [self.python_image]
        for tag in version_tags(repository, request):
            tried.append(tag)
            if self._python_matches(tag, request):
                chosen = DockerSandbox(python_image=tag, node_image=self.node_image)
                chosen._host_cache = self._host_cache
                return chosen, chosen._python_in(tag)
        found = ", ".join(f"{tag} has {self._info_or_none(tag) or 'no python3'}" for tag in tried)
        raise UserInputError(
            f"{request.source}: no Docker image has a Python matching {request.specifier} ({found}); "
            f"build one with `python -m runners image build --kind python --python X.Y` "
            f"(tagged {repository}:X.Y)"
        )

    def python_version(self, python: str) -> str | None:
        info = self._info(self.python_image)
        return info.python_version if python == info.python else None  # another path: not probed

    def _python_in(self, image: str) -> str:
        info = self._info(image)
        if not info.python:
            raise InfrastructureError(f"the image {image} has no python3; {BUILD_HINT}")
        return info.python

    def _python_matches(self, image: str, request: PythonRequest) -> bool:
        version = self._info_or_none(image)
        return version is not None and request.matches(version)

    def _info_or_none(self, image: str) -> str | None:
        try:
            return self._info(image).python_version
        except InfrastructureError:
            return None

    def interpreter_identity(self, python: str) -> str:
        info = self._info(self.python_image)
        return f"docker {info.id} {python} {info.python_version}"

    def uv_binary(self) -> str:
        info = self._info(self.python_image)
        if not info.uv:
            raise InfrastructureError(f"the image {self.python_image} has no uv; {BUILD_HINT}")
        return info.uv

    def _info(self, image: str) -> ImageInfo:
        return image_info(image, self.run, self._host_cache)

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
            request_id=request_id, cpu_count=os.cpu_count() or 1, ca_bundle=bundle)
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
