"""The ledger file: one JSON document that only this program writes."""

from __future__ import annotations

import json
import os
from pathlib import Path

FORMAT = "inventory-ledger"
VERSION = 1


class UserError(Exception):
    """A mistake of the user: exit code 1 and a JSON error object on stderr."""

    def __init__(self, code: str, message: str, **extra: object) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.extra = extra

    def payload(self) -> dict:
        return {"error": {"code": self.code, "message": self.message, **self.extra}}


def load(path: Path) -> dict[str, int]:
    """Item name -> quantity; an absent file is an empty inventory."""
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError("not a ledger")
        items = data["items"]
        if not all(isinstance(q, int) for q in items.values()):
            raise ValueError("bad quantity")
        return dict(items)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        raise UserError("corrupt_db", f"{path} is not an inventory database") from None


def save(path: Path, items: dict[str, int]) -> None:
    data = {"format": FORMAT, "version": VERSION, "items": items}
    tmp = path.with_name(f".{path.name}.tmp")  # write aside, then swap in atomically
    try:
        tmp.write_text(json.dumps(data, sort_keys=True), encoding="utf-8")
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
