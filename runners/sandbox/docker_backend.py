"""The docker backend's former module: its names, now in the `runners.sandbox.docker` package."""

from runners.processes import owner_label as _owner
from runners.sandbox.docker.backend import DockerSandbox
from runners.sandbox.docker.client import (
           NODE_IMAGE_ENV,
           PYTHON_IMAGE_ENV,
           docker_client,
           image_repository,
)
from runners.sandbox.docker.sweep import LABEL_MANAGED, LABEL_OWNER, LABEL_RUN

__all__ = ["LABEL_MANAGED", "LABEL_OWNER", "LABEL_RUN", "NODE_IMAGE_ENV", "PYTHON_IMAGE_ENV", "DockerSandbox",
           "_owner", "docker_client", "image_repository"]
