"""kind: repository, pytest: what a repository's build backend needs, beyond its
`[build-system].requires`, to build it editable (PEP 517's `get_requires_for_build_editable`:
hatchling asks for `editables`, a setup.py for its `setup_requires`).

That hook is the submission's code (the backend reads the repository's configuration; a setup.py
runs), so it is asked inside the network-off build step itself, by a short driver that runs
before the build: when everything the hook names is installed, the build goes on in the same
step; otherwise the driver writes what is missing and stops, the harness installs it (wheels
only, network on, no submission code) and runs the step again. What was learned is kept per
`[build-system].requires`, so later runs of repositories built the same way take one step.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from runners.toolchains.cache import content_key

MISSING_EXIT = 3  # the driver's exit code when the backend needs more than is installed
MAX_EXTRA = 20
# A requirement from the index by name: no URL (`@`), no option (`-e`, `--index-url`), no path.
_REQUIREMENT = re.compile(
    r"[A-Za-z0-9][A-Za-z0-9._-]*(\[[A-Za-z0-9._,\s-]*\])?\s*[A-Za-z0-9<>=!~.,*\s'\";:()_+-]*"
)

# Run with the backend environment's Python, in the repository: argv = [out file, build command...].
DRIVER = r"""
import importlib, json, os, re, sys
import importlib.metadata as metadata
out, command = sys.argv[1], sys.argv[2:]
def build():
    sys.stdout.flush()
    os.execv(command[0], command)
try:
    import tomllib
    with open("pyproject.toml", "rb") as file:
        system = tomllib.load(file).get("build-system", {})
except FileNotFoundError:
    system = {}
except Exception:
    build()  # no TOML reader, or a pyproject the build itself will report on
try:
    sys.path[:0] = [os.path.abspath(p) for p in system.get("backend-path", [])]
    module, _, attrs = (
        system.get("build-backend") or "setuptools.build_meta:__legacy__"
    ).partition(":")
    backend = importlib.import_module(module)
    for attr in filter(None, attrs.split(".")):
        backend = getattr(backend, attr)
    hook = getattr(backend, "get_requires_for_build_editable", None)
    wanted = [str(r) for r in (hook({}) if hook else [])]
except Exception:
    build()  # the build reports the backend's error itself
def installed(requirement):
    name = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    try:
        return not name or bool(metadata.distribution(name.group(1)))
    except metadata.PackageNotFoundError:
        return False
missing = [r for r in wanted if not installed(r)]
if missing:
    with open(out, "w") as file:
        json.dump(missing, file)
    sys.exit(MISSING_EXIT)
build()
""".replace("MISSING_EXIT", str(MISSING_EXIT))


def read_missing(path: Path) -> list[str]:
    """What the driver found missing: requirement strings by name from the index, else []."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(data, list) or len(data) > MAX_EXTRA:
        return []
    found = [item.strip() for item in data if isinstance(item, str) and len(item) <= 200]
    return [item for item in found if _REQUIREMENT.fullmatch(item)]


def _learned_file(cache_root: Path, requires: list[str]) -> Path:
    return cache_root / "buildreqs" / f"{content_key({'requires': requires})}.json"


def learned(cache_root: Path, requires: list[str]) -> list[str]:
    """The extra requirements an earlier build with these `requires` needed."""
    return read_missing(_learned_file(cache_root, requires))


def remember(cache_root: Path, requires: list[str], extra: list[str]) -> None:
    path = _learned_file(cache_root, requires)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(sorted(set(extra))), encoding="utf-8")
    tmp.replace(path)
