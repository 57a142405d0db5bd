"""Inventory ledger (checkpoint 1): add, remove and report stock."""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from store import UserError, load, save

NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")
DIGITS = re.compile(r"[0-9]+")
MAX_QTY = 1_000_000_000


def check_name(text: str) -> str:
    if not NAME.fullmatch(text):
        raise UserError("invalid_name", f"invalid item name {text!r}")
    return text


def check_quantity(text: str) -> int:
    if not DIGITS.fullmatch(text) or not 1 <= int(text) <= MAX_QTY:
        raise UserError("invalid_quantity", f"invalid quantity {text!r}")
    return int(text)


def cmd_add(items: dict[str, int], name: str, quantity: int) -> dict:
    items[name] = items.get(name, 0) + quantity
    return {"item": name, "quantity": items[name]}


def cmd_remove(items: dict[str, int], name: str, quantity: int) -> dict:
    if name not in items:
        raise UserError("unknown_item", f"{name} is not in the inventory")
    available = items[name]
    if quantity > available:
        raise UserError("insufficient_stock", f"only {available} {name} left", available=available)
    left = available - quantity
    if left:
        items[name] = left
    else:
        del items[name]
    return {"item": name, "quantity": left}


def report(items: dict[str, int], fmt: str) -> str:
    names = sorted(items)
    if fmt == "csv":
        import csv
        import io

        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["item", "quantity"])
        writer.writerows([name, items[name]] for name in names)
        return buffer.getvalue()
    if fmt == "text":
        if not names:
            return ""
        name_width = max(len(n) for n in names)
        qty_width = max(len(str(items[n])) for n in names)
        return "".join(f"{n.ljust(name_width)}  {str(items[n]).rjust(qty_width)}\n" for n in names)
    doc = {"items": [{"item": n, "quantity": items[n]} for n in names],
           "total_quantity": sum(items.values())}
    return json.dumps(doc) + "\n"


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--db", default="inventory.json", help="database file")
    parser = argparse.ArgumentParser(prog="main.py", description="A small inventory ledger.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in ("add", "remove"):
        p = sub.add_parser(command, parents=[common], help=f"{command} stock")
        p.add_argument("item")
        p.add_argument("qty")
    p = sub.add_parser("report", parents=[common], help="print the inventory")
    p.add_argument("--format", choices=["json", "csv", "text"], default="json")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    db = Path(args.db)
    try:
        if args.command == "report":
            output = report(load(db), args.format)
        else:
            name, quantity = check_name(args.item), check_quantity(args.qty)
            items = load(db)
            command = cmd_add if args.command == "add" else cmd_remove
            output = json.dumps(command(items, name, quantity)) + "\n"
            save(db, items)
    except UserError as exc:
        print(json.dumps(exc.payload()), file=sys.stderr)
        return 1
    sys.stdout.write(output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
