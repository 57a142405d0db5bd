"""SCBench's `verifiers.parsers`: turning an actual or expected value into what a verifier compares.
`parse_csv_content` infers column types through pandas, as SCBench's does (pandas is in the case
toolchain), so a column of `100`, `true` stays text, as a problem's expected rows say.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import yaml

from .. import bounded_yaml
from ..scoring import VerifierError


def _text(content: Any, decode: str) -> Any:
    return content.decode(decode) if isinstance(content, bytes) else content


def parse_json(content: Any, decode: str = "utf-8", *, allow_invalid: bool = False) -> Any:
    if content is None:
        return {}
    if isinstance(content, dict):
        return content
    if isinstance(content, (str, bytes)):
        text = _text(content, decode)
        if not text.strip():
            return {}
        try:
            return json.loads(text)
        except ValueError:
            pass
    if allow_invalid:
        return {"error": "Invalid JSON"}
    raise VerifierError(f"not JSON: {str(content)[:200]!r}")


def parse_jsonl(content: Any, decode: str = "utf-8") -> list[Any]:
    if content is None:
        return []
    if isinstance(content, list):
        return content
    if isinstance(content, dict):
        return [content]
    rows = []
    for line in _text(content, decode).splitlines():
        if line.strip():
            try:
                rows.append(json.loads(line))
            except ValueError:
                continue
    return rows


def parse_yaml(content: Any, decode: str = "utf-8") -> Any:
    if content is None:
        return {}
    if not isinstance(content, (str, bytes)):
        return content
    text = _text(content, decode)
    if not text.strip():
        return {}
    try:
        return bounded_yaml.load(text) or {}
    except yaml.YAMLError:
        return {}


def parse_yaml_file(
    result: Any, file_name: str, decode: str = "utf-8", allow_missing: bool = False
) -> Any:
    files = getattr(result, "files", {}) or {}
    if file_name not in files:
        if allow_missing:
            return {}
        raise VerifierError(f"file {file_name} was not produced")
    return parse_yaml(files[file_name], decode)


def parse_csv_content(content: Any, allows_error: bool = True) -> list[Any]:
    if content is None:
        return []
    if isinstance(content, list):
        return content
    if isinstance(content, dict):
        return [content]
    if not isinstance(content, (str, bytes)):
        raise VerifierError(f"Invalid content type: {type(content)}")
    import numpy as np  # only CSV verifiers pay for pandas' import
    import pandas as pd

    try:
        frame = pd.read_csv(io.StringIO(_text(content, "utf-8")))
        frame = frame.replace({np.nan: None})
        return list(frame.to_dict(orient="records"))
    except (pd.errors.EmptyDataError, csv.Error, pd.errors.ParserError, UnicodeDecodeError) as exc:
        if allows_error:
            return []
        raise VerifierError(f"Could not load csv: {exc}") from None


def parse_markdown_table(content: Any, allow_errors: bool = False) -> list[dict[str, str]]:
    try:
        lines = [
            line.strip() for line in _text(content or "", "utf-8").splitlines() if line.strip()
        ]
        rows = list(csv.reader(io.StringIO("\n".join(lines)), delimiter="|"))
        if not rows:
            return []
        header = [cell.strip() for cell in rows[0]]
        table = []
        for row in rows[2:]:  # the second line is the --- separator
            cells = [cell.strip() for cell in row]
            table.append(
                {name: cells[i] if i < len(cells) else "" for i, name in enumerate(header) if name}
            )
        return table
    except (csv.Error, UnicodeDecodeError) as exc:
        if allow_errors:
            return []
        raise VerifierError(f"not a markdown table: {exc}") from None


def maybe_split_string(content: Any, split_on: str | None = None, index: int = -1) -> str:
    if content is None:
        return ""
    text = str(content)
    if split_on is None:
        return text
    parts = text.split(split_on)
    try:
        return parts[index]
    except IndexError:
        return ""


def extract_actual_output(
    actual: Any,
    split_output_on: str | None = None,
    split_output_index: int = -1,
    output_key: str = "output",
    decode: str = "utf-8",
    *,
    strip: bool = False,
) -> Any:
    if not hasattr(actual, output_key):
        raise VerifierError(f"the result has no attribute {output_key!r}")
    value = getattr(actual, output_key)
    if value is None:
        return None
    value = _text(value, decode)
    if split_output_on is not None:
        value = maybe_split_string(value, split_output_on, split_output_index)
    return value.strip() if strip and isinstance(value, str) else value


def ensure_expected_is_not_none(expected: Any, decode: str = "utf-8") -> str:
    if expected is None:
        raise VerifierError("the expected value is missing")
    return str(_text(expected, decode))


def ensure_non_null_string(val: Any, allow_empty: bool = False) -> str:
    if val is None:
        return ""
    text = val.decode("utf-8", "replace") if isinstance(val, bytes) else str(val)
    if not text and not allow_empty:
        raise VerifierError("an empty string where a value was expected")
    return text


def drop_keys_from_dicts(dicts: Any, keys: Any) -> Any:
    drop = set(keys)
    if isinstance(dicts, dict):
        return {k: v for k, v in dicts.items() if k not in drop}
    return [
        {k: v for k, v in d.items() if k not in drop} if isinstance(d, dict) else d for d in dicts
    ]


def convert_to_io(val: Any) -> io.StringIO | io.BytesIO:
    return (
        io.BytesIO(val) if isinstance(val, bytes) else io.StringIO("" if val is None else str(val))
    )
