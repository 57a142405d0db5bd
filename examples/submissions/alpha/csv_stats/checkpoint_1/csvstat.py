"""csvstat: statistics of one CSV column (checkpoint 1)."""

import argparse
import csv
import json
import sys


def fail(message):
    print(f"error: {message}", file=sys.stderr)
    sys.exit(2)


def read_rows(path):
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            return list(csv.reader(handle))
    except OSError:
        fail(f"cannot read {path}")


def number(text):
    try:
        return float(text) if any(c in text for c in ".eE") else int(text)
    except ValueError:
        return None


def summary(rows, column):
    header, body = (rows[0], rows[1:]) if rows else ([], [])
    if column not in header:
        fail(f"no column {column}")
    index = header.index(column)
    values = [number(row[index].strip()) if index < len(row) else None for row in body]
    numbers = [v for v in values if v is not None]
    stats = {"column": column, "count": len(numbers), "skipped": len(values) - len(numbers),
             "min": None, "max": None, "mean": None}
    if numbers:
        stats.update(min=min(numbers), max=max(numbers), mean=sum(numbers) / len(numbers))
    return stats


def main(argv):
    parser = argparse.ArgumentParser(prog="csvstat")
    commands = parser.add_subparsers(dest="command", required=True)
    one = commands.add_parser("summary")
    one.add_argument("file")
    one.add_argument("--column", required=True)
    cols = commands.add_parser("columns")
    cols.add_argument("file")
    args = parser.parse_args(argv)
    rows = read_rows(args.file)
    if args.command == "columns":
        for name in (rows[0] if rows else []):
            print(name)
        return 0
    print(json.dumps(summary(rows, args.column)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
