"""`docker`: every command in a fresh, locked-down container (the first choice of `auto`).

One container per request, removed in every case when the call returns; the profile is in
`spec.py`, the container's life in `lifecycle.py`, the sweep of a dead harness's containers in
`sweep.py`. Where toolchains live in the images: `runners/toolchains/docker_host.py`.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any, ClassVar

from runners.egress.netns import require_root
from runners.model.errors import InfrastructureError
from runners.sandbox.base import Sandbox, SandboxRequest, SandboxResult, base_env
from runners.sandbox.docker.client import ENGINE_HINT, Engine, default_image
from runners.sandbox.docker.lifecycle import (
    SANDBOX_GID,
    SANDBOX_UID,
    grant_to_sandbox_user,
    run_container,
)
from runners.sandbox.docker.spec import CA_FILE_VARS, MB, container_spec, sandbox_user
from runners.sandbox.docker.sweep import LABEL_RUN, sweep_once, sweep_orphans
from runners.util.processes import owner_label


class DockerSandbox(Sandbox):
    name = "docker"
    isolated = True
    remaps_paths = True
    toolchains = "runners.toolchains.docker_host:DockerToolchains"  # the images' own

    # The engine every instance of the class talks to (None: DOCKER_HOST or the default socket);
    # a subclass for another engine with Docker's API (podman) changes this line.
    engine_url: ClassVar[str | None] = None
    engine_hint: ClassVar[str] = ENGINE_HINT
    options: ClassVar[dict[str, str]] = {
        "python_image": "the image tests and Python toolchains run in",
        "node_image": "the image JavaScript toolchains run in",
        "engine_url": "the engine's URL (default: DOCKER_HOST, else its socket)",
    }

    def __init__(
        self,
        python_image: str | None = None,
        node_image: str | None = None,
        engine_url: str | None = None,
    ) -> None:
        self.python_image = python_image or default_image("python")
        self.node_image = node_image or default_image("node")
        self.engine = self._engine(engine_url or self.engine_url)

    @classmethod
    def _engine(cls, url: str | None) -> Engine:
        return Engine(url, hint=cls.engine_hint)

    def __getstate__(self) -> dict[str, Any]:  # pickled by URL: a second harness connects anew
        return {
            "python_image": self.python_image,
            "node_image": self.node_image,
            "url": self.engine.url,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["python_image"], state["node_image"], state["url"])  # type: ignore[misc]

    def with_images(
        self, python_image: str | None = None, node_image: str | None = None
    ) -> DockerSandbox:
        """The same backend and engine with other images (a Python version's image)."""
        return type(self)(
            python_image or self.python_image, node_image or self.node_image, self.engine.url
        )

    @classmethod
    def probe(cls) -> str | None:
        return cls._engine(cls.engine_url).probe(default_image("python"))

    def adjust_spec(self, spec: dict[str, Any]) -> None:
        """A last word on a container's arguments (`spec.container_spec`), for an engine's
        quirks."""

    def memory_bounded(self) -> bool:
        return True  # every container gets a memory limit; bind-mounted tmpfs pages count in it

    # ---- running ---------------------------------------------------------------------------------

    def run(self, request: SandboxRequest) -> SandboxResult:
        client = self.engine.client
        sweep_once(self.engine)
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
            request.model_copy(update={"mounts": mounts}),
            image=self.engine.image_id(request.image or self.python_image),
            user=sandbox_user(os.geteuid(), os.getegid(), SANDBOX_UID, SANDBOX_GID),
            owner=owner_label(),
            request_id=request_id,
            cpu_count=os.cpu_count() or 1,
            ca_bundle=bundle,
            cgroup_parent=self.engine.cgroup_parent(),
        )
        self.adjust_spec(spec)
        holder = None
        try:
            if request.egress is not None:
                holder = self._network_holder(client, request, request_id)
                spec["network_mode"] = (
                    f"container:{holder.id}"  # its namespace: loopback and the proxy
                )
                spec.pop("hostname", None)  # docker refuses a hostname with a borrowed network
            outcome = run_container(
                client,
                spec,
                request_id,
                request.timeout,
                request.limits.output_bytes or 4 * MB,
                stop=request.stop,
                on_stdout=request.on_stdout,
                engine_url=self.engine.url,
            )
        finally:
            if holder is not None:
                _remove_quietly(holder)
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
            stopped=outcome.stopped,
            oom_killed=outcome.oom_killed,
            duration=outcome.duration,
            notes=notes,
        )

    def _network_holder(self, client: Any, request: SandboxRequest, request_id: str) -> Any:
        """A container that only holds a network namespace (loopback, no interface out), with the
        egress proxy's listeners opened inside it; the run's container joins it."""
        require_root("docker")
        holder_request = request.model_copy(
            update={
                "argv": ["sleep", str(int(request.timeout) + 60)],
                "mounts": [],
                "network": False,
                "egress": None,
                "env": base_env(),
                "cwd": "/",
                "purpose": f"{request.purpose}-network",
            }
        )
        spec, _ = container_spec(
            holder_request,
            image=self.engine.image_id(self.python_image),
            user=sandbox_user(os.geteuid(), os.getegid(), SANDBOX_UID, SANDBOX_GID),
            owner=owner_label(),
            request_id=f"{request_id}-net",
            cpu_count=os.cpu_count() or 1,
        )
        self.adjust_spec(spec)
        import docker

        holder = None
        try:
            holder = client.containers.create(**spec)
            holder.start()
            holder.reload()
            pid = int(holder.attrs["State"]["Pid"])
            netns = os.open(f"/proc/{pid}/ns/net", os.O_RDONLY | os.O_CLOEXEC)
            try:
                request.egress.attach(netns)
            finally:
                os.close(netns)
            return holder
        except (docker.errors.APIError, OSError, KeyError, ValueError) as exc:
            if holder is not None:
                _remove_quietly(holder)
            raise InfrastructureError(
                f"cannot set up the agent's network namespace for the proxy: {exc}"
            ) from None
        except BaseException:
            if holder is not None:
                _remove_quietly(holder)
            raise

    def sweep_orphans(self) -> int:
        """Remove containers labelled `runners.managed` whose owning process on this host is
        gone."""
        return sweep_orphans(self.engine)

    def missing_image(self, image: str) -> str | None:
        return None if self.engine.has_image(image) else "is not on this machine"

    def leftovers(self, run_id: str) -> list[str]:
        found = self.engine.client.containers.list(
            all=True, filters={"label": f"{LABEL_RUN}={run_id}"}
        )
        return [f"container {c.short_id} ({c.status})" for c in found]

    def limitations(self) -> dict[str, str]:
        if os.geteuid() != 0:
            return {
                "network.allow_list": (
                    "the egress proxy is opened in the container's namespace as root"
                )
            }
        return {}


def _remove_quietly(container: Any) -> None:
    import docker

    try:
        container.remove(force=True)
    except docker.errors.APIError:  # gone already; a leftover is swept later by its label
        pass


def _ca_bundle(env: dict[str, str]) -> Path | None:
    """The host CA file a prepare step gets: the one the request names, else the host's."""
    from runners.images import host_ca_bundle

    for name in CA_FILE_VARS:
        value = env.get(name)
        if value and Path(value).is_file():
            return Path(value).resolve()
    bundle = host_ca_bundle()
    return bundle.resolve() if bundle is not None else None
