"""Shared fixtures for the sandbox backends' tests (real engines, no mocks).

Docker: the tests need a running engine and the `runners-python` image. Outside CI a missing part
skips the test with the reason; under `CI=true` it fails (CI must exercise the real thing;
`scripts/ci-docker.sh` prepares the engine and the images).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from support import need

from runners.model.limits import ResourceLimits
from runners.sandbox.base import Mount, SandboxRequest, base_env

DEFAULT_TEST_LIMITS = ResourceLimits(
    memory_mb=512,
    pids=128,
    cpus=1.0,
    file_size_mb=64,
    tmp_size_mb=64,
    nofile=1024,
    wall_timeout=60,
    output_bytes=256 * 1024,
)


def _engine_reason() -> str | None:
    try:
        import docker

        client = docker.from_env(timeout=10)
        try:
            client.ping()
        finally:
            client.close()
    except Exception as exc:  # noqa: BLE001 - whatever the failure, no engine to test with
        return f"no Docker engine answers ({type(exc).__name__}: {exc}); run scripts/ci-docker.sh"
    return None


@pytest.fixture(scope="session")
def docker_images() -> dict[str, str]:
    """{kind: tag} of images that exist and are current; built when a base image is at hand."""
    reason = _engine_reason()
    need(reason is None, str(reason))
    from runners.images import (
        DEFAULT_TAGS,
        LOCAL_BASE,
        OFFICIAL_BASES,
        docker_client,
        ensure_images,
        image_exists,
    )

    client = docker_client()
    images: dict[str, str] = {}
    for kind in ("python", "node"):
        tag = DEFAULT_TAGS[kind]
        base = next(
            (b for b in (LOCAL_BASE, OFFICIAL_BASES[kind]) if image_exists(client, b)), None
        )
        if base is not None:
            ensure_images([kind], base_image=base)  # a no-op when already current
        if image_exists(client, tag):
            images[kind] = tag
    need(
        "python" in images,
        "the image runners-python:latest is missing and no base image is available to build it; "
        "run scripts/ci-docker.sh (or `python -m runners image build`)",
    )
    return images


@pytest.fixture(scope="session")
def docker_sandbox(docker_images: dict[str, str]) -> Any:
    from runners.sandbox.docker.backend import DockerSandbox

    reason = DockerSandbox.probe()
    need(reason is None, f"sandbox docker unavailable: {reason}")
    return DockerSandbox(python_image=docker_images["python"], node_image=docker_images.get("node"))


@pytest.fixture(scope="session")
def sandbox_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One toolchain cache for the session: the first prepare is cold, later ones are warm."""
    return tmp_path_factory.mktemp("runners-cache")


@pytest.fixture
def run_id() -> str:
    return f"sandbox-test-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def no_leftover_containers(run_id: str, docker_images: dict[str, str]) -> Iterator[None]:
    """After the test, no container of this run (or of this process) may remain."""
    yield
    from runners.sandbox.docker.client import docker_client
    from runners.sandbox.docker.sweep import LABEL_OWNER, LABEL_RUN
    from runners.util.processes import owner_label as _owner

    client = docker_client()
    left = client.containers.list(all=True, filters={"label": f"{LABEL_RUN}={run_id}"})
    left += client.containers.list(all=True, filters={"label": f"{LABEL_OWNER}={_owner()}"})
    for container in left:  # clean up before failing, so one failure does not cascade
        container.remove(force=True)
    assert not left, f"containers left behind: {[c.short_id for c in left]}"


@pytest.fixture
def make_request(run_id: str) -> Callable[..., SandboxRequest]:
    """A test-step request like the engine builds: allow-listed env, network off."""

    def make(
        argv: list[str],
        *,
        mounts: list[Mount] | None = None,
        cwd: str = "/",
        timeout: float = 30,
        limits: ResourceLimits | None = None,
        **extra: Any,
    ) -> SandboxRequest:
        env = {**base_env(), "HOME": "/tmp/home", "TMPDIR": "/tmp", **extra.pop("env", {})}
        return SandboxRequest(
            argv=argv,
            cwd=cwd,
            env=env,
            mounts=mounts or [],
            network=False,
            limits=limits or DEFAULT_TEST_LIMITS,
            timeout=timeout,
            run_id=run_id,
            **extra,
        )

    return make
