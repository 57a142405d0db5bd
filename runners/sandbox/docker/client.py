"""The Docker engine: the process-wide client, the availability probe and the default images."""

from __future__ import annotations

import re
import threading
from typing import Any

from runners.errors import InfrastructureError
from runners.pythons import PythonRequest

CLIENT_TIMEOUT = 120
PROBE_TIMEOUT = 10
PYTHON_IMAGE_ENV = "RUNNERS_DOCKER_PYTHON_IMAGE"
NODE_IMAGE_ENV = "RUNNERS_DOCKER_NODE_IMAGE"
BUILD_HINT = "build it with `python -m runners image build` (CI: scripts/ci-docker.sh)"
ENGINE_HINT = ("start it (`systemctl start docker`, or `dockerd &` as root), check DOCKER_HOST, and "
               "make sure this user may use the socket (group `docker`)")

_client_lock = threading.Lock()
_client: Any = None


def default_image(kind: str) -> str:
    """`$RUNNERS_DOCKER_<KIND>_IMAGE`, else the environment's default for python and node, else
    `runners-<kind>:latest` (built by `runners image build --kind <kind>`)."""
    from runners.environment import docker_image_default

    return docker_image_default(kind)


def docker_client() -> Any:
    """The process-wide docker client (thread-safe; the SDK pools connections)."""
    global _client
    with _client_lock:
        if _client is None:
            import docker

            try:
                client = docker.from_env(timeout=CLIENT_TIMEOUT)
                client.ping()
            except docker.errors.DockerException as exc:
                raise InfrastructureError(f"cannot reach the Docker engine: {exc}; {ENGINE_HINT}") from None
            _client = client
        return _client


_parent_lock = threading.Lock()
_parent: list[str | None] = []  # learnt once per process


def cgroup_parent(client: Any) -> str | None:
    """Where a run's container goes in the cgroup tree. With the cgroupfs driver, docker puts every
    container under one `docker` group, which the CPU scheduler weighs as a single process against
    everything else on the host: on a busy machine all containers together got a fraction of what
    the same processes got outside (bench/RESULTS.md section 11). "/" makes each container its own
    top-level entity, like a session's processes outside. The systemd driver wants a slice there:
    None (its default)."""
    with _parent_lock:
        if not _parent:
            try:
                driver = str(client.info().get("CgroupDriver") or "")
            except Exception:  # noqa: BLE001 - an engine that cannot say keeps its default
                driver = ""
            _parent.append("/" if driver == "cgroupfs" else None)
        return _parent[0]


def probe() -> str | None:
    """None when an engine answers and the default Python image is there, else why not."""
    try:
        import docker
    except ImportError:  # pragma: no cover - a declared dependency
        return "the docker Python SDK is not installed (install the `docker` package)"
    try:
        client = docker.from_env(timeout=PROBE_TIMEOUT)
        try:
            client.ping()
            image = default_image("python")
            try:
                client.images.get(image)
            except docker.errors.ImageNotFound:
                return f"the image {image} is missing: {BUILD_HINT}"
        finally:
            client.close()
    except docker.errors.DockerException as exc:
        return f"the Docker engine does not answer ({exc}); {ENGINE_HINT}"
    except Exception as exc:  # requests errors and the like
        return f"the Docker engine does not answer ({type(exc).__name__}: {exc}); {ENGINE_HINT}"
    return None


def image_id(image: str) -> str:
    import docker

    try:
        return str(docker_client().images.get(image).id)
    except docker.errors.ImageNotFound:
        raise InfrastructureError(f"the Docker image {image} is missing: {BUILD_HINT}") from None
    except docker.errors.APIError as exc:
        raise InfrastructureError(f"cannot inspect the Docker image {image}: {exc}") from None


def image_repository(image: str) -> str:
    """`runners-python:latest` -> `runners-python` (a registry port is not a tag)."""
    name, _, tag = image.rpartition(":")
    return name if name and "/" not in tag else image


def version_tags(repository: str, request: PythonRequest) -> list[str]:
    """Local tags `<repository>:X.Y` whose version the request allows, newest first."""
    import docker

    try:
        images = docker_client().images.list(name=repository)
    except docker.errors.APIError:
        return []
    versions = []
    for image in images:
        for tag in image.tags:
            version = tag.rpartition(":")[2]
            if (tag.rpartition(":")[0] == repository and re.fullmatch(r"\d+\.\d+", version)
                    and any(request.matches(f"{version}.{micro}") for micro in range(40))):
                versions.append(version)
    ordered = sorted(set(versions), key=lambda v: tuple(int(p) for p in v.split(".")), reverse=True)
    return [f"{repository}:{v}" for v in ordered]
