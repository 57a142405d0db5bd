"""csvstat (beta): column statistics, hand-rolled argument parsing."""

import csv
import json
import sys

USAGE = "usage: csvstat.py summary FILE --column NAME | csvstat.py columns FILE"


def die(message, code=2):
    sys.stderr.write(message + "\n")
    raise SystemExit(code)


def load(path):
    try:
        handle = open(path, newline="", encoding="utf-8")
    except OSError:
        die(f"error: cannot read {path}")
    with handle:
        return list(csv.reader(handle))


def parse_number(cell):
    cell = cell.strip()
    for kind in (int, float):
        try:
            return kind(cell)
        except ValueError:
            continue
    return None


def column_stats(table, name):
    if not table or name not in table[0]:
        die(f"error: no column {name}")
    position = table[0].index(name)
    cells = [row[position] if position < len(row) else "" for row in table[1:]]
    found = [n for n in map(parse_number, cells) if n is not None]
    result = {"column": name, "count": len(found), "skipped": len(cells) - len(found)}
    if found:
        result.update(min=min(found), max=max(found), mean=sum(found) / len(found))
    else:
        result.update(min=None, max=None, mean=None)
    return result


def main(args):
    if len(args) == 2 and args[0] == "columns":
        print("\n".join(load(args[1])[0]))
        return 0
    if len(args) == 4 and args[0] == "summary" and args[2] == "--column":
        print(json.dumps(column_stats(load(args[1]), args[3])))
        return 0
    die(USAGE)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
