"""Which Python a submission runs on: the user's `--python`, else the problem's `python`, else the
harness's own.

A request is a version (`3.12`, `3.12.1`), a PEP 440 specifier (`>=3.12`, `>=3.11,<3.13`) or, from
the user only, a path to an interpreter. A version or specifier must be met exactly by the
interpreter found: when nothing here matches, the error names where the request came from and
what was found, never a silent fallback to another version.

On the host (bubblewrap, none) the candidates are the harness's own interpreter, `python3.X` on
PATH, pyenv's builds (`$PYENV_ROOT/versions`) and uv-managed interpreters; docker picks an image
(see `runners.toolchains.docker_host`).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from runners.model.errors import UserInputError
from runners.util.probe_memo import file_identity, interpreter_key, remembered

# packaging is imported where a version is asked for: most runs ask for none (5 ms of start-up).
if TYPE_CHECKING:
    from packaging.specifiers import SpecifierSet

_VERSION = re.compile(r"^\d+(\.\d+){0,2}$")
_OPERATORS = ("==", "!=", "<=", ">=", "<", ">", "~=")
_EXPECTED = (
    "expected a Python version (e.g. 3.12), a version range (e.g. >=3.12) or a path to an "
    "interpreter"
)


def parse_requirement(text: str) -> SpecifierSet:
    """`3.12` -> `==3.12.*`, `3.12.1` -> `==3.12.1`, a specifier as written; ValueError else."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    text = text.strip()
    if _VERSION.match(text):
        parts = text.split(".")
        if len(parts) == 1:
            return SpecifierSet(f"=={text}.*")
        return SpecifierSet(f"=={text}" + (".*" if len(parts) == 2 else ""))
    if not text.startswith(_OPERATORS):
        raise ValueError(_EXPECTED)
    try:
        return SpecifierSet(text)
    except InvalidSpecifier:
        raise ValueError(_EXPECTED) from None


def is_path(text: str) -> bool:
    return "/" in text or text.startswith(("~", "."))


@dataclass(frozen=True)
class PythonRequest:
    """What a run asks for, and who asked (named in every error)."""

    spec: str
    source: str  # "option --python", "problems/x/config.yaml: field `python`"
    preferred: bool = (
        False  # a preference, not a requirement: the harness's default when nothing matches
    )
    # docker: whether a preference may pick another image (`runners-python:X.Y`) than the configured
    # one
    picks_image: bool = True

    @property
    def is_path(self) -> bool:
        return is_path(self.spec)

    @property
    def specifier(self) -> SpecifierSet:
        return parse_requirement(self.spec)

    def matches(self, version: str) -> bool:
        from packaging.version import InvalidVersion, Version

        try:
            return self.specifier.contains(Version(version), prereleases=True)
        except InvalidVersion:
            return False

    def describe(self) -> str:
        return f"Python {self.spec} (from {self.source})"


def python_request(user: str | None, problem: object) -> PythonRequest | None:
    """The user's choice wins over the problem's requirement; None: the harness's default."""
    if user:
        return PythonRequest(user, "option --python")
    wanted = getattr(problem, "python", None)
    if wanted:
        path = getattr(problem, "path", None)
        where = f"{path / 'config.yaml'}" if path is not None else "the problem's config.yaml"
        return PythonRequest(wanted, f"{where}: field `python`")
    preferred = getattr(problem, "preferred_python", None)
    if isinstance(preferred, str):
        return PythonRequest(
            preferred,
            f"SCBench's Python {preferred} (the problem names no `python`)",
            preferred=True,
            picks_image=getattr(problem, "preferred_python_picks_image", True),
        )
    return None


# ---- host interpreters ------------------------------------------------------------------------


@lru_cache(maxsize=64)
def _probe(python: str) -> tuple[str, str] | None:
    """(`major.minor.micro`, the real executable) of an interpreter, or None when it does not run.
    The executable is the interpreter's own view: a launcher (pyenv shim) resolves to its target."""
    code = "import sys; print('.'.join(map(str, sys.version_info[:3]))); print(sys.executable)"

    def ask() -> list[str] | None:
        try:
            out = subprocess.run(
                [python, "-I", "-S", "-c", code],
                capture_output=True,
                text=True,
                timeout=30,
                check=True,
            ).stdout.split("\n")
        except (OSError, subprocess.SubprocessError):
            return None
        if len(out) < 2 or not out[0].strip() or not out[1].strip():
            return None
        return [out[0].strip(), os.path.realpath(out[1].strip())]

    found = remembered(
        "python-version", interpreter_key(python), ask, keep=lambda found: found is not None
    )
    return (found[0], found[1]) if found else None


