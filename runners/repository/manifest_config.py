"""kind: repository: a trusted framework configuration that lives in a manifest.

Many projects keep their test settings in the file that also describes the package: pytest's in
`pyproject.toml` (`[tool.pytest.ini_options]`, `[tool.pytest]`) or `setup.cfg` (`[tool:pytest]`),
jest's in `package.json` (`"jest"`). A problem trusts such a file by naming it in
`repository.config` (`setup.cfg` is also found on its own). It is *read*, never laid over the
submission: the submission's own manifest stays, with its dependencies, build and `"type"`;
only the framework's section of the problem's copy is used, from the run's config directory.
"""

from __future__ import annotations

import configparser
import json
import shlex
import tomllib
from pathlib import Path

MANIFESTS: dict[str, tuple[str, ...]] = {
    "pytest": ("pyproject.toml", "setup.cfg"),
    "jest": ("package.json",),
}
JEST_FILE = "jest.trusted.json"  # the `jest` section, in the config directory


def is_manifest(framework: str, rel: str | None) -> bool:
    return rel is not None and rel in MANIFESTS.get(framework, ())


def problem_with(framework: str, path: Path) -> str | None:
    """What is wrong with `path` (overlay/<name>) as the trusted config: its framework section
    must be there. None when it is fine."""
    name = f"overlay/{path.name}"
    try:
        if path.name == "package.json":
            data = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(data, dict) or not isinstance(data.get("jest"), dict):
                return (
                    f"{name}: field `jest`: expected an object (the jest configuration "
                    "`repository.config` trusts)"
                )
        elif path.name == "pyproject.toml":
            tool = tomllib.loads(path.read_text(encoding="utf-8")).get("tool", {})
            pytest = tool.get("pytest") if isinstance(tool, dict) else None
            if not isinstance(pytest, dict):
                return (
                    f"{name}: table `[tool.pytest.ini_options]` (or `[tool.pytest]`) is missing: "
                    "it holds the pytest settings `repository.config` trusts"
                )
        elif path.name == "setup.cfg":
            parser = _parser()
            parser.read_string(path.read_text(encoding="utf-8"), source=name)
            if not parser.has_section("tool:pytest"):
                return (
                    f"{name}: section `[tool:pytest]` is missing: it holds the pytest settings "
                    "`repository.config` trusts"
                )
    except (OSError, UnicodeDecodeError, ValueError, configparser.Error) as exc:
        return (
            f"{name}: cannot be read ({type(exc).__name__}: "
            f"{str(exc).splitlines()[0] if str(exc) else ''})"
        )
    return None


def _parser() -> configparser.ConfigParser:
    return configparser.ConfigParser(interpolation=None, strict=False)


def pythonpath_options(source: Path, repo: str) -> list[str]:
    """pytest resolves `pythonpath` from the config file's folder, and the run reads the problem's
    pyproject.toml / setup.cfg from the config directory: `-o` gives its entries from the
    repository instead (nothing when it sets none)."""
    if source.name == "pyproject.toml":
        pytest = tomllib.loads(source.read_text(encoding="utf-8")).get("tool", {}).get("pytest", {})
        options = pytest.get("ini_options", pytest) if isinstance(pytest, dict) else {}
        value = options.get("pythonpath") if isinstance(options, dict) else None
        paths = shlex.split(value) if isinstance(value, str) else [str(p) for p in value or []]
    else:
        parser = _parser()
        parser.read_string(source.read_text(encoding="utf-8"))
        paths = shlex.split(parser.get("tool:pytest", "pythonpath", fallback=""))
    absolute = [p if p.startswith("/") else f"{repo}/{p}" for p in paths]
    return ["-o", "pythonpath=" + " ".join(shlex.quote(p) for p in absolute)] if absolute else []


def write_jest(source: Path, config_dir: Path) -> str:
    """The `jest` section of the problem's package.json as a config file of its own."""
    section = json.loads(source.read_text(encoding="utf-8"))["jest"]
    (config_dir / JEST_FILE).write_text(json.dumps(section, indent=2), encoding="utf-8")
    return JEST_FILE
