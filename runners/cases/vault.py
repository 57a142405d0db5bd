"""Where a run's case files sit: a directory only the case program can name.

The harness copies the problem into `<tests>/<vault>/<problem>/`, with `<tests>` itself made
traversable but not listable (mode 0111, on a read-only mount). `<vault>` is derived from the
run's one-time report key, which the case program reads and deletes before the submission's
first process starts; the program then makes itself non-dumpable, so the name cannot be read
from its memory or /proc either. The submission therefore cannot find the expected outputs.
"""

from __future__ import annotations

import hashlib
import hmac

REPORT = "cases-report.json"
SIGNATURE = f"{REPORT}.sig"
SETTINGS = "run.json"  # the case program's settings, beside the problem in the vault


def vault_name(key: bytes) -> str:
    return "cases-" + hmac.new(key, b"runners-cases-vault", hashlib.sha256).hexdigest()[:32]


def sign(key: bytes, data: bytes) -> str:
    return hmac.new(key, data, hashlib.sha256).hexdigest()
