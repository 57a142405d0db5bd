"""`docker`: every command in a fresh, locked-down container (the first choice of `auto`).

One container per request, removed in every case when the call returns. The profile:

- no network (`network_mode="none"`: only `lo`); the prepare step gets the default bridge, the
  host CA bundle mounted read-only (`SSL_CERT_FILE` and friends point at it) and the request's
  proxy variables;
- read-only root filesystem; a private `/tmp` tmpfs (size from the limits, mode 1777, exec);
  `HOME` is created on it by the command wrapper; only the request's mounts, `ro` or `rw`;
- a non-root user (`1000:1000`; when the harness itself is not root, the harness's own uid, so it
  can read and delete what the run wrote); all capabilities dropped, `no-new-privileges`;
- memory = memory+swap, CPUs, pids, `nofile` and `fsize` rlimits; docker-init as pid 1;
- an allow-listed environment (the request's; the image's own ENV still applies, and our images
  keep it minimal);
- labels `runners.managed`, `runners.run`, `runners.owner` (host:pid:start) so that containers of
  a crashed harness are swept on the next start; a json-file log capped at 1 MB.

The harness enforces the wall clock itself (`wait(timeout)` is only a request timeout and raises
`requests` ConnectionError), kills on timeout (tolerating 409 for a container that already
exited), then reads `State.ExitCode`/`State.OOMKilled`. Output is read from an attach socket
opened before the container starts, into head+tail capped buffers, so a flood costs bounded memory
and the beginning of the output is never lost to log rotation.
"""

from __future__ import annotations

import os
import re
import socket
import stat
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from runners.errors import InfrastructureError, UserInputError
from runners.processes import start_time
from runners.pythons import PythonRequest
from runners.sandbox.base import Mount, Sandbox, SandboxRequest, SandboxResult, register_sandbox
from runners.sandbox.process import CappedBuffer

MB = 1024 * 1024
CLIENT_TIMEOUT = 120
PROBE_TIMEOUT = 10
KILL_WAIT = 10.0
READER_GRACE = 5.0
SANDBOX_UID = 1000
SANDBOX_GID = 1000
CACHE_TARGET = "/cache"
CA_TARGET = "/etc/runners/ca-bundle.crt"
UV_IN_IMAGE = "/usr/local/bin/uv"
PYTHON_IMAGE_ENV = "RUNNERS_DOCKER_PYTHON_IMAGE"
NODE_IMAGE_ENV = "RUNNERS_DOCKER_NODE_IMAGE"
BUILD_HINT = "build it with `python -m runners image build` (CI: scripts/ci-docker.sh)"

LABEL_MANAGED = "runners.managed"
LABEL_RUN = "runners.run"
LABEL_OWNER = "runners.owner"
LABEL_PURPOSE = "runners.purpose"
LABEL_REQUEST = "runners.request"

# Variables that name a CA bundle file; inside the container they point at the mounted bundle.
CA_FILE_VARS = ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "PIP_CERT", "CURL_CA_BUNDLE",
                "NODE_EXTRA_CA_CERTS", "NPM_CONFIG_CAFILE", "npm_config_cafile")
PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")
# Creates HOME (it lives on the fresh /tmp tmpfs) and execs the command under coreutils `timeout`
# as a backstop: should the harness die mid-run, the container still ends (docker-init, pid 1,
# exits with its child `timeout`, and that takes the whole pid namespace down with it).
WRAPPER = ('limit="$1"; shift; mkdir -p "$HOME" 2>/dev/null; '
           'if command -v timeout >/dev/null 2>&1; then exec timeout -s KILL "$limit" "$@"; fi; '
           'exec "$@"')
# Where node and npm are in both node:22-slim and our node image.
NODE_IN_IMAGE = "/usr/local/bin/node"
# Seconds past the request's timeout after which the in-container backstop kills the command.
BACKSTOP_GRACE = 30


def _default_image(kind: str) -> str:
    from runners.environment import EnvironmentSpec

    if kind == "python":
        return os.environ.get(PYTHON_IMAGE_ENV) or EnvironmentSpec.model_fields["docker_python_image"].default
    return os.environ.get(NODE_IMAGE_ENV) or EnvironmentSpec.model_fields["docker_node_image"].default


_client_lock = threading.Lock()
_client: Any = None


def docker_client() -> Any:
    """The process-wide docker client (thread-safe; the SDK pools connections)."""
    global _client
    with _client_lock:
        if _client is None:
            import docker

            try:
                client = docker.from_env(timeout=CLIENT_TIMEOUT)
                client.ping()
            except docker.errors.DockerException as exc:
                raise InfrastructureError(f"cannot reach the Docker engine: {exc}; {_ENGINE_HINT}") from None
            _client = client
        return _client


