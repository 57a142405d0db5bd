"""The ledger file: one JSON document that only this program writes.

Prices are kept as integer cents. Every recorded command keeps a copy of the items it touched
as they were before it ran, so `undo` restores them exactly.
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

FORMAT = "inventory-ledger"
VERSION = 3


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
    def __init__(self, items: dict | None = None, history: list | None = None, next_id: int = 1):
        self.items = items or {}  # name -> {"quantity": int, "price": int (cents) | None}
        self.history = history or []  # [{"entry": {...}, "before": {name: item | None}}]
        self.next_id = next_id

    def quantity(self, name: str) -> int:
        return self.items[name]["quantity"] if name in self.items else 0

    def snapshot(self, names) -> dict:
        return {name: copy.deepcopy(self.items.get(name)) for name in names}

    def record(self, entry: dict, before: dict) -> dict:
        entry = {"id": self.next_id, **entry}
        self.next_id += 1
        self.history.append({"entry": entry, "before": before})
        return entry

    def undo(self) -> dict:
        if not self.history:
            raise UserError("nothing_to_undo", "the history is empty")
        last = self.history.pop()
        for name, item in last["before"].items():
            if item is None:
                self.items.pop(name, None)
            else:
                self.items[name] = item
        return last["entry"]


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
        history = data["history"]
        next_id = data["next_id"]
        if not isinstance(history, list) or not isinstance(next_id, int):
            raise ValueError("bad history")
        return Ledger(items=items, history=history, next_id=next_id)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        raise UserError("corrupt_db", f"{path} is not an inventory database") from None


def save(path: Path, ledger: Ledger) -> None:
    data = {"format": FORMAT, "version": VERSION, "items": ledger.items,
            "history": ledger.history, "next_id": ledger.next_id}
    tmp = path.with_name(f".{path.name}.tmp")  # write aside, then swap in atomically
    try:
        tmp.write_text(json.dumps(data, sort_keys=True), encoding="utf-8")
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
