"""A Python of another version in an image: `python:X.Y-slim`, or a host build of that version
(pyenv, uv-managed) copied under /usr/local on the local base."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from runners.images.common import DEFAULT_TAGS, LOCAL_BASE, docker_client, image_exists
from runners.model.errors import InfrastructureError, UserInputError

PYTHON_DIST_DIR = "python-dist"
# Skipped when a host interpreter is copied into an image: tests never import these.
_PYTHON_DIST_SKIP = ("test", "idlelib", "tkinter", "turtledemo")


def python_tag(version: str, repository: str | None = None) -> str:
    """`<repository of the python image>:<version>` (runners-python:3.12)."""
    return f"{repository or DEFAULT_TAGS['python'].rsplit(':', 1)[0]}:{version}"


def python_base(version: str, client=None) -> str:
    """The base a `version` image is built on: the local base (a host build of that Python is
    copied in) when it exists, else the official `python:X.Y-slim`."""
    client = client or docker_client()
    return LOCAL_BASE if image_exists(client, LOCAL_BASE) else f"python:{version}-slim"


def check_python_version(version: str) -> str:
    if not re.fullmatch(r"3\.\d+", version):
        raise UserInputError(
            f"option --python: expected a version like 3.12 for an image, got {version!r}"
        )
    return version


def host_python_prefix(version: str) -> tuple[Path, str]:
    """The installation prefix of a host interpreter of `version` (pyenv, uv-managed or a
    source build; not the system's, whose files are spread over /usr) and its identity."""
    from runners.toolchains.hosts import host_interpreter_identity
    from runners.toolchains.which_python import PythonRequest, find_host_python

    python = find_host_python(PythonRequest(version, "option --python"))
    identity = host_interpreter_identity(python)  # "<realpath> <version> <machine> <base prefix>"
    prefix = Path(identity.rsplit(" ", 1)[-1])
    if str(prefix) in ("/usr", "/usr/local") or not (prefix / "bin").is_dir():
        raise UserInputError(
            f"option --python: the Python {version} found here ({python}) is installed in "
            f"{prefix}, which cannot be copied into an image on its own; install one with pyenv "
            f"or uv, or build on python:{version}-slim (--base-image)"
        )
    return prefix, identity


def copy_python(prefix: Path, target: Path) -> None:
    def skip(directory: str, names: list[str]) -> list[str]:
        inside_lib = Path(directory).parent.name == "lib" and Path(directory).name.startswith(
            "python"
        )
        return [n for n in names if inside_lib and n in _PYTHON_DIST_SKIP]

    shutil.copytree(prefix, target, symlinks=True, ignore=skip)


def with_python_layer(dockerfile: str) -> str:
    """The Dockerfile with the copied interpreter installed under /usr/local right after FROM
    (its libpython is found through ld.so's cache; python3 on PATH is then this one)."""
    head, sep, tail = dockerfile.partition("FROM ${BASE_IMAGE}\n")
    if not sep:
        raise InfrastructureError(
            "runners/docker/python.Dockerfile has no `FROM ${BASE_IMAGE}` line"
        )
    return f"{head}{sep}COPY {PYTHON_DIST_DIR}/ /usr/local/\nRUN ldconfig\n{tail}"
