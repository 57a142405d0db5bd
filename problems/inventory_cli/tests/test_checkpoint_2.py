"""Checkpoint 2: prices, `price`, `import` of a CSV catalog, `report --prices`."""

from __future__ import annotations

import csv
import json
import os
from decimal import Decimal

import pytest

from cli_helpers import Cli, write_csv

CURRENCY_VAR = "INVENTORY_CURRENCY"


def catalog_expectations(path) -> tuple[dict, dict]:
    """What importing the catalog into an empty database must give, computed from the file."""
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    quantities: dict[str, int] = {}
    prices: dict[str, Decimal] = {}
    for row in rows:
        quantities[row["item"]] = quantities.get(row["item"], 0) + int(row["quantity"])
        if row["unit_price"]:
            prices[row["item"]] = Decimal(row["unit_price"])
    summary = {"imported": len(rows), "items": len(quantities)}
    total = sum((quantities[n] * prices[n] for n in prices), Decimal(0))
    totals = {"total_quantity": sum(quantities.values()), "total_value": f"{total:.2f}"}
    return summary, totals


@pytest.fixture(scope="module")
def gear_db(entrypoint_argv, tmp_path_factory):
    """A database holding one item, `gear`, whose price the tests overwrite."""
    root = tmp_path_factory.mktemp("gear")
    gear = Cli(entrypoint_argv, cwd=root, db=root / "stock.db")
    gear.ok("add", "gear", "3")
    return gear


@pytest.fixture(scope="module")
def catalog_db(module_cli, catalog_path):
    """One database holding exactly the imported catalog, for read-only tests."""
    module_cli.ok("import", str(catalog_path))
    return module_cli


# ---- Core -----------------------------------------------------------------------------------


def test_import_catalog(cli, catalog_path):
    summary, _ = catalog_expectations(catalog_path)
    assert cli.ok("import", str(catalog_path)) == summary


@pytest.mark.parametrize("fmt", ["json", "csv", "text"], ids=["json", "csv", "text"])
def test_catalog_report_with_prices(catalog_db, catalog_path, data_dir, fmt):
    expected = (data_dir / f"checkpoint_2_catalog.{'txt' if fmt == 'text' else fmt}").read_text()
    if fmt == "json":
        document = catalog_db.ok("report", "--prices")
        wanted = {**json.loads(expected), "currency": os.environ[CURRENCY_VAR]}
        assert document == wanted
        _, totals = catalog_expectations(catalog_path)
        assert {k: document[k] for k in totals} == totals
    else:
        assert catalog_db.text("report", "--format", fmt, "--prices") == expected


def test_add_with_price(cli):
    assert cli.ok("add", "bolt", "5", "--price", "0.2") == {"item": "bolt", "quantity": 5}
    cli.ok("add", "nut", "120")
    assert cli.ok("report", "--prices") == {
        "items": [
            {"item": "bolt", "quantity": 5, "unit_price": "0.20", "value": "1.00"},
            {"item": "nut", "quantity": 120, "unit_price": None, "value": None},
        ],
        "total_quantity": 125,
        "total_value": "1.00",
        "currency": os.environ[CURRENCY_VAR],
    }


def test_price_command(cli):
    cli.ok("add", "bracket", "4")
    assert cli.ok("price", "bracket", "1.25") == {"item": "bracket", "unit_price": "1.25"}


# ---- Regression (marked): checkpoint 1 behaviour that prices must not change -------------------


@pytest.mark.regression
def test_report_without_prices_unchanged(catalog_db, catalog_path):
    _, totals = catalog_expectations(catalog_path)
    document = catalog_db.ok("report")
    assert set(document) == {"items", "total_quantity"}
    assert all(set(row) == {"item", "quantity"} for row in document["items"])
    assert document["total_quantity"] == totals["total_quantity"]
    assert catalog_db.text("report", "--format", "csv").splitlines()[0] == "item,quantity"


# ---- Functionality --------------------------------------------------------------------------


@pytest.mark.functionality
@pytest.mark.parametrize(
    "env_case", ["from-environment", "default"], ids=["from-environment", "default"]
)
def test_currency(cli, env_case):
    if env_case == "from-environment":
        # The problem config sets INVENTORY_CURRENCY=EUR: the harness must pass it through.
        assert os.environ.get(CURRENCY_VAR) == "EUR"
        assert cli.ok("report", "--prices")["currency"] == "EUR"
    else:
        document = cli.ok("report", "--prices", drop_env=(CURRENCY_VAR,))
        assert document == {
            "items": [],
            "total_quantity": 0,
            "total_value": "0.00",
            "currency": "USD",
        }


@pytest.mark.functionality
@pytest.mark.parametrize(
    "given, shown",
    [("3", "3.00"), ("1.5", "1.50"), ("1000000", "1000000.00")],
    ids=["whole", "one-decimal", "maximum"],
)
def test_price_formatting(gear_db, given, shown):
    assert gear_db.ok("price", "gear", given) == {"item": "gear", "unit_price": shown}