_ENGINE_HINT = ("start it (`systemctl start docker`, or `dockerd &` as root), check DOCKER_HOST, and "
                "make sure this user may use the socket (group `docker`)")


@dataclass(frozen=True)
class ImageInfo:
    id: str
    python: str | None
    python_version: str | None
    uv: str | None

    @property
    def short_id(self) -> str:
        return self.id.split(":", 1)[-1][:12]


_image_info: dict[str, ImageInfo] = {}
_image_info_lock = threading.Lock()

_swept = False
_sweep_lock = threading.Lock()

_PROBE_SCRIPT = (
    "import json, os, platform, shutil, sys\n"
    "py = shutil.which('python3') or sys.executable\n"
    "print(json.dumps({'python': py, 'version': sys.version.split()[0], 'machine': platform.machine(),"
    " 'uv': shutil.which('uv')}))\n"
)


def image_repository(image: str) -> str:
    """`runners-python:latest` -> `runners-python` (a registry port is not a tag)."""
    name, _, tag = image.rpartition(":")
    return name if name and "/" not in tag else image


def _version_tags(repository: str, request: PythonRequest) -> list[str]:
    """Local tags `<repository>:X.Y` whose version the request allows, newest first."""
    import docker

    try:
        images = docker_client().images.list(name=repository)
    except docker.errors.APIError:
        return []
    versions = []
    for image in images:
        for tag in image.tags:
            version = tag.rpartition(":")[2]
            if (tag.rpartition(":")[0] == repository and re.fullmatch(r"\d+\.\d+", version)
                    and any(request.matches(f"{version}.{micro}") for micro in range(40))):
                versions.append(version)
    ordered = sorted(set(versions), key=lambda v: tuple(int(p) for p in v.split(".")), reverse=True)
    return [f"{repository}:{v}" for v in ordered]


