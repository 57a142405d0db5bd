"""The docker backend's toolchains: interpreters, uv, node and npm are the images' own; the
cache is one directory per image id (what is built there fits that image only), mounted at
/cache; a Python version picks the image that has it."""

from __future__ import annotations

from pathlib import Path

from runners.model.errors import InfrastructureError, UserInputError
from runners.sandbox.base import Mount
from runners.sandbox.docker.backend import DockerSandbox
from runners.sandbox.docker.client import BUILD_HINT, default_image, image_repository
from runners.sandbox.docker.images import ImageInfo, image_info
from runners.toolchains.hosts import ToolchainHost, toolchain_host
from runners.toolchains.tools import SubmissionTools
from runners.toolchains.which_python import PythonRequest

CACHE_TARGET = "/cache"
# Where node and npm are in both node:22-slim and our node image.
NODE_IN_IMAGE = "/usr/local/bin/node"


class DockerToolchains(ToolchainHost):
    sandbox: DockerSandbox

    def __init__(self, sandbox: DockerSandbox) -> None:  # type: ignore[override]
        super().__init__(sandbox)
        self.host_cache: Path | None = (
            None  # known once cache_root is asked: the image memo goes there
        )

    def use_cache(self, host_cache: Path) -> None:
        self.host_cache = Path(host_cache)

    def image_for(self, kind: str) -> str:
        """The sandbox's configured image for python and node; any other kind (a language added
        later, such as go) `runners-<kind>:latest` or `$RUNNERS_DOCKER_<KIND>_IMAGE`."""
        configured = {"python": self.sandbox.python_image, "node": self.sandbox.node_image}
        return configured.get(kind) or default_image(kind)

    def cache_root(self, host_cache: Path, kind: str = "python") -> tuple[Path, str]:
        # One cache per image: what is built there (venvs, node_modules) fits that image only.
        self.host_cache = Path(host_cache)
        short_id = self.sandbox.engine.image_id(self.image_for(kind)).split(":", 1)[-1][:12]
        return self.host_cache / "docker" / short_id, CACHE_TARGET

    def node_for_toolchains(self, requested: str | None) -> str:
        """The image's node; a version or range must be what the node image has (a path is one
        inside the image)."""
        from runners.toolchains.which_node import NodeRequest, is_path, parse_requirement

        if requested and is_path(requested):
            return requested
        if requested and not NodeRequest(requested).matches(self.node_version(NODE_IN_IMAGE)):
            version = self.node_version(NODE_IN_IMAGE)
            raise UserInputError(
                f"--node {requested}: the docker sandbox runs Node {version or 'unknown'} (image "
                f"{self.sandbox.node_image}), not {parse_requirement(requested)}; use --sandbox "
                "bubblewrap with a Node of this machine, or build the node image on another Node "
                "(`runners image build --kind node --base-image node:X-slim`)"
            )
        return NODE_IN_IMAGE

    def node_version(self, node: str) -> str | None:
        """The node image's `node --version`, asked once per image id (remembered on disk)."""
        from runners.model.limits import ResourceLimits
        from runners.sandbox.base import SandboxRequest
        from runners.util.probe_memo import remembered

        ident = self.sandbox.engine.image_id(self.sandbox.node_image)

        def ask() -> str | None:
            result = self.sandbox.run(
                SandboxRequest(
                    argv=[node, "--version"],
                    cwd="/",
                    env={"PATH": "/usr/local/bin:/usr/bin:/bin"},
                    limits=ResourceLimits(memory_mb=256, pids=64, output_bytes=4096),
                    timeout=60,
                    image=ident,
                    run_id="node-probe",
                    purpose="probe",
                )
            )
            text = result.stdout.strip().lstrip("v")
            return text if result.exit_code == 0 and text[:1].isdigit() else None

        return remembered(
            "docker-node-version", [ident, node], ask, keep=lambda found: found is not None
        )

    def npm_for_toolchains(self, node: str) -> list[str]:
        return [str(Path(node).parent / "npm")]

    def program_identity(self, program: str, version_args: list[str]) -> str:
        return f"docker {self.sandbox.engine.image_id(self.sandbox.node_image)} {program}"

    def program_mounts(self, program: str) -> list[Mount]:
        return []

    def submission_tools(self, host_cache: Path) -> SubmissionTools:
        return SubmissionTools()  # the python image has them (runners/docker/python.Dockerfile)

    def for_python(self, request: PythonRequest | None) -> tuple[ToolchainHost, str]:
        """A path is one inside the image; a version picks the image: the configured one when
        its python3 matches, else `<repository>:<major.minor>` (built with `runners image build
        --python X.Y`), verified by running it. A preference (SCBench's 3.12 for a problem that
        names no `python`) does the same where it may pick an image, and falls back to the
        configured image when none matches."""
        if request is not None and request.is_path:
            return self, request.spec
        if (
            request is None
            or (request.preferred and not request.picks_image)
            or self._python_matches(self.sandbox.python_image, request)
        ):
            return self, self._python_in(self.sandbox.python_image)
        repository = image_repository(self.sandbox.python_image)
        tried = [self.sandbox.python_image]
        for tag in self.sandbox.engine.version_tags(repository, request):
            tried.append(tag)
            if self._python_matches(tag, request):
                chosen = toolchain_host(self.sandbox.with_images(python_image=tag))
                assert isinstance(chosen, DockerToolchains)
                chosen.host_cache = self.host_cache
                return chosen, chosen._python_in(tag)
        if request.preferred:  # a preference no image meets: the configured image, as without one
            return self, self._python_in(self.sandbox.python_image)
        found = ", ".join(f"{tag} has {self._info_or_none(tag) or 'no python3'}" for tag in tried)
        raise UserInputError(
            f"{request.source}: no Docker image has a Python matching {request.specifier} "
            f"({found}); build one with `python -m runners image build --kind python --python "
            f"X.Y` (tagged {repository}:X.Y)"
        )

    def check_python_of(self, image: str | None, why: str) -> None:
        if image is None or image == self.sandbox.python_image:
            return
        mine, theirs = self._info(self.sandbox.python_image), self._info(image)
        if (mine.python, mine.python_version) != (theirs.python, theirs.python_version):
            raise UserInputError(
                f"{why} picks {self.sandbox.python_image} (Python {mine.python_version}), but "
                f"this problem runs in {image}, which has Python "
                f"{theirs.python_version or 'none'} (it is built on the default python image): "
                "run it without that Python choice, or with --sandbox bubblewrap"
            )

    def python_version(self, python: str) -> str | None:
        info = self._info(self.sandbox.python_image)
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
        info = self._info(self.sandbox.python_image)
        return f"docker {info.id} {python} {info.python_version}"

    def uv_binary(self) -> str:
        info = self._info(self.sandbox.python_image)
        if not info.uv:
            raise InfrastructureError(
                f"the image {self.sandbox.python_image} has no uv; {BUILD_HINT}"
            )
        return info.uv

    def _info(self, image: str) -> ImageInfo:
        return image_info(image, self.sandbox.run, self.host_cache, self.sandbox.engine)