@pytest.mark.functionality
def test_exact_decimal_values(cli, tmp_path):
    # 999999999 x 999999.99 has 17 significant digits: binary floats lose the last cent.
    feed = write_csv(
        tmp_path / "feed.csv",
        ["item,quantity,unit_price", "big,999999999,999999.99", "cap,7,0.29", "pin,3,0.10"],
    )
    cli.ok("import", str(feed))
    document = cli.ok("report", "--prices")
    assert [row["value"] for row in document["items"]] == ["999999989000000.01", "2.03", "0.30"]
    assert document["total_value"] == "999999989000002.34"


@pytest.mark.functionality
def test_import_keeps_price_on_empty_cell(cli, tmp_path):
    cli.ok("add", "bracket", "2", "--price", "9.99")
    feed = write_csv(
        tmp_path / "feed.csv", ["quantity,item,unit_price,note", "5,bracket,,x", "1,hinge,0.5,y"]
    )
    assert cli.ok("import", str(feed)) == {"imported": 2, "items": 2}
    rows = cli.ok("report", "--prices")["items"]
    assert rows == [
        {"item": "bracket", "quantity": 7, "unit_price": "9.99", "value": "69.93"},
        {"item": "hinge", "quantity": 1, "unit_price": "0.50", "value": "0.50"},
    ]


@pytest.mark.functionality
def test_deleted_item_forgets_price(cli):
    cli.ok("add", "fuse", "2", "--price", "0.5")
    cli.ok("remove", "fuse", "2")
    cli.ok("add", "fuse", "1")
    assert cli.ok("report", "--prices")["items"] == [
        {"item": "fuse", "quantity": 1, "unit_price": None, "value": None}
    ]


@pytest.mark.functionality
def test_text_report_unknown_price(cli):
    cli.ok("add", "bolt", "5", "--price", "0.2")
    cli.ok("add", "nut", "120")
    assert cli.text("report", "--format", "text", "--prices") == (
        "bolt    5  0.20  1.00\nnut   120     -     -\n"
    )


@pytest.mark.bulk
def test_import_many_rows(cli, tmp_path):
    lines = ["item,quantity,unit_price"]
    for i in range(400):
        lines.append(f"part-{i % 40:02d},{i % 7 + 1},{i % 40}.{i % 100:02d}")
    write_csv(tmp_path / "big.csv", lines)
    assert cli.ok("import", str(tmp_path / "big.csv")) == {"imported": 400, "items": 40}
    document = cli.ok("report", "--prices")
    quantities: dict[str, int] = {}
    prices: dict[str, Decimal] = {}
    for i in range(400):
        name = f"part-{i % 40:02d}"
        quantities[name] = quantities.get(name, 0) + i % 7 + 1
        prices[name] = Decimal(f"{i % 40}.{i % 100:02d}")
    total = sum(quantities[n] * prices[n] for n in quantities)
    assert document["total_quantity"] == sum(quantities.values())
    assert document["total_value"] == f"{total:.2f}"
    assert [row["item"] for row in document["items"]] == sorted(quantities)


# ---- Error ----------------------------------------------------------------------------------


@pytest.mark.error
@pytest.mark.parametrize(
    "price",
    ["1.555", "abc", "1000000.01", ".5"],
    ids=["three-decimals", "word", "too-large", "no-whole-part"],
)
def test_invalid_price(cli, price):
    cli.fails("invalid_price", "add", "bolt", "1", "--price", price)
    assert not cli.db.exists()


@pytest.mark.error
def test_price_unknown_item(cli):
    cli.fails("unknown_item", "price", "bolt", "1.00")


@pytest.mark.error
@pytest.mark.parametrize(
    "lines, code, line",
    [
        (None, "file_not_found", None),
        ([], "invalid_csv", None),
        (["item,quantity", "bolt,1"], "invalid_csv", None),
        (["item,quantity,unit_price", "bolt,1,0.10", "nut,0,0.05", "pin,2,"], "invalid_row", 3),
        (["item,quantity,unit_price", "bolt,1,", "", "Nut,2,0.05"], "invalid_row", 4),
        (["item,quantity,unit_price", "bolt,1,0.1", "pin,2,1.005"], "invalid_row", 3),
    ],
    ids=[
        "missing-file",
        "empty-file",
        "missing-column",
        "bad-quantity",
        "bad-name-after-blank-line",
        "bad-price",
    ],
)
def test_import_errors(cli, tmp_path, lines, code, line):
    path = tmp_path / "feed.csv"
    if lines is not None:
        write_csv(path, lines)
    error = cli.fails(code, "import", str(path))
    if line is not None:
        assert error.get("line") == line
    assert not cli.db.exists(), "a failed import must change nothing"
