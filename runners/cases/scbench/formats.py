"""`validate_format(value, fmt)`: "VALID_<FORMAT>" or "MALFORMED" (SCBench's format checks)."""

from __future__ import annotations

import base64
import binascii
import ipaddress
import json
import re
import uuid
from datetime import datetime
from typing import Any

ALIASES = {
    "timestamp": "timestamp",
    "iso8601": "timestamp",
    "unix": "timestamp",
    "unix_timestamp": "timestamp",
    "date": "date",
    "calendar_date": "date",
    "uuid": "uuid",
    "guid": "uuid",
    "ip": "ip",
    "ip_address": "ip",
    "ipv4": "ipv4",
    "ipv6": "ipv6",
    "email": "email",
    "e-mail": "email",
    "url": "url",
    "uri": "url",
    "link": "url",
    "phone": "phone",
    "telephone": "phone",
    "hex": "hex",
    "hex_color": "hex",
    "hexcode": "hex",
    "base64": "base64",
    "json": "json",
    "credit_card": "credit_card",
    "cc": "credit_card",
    "card": "credit_card",
    "us_zip": "us_zip",
    "zip": "us_zip",
}
DATE_LAYOUTS = (
    "%Y-%m-%d",
    "%Y/%m/%d",
    "%m/%d/%Y",
    "%d/%m/%Y",
    "%d-%m-%Y",
    "%m-%d-%Y",
    "%b %d, %Y",
    "%B %d, %Y",
    "%d %b %Y",
    "%d %B %Y",
    "%Y%m%d",
)


def _timestamp(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        pass
    try:
        datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)
        return True
    except ValueError:
        return False


def _date(text: str) -> bool:
    for layout in DATE_LAYOUTS:
        try:
            datetime.strptime(text, layout)
            return True
        except ValueError:
            continue
    return False


def _ip(text: str, version: int | None) -> bool:
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return False
    return version is None or address.version == version


def _base64(text: str) -> bool:
    if not text or len(text) % 4:
        return False
    try:
        base64.b64decode(text, validate=True)
        return True
    except (binascii.Error, ValueError):
        return False


def _json(text: str) -> bool:
    try:
        json.loads(text)
        return True
    except ValueError:
        return False


def _luhn(text: str) -> bool:
    digits = re.sub(r"[\s-]", "", text)
    if not digits.isdigit() or not 12 <= len(digits) <= 19:
        return False
    total = 0
    for index, digit in enumerate(reversed(digits)):
        value = int(digit) * (2 if index % 2 else 1)
        total += value - 9 if value > 9 else value
    return total % 10 == 0


def _uuid(text: str) -> bool:
    try:
        uuid.UUID(text)
        return True
    except ValueError:
        return False


CHECKS = {
    "timestamp": _timestamp,
    "date": _date,
    "uuid": _uuid,
    "ip": lambda t: _ip(t, None),
    "ipv4": lambda t: _ip(t, 4),
    "ipv6": lambda t: _ip(t, 6),
    "email": lambda t: re.fullmatch(r"[^@\s]+@[^@\s]+\.[^@\s]+", t) is not None,
    "url": lambda t: (
        re.fullmatch(r"(https?|ftp)://[^\s/$.?#].[^\s]*", t, re.IGNORECASE) is not None
    ),
    "phone": lambda t: (
        re.fullmatch(r"\+?[\d\s().-]{7,20}", t) is not None and sum(c.isdigit() for c in t) >= 7
    ),
    "hex": lambda t: (
        re.fullmatch(r"#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})", t) is not None
    ),
    "base64": _base64,
    "json": _json,
    "credit_card": _luhn,
    "us_zip": lambda t: re.fullmatch(r"\d{5}(-\d{4})?", t) is not None,
}


def validate_format(value: Any, fmt: str) -> str:
    canonical = ALIASES.get(str(fmt).strip().lower())
    if canonical is None:
        raise ValueError(f"unknown format {fmt!r} (known: {', '.join(sorted(ALIASES))})")
    return f"VALID_{canonical.upper()}" if CHECKS[canonical](str(value).strip()) else "MALFORMED"
