"""A problem's own `loader.py` and `verifier.py`, imported as SCBench does: the problem directory
is a namespace package (`<problem>.loader`), so scripts may import their siblings as
`<problem>.helpers`; a directory name that is not an identifier is loaded from its file."""

from __future__ import annotations

import importlib
import importlib.util
import sys
import sysconfig
import traceback
from pathlib import Path
from types import ModuleType
from typing import Any

from .loading import CaseFileLoader
from .problem import CheckpointConfig, ProblemConfig
from .verification import BuiltinVerifier

VERIFIER_SCRIPT = "verifier.py"


class ScriptError(Exception):
    """A problem script failed; names the file."""

    def __init__(self, file: Path | str, message: str) -> None:
        self.file, self.message = str(file), message
        super().__init__(f"{file}: {message}")


def import_script(problem_dir: Path, file_name: str) -> ModuleType:
    path = problem_dir / file_name
    package = problem_dir.name
    try:
        if package.isidentifier() and path.suffix == ".py" and "/" not in file_name:
            root = str(problem_dir.parent)
            if root not in sys.path:
                sys.path.insert(0, root)
            return importlib.import_module(f"{package}.{path.stem}")
        spec = importlib.util.spec_from_file_location(f"_runners_problem_{path.stem}", path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {path}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    except Exception as exc:  # noqa: BLE001 - any failure of a problem script is reported, with its trace
        raise ScriptError(path, f"importing it raised {short_trace(exc)}") from None


def make_loader(problem: ProblemConfig, checkpoint: CheckpointConfig) -> tuple[Any, str]:
    """The problem's loader (its `loader_script`, when that file exists) or the built-in one;
    with the file to name in errors."""
    script = problem.path / problem.loader_script
    if not script.is_file():
        return CaseFileLoader(
            problem=problem, checkpoint=checkpoint
        ), "the built-in case-file loader"
    module = import_script(problem.path, problem.loader_script)
    cls = getattr(module, problem.loader_entrypoint, None)
    if cls is None:
        raise ScriptError(script, f"defines no {problem.loader_entrypoint} (loader_entrypoint)")
    try:
        return cls(problem=problem, checkpoint=checkpoint, use_placeholders=False), str(script.name)
    except Exception as exc:  # noqa: BLE001
        raise ScriptError(
            script, f"{problem.loader_entrypoint}(...) raised {short_trace(exc)}"
        ) from None


def make_verifier(problem: ProblemConfig, checkpoint: CheckpointConfig) -> tuple[Any, str]:
    script = problem.path / VERIFIER_SCRIPT
    if not script.is_file():
        return BuiltinVerifier(checkpoint), "the built-in verifier"
    module = import_script(problem.path, VERIFIER_SCRIPT)
    cls = getattr(module, "Verifier", None)
    if cls is None:
        raise ScriptError(script, "defines no class Verifier")
    try:
        return cls(checkpoint), str(script.name)
    except Exception as exc:  # noqa: BLE001
        raise ScriptError(script, f"Verifier(checkpoint) raised {short_trace(exc)}") from None


def short_trace(exc: BaseException, limit: int = 4) -> str:
    """`Type: message`, then where it happened in the problem's own code (`at file:line in
    function: source`, innermost last): frames of the standard library, installed packages and
    the case program are left out, unless there is no other (then the failure is theirs, and the
    innermost one is shown). A syntax error shows its line and a caret."""
    if isinstance(exc, SyntaxError) and exc.lineno:
        where = f"{Path(exc.filename or '?').name}, line {exc.lineno}"
        text = (exc.text or "").rstrip("\n")
        indent = len(text) - len(text.lstrip())
        caret = (
            f"\n    {' ' * max((exc.offset or 1) - 1 - indent, 0)}^"
            if text.strip() and exc.offset
            else ""
        )
        source = f"\n    {text.strip()}{caret}" if text.strip() else ""
        return f"{type(exc).__name__}: {exc.msg} ({where}){source}"
    every = traceback.extract_tb(exc.__traceback__)
    frames = [f for f in every if _is_script(f.filename)] or every[-1:]
    lines = [
        f"    at {f.filename}:{f.lineno} in {f.name}" + (f": {f.line.strip()}" if f.line else "")
        for f in frames[-limit:]
    ]
    return "\n".join([f"{type(exc).__name__}: {exc}", *lines])


_LIBRARIES = tuple(
    {
        str(Path(p)) + "/"
        for key, p in sysconfig.get_paths().items()
        if key in ("stdlib", "platstdlib", "purelib", "platlib")
    }
)


def _is_script(filename: str) -> bool:
    return not (
        filename.startswith("<") or "/runners/cases/" in filename or filename.startswith(_LIBRARIES)
    )
