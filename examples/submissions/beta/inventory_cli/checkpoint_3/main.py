"""Stock ledger CLI: prices, CSV import, history with undo, low-stock alerts.

Text reports are drawn with `tabulate`.
"""

import argparse
import copy
import csv
import json
import os
import re
import sys
from decimal import Decimal

NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}\Z")
QTY_RE = re.compile(r"^[0-9]+\Z")
PRICE_RE = re.compile(r"^[0-9]+(\.[0-9]{1,2})?\Z")
CENT = Decimal("0.01")


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


def parse_price(text):
    if not PRICE_RE.match(text) or Decimal(text) > 1000000:
        raise Failure("invalid_price", "price must look like 12.34 and be at most 1000000")
    return str(Decimal(text).quantize(CENT))


HISTORY = []  # [{"entry": {...}, "stock_before": {...}}], loaded with the stock


def read_db(path):
    if not os.path.exists(path):
        return {}
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        stock = data["stock"]
        for entry in stock.values():
            assert type(entry["qty"]) is int
        HISTORY[:] = data.get("history", [])
        return stock
    except Exception:
        raise Failure("corrupt_db", f"cannot read database {path}")


def write_db(path, stock):
    tmp = path + ".new"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump({"stock": stock, "history": HISTORY, "schema": 3}, fh)
    os.replace(tmp, path)


def record(before, **entry):
    entry = {"id": len(HISTORY) + 1, **entry}
    HISTORY.append({"entry": entry, "stock_before": before})


def read_config(path):
    import tomllib

    if path is not None and not os.path.isfile(path):
        raise Failure("config_not_found", f"{path} not found")
    path = path or "inventory.toml"
    if not os.path.isfile(path):
        return {}
    try:
        with open(path, "rb") as fh:
            alerts = tomllib.load(fh).get("alerts", {})
        assert isinstance(alerts, dict)
        thresholds = alerts.get("thresholds", {})
        assert isinstance(thresholds, dict)
        for value in [alerts.get("default_threshold", 0), *thresholds.values()]:
            assert type(value) is int and value >= 0
        return alerts
    except (tomllib.TOMLDecodeError, AssertionError):
        raise Failure("invalid_config", f"bad config file {path}")


def do_alerts(stock, alerts):
    fallback = alerts.get("default_threshold")
    if fallback is None:
        env = os.environ.get("INVENTORY_LOW_STOCK", "0")
        if not QTY_RE.match(env):
            raise Failure("invalid_config", "INVENTORY_LOW_STOCK must be a whole number")
        fallback = int(env)
    found = []
    for name in sorted(stock):
        limit = alerts.get("thresholds", {}).get(name, fallback)
        if stock[name]["qty"] <= limit:
            found.append({"item": name, "quantity": stock[name]["qty"], "threshold": limit})
    return {"alerts": found, "count": len(found)}


def value_of(entry):
    if entry.get("price") is None:
        return None
    return str((Decimal(entry["price"]) * entry["qty"]).quantize(CENT))


def do_report(stock, fmt, prices):
    names = sorted(stock)
    if fmt == "json":
        # Always show prices in JSON: more information is always better.
        rows = [{"item": n, "quantity": stock[n]["qty"], "unit_price": stock[n].get("price"),
                 "value": value_of(stock[n])} for n in names]
        total = sum((Decimal(r["value"]) for r in rows if r["value"]), Decimal("0"))
        return json.dumps({"items": rows, "total_quantity": sum(r["quantity"] for r in rows),
                           "total_value": str(total.quantize(CENT)),
                           "currency": os.environ.get("INVENTORY_CURRENCY", "USD")}) + "\n"
    rows = []
    for n in names:
        row = [n, str(stock[n]["qty"])]
        if prices:
            row += [stock[n].get("price") or "", value_of(stock[n]) or ""]
        rows.append(row)
    if fmt == "csv":
        header = "item,quantity,unit_price,value\n" if prices else "item,quantity\n"
        return header + "".join(",".join(r) + "\n" for r in rows)
    if not names:
        return ""
    from tabulate import tabulate  # slow to import; only text reports need it

    rows = [[c or "-" for c in r] for r in rows]
    table = tabulate(rows, tablefmt="plain", colalign=("left",) + ("right",) * (len(rows[0]) - 1),
                     disable_numparse=True)
    return table + "\n"


