"""csvstat: statistics of one CSV column (checkpoint 2: stdin, --output, --format, delimiter)."""

import argparse
import csv
import json
import os
import sys


def fail(message):
    print(f"error: {message}", file=sys.stderr)
    sys.exit(2)


def read_rows(path):
    delimiter = os.environ.get("CSVSTAT_DELIMITER", ",")
    if path == "-":
        return list(csv.reader(sys.stdin, delimiter=delimiter))
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            return list(csv.reader(handle, delimiter=delimiter))
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


def as_text(stats):
    line = f"{stats['column']}: count={stats['count']} skipped={stats['skipped']}"
    if stats["count"]:
        line += " " + " ".join(f"{key}={stats[key]:g}" for key in ("min", "max", "mean"))
    return line


def main(argv):
    parser = argparse.ArgumentParser(prog="csvstat")
    commands = parser.add_subparsers(dest="command", required=True)
    one = commands.add_parser("summary")
    one.add_argument("file")
    one.add_argument("--column", required=True)
    one.add_argument("--output")
    one.add_argument("--format", default="json")
    cols = commands.add_parser("columns")
    cols.add_argument("file")
    args = parser.parse_args(argv)
    if args.command == "summary" and args.format not in ("json", "text"):
        fail(f"unknown format {args.format}")
    rows = read_rows(args.file)
    if args.command == "columns":
        for name in (rows[0] if rows else []):
            print(name)
        return 0
    stats = summary(rows, args.column)
    text = json.dumps(stats) if args.format == "json" else as_text(stats)
    if args.output:
        os.makedirs(os.path.dirname(args.output) or ".", exist_ok=True)
        with open(args.output, "w", encoding="utf-8") as handle:
            handle.write(text + "\n")
        print(f"wrote {args.output}")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
