"""A container's life: create, attach, start, wait against the wall clock, kill, read the state,
remove in every case; and handing writable mounts to the sandbox user.

The harness enforces the wall clock itself (`wait(timeout)` is only a request timeout and raises
`requests` ConnectionError), kills on timeout (tolerating 409 for a container that already
exited), then reads `State.ExitCode`/`State.OOMKilled`. Output is read from an attach socket
opened before the container starts, into head+tail capped buffers, so a flood costs bounded memory
and the beginning of the output is never lost to log rotation.
"""

from __future__ import annotations

import os
import socket
import stat
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runners.model.errors import InfrastructureError
from runners.sandbox.docker.sweep import LABEL_REQUEST
from runners.sandbox.process import CappedBuffer
from runners.util import janitor

KILL_WAIT = 10.0
READER_GRACE = 5.0
SANDBOX_UID = 1000
SANDBOX_GID = 1000


@dataclass
class Outcome:
    exit_code: int | None
    oom_killed: bool
    timed_out: bool
    duration: float
    out: CappedBuffer
    err: CappedBuffer
    notes: list[str] = field(default_factory=list)
    stopped: bool = False


def run_container(
    client: Any,
    spec: dict[str, Any],
    request_id: str,
    timeout: float,
    cap: int,
    stop: threading.Event | None = None,
    on_stdout: Callable[[bytes], None] | None = None,
    engine_url: str | None = None,
) -> Outcome:
    """Run one container to completion or `timeout` seconds (or until `stop` is set); it is
    removed when this returns. `engine_url`: the engine's, for the janitor (None: the default)."""
    import docker

    out, err = CappedBuffer(cap, on_stdout), CappedBuffer(cap)
    container = None
    sock = None
    reader = None
    started = time.monotonic()
    try:
        try:
            container = client.containers.create(**spec)
            janitor.track(
                "container", container_ref(container.id, engine_url)
            )  # removed if the harness dies
            sock = client.api.attach_socket(
                container.id, params={"stdout": 1, "stderr": 1, "stream": 1, "logs": 1}
            )
            _no_socket_timeout(sock)
            reader = threading.Thread(
                target=_pump_frames,
                args=(sock, out, err),
                daemon=True,
                name=f"docker-output-{request_id}",
            )
            reader.start()
            started = time.monotonic()
            container.start()
        except docker.errors.APIError as exc:
            raise InfrastructureError(
                f"docker could not start the sandbox container: {exc.explanation or exc}"
            ) from None
        except Exception as exc:  # noqa: BLE001 - requests errors: the daemon did not answer
            raise InfrastructureError(
                f"the Docker engine failed while starting the sandbox: {exc}"
            ) from None
        timed_out = _wait(container, started + timeout, stop)
        notes = []
        stopped = stop is not None and stop.is_set()
        if timed_out:
            _kill(container)
            notes.append(
                "stopped by the harness"
                if stopped
                else f"killed at the wall-clock limit of {timeout:g} s"
            )
        finished = time.monotonic()
        if reader is not None:
            reader.join(timeout=READER_GRACE)
        state = _state(container)
        return Outcome(
            exit_code=state.get("ExitCode"),
            oom_killed=bool(state.get("OOMKilled")),
            timed_out=timed_out and not stopped,
            duration=finished - started,
            out=out,
            err=err,
            notes=notes,
            stopped=timed_out and stopped,
        )
    finally:
        if sock is not None:
            _close(sock)
        if reader is not None and reader.is_alive():
            reader.join(timeout=1)
        _remove(client, container, request_id, engine_url)


def grant_to_sandbox_user(root: Path) -> None:
    """Make a writable mount source owned by the sandbox uid (root harness only).

    Never follows symlinks; a directory already owned by the sandbox user is not descended into
    (its content was made by an earlier sandboxed run). Root keeps full access in any case.
    """
    if os.geteuid() != 0:
        return
    uid, gid = SANDBOX_UID, SANDBOX_GID

    def give(path: str, info: os.stat_result) -> None:
        if info.st_uid != uid or info.st_gid != gid:
            os.chown(path, uid, gid, follow_symlinks=False)

    try:
        info = os.lstat(root)
    except OSError:
        return
    if stat.S_ISLNK(info.st_mode) or (info.st_uid == uid and info.st_gid == gid):
        return
    give(str(root), info)
    if not stat.S_ISDIR(info.st_mode):
        return
    for dirpath, dirnames, filenames in os.walk(root):
        keep = []
        for name in dirnames:
            path = os.path.join(dirpath, name)
            try:
                sub = os.lstat(path)
            except OSError:
                continue
            if sub.st_uid == uid and sub.st_gid == gid:
                continue
            give(path, sub)
            if stat.S_ISDIR(sub.st_mode):
                keep.append(name)
        dirnames[:] = keep
        for name in filenames:
            path = os.path.join(dirpath, name)
            try:
                give(path, os.lstat(path))
            except OSError:
                continue


