"""Inventory ledger (checkpoint 2): stock, prices, catalog import."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path

import render
from store import Ledger, UserError, load, save

NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")
DIGITS = re.compile(r"[0-9]+")
PRICE = re.compile(r"([0-9]+)(?:\.([0-9]{1,2}))?")
MAX_QTY = 1_000_000_000
MAX_PRICE_CENTS = 100_000_000


def check_name(text: str) -> str:
    if not NAME.fullmatch(text):
        raise UserError("invalid_name", f"invalid item name {text!r}")
    return text


def check_quantity(text: str) -> int:
    if not DIGITS.fullmatch(text) or not 1 <= int(text) <= MAX_QTY:
        raise UserError("invalid_quantity", f"invalid quantity {text!r}")
    return int(text)


def check_price(text: str) -> int:
    match = PRICE.fullmatch(text)
    if not match:
        raise UserError("invalid_price", f"invalid price {text!r}")
    cents = int(match[1]) * 100 + int((match[2] or "0").ljust(2, "0"))
    if cents > MAX_PRICE_CENTS:
        raise UserError("invalid_price", f"price {text!r} is above 1000000")
    return cents


def read_catalog(path: Path) -> list[tuple[str, int, int | None]]:
    """All rows of an import file, checked; raises before anything is changed."""
    import csv  # imported here: most commands never need it

    if not path.is_file():
        raise UserError("file_not_found", f"{path} does not exist")
    try:
        with path.open(encoding="utf-8", newline="") as handle:
            reader = csv.reader(handle)
            header: list[str] | None = None
            rows = []
            last_line = 0
            for cells in reader:
                line, last_line = last_line + 1, reader.line_num
                if not cells:
                    continue
                if header is None:
                    header = cells
                    missing = [c for c in ("item", "quantity", "unit_price") if c not in header]
                    if missing:
                        raise UserError("invalid_csv", f"missing column(s): {', '.join(missing)}")
                    where = {c: header.index(c) for c in ("item", "quantity", "unit_price")}
                    continue
                if len(cells) != len(header):
                    raise UserError("invalid_row", f"line {line}: expected {len(header)} cells",
                                    line=line)
                try:
                    item = check_name(cells[where["item"]])
                    quantity = check_quantity(cells[where["quantity"]])
                    price_text = cells[where["unit_price"]]
                    price = check_price(price_text) if price_text != "" else None
                except UserError as exc:
                    raise UserError("invalid_row", f"line {line}: {exc.message}",
                                    line=line) from None
                rows.append((item, quantity, price))
    except (UnicodeDecodeError, csv.Error) as exc:
        raise UserError("invalid_csv", f"{path}: {exc}") from None
    if header is None:
        raise UserError("invalid_csv", f"{path} has no header line")
    return rows


# ---- commands: each returns (document to print, whether the ledger changed) ------------------

def cmd_add(args, ledger: Ledger):
    name, quantity = check_name(args.item), check_quantity(args.qty)
    price = check_price(args.price) if args.price is not None else None
    item = ledger.items.setdefault(name, {"quantity": 0, "price": None})
    item["quantity"] += quantity
    if price is not None:
        item["price"] = price
    return {"item": name, "quantity": item["quantity"]}


def cmd_remove(args, ledger: Ledger):
    name, quantity = check_name(args.item), check_quantity(args.qty)
    if name not in ledger.items:
        raise UserError("unknown_item", f"{name} is not in the inventory")
    available = ledger.quantity(name)
    if quantity > available:
        raise UserError("insufficient_stock", f"only {available} {name} left", available=available)
    left = available - quantity
    if left == 0:
        del ledger.items[name]
    else:
        ledger.items[name]["quantity"] = left
    return {"item": name, "quantity": left}


def cmd_price(args, ledger: Ledger):
    name, price = check_name(args.item), check_price(args.price)
    if name not in ledger.items:
        raise UserError("unknown_item", f"{name} is not in the inventory")
    ledger.items[name]["price"] = price
    return {"item": name, "unit_price": render.money(price)}


def cmd_import(args, ledger: Ledger):
    rows = read_catalog(Path(args.csvfile))
    names = list(dict.fromkeys(name for name, _, _ in rows))
    for name, quantity, price in rows:
        item = ledger.items.setdefault(name, {"quantity": 0, "price": None})
        item["quantity"] += quantity
        if price is not None:
            item["price"] = price
    return {"imported": len(rows), "items": len(names)}


MUTATING = {"add": cmd_add, "remove": cmd_remove, "price": cmd_price, "import": cmd_import}


def validate(args) -> None:
    if args.command in ("add", "remove", "price"):
        check_name(args.item)
    if args.command in ("add", "remove"):
        check_quantity(args.qty)
    if args.command == "price" or (args.command == "add" and args.price is not None):
        check_price(args.price)


def run_report(args, ledger: Ledger) -> str:
    if args.format == "csv":
        return render.report_csv(ledger, args.prices)
    if args.format == "text":
        return render.report_text(ledger, args.prices)
    currency = os.environ.get("INVENTORY_CURRENCY", "USD")
    return json.dumps(render.report_json(ledger, args.prices, currency)) + "\n"


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--db", default="inventory.json", help="database file")
    parser = argparse.ArgumentParser(prog="main.py", description="A small inventory ledger.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add = sub.add_parser("add", parents=[common], help="add stock")
    add.add_argument("item")
    add.add_argument("qty")
    add.add_argument("--price")
    remove = sub.add_parser("remove", parents=[common], help="remove stock")
    remove.add_argument("item")
    remove.add_argument("qty")
    price = sub.add_parser("price", parents=[common], help="set a unit price")
    price.add_argument("item")
    price.add_argument("price")
    imp = sub.add_parser("import", parents=[common], help="import a CSV catalog")
    imp.add_argument("csvfile")
    report = sub.add_parser("report", parents=[common], help="print the inventory")
    report.add_argument("--format", choices=["json", "csv", "text"], default="json")
    report.add_argument("--prices", action="store_true")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    db = Path(args.db)
    try:
        if args.command in MUTATING:
            validate(args)  # arguments are checked before the database is read
            ledger = load(db)
            output = json.dumps(MUTATING[args.command](args, ledger)) + "\n"
            save(db, ledger)
        else:
            output = run_report(args, load(db))
    except UserError as exc:
        print(json.dumps(exc.payload()), file=sys.stderr)
        return 1
    sys.stdout.write(output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
