"""`podman`: the docker backend on podman's Docker-compatible API, a subclass with its engine's
URL. Run `podman system service --time=0` (rootful: the socket below), with catatonit installed
for `--init`, and load the images into podman (`docker save runners-python:latest | podman
load`; scripts/ci-docker.sh does both)."""

from __future__ import annotations

import os
import resource
from pathlib import Path
from typing import Any

from runners.sandbox.docker.backend import DockerSandbox

SOCKET = "unix:///run/podman/podman.sock"
NPROC = 32768


class PodmanSandbox(DockerSandbox):
    name = "podman"
    engine_url = os.environ.get("RUNNERS_PODMAN_HOST") or SOCKET
    engine_hint = (
        "start podman's service: `podman system service --time=0 &` (as root), or set "
        "RUNNERS_PODMAN_HOST to its socket"
    )

    def limitations(self) -> dict[str, str]:
        found = super().limitations()
        if not Path("/sys/fs/cgroup/cgroup.controllers").is_file():
            found["limits.memory_flagged"] = (
                "podman on cgroup v1 does not report OOMKilled: a run over its memory "
                "limit ends with exit 137, unflagged"
            )
        return found

    def adjust_spec(self, spec: dict[str, Any]) -> None:
        # Given any ulimit, podman adds RLIMIT_NOFILE and RLIMIT_NPROC at about a million, which a
        # host without CAP_SYS_RESOURCE refuses: ask for what the service itself has there (it
        # keeps the harness's open files, and drops to 32768 processes). The run's limits stay the
        # request's `nofile` and the pids cgroup.
        import docker

        # podman names its own cgroup parents (libpod_parent, a slice): a run keeps the service's
        # placement rather than docker's "/" (Engine.cgroup_parent), which podman was not tried
        # with.
        spec.pop("cgroup_parent", None)
        given = {u["Name"] for u in spec.get("ulimits", [])}
        wanted = {
            "nofile": resource.getrlimit(resource.RLIMIT_NOFILE)[1],
            "nproc": min(resource.getrlimit(resource.RLIMIT_NPROC)[1], NPROC),
        }
        spec["ulimits"] = [
            *spec.get("ulimits", []),
            *(
                docker.types.Ulimit(name=name, soft=value, hard=value)
                for name, value in wanted.items()
                if name not in given
            ),
        ]
