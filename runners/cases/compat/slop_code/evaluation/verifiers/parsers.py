from runners.cases.scbench.parsers import (
    convert_to_io,
    drop_keys_from_dicts,
    ensure_expected_is_not_none,
    ensure_non_null_string,
    extract_actual_output,
    maybe_split_string,
    parse_csv_content,
    parse_json,
    parse_jsonl,
    parse_markdown_table,
    parse_yaml,
    parse_yaml_file,
)
from runners.cases.scoring import VerifierError

__all__ = [
    "VerifierError",
    "convert_to_io",
    "drop_keys_from_dicts",
    "ensure_expected_is_not_none",
    "ensure_non_null_string",
    "extract_actual_output",
    "maybe_split_string",
    "parse_csv_content",
    "parse_json",
    "parse_jsonl",
    "parse_markdown_table",
    "parse_yaml",
    "parse_yaml_file",
]
