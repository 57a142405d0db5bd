"""Building the docker backend's images (`runners-python`, `runners-node`) through the docker SDK.

```
build_image("python", "python:3.12-slim")                 -> "runners-python:latest"
build_image("node", "runners-local-base:bookworm")         -> "runners-node:latest"
ensure_images()    # both, on the local base when it exists; skipped when already up to date
ensure_images(["python"], pythons=["3.12"])   # also runners-python:3.12
```

An image for another Python version (`runners-python:3.12`) is built on `python:3.12-slim`, or on
the local base with a host build of that version (pyenv, uv-managed) copied under /usr/local.

The build context is assembled in a temporary directory: the Dockerfile shipped in
`runners/docker/`, the harness's own uv binary (python), the pinned `python-tools.txt`, the host CA
bundle, and for a base without node a Node distribution taken from the npm registry packages
`node-linux-<arch>` and `npm` (with `npm pack`, so the registry is reached the way npm is
configured here). Proxy variables of the harness's environment are passed as build args.

Every image carries the label `runners.recipe`, a hash of everything that went into it (the
Dockerfile, the base image id, uv, the tools list, the node distribution); `ensure_images` rebuilds
only when it differs.
"""

from runners.images.build import build_image, ensure_images, image_is_current, recipe_key
from runners.images.common import (
    CA_CANDIDATES,
    DEFAULT_TAGS,
    DOCKER_DIR,
    KINDS,
    LOCAL_BASE,
    OFFICIAL_BASES,
    RECIPE_LABEL,
    TOOLS_FILE,
    ImageKind,
    default_base_image,
    docker_client,
    host_ca_bundle,
    image_exists,
)
from runners.images.node_dist import node_distribution
from runners.images.python_dist import (
    check_python_version,
    host_python_prefix,
    python_base,
    python_tag,
)

__all__ = [
    "CA_CANDIDATES",
    "DEFAULT_TAGS",
    "DOCKER_DIR",
    "KINDS",
    "LOCAL_BASE",
    "OFFICIAL_BASES",
    "RECIPE_LABEL",
    "TOOLS_FILE",
    "ImageKind",
    "build_image",
    "check_python_version",
    "default_base_image",
    "docker_client",
    "ensure_images",
    "host_ca_bundle",
    "host_python_prefix",
    "image_exists",
    "image_is_current",
    "node_distribution",
    "python_base",
    "python_tag",
    "recipe_key",
]
