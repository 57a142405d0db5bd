"""Loaders: what finds a group's cases. The built-in one reads case files; a problem's own
`loader.py` subclasses `BaseLoader` (SCBench's contract) and may call the built-in one.

A loader is `Loader(problem=, checkpoint=, use_placeholders=)`; `loader(group=, store=)` yields
`(case, expected)` lazily, and `store.update(case, actual, expected)` runs after each case is
verified, before the next is asked for (so later cases can use what earlier ones returned).
"""

from __future__ import annotations

import json
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import yaml

from . import bounded_yaml
from .casefile import SUFFIXES, CaseFileError, build_case
from .model import BaseCase, CaseResult
from .spec import GroupConfig, GroupType

LoaderYieldType = Generator[tuple[BaseCase, CaseResult], None, None]


class LoaderError(Exception):
    pass


@runtime_checkable
class CaseStore(Protocol):
    def update(self, case: BaseCase, result: CaseResult, expected: CaseResult) -> Any: ...


class NoOpStore:
    def update(self, case: BaseCase, result: CaseResult, expected: CaseResult) -> Any:
        return {}


@runtime_checkable
class GroupLoader(Protocol):
    def initialize_store(self) -> CaseStore: ...

    def __call__(self, group: GroupConfig, store: CaseStore) -> LoaderYieldType: ...


class BaseLoader:
    def __init__(self, problem: Any, checkpoint: Any, *, use_placeholders: bool = False) -> None:
        self.problem = problem
        self.checkpoint = checkpoint
        self.use_placeholders = use_placeholders

    def initialize_store(self) -> CaseStore:
        return NoOpStore()

    def __call__(self, group: GroupConfig, store: CaseStore) -> LoaderYieldType:
        raise NotImplementedError


# ---- SCBench's path helpers ------------------------------------------------------------------


def get_chkpt_path(group: GroupConfig, problem: Any, checkpoint: Any) -> Path:
    if group.type == GroupType.REGRESSION.value and group.original_group is not None:
        if not group.original_checkpoint:
            raise LoaderError(f"regression group {group.name} has no original_checkpoint")
        path = Path(checkpoint.path).parent / group.original_checkpoint
    else:
        path = Path(checkpoint.path)
    if not path.is_dir():
        raise LoaderError(f"checkpoint directory {path} not found (group {group.name})")
    return path


def get_group_path(group: GroupConfig, problem: Any, checkpoint: Any) -> Path:
    path = get_chkpt_path(group, problem, checkpoint) / (group.original_group or group.name)
    if not path.exists():
        raise LoaderError(f"group directory {path} not found (group {group.name})")
    return path


def get_actual_checkpoint(group: GroupConfig, problem: Any, checkpoint: Any) -> str:
    if (
        group.type == GroupType.REGRESSION.value
        and group.original_group is not None
        and group.original_checkpoint
    ):
        return group.original_checkpoint
    return str(checkpoint.name)


def discover_dir_cases(group_config: GroupConfig, dir: Path) -> Iterator[Path]:
    """Sub-directories of `dir`, skipping those named by the group's `group_files`; sorted
    (SCBench used filesystem order, which differs between machines)."""
    skip = {Path(entry).parts[0] for entry in group_config.group_files if Path(entry).parts}
    for path in sorted(Path(dir).iterdir()):
        if path.is_dir() and path.name not in skip:
            yield path


def get_files_from_globs(
    read_dir: Path, globs: list[str], exclude: list[str] | None = None
) -> list[Path]:
    read_dir = Path(read_dir)
    found: set[Path] = set()
    for pattern in globs:
        for match in (
            read_dir.glob(pattern) if any(c in pattern for c in "*?[") else [read_dir / pattern]
        ):
            if match.is_dir():
                found.update(p for p in match.rglob("*") if p.is_file())
            elif match.is_file():
                found.add(match)
    excluded: set[Path] = set()
    for pattern in exclude or []:
        literal = not any(c in pattern for c in "*?[")
        for match in read_dir.glob(pattern) if not literal else [read_dir / pattern]:
            hits = set(match.rglob("*")) if match.is_dir() else {match}
            if literal:
                excluded |= hits
            else:
                excluded |= {
                    h
                    for h in hits
                    if not any(h.match(g) for g in globs if any(c in g for c in "*?["))
                }
    return sorted(p.relative_to(read_dir) for p in found - excluded)


