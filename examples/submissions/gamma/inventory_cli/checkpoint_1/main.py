# inventory ledger - quick version
import argparse
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


def report(inv, fmt):
    names = sorted(inv)
    if fmt == "csv":
        out = "item,quantity\n"
        for n in names:
            out += f"{n},{inv[n]}\n"
        return out
    if fmt == "text":
        if not names:
            return ""
        w1 = max(len(n) for n in names)
        w2 = max(len(str(inv[n])) for n in names)
        return "".join(n.ljust(w1) + "  " + str(inv[n]).rjust(w2) + "\n" for n in names)
    items = [{"item": n, "quantity": inv[n]} for n in names]
    return json.dumps({"items": items, "total_quantity": sum(inv.values())}) + "\n"


parser = argparse.ArgumentParser()
sub = parser.add_subparsers(dest="cmd", required=True)
for c in ["add", "remove"]:
    p = sub.add_parser(c)
    p.add_argument("item")
    p.add_argument("qty")
    p.add_argument("--db", default="inventory.json")
p = sub.add_parser("report")
p.add_argument("--format", default="json", choices=["json", "csv", "text"])
p.add_argument("--db", default="inventory.json")
args = parser.parse_args()

inv = load(args.db)
if args.cmd == "report":
    sys.stdout.write(report(inv, args.format))
else:
    qty = int(args.qty)
    if args.cmd == "add":
        inv[args.item] = inv.get(args.item, 0) + qty
    else:
        inv[args.item] = inv.get(args.item, 0) - qty
    left = inv[args.item]
    if left <= 0:
        del inv[args.item]
    save(args.db, inv)
    print(json.dumps({"item": args.item, "quantity": left}))
