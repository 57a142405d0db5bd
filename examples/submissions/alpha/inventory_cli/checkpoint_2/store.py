"""The ledger file: one JSON document that only this program writes.

Prices are kept as integer cents.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

FORMAT = "inventory-ledger"
VERSION = 2


class UserError(Exception):
    """A mistake of the user: exit code 1 and a JSON error object on stderr."""

    def __init__(self, code: str, message: str, **extra: object) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.extra = extra

    def payload(self) -> dict:
        return {"error": {"code": self.code, "message": self.message, **self.extra}}


class Ledger:
    def __init__(self, items: dict | None = None):
        self.items = items or {}  # name -> {"quantity": int, "price": int (cents) | None}

    def quantity(self, name: str) -> int:
        return self.items[name]["quantity"] if name in self.items else 0


def load(path: Path) -> Ledger:
    if not path.exists():
        return Ledger()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError("not a ledger")
        items = {}
        for name, item in data["items"].items():
            quantity, price = item["quantity"], item["price"]
            if not isinstance(quantity, int) or not (price is None or isinstance(price, int)):
                raise ValueError("bad item")
            items[name] = {"quantity": quantity, "price": price}
        return Ledger(items=items)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        raise UserError("corrupt_db", f"{path} is not an inventory database") from None


def save(path: Path, ledger: Ledger) -> None:
    data = {"format": FORMAT, "version": VERSION, "items": ledger.items}
    tmp = path.with_name(f".{path.name}.tmp")  # write aside, then swap in atomically
    try:
        tmp.write_text(json.dumps(data, sort_keys=True), encoding="utf-8")
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