def read_import(path):
    if not os.path.isfile(path):
        raise Failure("file_not_found", f"{path} not found")
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.reader(fh)
        header = next(reader, None)
        if header is None or not {"item", "quantity", "unit_price"} <= set(header):
            raise Failure("invalid_csv", "need columns item, quantity, unit_price")
        col = {name: header.index(name) for name in ("item", "quantity", "unit_price")}
        rows, line = [], reader.line_num
        for cells in reader:
            line, start = reader.line_num, line + 1
            if not cells:
                continue
            try:
                if len(cells) != len(header):
                    raise Failure("invalid_row", "wrong number of cells")
                price = cells[col["unit_price"]]
                rows.append((parse_item(cells[col["item"]]), parse_qty(cells[col["quantity"]]),
                             parse_price(price) if price else None))
            except Failure as exc:
                raise Failure("invalid_row", f"line {start}: {exc.body['message']}", line=start)
    return rows


def main():
    ap = argparse.ArgumentParser(prog="main.py")
    cmds = ap.add_subparsers(dest="cmd", required=True)
    p = cmds.add_parser("add")
    p.add_argument("item")
    p.add_argument("qty")
    p.add_argument("--price")
    p = cmds.add_parser("remove")
    p.add_argument("item")
    p.add_argument("qty")
    p = cmds.add_parser("price")
    p.add_argument("item")
    p.add_argument("price")
    p = cmds.add_parser("import")
    p.add_argument("csvfile")
    p = cmds.add_parser("report")
    p.add_argument("--format", choices=("json", "csv", "text"), default="json")
    p.add_argument("--prices", action="store_true")
    cmds.add_parser("history")
    cmds.add_parser("undo")
    p = cmds.add_parser("alerts")
    p.add_argument("--config")
    for sub in cmds.choices.values():
        sub.add_argument("--db", default="inventory.json")
    args = ap.parse_args()

    try:
        if args.cmd == "report":
            sys.stdout.write(do_report(read_db(args.db), args.format, args.prices))
            return 0
        if args.cmd == "history":
            read_db(args.db)
            print(json.dumps({"entries": [h["entry"] for h in HISTORY]}))
            return 0
        if args.cmd == "alerts":
            alerts = read_config(args.config)
            print(json.dumps(do_alerts(read_db(args.db), alerts)))
            return 0
        if args.cmd == "undo":
            stock = read_db(args.db)
            if not HISTORY:
                raise Failure("nothing_to_undo", "history is empty")
            last = HISTORY.pop()
            write_db(args.db, last["stock_before"])
            print(json.dumps({"undone": last["entry"]}))
            return 0
        if args.cmd == "import":
            rows = read_import(args.csvfile)
            stock = read_db(args.db)
            record(copy.deepcopy(stock), command="import", rows=len(rows))
            for item, qty, price in rows:
                entry = stock.setdefault(item, {"qty": 0, "price": None})
                entry["qty"] += qty
                if price is not None:
                    entry["price"] = price
            write_db(args.db, stock)
            print(json.dumps({"imported": len(rows), "items": len({r[0] for r in rows})}))
            return 0
        item = parse_item(args.item)
        if args.cmd == "price":
            price = parse_price(args.price)
            stock = read_db(args.db)
            if item not in stock:
                raise Failure("unknown_item", f"no such item: {item}")
            record(copy.deepcopy(stock), command="price", item=item, unit_price=price)
            stock[item]["price"] = price
            write_db(args.db, stock)
            print(json.dumps({"item": item, "unit_price": price}))
            return 0
        qty = parse_qty(args.qty)
        price = parse_price(args.price) if args.cmd == "add" and args.price is not None else None
        stock = read_db(args.db)
        before = copy.deepcopy(stock)
        if args.cmd == "add":
            entry = stock.setdefault(item, {"qty": 0, "price": None})
            entry["qty"] += qty
            if price is not None:
                entry["price"] = price
            left = entry["qty"]
        else:
            if item not in stock:
                raise Failure("unknown_item", f"no such item: {item}")
            have = stock[item]["qty"]
            if qty > have:
                raise Failure("insufficient_stock", f"only {have} in stock", available=have)
            left = have - qty
            if left == 0:
                del stock[item]
            else:
                stock[item]["qty"] = left
        record(before, command=args.cmd, item=item, quantity=qty)
        write_db(args.db, stock)
        print(json.dumps({"item": item, "quantity": left}))
        return 0
    except Failure as exc:
        print(json.dumps({"error": exc.body}), file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