@register_sandbox
class DockerSandbox(Sandbox):
    name = "docker"
    isolated = True
    remaps_paths = True

    def __init__(self, python_image: str | None = None, node_image: str | None = None) -> None:
        self.python_image = python_image or _default_image("python")
        self.node_image = node_image or _default_image("node")
        self._host_cache: Path | None = None

    @classmethod
    def from_environment(cls, environment: Any) -> DockerSandbox:
        return cls(python_image=environment.docker_python_image,
                   node_image=environment.docker_node_image)

    # ---- availability --------------------------------------------------------------------------

    @classmethod
    def probe(cls) -> str | None:
        try:
            import docker
        except ImportError:  # pragma: no cover - a declared dependency
            return "the docker Python SDK is not installed (install the `docker` package)"
        try:
            client = docker.from_env(timeout=PROBE_TIMEOUT)
            try:
                client.ping()
                image = _default_image("python")
                try:
                    client.images.get(image)
                except docker.errors.ImageNotFound:
                    return f"the image {image} is missing: {BUILD_HINT}"
            finally:
                client.close()
        except docker.errors.DockerException as exc:
            return f"the Docker engine does not answer ({exc}); {_ENGINE_HINT}"
        except Exception as exc:  # requests errors and the like
            return f"the Docker engine does not answer ({type(exc).__name__}: {exc}); {_ENGINE_HINT}"
        return None

    # ---- toolchain hooks -------------------------------------------------------------------------

    def image_for(self, kind: str) -> str:
        return self.node_image if kind == "node" else self.python_image

    def cache_root(self, host_cache: Path, kind: str = "python") -> tuple[Path, str]:
        # One cache per image: what is built there (venvs, node_modules) fits that image only.
        self._host_cache = Path(host_cache)
        short_id = self._image_id(self.image_for(kind)).split(":", 1)[-1][:12]
        return self._host_cache / "docker" / short_id, CACHE_TARGET

    def node_for_toolchains(self, requested: str | None) -> str:
        return requested or NODE_IN_IMAGE

    def npm_for_toolchains(self, node: str) -> list[str]:
        return [str(Path(node).parent / "npm")]

    def program_identity(self, program: str, version_args: list[str]) -> str:
        return f"docker {self._image_id(self.node_image)} {program}"

    def program_mounts(self, program: str) -> list[Mount]:
        return []

    def for_python(self, request: PythonRequest | None) -> tuple[DockerSandbox, str]:
        """A path is one inside the image; a version picks the image: the configured one when
        its python3 matches, else `<repository>:<major.minor>` (built with `runners image build
        --python X.Y`), verified by running it."""
        if request is not None and request.is_path:
            return self, request.spec
        if request is None or self._python_matches(self.python_image, request):
            return self, self._python_in(self.python_image)
        repository = image_repository(self.python_image)
        tried = [self.python_image]
        for tag in _version_tags(repository, request):
            tried.append(tag)
            if self._python_matches(tag, request):
                chosen = DockerSandbox(python_image=tag, node_image=self.node_image)
                chosen._host_cache = self._host_cache
                return chosen, chosen._python_in(tag)
        found = ", ".join(f"{tag} has {self._info_or_none(tag) or 'no python3'}" for tag in tried)
        raise UserInputError(
            f"{request.source}: no Docker image has a Python matching {request.specifier} ({found}); "
            f"build one with `python -m runners image build --kind python --python X.Y` "
            f"(tagged {repository}:X.Y)"
        )

    def python_version(self, python: str) -> str | None:
        info = self._info(self.python_image)
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
        info = self._info(self.python_image)
        return f"docker {info.id} {python} {info.python_version}"

    def uv_binary(self) -> str:
        info = self._info(self.python_image)
        if not info.uv:
            raise InfrastructureError(f"the image {self.python_image} has no uv; {BUILD_HINT}")
        return info.uv

    def _info(self, image: str) -> ImageInfo:
        """What is inside `image` (its id, python3, uv), found once per image id by running it.

        Remembered in memory and, once the toolchain cache is known, in a file beside the cache
        directory of that image (outside what any sandbox mounts, so no run can rewrite it).
        """
        import json

        image_id = self._image_id(image)
        with _image_info_lock:
            if image_id in _image_info:
                return _image_info[image_id]
        memo = self._memo_file(image_id)
        if memo is not None and memo.is_file():
            try:
                data = json.loads(memo.read_text())
                if data.get("id") == image_id and data.get("python"):
                    info = ImageInfo(id=image_id, python=data["python"],
                                     python_version=data.get("python_version"), uv=data.get("uv"))
                    with _image_info_lock:
                        _image_info[image_id] = info
                    return info
            except (OSError, ValueError, AttributeError):
                pass

        from runners.limits import ResourceLimits

        result = self.run(SandboxRequest(
            argv=["python3", "-I", "-c", _PROBE_SCRIPT], cwd="/", env={"PATH": "/usr/local/bin:/usr/bin:/bin"},
            limits=ResourceLimits(memory_mb=256, pids=64, output_bytes=64 * 1024), timeout=60,
            image=image_id, run_id="image-probe", purpose="probe",
        ))
        info = ImageInfo(id=image_id, python=None, python_version=None, uv=None)
        if result.exit_code == 0:
            try:
                data = json.loads(result.stdout.strip().splitlines()[-1])
                info = ImageInfo(id=image_id, python=data.get("python"),
                                 python_version=data.get("version"), uv=data.get("uv"))
            except (ValueError, IndexError, AttributeError):
                pass
        elif result.timed_out:
            raise InfrastructureError(f"probing the image {image} timed out")
        with _image_info_lock:
            _image_info[image_id] = info
        if memo is not None and info.python:
            try:
                memo.parent.mkdir(parents=True, exist_ok=True)
                tmp = memo.with_name(f".{memo.name}.{os.getpid()}")
                tmp.write_text(json.dumps({"id": info.id, "python": info.python,
                                           "python_version": info.python_version, "uv": info.uv}))
                tmp.replace(memo)
            except OSError:
                pass
        return info

    def _memo_file(self, image_id: str) -> Path | None:
        if self._host_cache is None:
            return None
        return self._host_cache / "docker" / f"{image_id.split(':', 1)[-1][:12]}.image.json"

    def _image_id(self, image: str) -> str:
        import docker

        try:
            return docker_client().images.get(image).id
        except docker.errors.ImageNotFound:
            raise InfrastructureError(f"the Docker image {image} is missing: {BUILD_HINT}") from None
        except docker.errors.APIError as exc:
            raise InfrastructureError(f"cannot inspect the Docker image {image}: {exc}") from None

    # ---- running ---------------------------------------------------------------------------------

    def run(self, request: SandboxRequest) -> SandboxResult:
        import docker

        client = docker_client()
        self._sweep_once()
        image = self._image_id(request.image or self.python_image)
        limits = request.limits
        env = dict(request.env)
        notes: list[str] = []
        mounts = []
        for mount in request.mounts:
            source = Path(mount.source)
            if not source.exists():
                raise InfrastructureError(f"sandbox mount source {source} does not exist")
            if mount.writable:
                _grant_to_sandbox_user(source)
            mounts.append(docker.types.Mount(target=mount.target, source=str(source.resolve()),
                                             type="bind", read_only=not mount.writable))
        if request.network:
            env, extra, network_notes = _network_settings(env)
            mounts += extra
            notes += network_notes
        ulimits = [docker.types.Ulimit(name="core", soft=0, hard=0)]
        if limits.nofile:
            ulimits.append(docker.types.Ulimit(name="nofile", soft=limits.nofile, hard=limits.nofile))
        if limits.file_size_mb:
            size = limits.file_size_mb * MB
            ulimits.append(docker.types.Ulimit(name="fsize", soft=size, hard=size))
        tmp_size = f",size={limits.tmp_size_mb}m" if limits.tmp_size_mb else ""
        request_id = uuid.uuid4().hex[:16]
        labels = {
            LABEL_MANAGED: "1",
            LABEL_RUN: request.run_id,
            LABEL_OWNER: _owner(),
            LABEL_PURPOSE: request.purpose,
            LABEL_REQUEST: request_id,
        }
        kwargs: dict[str, Any] = dict(
            image=image,
            entrypoint=["/bin/sh", "-c", WRAPPER, "sandbox",
                        str(int(request.timeout + BACKSTOP_GRACE))],
            command=list(request.argv),
            working_dir=request.cwd,
            environment=env,
            mounts=mounts,
            network_mode="bridge" if request.network else "none",
            read_only=True,
            tmpfs={"/tmp": f"rw,exec,nosuid,nodev,mode=1777{tmp_size}"},
            user=_sandbox_user(),
            cap_drop=["ALL"],
            security_opt=["no-new-privileges"],
            init=True,
            ipc_mode="private",
            hostname="sandbox",
            ulimits=ulimits,
            labels=labels,
            log_config=docker.types.LogConfig(type="json-file", config={"max-size": "1m", "max-file": "1"}),
            stdin_open=False,
            tty=False,
            oom_score_adj=500,
            detach=True,
        )
        if limits.memory_mb:
            kwargs["mem_limit"] = kwargs["memswap_limit"] = f"{limits.memory_mb}m"
        if limits.cpus:
            kwargs["nano_cpus"] = int(min(limits.cpus, os.cpu_count() or 1) * 1e9)
        if limits.pids:
            kwargs["pids_limit"] = limits.pids
        cap = limits.output_bytes or 4 * MB
        out, err = CappedBuffer(cap), CappedBuffer(cap)
        container = None
        sock = None
        reader = None
        timed_out = False
        started = time.monotonic()
        try:
            try:
                container = client.containers.create(**kwargs)
                sock = client.api.attach_socket(container.id, params={
                    "stdout": 1, "stderr": 1, "stream": 1, "logs": 1})
                _no_socket_timeout(sock)
                reader = threading.Thread(target=_pump_frames, args=(sock, out, err), daemon=True,
                                          name=f"docker-output-{request_id}")
                reader.start()
                started = time.monotonic()
                container.start()
            except docker.errors.APIError as exc:
                raise InfrastructureError(
                    f"docker could not start the sandbox container: {exc.explanation or exc}") from None
            except Exception as exc:  # requests errors: the daemon did not answer
                raise InfrastructureError(f"the Docker engine failed while starting the sandbox: {exc}") from None
            timed_out = _wait(container, started + request.timeout)
            if timed_out:
                _kill(container)
                notes.append(f"killed at the wall-clock limit of {request.timeout:g} s")
            finished = time.monotonic()
            if reader is not None:
                reader.join(timeout=READER_GRACE)
            state = _state(container)
            exit_code = state.get("ExitCode")
            oom_killed = bool(state.get("OOMKilled"))
            if oom_killed:
                notes.append(f"killed for exceeding the memory limit of {limits.memory_mb} MB")
            return SandboxResult(
                exit_code=exit_code,
                stdout=out.text(),
                stderr=err.text(),
                stdout_truncated=out.truncated,
                stderr_truncated=err.truncated,
                timed_out=timed_out,
                oom_killed=oom_killed,
                duration=finished - started,
                notes=notes,
            )
        finally:
            if sock is not None:
                _close(sock)
            if reader is not None and reader.is_alive():
                reader.join(timeout=1)
            _remove(client, container, request_id)

    # ---- leftovers -------------------------------------------------------------------------------

    def sweep_orphans(self) -> int:
        """Remove containers labelled `runners.managed` whose owning process on this host is gone."""
        import docker

        client = docker_client()
        removed = 0
        host = socket.gethostname()
        try:
            found = client.containers.list(all=True, filters={"label": f"{LABEL_MANAGED}=1"})
        except docker.errors.APIError:
            return 0
        for container in found:
            owner = (container.labels or {}).get(LABEL_OWNER, "")
            parts = owner.rsplit(":", 2)
            if len(parts) != 3 or parts[0] != host:
                continue  # another machine's (a shared engine) or unlabelled: not ours to judge
            try:
                pid, start = int(parts[1]), parts[2]
            except ValueError:
                continue
            if _process_alive(pid, start):
                continue
            try:
                container.remove(force=True)
                removed += 1
            except docker.errors.NotFound:
                pass
            except docker.errors.APIError:
                pass
        return removed

    def _sweep_once(self) -> None:
        global _swept
        if _swept:
            return
        with _sweep_lock:
            if _swept:
                return
            _swept = True
            self.sweep_orphans()


