"""Inventory ledger (checkpoint 3): stock, prices, catalog import, history/undo, alerts."""

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


def load_config(option: str | None) -> dict:
    import tomllib  # imported here: only `alerts` reads the config

    if option is not None:
        path = Path(option)
        if not path.is_file():
            raise UserError("config_not_found", f"{path} does not exist")
    else:
        path = Path("inventory.toml")
        if not path.is_file():
            return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError) as exc:
        raise UserError("invalid_config", f"{path}: {exc}") from None

    def threshold(value: object, where: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise UserError("invalid_config", f"{path}: {where} must be an integer >= 0")
        return value

    alerts = data.get("alerts", {})
    if not isinstance(alerts, dict):
        raise UserError("invalid_config", f"{path}: [alerts] must be a table")
    config: dict = {"thresholds": {}}
    if "default_threshold" in alerts:
        config["default"] = threshold(alerts["default_threshold"], "alerts.default_threshold")
    thresholds = alerts.get("thresholds", {})
    if not isinstance(thresholds, dict):
        raise UserError("invalid_config", f"{path}: [alerts.thresholds] must be a table")
    for name, value in thresholds.items():
        config["thresholds"][name] = threshold(value, f"alerts.thresholds.{name}")
    return config


def fallback_threshold(config: dict) -> int:
    if "default" in config:
        return config["default"]
    env = os.environ.get("INVENTORY_LOW_STOCK")
    if env is None:
        return 0
    if not DIGITS.fullmatch(env):
        raise UserError("invalid_config", f"INVENTORY_LOW_STOCK={env!r} is not an integer >= 0")
    return int(env)


# ---- commands: each returns (document to print, whether the ledger changed) ------------------

def cmd_add(args, ledger: Ledger):
    name, quantity = check_name(args.item), check_quantity(args.qty)
    price = check_price(args.price) if args.price is not None else None
    before = ledger.snapshot([name])
    item = ledger.items.setdefault(name, {"quantity": 0, "price": None})
    item["quantity"] += quantity
    if price is not None:
        item["price"] = price
    ledger.record({"command": "add", "item": name, "quantity": quantity}, before)
    return {"item": name, "quantity": item["quantity"]}


def cmd_remove(args, ledger: Ledger):
    name, quantity = check_name(args.item), check_quantity(args.qty)
    if name not in ledger.items:
        raise UserError("unknown_item", f"{name} is not in the inventory")
    available = ledger.quantity(name)
    if quantity > available:
        raise UserError("insufficient_stock", f"only {available} {name} left", available=available)
    before = ledger.snapshot([name])
    left = available - quantity
    if left == 0:
        del ledger.items[name]
    else:
        ledger.items[name]["quantity"] = left
    ledger.record({"command": "remove", "item": name, "quantity": quantity}, before)
    return {"item": name, "quantity": left}


def cmd_price(args, ledger: Ledger):
    name, price = check_name(args.item), check_price(args.price)
    if name not in ledger.items:
        raise UserError("unknown_item", f"{name} is not in the inventory")
    before = ledger.snapshot([name])
    ledger.items[name]["price"] = price
    ledger.record({"command": "price", "item": name, "unit_price": render.money(price)}, before)
    return {"item": name, "unit_price": render.money(price)}


def cmd_import(args, ledger: Ledger):
    rows = read_catalog(Path(args.csvfile))
    names = list(dict.fromkeys(name for name, _, _ in rows))
    before = ledger.snapshot(names)
    for name, quantity, price in rows:
        item = ledger.items.setdefault(name, {"quantity": 0, "price": None})
        item["quantity"] += quantity
        if price is not None:
            item["price"] = price
    ledger.record({"command": "import", "rows": len(rows)}, before)
    return {"imported": len(rows), "items": len(names)}


def cmd_undo(args, ledger: Ledger):
    return {"undone": ledger.undo()}


MUTATING = {"add": cmd_add, "remove": cmd_remove, "price": cmd_price, "import": cmd_import,
            "undo": cmd_undo}


def validate(args) -> None:
    if args.command in ("add", "remove", "price"):
        check_name(args.item)
    if args.command in ("add", "remove"):
        check_quantity(args.qty)
    if args.command == "price" or (args.command == "add" and args.price is not None):
        check_price(args.price)


def run_readonly(args, ledger: Ledger) -> str:
    if args.command == "report":
        if args.format == "csv":
            return render.report_csv(ledger, args.prices)
        if args.format == "text":
            return render.report_text(ledger, args.prices)
        currency = os.environ.get("INVENTORY_CURRENCY", "USD")
        return json.dumps(render.report_json(ledger, args.prices, currency)) + "\n"
    if args.command == "history":
        return json.dumps({"entries": [h["entry"] for h in ledger.history]}) + "\n"
    # alerts
    config = load_config(args.config)
    fallback = fallback_threshold(config)
    alerts = []
    for name in sorted(ledger.items):
        limit = config["thresholds"].get(name, fallback) if config else fallback
        quantity = ledger.items[name]["quantity"]
        if quantity <= limit:
            alerts.append({"item": name, "quantity": quantity, "threshold": limit})
    return json.dumps({"alerts": alerts, "count": len(alerts)}) + "\n"


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
    sub.add_parser("history", parents=[common], help="list recorded commands")
    sub.add_parser("undo", parents=[common], help="revert the last recorded command")
    alerts = sub.add_parser("alerts", parents=[common], help="list items low on stock")
    alerts.add_argument("--config")
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
            output = run_readonly(args, load(db))
    except UserError as exc:
        print(json.dumps(exc.payload()), file=sys.stderr)
        return 1
    sys.stdout.write(output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
