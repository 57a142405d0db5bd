"""Stock ledger CLI. Text reports are drawn with `tabulate`."""

import argparse
import json
import os
import re
import sys

NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}\Z")
QTY_RE = re.compile(r"^[0-9]+\Z")


class Failure(Exception):
    def __init__(self, code, message, **extra):
        super().__init__(message)
        self.body = {"code": code, "message": message, **extra}


def parse_item(text):
    if not NAME_RE.match(text):
        raise Failure("invalid_name", "item names are lowercase letters, digits, '-' and '_'")
    return text


def parse_qty(text):
    if not QTY_RE.match(text) or not 0 < int(text) <= 10**9:
        raise Failure("invalid_quantity", "quantity must be a whole number from 1 to 1000000000")
    return int(text)


def read_db(path):
    if not os.path.exists(path):
        return {}
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        stock = data["stock"]
        assert isinstance(stock, dict) and all(type(v) is int for v in stock.values())
        return stock
    except Exception:
        raise Failure("corrupt_db", f"cannot read database {path}")


def write_db(path, stock):
    tmp = path + ".new"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump({"stock": stock}, fh)
    os.replace(tmp, path)


def do_report(stock, fmt):
    names = sorted(stock)
    if fmt == "json":
        rows = [{"item": n, "quantity": stock[n]} for n in names]
        return json.dumps({"items": rows, "total_quantity": sum(stock.values())}) + "\n"
    if fmt == "csv":
        return "item,quantity\n" + "".join(f"{n},{stock[n]}\n" for n in names)
    if not names:
        return ""
    from tabulate import tabulate  # slow to import; only text reports need it

    table = tabulate([[n, str(stock[n])] for n in names], tablefmt="plain",
                     colalign=("left", "right"), disable_numparse=True)
    return table + "\n"


def main():
    ap = argparse.ArgumentParser(prog="main.py")
    cmds = ap.add_subparsers(dest="cmd", required=True)
    for name in ("add", "remove"):
        p = cmds.add_parser(name)
        p.add_argument("item")
        p.add_argument("qty")
        p.add_argument("--db", default="inventory.json")
    p = cmds.add_parser("report")
    p.add_argument("--format", choices=("json", "csv", "text"), default="json")
    p.add_argument("--db", default="inventory.json")
    args = ap.parse_args()

    try:
        if args.cmd == "report":
            sys.stdout.write(do_report(read_db(args.db), args.format))
            return 0
        item, qty = parse_item(args.item), parse_qty(args.qty)
        stock = read_db(args.db)
        if args.cmd == "add":
            stock[item] = stock.get(item, 0) + qty
            left = stock[item]
        else:
            if item not in stock:
                raise Failure("unknown_item", f"no such item: {item}")
            if qty > stock[item]:
                raise Failure("insufficient_stock", f"only {stock[item]} in stock",
                              available=stock[item])
            left = stock[item] - qty
            if left == 0:
                del stock[item]
            else:
                stock[item] = left
        write_db(args.db, stock)
        print(json.dumps({"item": item, "quantity": left}))
        return 0
    except Failure as exc:
        print(json.dumps({"error": exc.body}), file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