def _no_socket_timeout(sock: Any) -> None:
    """The attach socket inherits the client's read timeout; a quiet test must not end the
    stream."""
    for candidate in (sock, getattr(sock, "_sock", None)):
        if candidate is not None and hasattr(candidate, "settimeout"):
            try:
                candidate.settimeout(None)
            except OSError:
                pass


def _pump_frames(sock: Any, out: CappedBuffer, err: CappedBuffer) -> None:
    from docker.utils.socket import STDERR, STDOUT, frames_iter

    try:
        for stream, data in frames_iter(sock, tty=False):
            if stream == STDOUT:
                out.feed(data)
            elif stream == STDERR:
                err.feed(data)
    except Exception:  # noqa: BLE001, S110 - the socket closed under us: the run is over
        pass


def _close(sock: Any) -> None:
    for candidate in (getattr(sock, "_sock", None), sock):
        if candidate is None:
            continue
        try:
            if hasattr(candidate, "shutdown"):
                candidate.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        try:
            candidate.close()
        except OSError:
            pass
    response = getattr(sock, "_response", None)
    if response is not None:
        try:
            response.close()
        except Exception:  # noqa: BLE001, S110 - best effort: the stream is done with
            pass


def _wait(container: Any, deadline: float, stop: threading.Event | None = None) -> bool:
    """Wait for the container to exit; True when the deadline passed (or `stop` was set) first.

    `Container.wait(timeout)` is only a request timeout (it raises requests' ConnectionError or
    ReadTimeout), so it is called in slices and the deadline is enforced here. The slices are short
    because `ray.cancel` raises its KeyboardInterrupt only between them (see `wait_exact`).
    """
    import docker
    import requests

    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or (stop is not None and stop.is_set()):
            return True
        asked = time.monotonic()
        try:
            container.wait(timeout=max(0.2, min(remaining, 1.0)))
            return False
        except (requests.exceptions.ConnectionError, requests.exceptions.Timeout):
            if time.monotonic() - asked < 0.1:  # the engine refused at once: do not spin
                time.sleep(0.2)
        except docker.errors.NotFound:
            return False
        except docker.errors.APIError:
            time.sleep(0.2)


def _kill(container: Any) -> None:
    import docker
    import requests

    try:
        container.kill()
    except docker.errors.NotFound:
        return
    except docker.errors.APIError as exc:
        if getattr(exc, "status_code", None) != 409:  # 409: it exited meanwhile
            raise InfrastructureError(f"cannot kill the sandbox container: {exc}") from None
    try:
        container.wait(timeout=KILL_WAIT)
    except (
        requests.exceptions.ConnectionError,
        requests.exceptions.Timeout,
        docker.errors.APIError,
    ):
        pass


def _state(container: Any) -> dict[str, Any]:
    import docker

    try:
        container.reload()
    except docker.errors.APIError:
        return {}
    return dict(container.attrs.get("State") or {})


def container_ref(container_id: str, engine_url: str | None) -> str:
    """What the janitor is told: the id, and the engine's URL when it is not the default."""
    return f"{container_id} {engine_url}" if engine_url else container_id


def _remove(client: Any, container: Any, request_id: str, engine_url: str | None = None) -> None:
    """Remove the request's container; if `create` failed client-side, find it by label."""
    import docker

    targets = [container] if container is not None else []
    if container is None:
        try:
            targets = client.containers.list(
                all=True, filters={"label": f"{LABEL_REQUEST}={request_id}"}
            )
        except Exception:  # noqa: BLE001 - no engine answer: nothing to remove by label
            targets = []
    for target in targets:
        for _ in range(3):
            try:
                target.remove(force=True)
                janitor.forget("container", container_ref(target.id, engine_url))
                break
            except docker.errors.NotFound:
                janitor.forget("container", container_ref(target.id, engine_url))
                break
            except Exception:  # noqa: BLE001 - retried; a leftover is swept later by its label
                time.sleep(0.5)
