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

def test_add_new_item(cli):
    assert cli.ok("add", "bolt", "5") == {"item": "bolt", "quantity": 5}


def test_add_accumulates(cli):
    cli.ok("add", "bolt", "5")
    assert cli.ok("add", "bolt", "7") == {"item": "bolt", "quantity": 12}


def test_remove_some(cli):
    cli.ok("add", "nut", "10")
    assert cli.ok("remove", "nut", "4") == {"item": "nut", "quantity": 6}
    assert cli.ok("report") == {"items": [{"item": "nut", "quantity": 6}], "total_quantity": 6}


def test_remove_all_deletes_item(cli):
    cli.ok("add", "nut", "3")
    assert cli.ok("remove", "nut", "3") == {"item": "nut", "quantity": 0}
    assert cli.ok("report") == {"items": [], "total_quantity": 0}


@pytest.mark.parametrize("fmt", ["json", "csv", "text"], ids=["json", "csv", "text"])
def test_report_formats(stocked, data_dir, fmt):
    expected = (data_dir / f"checkpoint_1_report.{'txt' if fmt == 'text' else fmt}").read_text()
    if fmt == "json":
        assert stocked.ok("report", "--format", "json") == json.loads(expected)
    else:
        assert stocked.text("report", "--format", fmt) == expected


def test_report_defaults_to_json(stocked, data_dir):
    assert stocked.ok("report") == json.loads((data_dir / "checkpoint_1_report.json").read_text())


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
@pytest.mark.parametrize("name", ["a", "9-lives", "under_score", "x" * 32],
                         ids=["one-char", "leading-digit", "underscore", "32-chars"])
def test_valid_names(cli, name):
    assert cli.ok("add", name, "1") == {"item": name, "quantity": 1}


@pytest.mark.functionality
def test_sorted_by_code_point(cli):
    for name in ["b_1", "a9", "b-2", "a10"]:
        cli.ok("add", name, "1")
    names = [row["item"] for row in cli.ok("report")["items"]]
    assert names == ["a10", "a9", "b-2", "b_1"]


@pytest.mark.functionality
def test_largest_quantity(cli):
    assert cli.ok("add", "bolt", "1000000000") == {"item": "bolt", "quantity": 1000000000}


@pytest.mark.bulk
def test_long_sequence(cli):
    expected: dict[str, int] = {}
    for name, qty in [("p1", 4), ("p2", 9), ("p3", 1), ("p1", 6), ("p4", 2)]:
        cli.ok("add", name, str(qty))
        expected[name] = expected.get(name, 0) + qty
    for name, qty in [("p2", 9), ("p1", 3), ("p4", 1)]:
        cli.ok("remove", name, str(qty))
        expected[name] -= qty
    rows = [{"item": n, "quantity": q} for n, q in sorted(expected.items()) if q]
    assert cli.ok("report") == {"items": rows, "total_quantity": sum(expected.values())}


# ---- Error ----------------------------------------------------------------------------------

@pytest.mark.error
@pytest.mark.parametrize("name", ["Bolt", "_x", "y" * 33, "two words", ""],
                         ids=["uppercase", "leading-underscore", "33-chars", "space", "empty"])
def test_invalid_name(cli, name):
    cli.fails("invalid_name", "add", name, "1")
    assert not cli.db.exists()


@pytest.mark.error
@pytest.mark.parametrize("qty", ["0", "-3", "2.5", "ten", "1000000001"],
                         ids=["zero", "negative", "decimal", "word", "too-large"])
def test_invalid_quantity(cli, qty):
    cli.fails("invalid_quantity", "add", "bolt", qty)
    assert not cli.db.exists()


@pytest.mark.error
def test_name_checked_before_quantity(cli):
    cli.fails("invalid_name", "add", "Bolt", "0")


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
    [[], ["frobnicate"], ["add", "bolt"], ["report", "--format", "xml"]],
    ids=["no-command", "unknown-command", "missing-argument", "unknown-format"],
)
def test_usage_errors(cli, args):
    usage_error(cli.run(*args, db=bool(args)))
