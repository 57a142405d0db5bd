"""Checkpoint 1: add, remove and report stock; JSON errors and exit codes."""

from __future__ import annotations

import json

import pytest

from cli_helpers import usage_error

STOCK = [("washer-10mm", "40"), ("nut", "120"), ("bolt", "5")]


@pytest.fixture(scope="module")
def stocked(module_cli):
    """One database holding STOCK, shared by read-only report tests."""
    for item, qty in STOCK:
        module_cli.ok("add", item, qty)
    return module_cli


# ---- Core -----------------------------------------------------------------------------------


def test_add_new_and_existing_item(cli):
    assert cli.ok("add", "bolt", "5") == {"item": "bolt", "quantity": 5}
    assert cli.ok("add", "bolt", "7") == {"item": "bolt", "quantity": 12}


def test_remove_then_delete_at_zero(cli):
    cli.ok("add", "nut", "10")
    assert cli.ok("remove", "nut", "4") == {"item": "nut", "quantity": 6}
    assert cli.ok("remove", "nut", "6") == {"item": "nut", "quantity": 0}
    assert cli.ok("report") == {"items": [], "total_quantity": 0}


@pytest.mark.parametrize(
    "args, expected_file",
    [
        ([], "checkpoint_1_report.json"),
        (["--format", "json"], "checkpoint_1_report.json"),
        (["--format", "csv"], "checkpoint_1_report.csv"),
        (["--format", "text"], "checkpoint_1_report.txt"),
    ],
    ids=["default-json", "json", "csv", "text"],
)
def test_report_formats(stocked, data_dir, args, expected_file):
    expected = (data_dir / expected_file).read_text()
    if expected_file.endswith(".json"):
        assert stocked.ok("report", *args) == json.loads(expected)
    else:
        assert stocked.text("report", *args) == expected


def test_default_database_in_working_directory(cli):
    cli.ok("add", "bolt", "2", db=False)
    assert (cli.cwd / "inventory.json").is_file()
    assert cli.ok("report", db=False)["items"] == [{"item": "bolt", "quantity": 2}]


# ---- Functionality --------------------------------------------------------------------------


@pytest.mark.functionality
@pytest.mark.parametrize(
    "fmt, expected",
    [("json", {"items": [], "total_quantity": 0}), ("csv", "item,quantity\n"), ("text", "")],
    ids=["json", "csv", "text"],
)
def test_report_on_missing_database(cli, fmt, expected):
    if fmt == "json":
        assert cli.ok("report", "--format", fmt) == expected
    else:
        assert cli.text("report", "--format", fmt) == expected
    assert not cli.db.exists(), "report must not create the database"


@pytest.mark.functionality
@pytest.mark.parametrize("name", ["9_lives-x", "x" * 32], ids=["digit-underscore-dash", "32-chars"])
def test_valid_names(cli, name):
    assert cli.ok("add", name, "1") == {"item": name, "quantity": 1}


@pytest.mark.functionality
def test_sorted_by_code_point(cli):
    for name in ["b_1", "a9", "b-2"]:
        cli.ok("add", name, "1")
    names = [row["item"] for row in cli.ok("report")["items"]]
    assert names == ["a9", "b-2", "b_1"]


@pytest.mark.functionality
def test_largest_quantity(cli):
    assert cli.ok("add", "bolt", "1000000000") == {"item": "bolt", "quantity": 1000000000}


@pytest.mark.bulk
def test_command_sequence(cli):
    for command, name, qty in [
        ("add", "p1", "4"),
        ("add", "p2", "9"),
        ("add", "p1", "6"),
        ("remove", "p2", "9"),
    ]:
        cli.ok(command, name, qty)
    assert cli.ok("report") == {"items": [{"item": "p1", "quantity": 10}], "total_quantity": 10}


# ---- Error ----------------------------------------------------------------------------------


@pytest.mark.error
@pytest.mark.parametrize(
    "name", ["Bolt", "_x", "y" * 33], ids=["uppercase", "leading-underscore", "33-chars"]
)
def test_invalid_name(cli, name):
    cli.fails("invalid_name", "add", name, "1")
    assert not cli.db.exists()


@pytest.mark.error
@pytest.mark.parametrize("qty", ["0", "-3", "1000000001"], ids=["zero", "negative", "too-large"])
def test_invalid_quantity(cli, qty):
    cli.fails("invalid_quantity", "add", "bolt", qty)
    assert not cli.db.exists()


@pytest.mark.error
def test_remove_unknown_item(cli):
    cli.fails("unknown_item", "remove", "bolt", "1")


@pytest.mark.error
def test_remove_more_than_available(cli):
    cli.ok("add", "bolt", "3")
    error = cli.fails("insufficient_stock", "remove", "bolt", "4")
    assert error.get("available") == 3
    assert cli.ok("report")["items"] == [{"item": "bolt", "quantity": 3}]


@pytest.mark.error
@pytest.mark.parametrize("args", [["add", "bolt", "1"], ["report"]], ids=["add", "report"])
def test_corrupt_database(cli, args):
    cli.db.write_text("{{{ not a database\n")
    cli.fails("corrupt_db", *args)
    assert cli.db.read_text() == "{{{ not a database\n"


@pytest.mark.error
@pytest.mark.parametrize(
    "args",
    [["frobnicate"], ["add", "bolt"], ["report", "--format", "xml"]],
    ids=["unknown-command", "missing-argument", "unknown-format"],
)
def test_usage_errors(cli, args):
    usage_error(cli.run(*args))
