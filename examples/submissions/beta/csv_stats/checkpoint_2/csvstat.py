"""csvstat (beta): column statistics; checkpoint 2 reworked the parsing around a Table class.

The rework reads every empty cell as 0 (so empty cells are counted, not skipped) and always
splits on commas (CSVSTAT_DELIMITER is not read).
"""

import csv
import io
import json
import os
import sys

USAGE = "usage: csvstat.py summary FILE --column NAME [--output PATH] [--format json|text] | csvstat.py columns FILE"


def die(message, code=2):
    sys.stderr.write(message + "\n")
    raise SystemExit(code)


class Table:
    def __init__(self, text):
        rows = list(csv.reader(io.StringIO(text)))
        self.header, self.rows = (rows[0], rows[1:]) if rows else ([], [])

    @classmethod
    def open(cls, path):
        if path == "-":
            return cls(sys.stdin.read())
        try:
            with open(path, encoding="utf-8") as handle:
                return cls(handle.read())
        except OSError:
            die(f"error: cannot read {path}")

    def numbers(self, name):
        if name not in self.header:
            die(f"error: no column {name}")
        position = self.header.index(name)
        values, skipped = [], 0
        for row in self.rows:
            cell = (row[position] if position < len(row) else "").strip() or "0"
            try:
                values.append(float(cell) if "." in cell else int(cell))
            except ValueError:
                skipped += 1
        return values, skipped


def stats(table, name):
    values, skipped = table.numbers(name)
    result = {"column": name, "count": len(values), "skipped": skipped, "min": None, "max": None, "mean": None}
    if values:
        result.update(min=min(values), max=max(values), mean=sum(values) / len(values))
    return result


def render(result, fmt):
    if fmt == "json":
        return json.dumps(result)
    text = f"{result['column']}: count={result['count']} skipped={result['skipped']}"
    if result["count"]:
        text += f" min={result['min']:g} max={result['max']:g} mean={result['mean']:g}"
    return text


def main(args):
    if len(args) == 2 and args[0] == "columns":
        print("\n".join(Table.open(args[1]).header))
        return 0
    if len(args) < 4 or args[0] != "summary" or args[2] != "--column":
        die(USAGE)
    options = dict(zip(args[4::2], args[5::2]))
    fmt = options.get("--format", "json")
    if fmt not in ("json", "text"):
        die(f"error: unknown format {fmt}")
    text = render(stats(Table.open(args[1]), args[3]), fmt)
    target = options.get("--output")
    if target:
        os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
        with open(target, "w", encoding="utf-8") as handle:
            handle.write(text + "\n")
        print(f"wrote {target}")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
