"""The six group rules, applied the same way whatever framework produced the record."""

import pytest

from runners.engine.categorize import categorize, checkpoint_of_file, group_for
from runners.model.records import RawRecord
from runners.model.results import GroupType as G

ORDER = {"checkpoint_1": 1, "checkpoint_2": 2, "checkpoint_3": 3}
CUSTOM = {"slow_io": G.FUNCTIONALITY, "crash": G.ERROR}


@pytest.mark.parametrize(
    ("markers", "test_cp", "expected"),
    [
        ([], "checkpoint_2", G.CORE),  # 6: default
        (["functionality"], "checkpoint_2", G.FUNCTIONALITY),  # 5
        (["slow_io"], "checkpoint_2", G.FUNCTIONALITY),  # 4: custom marker
        (["crash", "functionality"], "checkpoint_2", G.ERROR),  # 4 beats 5
        (["regression"], "checkpoint_2", G.REGRESSION),  # 3
        (["regression", "slow_io"], "checkpoint_2", G.REGRESSION),  # 3 beats 4
        (["error", "functionality"], "checkpoint_2", G.ERROR),  # 2 beats 5
        (["error", "regression"], "checkpoint_2", G.ERROR),  # 2 beats 3
        (["error"], "checkpoint_1", G.REGRESSION),  # 1 beats everything
        (["functionality"], "checkpoint_1", G.REGRESSION),
        ([], "checkpoint_1", G.REGRESSION),
        (["skip", "xfail", "timeout"], "checkpoint_2", G.CORE),  # unrelated markers
    ],
)
def test_group_rules(markers, test_cp, expected):
    assert group_for(markers, test_cp, "checkpoint_2", ORDER, CUSTOM) is expected


def test_first_custom_marker_of_the_test_wins():
    assert group_for(["crash", "slow_io"], "checkpoint_2", "checkpoint_2", ORDER, CUSTOM) is G.ERROR
    assert (
        group_for(["slow_io", "crash"], "checkpoint_2", "checkpoint_2", ORDER, CUSTOM)
        is G.FUNCTIONALITY
    )


@pytest.mark.parametrize(
    ("file", "expected"),
    [
        ("tests/test_checkpoint_1.py", "checkpoint_1"),
        ("test_checkpoint_3.py", "checkpoint_3"),
        ("tests/checkpoint_2.test.ts", "checkpoint_2"),
        ("tests/checkpoint_1.test.js", "checkpoint_1"),
        ("tests/checkpoint_1.spec.mjs", "checkpoint_1"),
        ("tests/test_helpers.py", "checkpoint_2"),  # not a checkpoint: the current one
        ("tests/test_checkpoint_9.py", "checkpoint_2"),  # unknown checkpoint
        (None, "checkpoint_2"),
    ],
)
def test_checkpoint_comes_from_the_file_name(file, expected):
    assert checkpoint_of_file(file, ORDER, "checkpoint_2") == expected


def test_categorize_keeps_the_record_facts():
    records = [
        RawRecord(
            id="tests/test_checkpoint_1.py::test_a[error]",
            name="test_a[error]",
            file="tests/test_checkpoint_1.py",
            status="failed",
            raw_status="failed",
            markers=[],
            message="boom",
            duration_ms=3.5,
        ),
        RawRecord(
            id="tests/test_checkpoint_2.py::test_b",
            name="test_b",
            file="tests/test_checkpoint_2.py",
            status="passed",
            markers=["slow_io"],
        ),
    ]
    first, second = categorize(records, "checkpoint_2", ORDER, CUSTOM)
    assert (first.group_type, first.checkpoint, first.failure_message, first.duration_ms) == (
        G.REGRESSION,
        "checkpoint_1",
        "boom",
        3.5,
    )
    assert (second.group_type, second.checkpoint, second.passed) == (
        G.FUNCTIONALITY,
        "checkpoint_2",
        True,
    )
