"""Building an image: the context (Dockerfile, uv, tools list, CA bundle, node or a Python),
its recipe label, the build through the docker SDK, and `ensure_images` (build only what is
stale)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path

from runners.images.common import (
    DEFAULT_TAGS,
    DERIVED,
    DOCKER_DIR,
    KINDS,
    LOCAL_BASE,
    PROXY_ARGS,
    RECIPE_LABEL,
    TOOLS_FILE,
    ImageKind,
    Log,
    default_base_image,
    docker_client,
    host_ca_bundle,
    quiet,
)
from runners.images.node_dist import base_has_node, cached_node_dists, node_distribution
from runners.images.python_dist import (
    PYTHON_DIST_DIR,
    check_python_version,
    copy_python,
    host_python_prefix,
    python_base,
    python_tag,
    with_python_layer,
)
from runners.images.rust_dist import RUST_DIST_DIR, copy_rust, host_rust, rust_identity
from runners.model.errors import InfrastructureError, UserInputError

# Kinds whose image gets a Node distribution when the base has none (python: SCBench's image has
# Node; cases, built on it, then finds node in its base).
NODE_KINDS = ("node", "python", "cases")


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


def _assemble_context(
    kind: ImageKind,
    context: Path,
    client,
    base_image: str,
    node_dist: Path | None,
    log: Log,
    python: str | None = None,
) -> dict[str, str]:
    """Fill `context`; returns the recipe material (what makes this build different)."""
    dockerfile = DOCKER_DIR / f"{kind}.Dockerfile"
    shutil.copy(dockerfile, context / "Dockerfile")
    material = {"kind": kind, "dockerfile": hashlib.sha256(dockerfile.read_bytes()).hexdigest()}
    if kind == "python" and python and base_image == LOCAL_BASE:
        prefix, identity = host_python_prefix(python)
        log(f"copying the host's Python {python} from {prefix}")
        copy_python(prefix, context / PYTHON_DIST_DIR)
        (context / "Dockerfile").write_text(with_python_layer(dockerfile.read_text()))
        material["python"] = identity
    if kind == "python":
        uv = _uv_binary()
        shutil.copy2(uv, context / "uv")
        shutil.copy2(uv.with_name("uvx"), context / "uvx")
        shutil.copy(TOOLS_FILE, context / "python-tools.txt")
        material.update(_python_material())
        sysroot = host_rust()
        if sysroot is not None:
            log(f"copying this machine's Rust toolchain from {sysroot}")
        copy_rust(sysroot, context / RUST_DIST_DIR)
        ca = host_ca_bundle()
        if ca is not None:
            shutil.copy(ca, context / "host-ca.crt")
        else:
            (context / "host-ca.crt").write_bytes(b"")
    if kind in NODE_KINDS:
        target = context / "node-dist"
        if node_dist is None and not base_has_node(client, base_image):
            node_dist = node_distribution(log=log)
        if node_dist is not None:
            shutil.copytree(
                node_dist, target, symlinks=True, ignore=shutil.ignore_patterns(".complete")
            )
            material["node"] = _tree_digest(node_dist)
        else:
            target.mkdir()
            material["node"] = "from-base"
    return material


def _uv_binary() -> Path:
    from uv import find_uv_bin

    return Path(find_uv_bin())


def _python_material() -> dict[str, str]:
    """What the python image takes from this harness: uv and uvx, the pinned tools list."""
    uv = _uv_binary()
    return {
        "uv": _sha256_file(uv),
        "uvx": _sha256_file(uv.with_name("uvx")),
        "tools": hashlib.sha256(TOOLS_FILE.read_bytes()).hexdigest(),
        "rust": rust_identity(host_rust()),
    }


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
    log: Log = quiet,
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
        raise UserInputError(
            f"option --kind: unknown image kind {kind!r} (expected {', '.join(KINDS)})"
        )
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
        image_id = docker_build(
            client, context, tag, buildargs, labels, log, f"building {tag} on {base_image}"
        )
    if previous and not image_id.endswith(previous.split(":", 1)[-1]):
        try:  # the image this tag replaced; kept when a container or another tag still uses it
            client.images.remove(previous)
        except docker.errors.APIError:
            pass
    return tag


def docker_build(
    client,
    context: Path,
    tag: str,
    buildargs: dict[str, str],
    labels: dict[str, str],
    log: Log,
    what: str,
) -> str:
    """Build `context` into `tag` through the docker SDK, its output to `log`; the image id.
    InfrastructureError with the build's last lines when it fails."""
    import docker

    image_id = None
    errors: list[str] = []
    tail: list[str] = []
    try:
        for chunk in client.api.build(
            path=str(context),
            tag=tag,
            buildargs=buildargs,
            labels=labels,
            rm=True,
            forcerm=True,
            pull=False,
            decode=True,
        ):
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
        raise InfrastructureError(f"{what} failed:\n    {detail}")
    return str(image_id)


def image_is_current(
    client,
    tag: str,
    kind: ImageKind,
    base_image: str,
    node_dist: Path | None = None,
    python: str | None = None,
) -> bool:
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
    material = {
        "kind": kind,
        "dockerfile": hashlib.sha256(dockerfile.read_bytes()).hexdigest(),
        "base": base_id,
        "bake": str(False),
    }
    if kind == "python":
        if python and base_image == LOCAL_BASE:
            material["python"] = host_python_prefix(python)[1]
        material.update(_python_material())
    if kind not in NODE_KINDS:  # go, browser: the Dockerfile and the base are the whole recipe
        return label == recipe_key(material)
    # node, python, cases: the distribution's version is only known after `npm pack`; accept any
    # node recipe built on this base with this Dockerfile (rebuild explicitly to pick up a newer
    # node).
    candidates = ["from-base", *(_tree_digest(p) for p in cached_node_dists())]
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
    log: Log = quiet,
) -> dict[str, str]:
    """Make sure the images exist and are current; returns {kind: tag}. Used by tests and CI.

    Without `base_image`, each kind is built on the local base when it exists, else on the
    official image (which must then be available to the engine).
    """
    client = docker_client()
    built: dict[str, str] = {}
    for kind in kinds:
        tag = (tags or {}).get(kind) or DEFAULT_TAGS[kind]
        parent = DERIVED.get(kind)
        if parent is not None:  # on the image of its parent kind, built or checked first
            base = (
                built.get(parent) or ensure_images([parent], base_image, tags=tags, log=log)[parent]
            )
        else:
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