# ---- helpers -------------------------------------------------------------------------------------


def _owner() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{start_time(os.getpid()) or 0}"


def _process_alive(pid: int, start: str) -> bool:
    if os.path.isdir("/proc/self"):
        current = start_time(pid)  # None: gone or a zombie
        return current is not None and start in ("0", current)  # a reused pid has another start time
    try:  # no /proc: trust the pid
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _sandbox_user() -> str:
    """1000:1000 when the harness is root; otherwise the harness's own uid, so that everything the
    run writes into its mounts stays readable and removable by the harness."""
    if os.geteuid() == 0:
        return f"{SANDBOX_UID}:{SANDBOX_GID}"
    return f"{os.geteuid()}:{os.getegid()}"


def _grant_to_sandbox_user(root: Path) -> None:
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


def _network_settings(env: dict[str, str]) -> tuple[dict[str, str], list[Any], list[str]]:
    """For the prepare step: mount the host CA bundle and point the CA variables at it."""
    import docker

    from runners.images import host_ca_bundle

    env = dict(env)
    notes: list[str] = []
    bundle: Path | None = None
    for name in CA_FILE_VARS:
        value = env.get(name)
        if value and Path(value).is_file():
            bundle = Path(value)
            break
    bundle = bundle or host_ca_bundle()
    mounts = []
    if bundle is not None:
        mounts.append(docker.types.Mount(target=CA_TARGET, source=str(bundle.resolve()), type="bind",
                                         read_only=True))
        for name in CA_FILE_VARS:
            if name in env:
                env[name] = CA_TARGET
        env["SSL_CERT_FILE"] = CA_TARGET
        env["NODE_EXTRA_CA_CERTS"] = CA_TARGET
    env.pop("SSL_CERT_DIR", None)  # a host directory; the image has its own
    for name in PROXY_VARS:
        value = env.get(name)
        if not value:
            continue
        host = urlsplit(value if "://" in value else f"http://{value}").hostname or ""
        if host in ("localhost", "::1") or host.startswith("127."):
            notes.append(f"{name} points at this host's loopback ({host}), which a container on the "
                         "bridge network cannot reach; use an address the containers can route to")
    return env, mounts, notes


