"""A preset's CLI, installed once at its pinned version where the agent runs.

- docker: an agent image `runners-agent-<preset>:<version>` (runners/docker/agent.Dockerfile on
  the runners-cases image), built on first use and rebuilt when its recipe changes;
- bubblewrap and none: a cached toolchain, like a problem's (runners/toolchains): `npm install
  --global --prefix` or a uv venv, built in the sandbox's prepare step into the harness's cache,
  keyed by the package and version, and mounted read-only (that directory alone) into the step.

One install per (preset, sandbox, cache) and process, whoever asks first; the others wait for it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from runners.agents.presets.base import Preset
from runners.images.common import (
    DOCKER_DIR,
    PROXY_ARGS,
    RECIPE_LABEL,
    ImageKind,
    Log,
    docker_client,
    host_ca_bundle,
    quiet,
)
from runners.model.environment import EnvironmentSpec
from runners.sandbox.base import Mount, Sandbox
from runners.toolchains.cache import ensure_env

DOCKERFILE = DOCKER_DIR / "agent.Dockerfile"
IMAGE_BIN = "/opt/runners-agent/bin"
BASE_KIND: ImageKind = "cases"


@dataclass(frozen=True)
class Installed:
    """Where the CLI is, as the step sees it."""

    path: tuple[str, ...]  # directories put first on PATH
    mounts: tuple[Mount, ...] = ()
    image: str | None = None  # docker: the image to run the step in


_lock = threading.Lock()
_done: dict[tuple[str, str, str], Installed] = {}
_locks: dict[tuple[str, str, str], threading.Lock] = {}


def install(
    preset: Preset, sandbox: Sandbox, environment: EnvironmentSpec, log: Log = quiet
) -> Installed:
    """The preset's CLI where `sandbox` runs it (installed now if it is not yet)."""
    key = (preset.requirement, sandbox.name, str(environment.cache_dir))
    with _lock:
        lock = _locks.setdefault(key, threading.Lock())
    with lock:
        if key not in _done:
            if sandbox.name == "docker":
                _done[key] = Installed(path=(IMAGE_BIN,), image=agent_image(preset, log))
            else:
                _done[key] = _toolchain(preset, sandbox, environment)
        return _done[key]


def _recipe(preset: Preset, base_id: str) -> str:
    material = (
        f"{DOCKERFILE.read_bytes().hex()}\n{base_id}\n{preset.installer}\n{preset.requirement}"
    )
    return hashlib.sha256(material.encode()).hexdigest()[:24]


def agent_image(preset: Preset, log: Log = quiet, rebuild: bool = False) -> str:
    """The preset's image, built when missing or built from another recipe; its tag."""
    import docker

    from runners.images.build import docker_build, ensure_images

    client = docker_client()
    base = ensure_images([BASE_KIND], log=log)[BASE_KIND]
    recipe = _recipe(preset, client.images.get(base).id)
    try:
        current = (client.images.get(preset.image).labels or {}).get(RECIPE_LABEL) == recipe
    except docker.errors.ImageNotFound:
        current = False
    if current and not rebuild:
        return preset.image
    log(f"building {preset.image}: {preset.title} {preset.version} on {base}")
    with tempfile.TemporaryDirectory(prefix="runners-agent-image-") as tmp:
        context = Path(tmp)
        shutil.copy(DOCKERFILE, context / "Dockerfile")
        ca = host_ca_bundle()
        (context / "host-ca.crt").write_bytes(ca.read_bytes() if ca is not None else b"")
        args = {
            "BASE_IMAGE": base,
            "INSTALLER": preset.installer,
            "PACKAGE": preset.requirement,
            **{name: os.environ[name] for name in PROXY_ARGS if os.environ.get(name)},
        }
        docker_build(
            client,
            context,
            preset.image,
            args,
            {RECIPE_LABEL: recipe, "runners.kind": "agent"},
            log,
            f"building the agent image {preset.image} ({preset.title} {preset.version})",
        )
    return preset.image


def _toolchain(preset: Preset, sandbox: Sandbox, environment: EnvironmentSpec) -> Installed:
    run_id = f"agent-install-{preset.name}"
    if preset.installer == "npm":
        from runners.toolchains.node import NodeToolchains

        node = NodeToolchains(
            sandbox, environment.cache_dir, None, environment.prepare_timeout, run_id
        )

        def npm_build(host_tmp: Path, sandbox_tmp: str) -> None:
            from runners.engine.excerpt import with_output
            from runners.model.errors import InfrastructureError

            host_tmp.mkdir(parents=True)
            npm = node.host.npm_for_toolchains(node.node)
            result = node.install_step(
                [
                    *npm,
                    "install",
                    "--global",
                    "--prefix",
                    sandbox_tmp,
                    "--no-audit",
                    "--no-fund",
                    "--loglevel=error",
                    preset.requirement,
                ],
                host_tmp,
                sandbox_tmp,
            )
            if result.exit_code != 0:
                why = "timed out" if result.timed_out else f"exit code {result.exit_code}"
                raise InfrastructureError(
                    with_output(
                        f"installing {preset.requirement} failed ({why})",
                        result.stderr,
                        result.stdout,
                    )
                )

        cached = ensure_env(
            node.host_root,
            node.sandbox_root,
            f"agent-{preset.name}",
            {"node": node.identity, "package": preset.requirement},
            npm_build,
        )
        return Installed(
            path=(f"{cached.sandbox_dir}/bin", os.path.dirname(node.node)),
            mounts=(
                Mount(source=cached.host_dir, target=cached.sandbox_dir),
                *node.host.program_mounts(node.node),
            ),
        )
    from runners.toolchains.python import PythonToolchains

    python = PythonToolchains(
        sandbox, environment.cache_dir, None, environment.prepare_timeout, run_id
    )
    env = python.requirements_venv(
        [preset.requirement], f"agent-{preset.name}", f"{preset.title} {preset.version}"
    )
    return Installed(
        path=(env.bin_dir,),
        mounts=(
            Mount(source=env.cached.host_dir, target=env.cached.sandbox_dir),
            *python.host.interpreter_mounts(python.python),
        ),
    )
