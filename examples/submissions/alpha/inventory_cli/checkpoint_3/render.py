"""Report formats: json, csv and the aligned text table."""

from __future__ import annotations


def money(cents: int | None) -> str | None:
    return None if cents is None else f"{cents // 100}.{cents % 100:02d}"


def rows(ledger, prices: bool) -> list[dict]:
    out = []
    for name in sorted(ledger.items):
        item = ledger.items[name]
        row = {"item": name, "quantity": item["quantity"]}
        if prices:
            price = item["price"]
            row["unit_price"] = money(price)
            row["value"] = money(None if price is None else price * item["quantity"])
        out.append(row)
    return out


def report_json(ledger, prices: bool, currency: str) -> dict:
    items = rows(ledger, prices)
    doc = {"items": items, "total_quantity": sum(r["quantity"] for r in items)}
    if prices:
        priced = [i for i in ledger.items.values() if i["price"] is not None]
        total = sum(i["price"] * i["quantity"] for i in priced)
        doc["total_value"] = money(total)
        doc["currency"] = currency
    return doc


def report_csv(ledger, prices: bool) -> str:
    import csv
    import io

    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    columns = ["item", "quantity"] + (["unit_price", "value"] if prices else [])
    writer.writerow(columns)
    for row in rows(ledger, prices):
        writer.writerow(["" if row[c] is None else row[c] for c in columns])
    return buffer.getvalue()


def report_text(ledger, prices: bool) -> str:
    table = []
    for row in rows(ledger, prices):
        cells = [row["item"], str(row["quantity"])]
        if prices:
            cells += [row["unit_price"] or "-", row["value"] or "-"]
        table.append(cells)
    if not table:
        return ""
    widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
    lines = []
    for cells in table:
        parts = [cells[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(cells[1:], widths[1:])]
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines) + "\n"
