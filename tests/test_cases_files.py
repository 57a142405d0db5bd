"""Files of a case-based run without a sandbox: tracked files read back after a case."""

from __future__ import annotations

from pathlib import Path

import pytest

from runners.cases.files import collect_tracked


def test_tracked_files_in_hidden_directories_are_read_back(tmp_path: Path):
    """SCBench strips every leading '.' and '/' character of a pattern, so `.tally` became
    `tally` and a hidden directory could never be tracked; only `./` and `/` prefixes go."""
    (tmp_path / ".tally").mkdir()
    (tmp_path / ".tally" / "list.json").write_text('{"words": []}')
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "a.json").write_text("{}")
    (tmp_path / ".env").write_text("X=1")
    found = collect_tracked(
        tmp_path, [".tally", "./out/*.json", "/.env", "../outside", ".//out/a.json"]
    )
    assert found == {".tally/list.json": '{"words": []}', "out/a.json": "{}", ".env": "X=1"}


def test_a_case_file_s_expected_files_are_read_back_without_being_listed_again():
    """A user writes `expected: {files: {out/x.json: ...}}` and expects the file to be compared;
    listing it again in `tracked_files` was needed (else: "nothing to compare")."""
    from runners.cases.casefile import build_case
    from runners.cases.spec import GroupConfig

    group = GroupConfig(name="core", type="Core")
    doc = {
        "case": {"args": ["x"], "tracked_files": ["log.txt"]},
        "expected": {"files": {"out/x.json": {"json": {"a": 1}}, "log.txt": {"contains": "ok"}}},
    }
    case, _ = build_case(doc, adapter="cli", case_id="c", group=group, checkpoint="checkpoint_1")
    assert case.tracked_files == ["log.txt", "out/x.json"]
    api, _ = build_case(
        {"case": {"path": "/"}, "expected": {"files": {"db.json": {"json": {}}}}},
        adapter="api",
        case_id="c",
        group=group,
        checkpoint="checkpoint_1",
    )
    assert api.tracked_files == ["db.json"]


def test_an_archive_answer_s_members_become_files_and_its_name_is_read():
    import io
    import tarfile
    import zipfile

    from runners.cases.adapters.archive import archive_members, download_name

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("books.json", "[]")
        archive.writestr("img/logo.png", b"\x89PNG\x00\xff")
        archive.writestr("../escape.txt", "no")
    assert archive_members(buffer.getvalue(), "application/zip") == {
        "books.json": "[]",
        "img/logo.png": "iVBORwD/",
    }
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        data = b"hello"
        info = tarfile.TarInfo("notes/a.txt")
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    assert archive_members(buffer.getvalue(), "application/gzip") == {"notes/a.txt": "hello"}
    with pytest.raises(ValueError, match="not a readable archive"):
        archive_members(b"not a zip", "application/zip")
    assert download_name('attachment; filename="shelf.zip"') == "shelf.zip"
    assert download_name("attachment; filename=a.zip; filename*=UTF-8''caf%C3%A9.zip") == "café.zip"
    assert download_name(None) is None and download_name("inline") is None


@pytest.mark.slow
def test_an_archive_bomb_costs_a_bounded_amount():
    import io
    import zipfile

    from runners.cases.adapters import archive as archive_module

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for n in range(20):
            archive.writestr(
                f"zeros{n:02}", b"\0" * (16 * 1024 * 1024)
            )  # 320 MiB unpacked, ~300 KiB packed
    found = archive_module.archive_members(buffer.getvalue(), "application/zip")
    assert len(found) == 4  # each cut at 8 MiB, 32 MiB in all: the rest left out
    assert sum(len(v) for v in found.values()) <= archive_module.MAX_TOTAL_BYTES * 4 / 3 + 4 * len(
        found
    )  # base64
