"""Building the docker backend's images (`runners-python`, `runners-node`) through the docker SDK.

```
build_image("python", "python:3.12-slim")                 -> "runners-python:latest"
build_image("node", "runners-local-base:bookworm")         -> "runners-node:latest"
ensure_images()    # both, on the local base when it exists; skipped when already up to date
ensure_images(["python"], pythons=["3.12"])   # also runners-python:3.12
```

An image for another Python version (`runners-python:3.12`) is built on `python:3.12-slim`, or on
the local base with a host build of that version (pyenv, uv-managed) copied under /usr/local.

The build context is assembled in a temporary directory: the Dockerfile shipped in
`runners/docker/`, the harness's own uv binary (python), the pinned `python-tools.txt`, the host CA
bundle, and for a base without node a Node distribution taken from the npm registry packages
`node-linux-<arch>` and `npm` (with `npm pack`, so the registry is reached the way npm is
configured here). Proxy variables of the harness's environment are passed as build args.

Every image carries the label `runners.recipe`, a hash of everything that went into it (the
Dockerfile, the base image id, uv, the tools list, the node distribution); `ensure_images` rebuilds
only when it differs.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Literal

from runners.errors import InfrastructureError, UserInputError

ImageKind = Literal["python", "node"]
KINDS: tuple[ImageKind, ...] = ("python", "node")

DOCKER_DIR = Path(__file__).with_name("docker")
TOOLS_FILE = Path(__file__).parent / "toolchains" / "python-tools.txt"
DEFAULT_TAGS: dict[str, str] = {"python": "runners-python:latest", "node": "runners-node:latest"}
# What real users build on (pulled from their registry); CI uses the local debootstrapped base.
OFFICIAL_BASES: dict[str, str] = {"python": "python:3.12-slim", "node": "node:22-slim"}
LOCAL_BASE = "runners-local-base:bookworm"
NODE_PACKAGE = "node-linux-{arch}@22"
NPM_PACKAGE = "npm@10"
RECIPE_LABEL = "runners.recipe"
PROXY_ARGS = ("HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY",
              "http_proxy", "https_proxy", "no_proxy", "all_proxy")
CA_CANDIDATES = ("/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt",
                 "/etc/ssl/cert.pem")
CLIENT_TIMEOUT = 600

Log = Callable[[str], None]


def _quiet(_: str) -> None:
    pass


def docker_client(timeout: int = CLIENT_TIMEOUT):
    try:
        import docker
    except ImportError as exc:  # pragma: no cover - docker is a dependency
        raise InfrastructureError(f"the docker Python SDK is not installed: {exc}") from None
    try:
        client = docker.from_env(timeout=timeout)
        client.ping()
    except docker.errors.DockerException as exc:
        raise InfrastructureError(
            f"cannot reach the Docker engine ({exc}); start it (`dockerd &` or "
            "`systemctl start docker`) and check DOCKER_HOST"
        ) from None
    return client


def host_ca_bundle() -> Path | None:
    """The CA bundle downloads on this host trust (it may hold an intercepting proxy's CA)."""
    for candidate in (os.environ.get("SSL_CERT_FILE"), os.environ.get("REQUESTS_CA_BUNDLE"),
                      *CA_CANDIDATES):
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    return None


def image_exists(client, name: str) -> bool:
    import docker

    try:
        client.images.get(name)
        return True
    except docker.errors.ImageNotFound:
        return False


def default_base_image(kind: ImageKind, client=None) -> str:
    """The local debootstrapped base when it exists (CI, offline machines), else the official one."""
    client = client or docker_client()
    return LOCAL_BASE if image_exists(client, LOCAL_BASE) else OFFICIAL_BASES[kind]


# ---- a Python of another version: python:X.Y-slim, or a host build on the local base ---------

PYTHON_DIST_DIR = "python-dist"
# Skipped when a host interpreter is copied into an image: tests never import these.
_PYTHON_DIST_SKIP = ("test", "idlelib", "tkinter", "turtledemo")


def python_tag(version: str, repository: str = "runners-python") -> str:
    return f"{repository}:{version}"


def python_base(version: str, client=None) -> str:
    """The base a `version` image is built on: the local base (a host build of that Python is
    copied in) when it exists, else the official `python:X.Y-slim`."""
    client = client or docker_client()
    return LOCAL_BASE if image_exists(client, LOCAL_BASE) else f"python:{version}-slim"


def check_python_version(version: str) -> str:
    import re

    if not re.fullmatch(r"3\.\d+", version):
        raise UserInputError(f"option --python: expected a version like 3.12 for an image, got {version!r}")
    return version


def host_python_prefix(version: str) -> tuple[Path, str]:
    """The installation prefix of a host interpreter of `version` (pyenv, uv-managed or a
    source build; not the system's, whose files are spread over /usr) and its identity."""
    from runners.pythons import PythonRequest, find_host_python
    from runners.toolchains.hosts import host_interpreter_identity

    python = find_host_python(PythonRequest(version, "option --python"))
    identity = host_interpreter_identity(python)  # "<realpath> <version> <machine> <base prefix>"
    prefix = Path(identity.rsplit(" ", 1)[-1])
    if str(prefix) in ("/usr", "/usr/local") or not (prefix / "bin").is_dir():
        raise UserInputError(
            f"option --python: the Python {version} found here ({python}) is installed in {prefix}, "
            "which cannot be copied into an image on its own; install one with pyenv or uv, or "
            f"build on python:{version}-slim (--base-image)"
        )
    return prefix, identity


def _copy_python(prefix: Path, target: Path) -> None:
    def skip(directory: str, names: list[str]) -> list[str]:
        inside_lib = Path(directory).parent.name == "lib" and Path(directory).name.startswith("python")
        return [n for n in names if inside_lib and n in _PYTHON_DIST_SKIP]

    shutil.copytree(prefix, target, symlinks=True, ignore=skip)


def _with_python_layer(dockerfile: str) -> str:
    """The Dockerfile with the copied interpreter installed under /usr/local right after FROM
    (its libpython is found through ld.so's cache; python3 on PATH is then this one)."""
    head, sep, tail = dockerfile.partition("FROM ${BASE_IMAGE}\n")
    if not sep:
        raise InfrastructureError("runners/docker/python.Dockerfile has no `FROM ${BASE_IMAGE}` line")
    return f"{head}{sep}COPY {PYTHON_DIST_DIR}/ /usr/local/\nRUN ldconfig\n{tail}"


# ---- node distribution for bases without node ------------------------------------------------


def _node_arch() -> str:
    machine = platform.machine().lower()
    return {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64",
            "ppc64le": "ppc64le", "s390x": "s390x"}.get(machine, machine)


def _npm_pack(spec: str, dest: Path) -> Path:
    npm = shutil.which("npm")
    if npm is None:
        raise InfrastructureError(
            f"the base image has no node, and fetching {spec} needs npm on this machine "
            "(apt-get install npm), or build on a base that has node (e.g. node:22-slim)"
        )
    try:
        proc = subprocess.run([npm, "pack", "--json", "--pack-destination", str(dest), spec],
                              capture_output=True, text=True, timeout=600, cwd=dest, check=False)
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


def node_distribution(cache_dir: Path | None = None, *, refresh: bool = False,
                      log: Log = _quiet) -> Path:
    """A directory laid out like /usr/local with bin/node, bin/npm, bin/npx and
    lib/node_modules/npm, built from the npm registry packages and cached under `cache_dir`.

    A cached distribution is reused without asking the registry unless `refresh`.
    """
    cache = Path(cache_dir) if cache_dir else _node_cache()
    cache.mkdir(parents=True, exist_ok=True)
    if not refresh:
        cached = _cached_node_dists(cache)
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
    from runners.environment import default_cache_dir

    return default_cache_dir() / "node-dist"


def _cached_node_dists(cache: Path | None = None) -> list[Path]:
    """Complete cached distributions, oldest first."""
    root = cache or _node_cache()
    if not root.is_dir():
        return []
    found = [p for p in root.iterdir() if (p / ".complete").is_file()]
    return sorted(found, key=lambda p: (p / ".complete").stat().st_mtime)


def _base_has_node(client, base_image: str) -> bool:
    import docker

    container = None
    try:
        container = client.containers.create(base_image, ["node", "--version"], entrypoint=[],
                                             network_mode="none")
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


# ---- building --------------------------------------------------------------------------------


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _tree_digest(root: Path) -> str:
    marker = root / ".complete"
    if marker.is_file():
        return marker.read_text().strip()
    return "empty"


def _assemble_context(kind: ImageKind, context: Path, client, base_image: str,
                      node_dist: Path | None, log: Log, python: str | None = None) -> dict[str, str]:
    """Fill `context`; returns the recipe material (what makes this build different)."""
    dockerfile = DOCKER_DIR / f"{kind}.Dockerfile"
    shutil.copy(dockerfile, context / "Dockerfile")
    material = {"kind": kind, "dockerfile": hashlib.sha256(dockerfile.read_bytes()).hexdigest()}
    if kind == "python" and python and base_image == LOCAL_BASE:
        prefix, identity = host_python_prefix(python)
        log(f"copying the host's Python {python} from {prefix}")
        _copy_python(prefix, context / PYTHON_DIST_DIR)
        (context / "Dockerfile").write_text(_with_python_layer(dockerfile.read_text()))
        material["python"] = identity
    if kind == "python":
        from uv import find_uv_bin

        uv = Path(find_uv_bin())
        shutil.copy2(uv, context / "uv")
        shutil.copy(TOOLS_FILE, context / "python-tools.txt")
        material["uv"] = _sha256_file(uv)
        material["tools"] = hashlib.sha256(TOOLS_FILE.read_bytes()).hexdigest()
        ca = host_ca_bundle()
        if ca is not None:
            shutil.copy(ca, context / "host-ca.crt")
        else:
            (context / "host-ca.crt").write_bytes(b"")
    else:
        target = context / "node-dist"
        if node_dist is None and not _base_has_node(client, base_image):
            node_dist = node_distribution(log=log)
        if node_dist is not None:
            shutil.copytree(node_dist, target, symlinks=True,
                            ignore=shutil.ignore_patterns(".complete"))
            material["node"] = _tree_digest(node_dist)
        else:
            target.mkdir()
            material["node"] = "from-base"
    return material


def recipe_key(material: dict[str, str]) -> str:
    return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()[:24]


def build_image(
    kind: ImageKind,
    base_image: str,
    tag: str | None = None,
    *,
    bake_toolchain: bool = False,
    node_dist: Path | None = None,
    python: str | None = None,
    log: Log = _quiet,
    client=None,
) -> str:
    """Build the `kind` image on `base_image` and tag it; returns the tag.

    `base_image` must exist locally or be pullable. For `node`, a base without node gets a
    Node distribution from the npm registry (or `node_dist`, a /usr/local-like directory).
    `python` ("3.12", kind python only): on the local base, a host interpreter of that version is
    copied in; other bases must have it already (python:3.12-slim).
    Raises `UserInputError` for a bad kind and `InfrastructureError` when the build fails.
    """
    import docker

    if kind not in KINDS:
        raise UserInputError(f"option --kind: unknown image kind {kind!r} (expected python or node)")
    tag = tag or DEFAULT_TAGS[kind]
    client = client or docker_client()
    try:
        base_id = client.images.get(base_image).id
    except docker.errors.ImageNotFound:
        base_id = base_image  # the build pulls it (real users); offline this fails with a message
    try:
        previous = client.images.get(tag).id
    except docker.errors.ImageNotFound:
        previous = None
    with tempfile.TemporaryDirectory(prefix=f"runners-image-{kind}-") as tmp:
        context = Path(tmp)
        material = _assemble_context(kind, context, client, base_image, node_dist, log, python)
        material.update({"base": base_id, "bake": str(bool(bake_toolchain))})
        buildargs = {"BASE_IMAGE": base_image}
        if kind == "python":
            buildargs["BAKE_TOOLCHAIN"] = "1" if bake_toolchain else "0"
        buildargs.update({name: os.environ[name] for name in PROXY_ARGS if os.environ.get(name)})
        labels = {RECIPE_LABEL: recipe_key(material), "runners.kind": kind}
        log(f"building {tag} ({kind}) on {base_image}")
        image_id = None
        errors: list[str] = []
        tail: list[str] = []
        try:
            for chunk in client.api.build(path=str(context), tag=tag, buildargs=buildargs,
                                          labels=labels, rm=True, forcerm=True, pull=False,
                                          decode=True):
                if "stream" in chunk:
                    for line in str(chunk["stream"]).splitlines():
                        if line.strip():
                            log(line)
                            tail = (tail + [line])[-30:]
                if "error" in chunk:
                    errors.append(str(chunk.get("error")))
                aux = chunk.get("aux")
                if isinstance(aux, dict) and "ID" in aux:
                    image_id = aux["ID"]
        except docker.errors.APIError as exc:
            errors.append(str(exc))
        if errors or image_id is None:
            detail = "\n    ".join([*tail[-12:], *errors])
            raise InfrastructureError(f"building {tag} on {base_image} failed:\n    {detail}")
    if previous and not image_id.endswith(previous.split(":", 1)[-1]):
        try:  # the image this tag replaced; kept when a container or another tag still uses it
            client.images.remove(previous)
        except docker.errors.APIError:
            pass
    return tag


def image_is_current(client, tag: str, kind: ImageKind, base_image: str,
                     node_dist: Path | None = None, python: str | None = None) -> bool:
    """Whether `tag` exists and was built from exactly this recipe (cheap: no build context)."""
    import docker

    try:
        image = client.images.get(tag)
        base_id = client.images.get(base_image).id
    except docker.errors.ImageNotFound:
        return False
    label = (image.labels or {}).get(RECIPE_LABEL)
    if not label:
        return False
    dockerfile = DOCKER_DIR / f"{kind}.Dockerfile"
    material = {"kind": kind, "dockerfile": hashlib.sha256(dockerfile.read_bytes()).hexdigest(),
                "base": base_id, "bake": str(False)}
    if kind == "python":
        from uv import find_uv_bin

        if python and base_image == LOCAL_BASE:
            material["python"] = host_python_prefix(python)[1]
        material["uv"] = _sha256_file(Path(find_uv_bin()))
        material["tools"] = hashlib.sha256(TOOLS_FILE.read_bytes()).hexdigest()
        return label == recipe_key(material)
    # node: the distribution's version is only known after `npm pack`; accept any node recipe
    # built on this base with this Dockerfile (rebuild explicitly to pick up a newer node).
    candidates = ["from-base", *(_tree_digest(p) for p in _cached_node_dists())]
    if node_dist is not None:
        candidates.append(_tree_digest(node_dist))
    return any(label == recipe_key({**material, "node": node}) for node in candidates)


def ensure_images(
    kinds: Iterable[ImageKind] = KINDS,
    base_image: str | None = None,
    *,
    tags: dict[str, str] | None = None,
    rebuild: bool = False,
    pythons: Iterable[str] = (),
    log: Log = _quiet,
) -> dict[str, str]:
    """Make sure the images exist and are current; returns {kind: tag}. Used by tests and CI.

    Without `base_image`, each kind is built on the local base when it exists, else on the
    official image (which must then be available to the engine).
    """
    client = docker_client()
    built: dict[str, str] = {}
    for kind in kinds:
        tag = (tags or {}).get(kind) or DEFAULT_TAGS[kind]
        base = base_image or default_base_image(kind, client)
        if not rebuild and image_is_current(client, tag, kind, base):
            log(f"{tag} is up to date")
        else:
            build_image(kind, base, tag, log=log, client=client)
        built[kind] = tag
    for version in pythons:  # runners-python:X.Y, for runs that ask for that Python
        version = check_python_version(version)
        tag = python_tag(version)
        base = base_image or python_base(version, client)
        if not rebuild and image_is_current(client, tag, "python", base, python=version):
            log(f"{tag} is up to date")
        else:
            build_image("python", base, tag, python=version, log=log, client=client)
        built[f"python {version}"] = tag
    return built