def _no_socket_timeout(sock: Any) -> None:
    """The attach socket inherits the client's read timeout; a quiet test must not end the stream."""
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
    except Exception:  # the socket closed under us: the run is over
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
        except Exception:
            pass


def _wait(container: Any, deadline: float) -> bool:
    """Wait for the container to exit; True when the deadline passed first.

    `Container.wait(timeout)` is only a request timeout (it raises requests' ConnectionError or
    ReadTimeout), so it is called in slices and the deadline is enforced here.
    """
    import docker
    import requests

    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return True
        asked = time.monotonic()
        try:
            container.wait(timeout=max(0.2, min(remaining, 30.0)))
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
    except (requests.exceptions.ConnectionError, requests.exceptions.Timeout, docker.errors.APIError):
        pass


def _state(container: Any) -> dict[str, Any]:
    import docker

    try:
        container.reload()
    except docker.errors.APIError:
        return {}
    return dict(container.attrs.get("State") or {})


def _remove(client: Any, container: Any, request_id: str) -> None:
    """Remove the request's container; if `create` failed client-side, find it by label."""
    import docker

    targets = [container] if container is not None else []
    if container is None:
        try:
            targets = client.containers.list(all=True, filters={"label": f"{LABEL_REQUEST}={request_id}"})
        except Exception:
            targets = []
    for target in targets:
        for _ in range(3):
            try:
                target.remove(force=True)
                break
            except docker.errors.NotFound:
                break
            except Exception:  # retried; a leftover is swept later by its label
                time.sleep(0.5)
