"""Files of a case-based run without a sandbox: tracked files read back after a case."""

from __future__ import annotations

from pathlib import Path

from runners.cases.files import collect_tracked


def test_tracked_files_in_hidden_directories_are_read_back(tmp_path: Path):
    """SCBench strips every leading '.' and '/' character of a pattern, so `.tally` became
    `tally` and a hidden directory could never be tracked; only `./` and `/` prefixes go."""
    (tmp_path / ".tally").mkdir()
    (tmp_path / ".tally" / "list.json").write_text('{"words": []}')
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "a.json").write_text("{}")
    (tmp_path / ".env").write_text("X=1")
    found = collect_tracked(tmp_path, [".tally", "./out/*.json", "/.env", "../outside", ".//out/a.json"])
    assert found == {".tally/list.json": '{"words": []}', "out/a.json": "{}", ".env": "X=1"}
