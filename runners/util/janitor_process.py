"""The janitor process (`python -m runners.util.janitor_process`, started by
`runners.util.janitor`): it reads what its harness made and removed, and when the harness is gone
removes what is left."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from runners.util.janitor import KINDS


def clean(pending: dict[str, list[str]]) -> None:
    """Remove what is left, kind by kind, each as best it can (one failure stops nothing)."""
    for kind in KINDS:
        for value in pending.get(kind, []):
            try:
                _REMOVERS[kind](value)
            except Exception:  # noqa: BLE001, S110 - the next start's sweep is the backstop
                pass


def _remove_ray(owner: str) -> None:
    """Kill a process of the private Ray (`pid start`, if still that process), or every process
    whose environment carries the private Ray's mark (not this one)."""
    import signal

    from runners.util.janitor import RAY_OWNER_ENV
    from runners.util.processes import start_time

    pid, _, started = owner.partition(" ")
    if pid.isdigit() and started:
        if int(pid) != os.getpid() and start_time(int(pid)) == started:
            try:
                os.kill(int(pid), signal.SIGKILL)
            except OSError:
                pass
        return
    mark = f"{RAY_OWNER_ENV}={owner}".encode()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry.name}/environ", "rb") as handle:
                if mark not in handle.read().split(b"\0"):
                    continue
            os.kill(int(entry.name), signal.SIGKILL)
        except (OSError, ValueError):
            continue  # gone, or not ours to read


def _remove_container(ref: str) -> None:
    import docker

    from runners.sandbox.docker.client import Engine

    container_id, _, url = ref.partition(" ")  # `id` or `id engine-url` (lifecycle.container_ref)
    try:
        Engine(url or None).client.api.remove_container(container_id, force=True)
    except docker.errors.NotFound:
        pass


def _remove_cgroup(path: str) -> None:
    from runners.sandbox.cgroups import ROOT, RunCgroup

    group = Path(path)
    if group.is_dir():
        RunCgroup([group], unified=(ROOT / "cgroup.controllers").is_file()).remove()


def _remove_workspace(path: str) -> None:
    from runners.engine.workspace import Workspace

    Workspace(root=Path(path)).cleanup()


_REMOVERS = {
    "ray": _remove_ray,
    "container": _remove_container,
    "cgroup": _remove_cgroup,
    "workspace": _remove_workspace,
}


def main() -> int:
    # Not the harness's child: something that kills a process's direct children as it kills the
    # process (a Ray worker does) must not take the janitor with it.
    if os.fork() != 0:
        os._exit(0)
    pending: dict[str, dict[str, None]] = {kind: {} for kind in KINDS}  # ordered sets
    buffer = b""
    while True:
        try:
            chunk = os.read(0, 65536)
        except InterruptedError:
            continue
        except OSError:
            break
        if not chunk:
            break  # every write end is closed: the harness is gone
        buffer += chunk
        *lines, buffer = buffer.split(b"\n")
        for raw in lines:
            line = raw.decode("utf-8", "surrogateescape")
            kind, _, value = line[1:].partition(" ")
            if kind not in pending or not value:
                continue
            if line.startswith("+"):
                pending[kind][value] = None
            else:
                pending[kind].pop(value, None)
    if any(pending.values()):
        clean({kind: list(values) for kind, values in pending.items()})
    return 0


if __name__ == "__main__":
    sys.exit(main())
