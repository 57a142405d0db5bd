"""From a verifier's verdicts to a case's score, attributes and readable diff (SCBench's rules).

A verifier returns {attribute: VerificationResult}, attribute being a field of the result
(`status_code`, `output`, ...) or a file as `files-<path>`. Every field of the actual and
expected results (and every file of either) becomes an attribute; those the verifier judged
count with their weight, the others are informational (weight 0). Verdicts naming no attribute
are dropped, as in SCBench. score = sum(weight * correct) / sum(weight); the case passes when
every judged attribute is correct, whatever the weights.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .deepdiff_text import deepdiff_lines, is_deepdiff
from .model import RESULT_FIELDS, CaseResult

VALUE_CHARS = 16_000  # per expected/actual value in the report
DIFF_CHARS = 8_000


class VerificationResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    diff: Any = None
    is_correct: bool
    weight: float = Field(1.0, gt=0)

    @classmethod
    def create(cls, diff: Any, is_correct: bool, weight: float = 1.0) -> VerificationResult:
        return cls(diff=to_json(diff), is_correct=is_correct, weight=weight)


class VerifierError(Exception):
    """Raised by parsers and verifiers for data they cannot judge."""


@dataclass
class Attribute:
    name: str
    expected: Any
    actual: Any
    weight: float
    correct: bool | None
    diff: str | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "expected": _bounded(self.expected),
            "actual": _bounded(self.actual),
            "weight": self.weight,
            "correct": self.correct,
            "diff": _clip(self.diff, DIFF_CHARS),
        }


@dataclass
class CaseScore:
    attributes: list[Attribute] = field(default_factory=list)

    @property
    def judged(self) -> list[Attribute]:
        return [a for a in self.attributes if a.correct is not None]

    @property
    def score(self) -> float | None:
        total = sum(a.weight for a in self.judged)
        return round(sum(a.weight for a in self.judged if a.correct) / total, 6) if total else None

    @property
    def passed(self) -> bool:
        return bool(self.judged) and all(a.correct for a in self.judged)

    def diff_text(self) -> str | None:
        parts = []
        for attr in self.judged:
            if not attr.correct:
                body = attr.diff or f"expected {_short(attr.expected)}, got {_short(attr.actual)}"
                lines = body.splitlines() or [""]
                if len(lines) == 1:
                    parts.append(f"{attr.name}: {lines[0]}")
                else:
                    parts.append(f"{attr.name}:\n" + "\n".join(f"  {line}" for line in lines))
        return _clip("\n".join(parts), DIFF_CHARS) if parts else None


def score_case(
    verdicts: dict[str, Any], actual: CaseResult, expected: CaseResult | None
) -> CaseScore:
    actual_fields = actual.model_dump()
    expected_fields = expected.model_dump() if expected is not None else {}
    names = [
        n
        for n in dict.fromkeys([*actual_fields, *expected_fields])
        if n not in RESULT_FIELDS and n != "files"
    ]
    files = dict.fromkeys([*actual_fields.get("files", {}), *expected_fields.get("files", {})])
    rows = [(n, expected_fields.get(n), actual_fields.get(n)) for n in names]
    rows += [
        (
            f"files-{f}",
            expected_fields.get("files", {}).get(f),
            actual_fields.get("files", {}).get(f),
        )
        for f in files
    ]
    result = CaseScore()
    for name, want, got in rows:
        verdict = verdicts.get(name)
        if verdict is None:
            if name in ("elapsed",) or (want is None and got in (None, {}, [], "", False, 0)):
                continue  # nothing to show
            result.attributes.append(Attribute(name, want, got, 0.0, None, None))
            continue
        verdict = (
            verdict
            if isinstance(verdict, VerificationResult)
            else VerificationResult.model_validate(verdict)
        )
        result.attributes.append(
            Attribute(
                name,
                want,
                got,
                verdict.weight,
                verdict.is_correct,
                _diff_text(verdict.diff) if not verdict.is_correct else None,
            )
        )
    return result


def _diff_text(diff: Any) -> str | None:
    if diff is None or diff == "":
        return None
    if isinstance(diff, str):
        return diff
    diff = to_json(diff)
    if is_deepdiff(
        diff
    ):  # SCBench's deepdiff_verify: one line per difference, not the report's JSON
        return "\n".join(deepdiff_lines(diff))
    if (
        isinstance(diff, dict)
        and diff
        and all(v is None or isinstance(v, (str, int, float, bool)) for v in diff.values())
    ):
        # {where: what} (jsonschema_verify's {path: message}, a verifier's own): one line each
        return "\n".join(f"{k}: {v}" for k, v in diff.items())
    return json.dumps(diff, indent=1, ensure_ascii=False, sort_keys=True)


def to_json(value: Any) -> Any:
    """A JSON-able copy: DeepDiff results, sets, bytes (text or a digest), paths, enums."""
    if hasattr(value, "to_json") and type(value).__name__ in ("DeepDiff", "TreeResult"):
        return json.loads(value.to_json())
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [to_json(v) for v in value]
        return sorted(items, key=repr) if isinstance(value, (set, frozenset)) else items
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return f"sha256:{hashlib.sha256(value).hexdigest()}"
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, Enum):
        return to_json(value.value)
    return str(value)


def _bounded(value: Any) -> Any:
    value = to_json(value)
    if isinstance(value, str):
        return _clip(value, VALUE_CHARS)
    if isinstance(value, (dict, list)):
        text = json.dumps(value, ensure_ascii=False)
        if len(text) > VALUE_CHARS:
            return _clip(text, VALUE_CHARS)
    return value


def _clip(text: str | None, limit: int) -> str | None:
    if text is None or len(text) <= limit:
        return text
    return f"{text[: limit - 60]}\n[... {len(text) - limit + 60} characters cut ...]"


def _short(value: Any) -> str:
    text = json.dumps(to_json(value), ensure_ascii=False)
    return text if len(text) <= 120 else text[:119] + "…"
