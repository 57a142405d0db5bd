"""What every image module shares: names, the docker client, the host's CA bundle."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from runners.model.errors import InfrastructureError
from runners.sandbox.docker.client import default_image

ImageKind = Literal["python", "node", "go", "cases", "browser"]
KINDS: tuple[ImageKind, ...] = ("python", "node", "go", "cases", "browser")
# Kinds built on another kind's image rather than on a base: cases = python + node (case-based
# problems whose submission is not Python), browser = cases + Chromium.
DERIVED: dict[str, ImageKind] = {"cases": "python", "browser": "cases"}

DOCKER_DIR = Path(__file__).resolve().parent.parent / "docker"
TOOLS_FILE = Path(__file__).resolve().parent.parent / "toolchains" / "python-tools.txt"
# `runners-<kind>:latest`, or `$RUNNERS_DOCKER_<KIND>_IMAGE`: what is built is what runs.
DEFAULT_TAGS: dict[str, str] = {kind: default_image(kind) for kind in KINDS}
# What real users build on (pulled from their registry); CI uses the local debootstrapped base.
OFFICIAL_BASES: dict[str, str] = {
    "python": "python:3.12-slim",
    "node": "node:22-slim",
    "go": "golang:1.22-bookworm",
}
LOCAL_BASE = "runners-local-base:bookworm"
NODE_PACKAGE = "node-linux-{arch}@22"
NPM_PACKAGE = "npm@10"
RECIPE_LABEL = "runners.recipe"
PROXY_ARGS = (
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "all_proxy",
)
CA_CANDIDATES = (
    "/etc/ssl/certs/ca-certificates.crt",
    "/etc/pki/tls/certs/ca-bundle.crt",
    "/etc/ssl/cert.pem",
)
CLIENT_TIMEOUT = 600

Log = Callable[[str], None]


def quiet(_: str) -> None:
    pass


def docker_client(timeout: int = CLIENT_TIMEOUT):
    try:
        import docker
    except ImportError as exc:  # pragma: no cover - docker is a dependency
        raise InfrastructureError(f"the docker Python SDK is not installed: {exc}") from None
    try:
        client = docker.from_env(timeout=timeout)
        client.ping()
    except docker.errors.DockerException as exc:
        raise InfrastructureError(
            f"cannot reach the Docker engine ({exc}); start it (`dockerd &` or "
            "`systemctl start docker`) and check DOCKER_HOST"
        ) from None
    return client


def host_ca_bundle() -> Path | None:
    """The CA bundle downloads on this host trust (it may hold an intercepting proxy's CA)."""
    for candidate in (
        os.environ.get("SSL_CERT_FILE"),
        os.environ.get("REQUESTS_CA_BUNDLE"),
        *CA_CANDIDATES,
    ):
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    return None


def image_exists(client, name: str) -> bool:
    import docker

    try:
        client.images.get(name)
        return True
    except docker.errors.ImageNotFound:
        return False


def default_base_image(kind: ImageKind, client=None) -> str:
    """The local debootstrapped base when it exists (CI, offline machines), else the official
    one."""
    client = client or docker_client()
    return LOCAL_BASE if image_exists(client, LOCAL_BASE) else OFFICIAL_BASES[kind]