def interpreter_version(python: str) -> str | None:
    """`major.minor.micro` of an interpreter, or None when it does not run."""
    probed = _probe(python)
    return probed[0] if probed else None


def _own() -> str:
    return getattr(sys, "_base_executable", None) or sys.executable


def _pyenv_root() -> Path:
    return Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv")


def _path_candidates() -> list[str]:
    # pyenv's shims are scripts that run pyenv (slow, and never remembered): its builds are
    # listed by _pyenv_candidates instead.
    shims = str(_pyenv_root() / "shims")
    found = []
    for minor in range(6, 20):
        if (exe := shutil.which(f"python3.{minor}")) and os.path.dirname(exe) != shims:
            found.append(exe)
    if (exe := shutil.which("python3")) and os.path.dirname(exe) != shims:
        found.append(exe)
    # the system's, even when a version manager's shims come first on PATH
    return found + [
        str(exe)
        for exe in sorted(Path("/usr/bin").glob("python3.*"))
        if re.fullmatch(r"python3\.\d+", exe.name)
    ]


def _pyenv_candidates() -> list[str]:
    root = _pyenv_root() / "versions"
    if not root.is_dir():
        return []
    return [str(exe) for exe in sorted(root.glob("*/bin/python3")) if exe.is_file()]


def _uv_python_dir() -> Path:
    """Where uv installs the interpreters it manages (`uv python dir`, without asking uv)."""
    if explicit := os.environ.get("UV_PYTHON_INSTALL_DIR"):
        return Path(explicit).expanduser()
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "uv" / "python"


def _uv_candidates() -> list[str]:
    """uv-managed interpreters: `uv python list` (seconds on a busy machine), remembered until uv or
    its install directory changes (an install or removal changes the directory's mtime)."""
    try:
        from uv import find_uv_bin

        uv = find_uv_bin()
    except ImportError:
        return []

    def ask() -> list[str] | None:
        try:
            out = subprocess.run(
                [
                    uv,
                    "python",
                    "list",
                    "--only-installed",
                    "--python-preference",
                    "only-managed",
                    "--output-format",
                    "json",
                ],
                capture_output=True,
                text=True,
                timeout=60,
                check=True,
                env={**os.environ, "UV_PYTHON_DOWNLOADS": "never"},
            ).stdout
            return [entry["path"] for entry in json.loads(out) if entry.get("path")]
        except (OSError, subprocess.SubprocessError, ValueError, TypeError, KeyError):
            return None

    key = [
        file_identity(uv),
        file_identity(_uv_python_dir()),
        os.environ.get("UV_PYTHON_INSTALL_DIR", ""),
    ]
    return remembered("uv-pythons", key, ask, keep=lambda found: found is not None) or []


def host_interpreters() -> list[tuple[str, str]]:
    """(path, version) of every interpreter found here, the harness's own first; one per real
    file."""
    seen: set[str] = set()
    found: list[tuple[str, str]] = []
    for exe in [_own(), *_path_candidates(), *_pyenv_candidates(), *_uv_candidates()]:
        if os.path.realpath(exe) in seen or not (probed := _probe(exe)):
            continue
        version, real = probed
        seen.update({os.path.realpath(exe), real})
        if real not in {path for path, _ in found}:
            found.append((real, version))
    return found


def find_host_python(request: PythonRequest | None) -> str:
    """The host interpreter for `request` (None: the harness's own). UserInputError when none
    fits."""
    if request is None:
        return _own()
    if request.is_path:
        exe = os.path.expanduser(request.spec)
        if not os.path.isfile(exe) or interpreter_version(exe) is None:
            raise UserInputError(
                f"{request.source}: {request.spec} is not a Python interpreter that runs here"
            )
        return os.path.abspath(exe)
    specifier = request.specifier  # validated where the request was made
    own_version = ".".join(map(str, sys.version_info[:3]))
    if request.matches(own_version):
        return _own()
    from packaging.version import Version  # off the CLI's start-up path

    found = host_interpreters()
    matching = [(exe, v) for exe, v in found if request.matches(v)]
    if not matching and request.preferred:
        return _own()
    if not matching:
        seen = ", ".join(sorted({v for _, v in found}, key=Version)) or "none"
        raise UserInputError(
            f"{request.source}: no Python interpreter here matches {specifier} (found: {seen}); "
            "install one (uv python install, pyenv install, or the system's package) or pass "
            "--python /path/to/python"
        )
    return max(matching, key=lambda item: Version(item[1]))[0]


def validate_option(value: str | None) -> str | None:
    """`--python`: a version, a range or a path; UserInputError naming the option otherwise."""
    if value is None or is_path(value):
        return value
    try:
        parse_requirement(value)
    except ValueError as exc:
        raise UserInputError(f"option --python: {exc} (got {value!r})") from None
    return value
