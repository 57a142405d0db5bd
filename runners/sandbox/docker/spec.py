"""Request -> container arguments: a pure function of its inputs (no engine, no filesystem), so the
locked-down profile is checked in a unit test without Docker.

The profile: no network (`network_mode="none"`: only `lo`), except for the prepare step, which
gets the default bridge, the host CA bundle read-only and the request's proxy variables; a
read-only root filesystem with a private `/tmp` tmpfs; only the request's mounts; a non-root
user, all capabilities dropped, `no-new-privileges`; memory = memory+swap, CPUs, pids, `nofile`
and `fsize` rlimits; docker-init as pid 1; labels for the sweep; a json-file log capped at 1 MB.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from runners.sandbox.base import SandboxRequest
from runners.sandbox.docker.sweep import (
    LABEL_MANAGED,
    LABEL_OWNER,
    LABEL_PURPOSE,
    LABEL_REQUEST,
    LABEL_RUN,
)

MB = 1024 * 1024
CA_TARGET = "/etc/runners/ca-bundle.crt"
# Variables that name a CA bundle file; inside the container they point at the mounted bundle.
CA_FILE_VARS = (
    "SSL_CERT_FILE",
    "REQUESTS_CA_BUNDLE",
    "PIP_CERT",
    "CURL_CA_BUNDLE",
    "NODE_EXTRA_CA_CERTS",
    "NPM_CONFIG_CAFILE",
    "npm_config_cafile",
)
PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")
# Creates HOME (it lives on the fresh /tmp tmpfs) and execs the command under coreutils `timeout`
# as a backstop: should the harness die mid-run, the container still ends (docker-init, pid 1,
# exits with its child `timeout`, and that takes the whole pid namespace down with it).
WRAPPER = (
    'limit="$1"; shift; mkdir -p "$HOME" 2>/dev/null; '
    'if command -v timeout >/dev/null 2>&1; then exec timeout -s KILL "$limit" "$@"; fi; '
    'exec "$@"'
)
# Seconds past the request's timeout after which the in-container backstop kills the command.
BACKSTOP_GRACE = 30


def container_spec(
    request: SandboxRequest,
    *,
    image: str,
    user: str,
    owner: str,
    request_id: str,
    cpu_count: int,
    ca_bundle: Path | None = None,
    cgroup_parent: str | None = None,
) -> tuple[dict[str, Any], list[str]]:
    """The keyword arguments of `containers.create` for `request`, and notes for the result.

    Mount sources are used as given (the caller resolves and checks them); `ca_bundle` is the host
    CA file mounted for a prepare step (None: none); `cgroup_parent` the container's cgroup parent
    (None: the engine's default).
    """
    import docker

    limits = request.limits
    env = dict(request.env)
    notes: list[str] = []
    mounts = [
        docker.types.Mount(
            target=m.target, source=str(m.source), type="bind", read_only=not m.writable
        )
        for m in request.mounts
    ]
    if request.network:
        env, notes = network_env(env, ca_bundle is not None)
        if ca_bundle is not None:
            mounts.append(
                docker.types.Mount(
                    target=CA_TARGET, source=str(ca_bundle), type="bind", read_only=True
                )
            )
    ulimits = [docker.types.Ulimit(name="core", soft=0, hard=0)]
    if limits.nofile:
        ulimits.append(docker.types.Ulimit(name="nofile", soft=limits.nofile, hard=limits.nofile))
    if limits.file_size_mb:
        size = limits.file_size_mb * MB
        ulimits.append(docker.types.Ulimit(name="fsize", soft=size, hard=size))
    tmp_size = f",size={limits.tmp_size_mb}m" if limits.tmp_size_mb else ""
    spec: dict[str, Any] = {
        "image": image,
        "entrypoint": [
            "/bin/sh",
            "-c",
            WRAPPER,
            "sandbox",
            str(int(request.timeout + BACKSTOP_GRACE)),
        ],
        "command": list(request.argv),
        "working_dir": request.cwd,
        "environment": env,
        "mounts": mounts,
        "network_mode": "bridge" if request.network else "none",
        "read_only": True,
        "tmpfs": {"/tmp": f"rw,exec,nosuid,nodev,mode=1777{tmp_size}"},
        "user": user,
        "cap_drop": ["ALL"],
        "security_opt": ["no-new-privileges"],
        "init": True,
        "ipc_mode": "private",
        "hostname": "sandbox",
        "ulimits": ulimits,
        "labels": {
            LABEL_MANAGED: "1",
            LABEL_RUN: request.run_id,
            LABEL_OWNER: owner,
            LABEL_PURPOSE: request.purpose,
            LABEL_REQUEST: request_id,
        },
        "log_config": docker.types.LogConfig(
            type="json-file", config={"max-size": "1m", "max-file": "1"}
        ),
        "stdin_open": False,
        "tty": False,
        "oom_score_adj": 500,
        "detach": True,
    }
    if limits.memory_mb:
        spec["mem_limit"] = spec["memswap_limit"] = f"{limits.memory_mb}m"
    if limits.cpus:
        spec["nano_cpus"] = int(min(limits.cpus, cpu_count) * 1e9)
    if limits.pids:
        spec["pids_limit"] = limits.pids
    if cgroup_parent:
        spec["cgroup_parent"] = cgroup_parent
    return spec, notes


def network_env(env: dict[str, str], has_bundle: bool) -> tuple[dict[str, str], list[str]]:
    """A prepare step's environment: CA variables point at the mounted bundle; a proxy on the
    host's loopback, which the bridge cannot reach, is noted."""
    env = dict(env)
    notes: list[str] = []
    if has_bundle:
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
            notes.append(
                f"{name} points at this host's loopback ({host}), which a container on the "
                "bridge network cannot reach; use an address the containers can route to"
            )
    return env, notes


def sandbox_user(euid: int, egid: int, uid: int = 1000, gid: int = 1000) -> str:
    """`uid:gid` (1000:1000) when the harness is root; otherwise the harness's own ids, so that
    everything the run writes into its mounts stays readable and removable by the harness."""
    return f"{uid}:{gid}" if euid == 0 else f"{euid}:{egid}"
