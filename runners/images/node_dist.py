"""Node for a base image without it: a /usr/local-like tree (bin/node, bin/npm, bin/npx) made
from the npm registry packages `node-linux-<arch>` and `npm`, fetched with `npm pack` (so the
registry is reached the way npm is configured here) and cached."""

from __future__ import annotations

import json
import platform
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

from runners.images.common import NODE_PACKAGE, NPM_PACKAGE, Log, quiet
from runners.model.errors import InfrastructureError


def _node_arch() -> str:
    machine = platform.machine().lower()
    return {
        "x86_64": "x64",
        "amd64": "x64",
        "aarch64": "arm64",
        "arm64": "arm64",
        "ppc64le": "ppc64le",
        "s390x": "s390x",
    }.get(machine, machine)


def _npm_pack(spec: str, dest: Path) -> Path:
    npm = shutil.which("npm")
    if npm is None:
        raise InfrastructureError(
            f"the base image has no node, and fetching {spec} needs npm on this machine "
            "(apt-get install npm), or build on a base that has node (e.g. node:22-slim)"
        )
    try:
        proc = subprocess.run(
            [npm, "pack", "--json", "--pack-destination", str(dest), spec],
            capture_output=True,
            text=True,
            timeout=600,
            cwd=dest,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise InfrastructureError(f"npm pack {spec} failed: {exc}") from None
    if proc.returncode != 0:
        raise InfrastructureError(f"npm pack {spec} failed:\n{proc.stderr.strip()[-2000:]}")
    try:
        filename = json.loads(proc.stdout)[0]["filename"]
    except (ValueError, LookupError, TypeError):
        filename = proc.stdout.strip().splitlines()[-1]
    path = dest / Path(filename).name
    if not path.is_file():
        raise InfrastructureError(f"npm pack {spec}: {path} was not written")
    return path


def _extract_package(tgz: Path, dest: Path) -> Path:
    """Extract an npm package tarball (its files sit under `package/`) into `dest`."""
    with tarfile.open(tgz) as archive:
        if hasattr(tarfile, "tar_filter"):  # Python 3.11.4+: refuse absolute paths and escapes
            archive.extractall(dest, filter="tar")
        else:  # pragma: no cover - older 3.11
            archive.extractall(dest)
    root = dest / "package"
    if not root.is_dir():
        raise InfrastructureError(f"{tgz.name}: no package/ directory inside")
    return root


def node_distribution(
    cache_dir: Path | None = None, *, refresh: bool = False, log: Log = quiet
) -> Path:
    """A directory laid out like /usr/local with bin/node, bin/npm, bin/npx and
    lib/node_modules/npm, built from the npm registry packages and cached under `cache_dir`.

    A cached distribution is reused without asking the registry unless `refresh`.
    """
    cache = Path(cache_dir) if cache_dir else _node_cache()
    cache.mkdir(parents=True, exist_ok=True)
    if not refresh:
        cached = cached_node_dists(cache)
        if cached:
            return cached[-1]
    with tempfile.TemporaryDirectory(dir=cache) as tmp_name:
        tmp = Path(tmp_name)
        node_spec = NODE_PACKAGE.format(arch=_node_arch())
        log(f"fetching {node_spec} and {NPM_PACKAGE} with npm pack")
        node_tgz = _npm_pack(node_spec, tmp)
        npm_tgz = _npm_pack(NPM_PACKAGE, tmp)
        name = f"{node_tgz.name.removesuffix('.tgz')}+{npm_tgz.name.removesuffix('.tgz')}"
        final = cache / name
        if (final / ".complete").is_file():
            return final
        build = tmp / "dist"
        node_pkg = _extract_package(node_tgz, tmp / "node")
        npm_pkg = _extract_package(npm_tgz, tmp / "npm")
        node_bin = node_pkg / "bin" / "node"
        if not node_bin.is_file():
            raise InfrastructureError(f"{node_tgz.name} has no bin/node")
        (build / "bin").mkdir(parents=True)
        (build / "lib" / "node_modules").mkdir(parents=True)
        shutil.copy2(node_bin, build / "bin" / "node")
        (build / "bin" / "node").chmod(0o755)
        shutil.copytree(npm_pkg, build / "lib" / "node_modules" / "npm", symlinks=True)
        for tool in ("npm", "npx"):
            script = build / "lib" / "node_modules" / "npm" / "bin" / f"{tool}-cli.js"
            if not script.is_file():
                raise InfrastructureError(f"{npm_tgz.name} has no bin/{tool}-cli.js")
            script.chmod(0o755)
            (build / "bin" / tool).symlink_to(f"../lib/node_modules/npm/bin/{tool}-cli.js")
        (build / ".complete").write_text(name + "\n")
        shutil.rmtree(final, ignore_errors=True)
        build.rename(final)
    return final


def _node_cache() -> Path:
    from runners.model.environment import default_cache_dir

    return default_cache_dir() / "node-dist"


def cached_node_dists(cache: Path | None = None) -> list[Path]:
    """Complete cached distributions, oldest first."""
    root = cache or _node_cache()
    if not root.is_dir():
        return []
    found = [p for p in root.iterdir() if (p / ".complete").is_file()]
    return sorted(found, key=lambda p: (p / ".complete").stat().st_mtime)


def base_has_node(client, base_image: str) -> bool:
    import docker

    container = None
    try:
        container = client.containers.create(
            base_image, ["node", "--version"], entrypoint=[], network_mode="none"
        )
        container.start()
        return container.wait(timeout=120).get("StatusCode") == 0
    except docker.errors.APIError:
        return False
    finally:
        if container is not None:
            try:
                container.remove(force=True)
            except docker.errors.APIError:
                pass
