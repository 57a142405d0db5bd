# inventory ledger - quick version, now with prices and import
import argparse
import csv
import json
import os
import sys


def load(db):
    if os.path.exists(db):
        with open(db) as f:
            return json.load(f)
    return {}


def save(db, inv):
    with open(db, "w") as f:
        json.dump(inv, f)


def money(x):
    return None if x is None else "%.2f" % x


def report(inv, fmt, prices):
    names = sorted(inv)
    rows = []
    for n in names:
        q, p = inv[n]["qty"], inv[n].get("price")
        rows.append([n, q, p, None if p is None else p * q])
    if fmt == "csv":
        out = "item,quantity,unit_price,value\n" if prices else "item,quantity\n"
        for n, q, p, v in rows:
            out += f"{n},{q},{money(p) or ''},{money(v) or ''}\n" if prices else f"{n},{q}\n"
        return out
    if fmt == "text":
        if not rows:
            return ""
        table = [[n, str(q)] + ([money(p) or "-", money(v) or "-"] if prices else []) for n, q, p, v in rows]
        widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
        lines = []
        for r in table:
            lines.append("  ".join([r[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(r[1:], widths[1:])]))
        return "\n".join(lines) + "\n"
    doc = {"items": [], "total_quantity": sum(r[1] for r in rows)}
    for n, q, p, v in rows:
        item = {"item": n, "quantity": q}
        if prices:
            item["unit_price"] = money(p)
            item["value"] = money(v)
        doc["items"].append(item)
    if prices:
        doc["total_value"] = money(sum(r[3] for r in rows if r[3] is not None))
        doc["currency"] = os.environ.get("INVENTORY_CURRENCY", "USD")
    return json.dumps(doc) + "\n"


def add(inv, item, qty, price=None):
    entry = inv.setdefault(item, {"qty": 0, "price": None})
    entry["qty"] += qty
    if price is not None:
        entry["price"] = price
    return entry["qty"]


parser = argparse.ArgumentParser()
sub = parser.add_subparsers(dest="cmd", required=True)
p = sub.add_parser("add")
p.add_argument("item")
p.add_argument("qty")
p.add_argument("--price")
p = sub.add_parser("remove")
p.add_argument("item")
p.add_argument("qty")
p = sub.add_parser("price")
p.add_argument("item")
p.add_argument("price")
p = sub.add_parser("import")
p.add_argument("csvfile")
p = sub.add_parser("report")
p.add_argument("--format", default="json", choices=["json", "csv", "text"])
p.add_argument("--prices", action="store_true")
for p in sub.choices.values():
    p.add_argument("--db", default="inventory.json")
args = parser.parse_args()

inv = load(args.db)
if args.cmd == "report":
    sys.stdout.write(report(inv, args.format, args.prices))
elif args.cmd == "import":
    with open(args.csvfile, newline="") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        add(inv, row["item"], int(row["quantity"]), float(row["unit_price"]) if row["unit_price"] else None)
    save(args.db, inv)
    print(json.dumps({"imported": len(rows), "items": len({r["item"] for r in rows})}))
elif args.cmd == "price":
    inv[args.item]["price"] = float(args.price)
    save(args.db, inv)
    print(json.dumps({"item": args.item, "unit_price": money(float(args.price))}))
elif args.cmd == "add":
    left = add(inv, args.item, int(args.qty), float(args.price) if args.price else None)
    save(args.db, inv)
    print(json.dumps({"item": args.item, "quantity": left}))
else:
    left = inv[args.item]["qty"] - int(args.qty)
    if left <= 0:
        del inv[args.item]
    else:
        inv[args.item]["qty"] = left
    save(args.db, inv)
    print(json.dumps({"item": args.item, "quantity": left}))