# ---- the built-in loader -------------------------------------------------------------------------


class CaseFileLoader(BaseLoader):
    """Case files in `<checkpoint dir>/<group>/<case>.{yaml,yml,json}` (one case each), or one
    file `<checkpoint dir>/<group>.{yaml,yml,json}` holding `cases: {id: case document}`.
    Order: the group's `case_order` when given (exactly those cases), else sorted by id."""

    def __call__(self, group: GroupConfig, store: CaseStore) -> LoaderYieldType:
        adapter = self.problem.adapter.type
        checkpoint = str(self.checkpoint.name)
        for case_id, file, doc in self.documents(group):
            yield build_case(
                doc,
                adapter=adapter,
                case_id=case_id,
                group=group,
                checkpoint=checkpoint,
                defaults=group.case_defaults,
                file=file,
            )

    def checkpoint_dir(self, group: GroupConfig) -> Path:
        name = group.original_checkpoint if group.original_group is not None else None
        if name:
            source = self.problem.checkpoints.get(name)
            return (
                Path(source.path)
                if source is not None
                else Path(self.checkpoint.path).parent / name
            )
        return Path(self.checkpoint.path)

    def documents(self, group: GroupConfig) -> Iterator[tuple[str, Path, Any]]:
        base = self.checkpoint_dir(group)
        real = group.get_real_name()
        folder = base / real
        found: dict[str, Path] = {}
        single: dict[str, Any] | None = None
        single_file: Path | None = None
        if folder.is_dir():
            for path in sorted(folder.iterdir()):
                if path.is_file() and path.suffix in SUFFIXES:
                    if path.stem in found:
                        raise CaseFileError(
                            path,
                            path.stem,
                            f"two case files with the id {path.stem!r} "
                            f"({found[path.stem].name} and {path.name})",
                        )
                    found[path.stem] = path
        else:
            single_file = next(
                (base / f"{real}{s}" for s in SUFFIXES if (base / f"{real}{s}").is_file()), None
            )
            if single_file is None:
                raise CaseFileError(
                    folder,
                    None,
                    f"group {group.name!r}: no folder {real}/ of case files and no "
                    f"file {real}.yaml in {base}",
                )
            data = read_document(single_file, None)
            if (
                not isinstance(data, dict)
                or not isinstance(data.get("cases"), dict)
                or set(data) - {"cases"}
            ):
                raise CaseFileError(
                    single_file,
                    None,
                    "a group file holds one key, `cases`: a mapping of case id to a case document",
                )
            single = data["cases"]
            found = {str(k): single_file for k in single}
        order = list(group.case_order) or sorted(found)
        missing = [case_id for case_id in order if case_id not in found]
        if missing:
            raise CaseFileError(
                single_file or folder,
                missing[0],
                f"listed in case_order of group {group.name!r} but there is no such case file",
            )
        for case_id in order:
            doc = single[case_id] if single is not None else read_document(found[case_id], case_id)
            yield case_id, found[case_id], doc


def read_document(path: Path, case_id: str | None) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
        return json.loads(text) if path.suffix == ".json" else bounded_yaml.load(text)
    except UnicodeDecodeError as exc:
        raise CaseFileError(path, case_id, f"not UTF-8 text ({exc.reason})") from None
    except json.JSONDecodeError as exc:
        raise CaseFileError(
            path, case_id, f"line {exc.lineno}, column {exc.colno}: not valid JSON ({exc.msg})"
        ) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        raise CaseFileError(
            path, case_id, f"{where}not valid YAML ({getattr(exc, 'problem', None) or exc})"
        ) from None
