"""A container engine that speaks Docker's API (dockerd, podman's service), by URL: its client,
the availability probe, image ids and tags; and the default images.

Each sandbox holds an `Engine` of its own URL (None: `DOCKER_HOST` or the default socket); the
clients are made on first use and shared by the engines of one URL (the SDK pools connections).
"""

from __future__ import annotations

import os
import re
import threading
from typing import Any

from runners.model.errors import InfrastructureError
from runners.toolchains.which_python import PythonRequest

CLIENT_TIMEOUT = 120
PROBE_TIMEOUT = 10
PYTHON_IMAGE_ENV = "RUNNERS_DOCKER_PYTHON_IMAGE"
NODE_IMAGE_ENV = "RUNNERS_DOCKER_NODE_IMAGE"
DEFAULT_IMAGES = {"python": "runners-python:latest", "node": "runners-node:latest"}
BUILD_HINT = "build it with `python -m runners image build` (CI: scripts/ci-docker.sh)"
ENGINE_HINT = (
    "start it (`systemctl start docker`, or `dockerd &` as root), check DOCKER_HOST, and "
    "make sure this user may use the socket (group `docker`)"
)

_client_lock = threading.Lock()
_clients: dict[str | None, Any] = {}
_parents: dict[str | None, str | None] = {}  # each URL's cgroup parent for containers


def default_image(kind: str) -> str:
    """`$RUNNERS_DOCKER_<KIND>_IMAGE`, else `runners-<kind>:latest` (built by `runners image build
    --kind <kind>`)."""
    return os.environ.get(f"RUNNERS_DOCKER_{kind.upper()}_IMAGE") or DEFAULT_IMAGES.get(
        kind, f"runners-{kind}:latest"
    )


def _connect(url: str | None, timeout: int) -> Any:
    import docker

    return (
        docker.DockerClient(base_url=url, timeout=timeout)
        if url
        else docker.from_env(timeout=timeout)
    )


class Engine:
    """One engine, by URL; `hint` says how to start it when it does not answer."""

    def __init__(
        self, url: str | None = None, hint: str = ENGINE_HINT, build_hint: str = BUILD_HINT
    ) -> None:
        self.url = url
        self.hint = hint
        self.build_hint = build_hint

    @property
    def client(self) -> Any:
        """The client of this URL, shared by the process's threads."""
        with _client_lock:
            client = _clients.get(self.url)
            if client is None:
                import docker

                try:
                    client = _connect(self.url, CLIENT_TIMEOUT)
                    client.ping()
                except docker.errors.DockerException as exc:
                    raise InfrastructureError(
                        f"cannot reach the container engine{self._where()}: {exc}; {self.hint}"
                    ) from None
                _clients[self.url] = client
            return client

    def _where(self) -> str:
        return f" at {self.url}" if self.url else ""

    def probe(self, image: str) -> str | None:
        """None when the engine answers and has `image`, else why not."""
        try:
            import docker
        except ImportError:  # pragma: no cover - a declared dependency
            return "the docker Python SDK is not installed (install the `docker` package)"
        try:
            client = _connect(self.url, PROBE_TIMEOUT)
            try:
                client.ping()
                try:
                    client.images.get(image)
                except docker.errors.ImageNotFound:
                    return f"the image {image} is missing{self._where()}: {self.build_hint}"
            finally:
                client.close()
        except docker.errors.DockerException as exc:
            return f"the container engine{self._where()} does not answer ({exc}); {self.hint}"
        except Exception as exc:  # noqa: BLE001 - requests errors and the like
            return (
                f"the container engine{self._where()} does not answer ({type(exc).__name__}: "
                f"{exc}); {self.hint}"
            )
        return None

    def image_id(self, image: str) -> str:
        import docker

        try:
            return str(self.client.images.get(image).id)
        except docker.errors.ImageNotFound:
            raise InfrastructureError(
                f"the image {image} is missing{self._where()}: {self.build_hint}"
            ) from None
        except docker.errors.APIError as exc:
            raise InfrastructureError(f"cannot inspect the image {image}: {exc}") from None

    def has_image(self, image: str) -> bool:
        import docker

        try:
            self.client.images.get(image)
        except docker.errors.ImageNotFound:
            return False
        except docker.errors.APIError as exc:
            raise InfrastructureError(f"cannot inspect the image {image}: {exc}") from None
        return True

    def version_tags(self, repository: str, request: PythonRequest) -> list[str]:
        """Local tags `<repository>:X.Y` whose version the request allows, newest first."""
        import docker

        try:
            images = self.client.images.list(name=repository)
        except docker.errors.APIError:
            return []
        versions = []
        for image in images:
            for tag in image.tags:
                version = tag.rpartition(":")[2]
                if (
                    tag.rpartition(":")[0] in (repository, f"localhost/{repository}")
                    and re.fullmatch(r"\d+\.\d+", version)
                    and any(request.matches(f"{version}.{micro}") for micro in range(40))
                ):
                    versions.append(version)
        ordered = sorted(
            set(versions), key=lambda v: tuple(int(p) for p in v.split(".")), reverse=True
        )
        return [f"{repository}:{v}" for v in ordered]

    def cgroup_parent(self) -> str | None:
        """Where a run's container goes in the cgroup tree. With the cgroupfs driver, docker puts
        every container under one `docker` group, which the CPU scheduler weighs as a single process
        against everything else on the host: on a busy machine all containers together got a
        fraction of what the same processes got outside (bench/RESULTS.md, section 14). "/" makes
        each container its own top-level entity, like a session's processes outside. The systemd
        driver wants a slice there: None (its default). Learnt once per URL."""
        with _client_lock:
            if self.url in _parents:
                return _parents[self.url]
        try:
            driver = str(self.client.info().get("CgroupDriver") or "")
        except Exception:  # noqa: BLE001 - an engine that cannot say keeps its default
            driver = ""
        with _client_lock:
            return _parents.setdefault(self.url, "/" if driver == "cgroupfs" else None)


def docker_client() -> Any:
    """The client of the default engine (`DOCKER_HOST`, else the default socket)."""
    return Engine().client


def probe() -> str | None:
    """None when the default engine answers and has the default Python image, else why not."""
    return Engine().probe(default_image("python"))


def image_id(image: str) -> str:
    return Engine().image_id(image)


def version_tags(repository: str, request: PythonRequest) -> list[str]:
    return Engine().version_tags(repository, request)


def image_repository(image: str) -> str:
    """`runners-python:latest` -> `runners-python` (a registry port is not a tag)."""
    name, _, tag = image.rpartition(":")
    return name if name and "/" not in tag else image
