"""The JavaScript files vitest and jest load from the run's config dir, and the check of the
report they sign.

The files are real `.mjs`/`.cjs` files shipped in `runners/frameworks/js/` and copied unchanged;
what varies per run goes into a JSON file beside them, which they read at run time.

Signing: the reporter loads before any test runs, takes a one-time key from a file in the
reports dir (named by `RUNNERS_REPORT_KEY_FILE`), deletes it, and writes `<report>.sig`
(HMAC-SHA256 of the report's exact bytes) next to the report. A report without the run's
signature was forged or rewritten, and is an infrastructure failure.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from runners.engine.trust import check_signature_file
from runners.frameworks.base import RunContext

JS_DIR = Path(__file__).parent / "js"
SIGNATURE_SUFFIX = ".sig"  # also in js/runners-sign-report.cjs
SIGNING_MODULE = "runners-sign-report.cjs"  # required by both reporters
SNAPSHOT_RESOLVER = "runners-snapshots.cjs"


def install(ctx: RunContext, name: str, settings: tuple[str, object] | None = None) -> str:
    """Copies the shipped file `name` into the config dir, with `settings` = (file name, value)
    written beside it as JSON; returns its path as the sandbox sees it."""
    shutil.copyfile(JS_DIR / name, ctx.workspace.config / name)
    if settings is not None:
        file, value = settings
        (ctx.workspace.config / file).write_text(json.dumps(value, indent=2), encoding="utf-8")
    return f"{ctx.layout.config}/{name}"


def write_reporter(ctx: RunContext, name: str) -> str:
    """Our signing reporter `name` in the config dir (it signs with the key the engine left in
    the reports dir); returns its path as the sandbox sees it."""
    install(ctx, SIGNING_MODULE)
    return install(ctx, name)


def check_signature(ctx: RunContext, report_name: str, key: bytes, data: bytes) -> None:
    """Raises ReportError unless `<report>.sig` is the HMAC of `data` under the run's key."""
    check_signature_file(
        ctx.workspace.reports / f"{report_name}{SIGNATURE_SUFFIX}", key, data, ctx.started_at
    )


# jest and vitest write a test file's `.snap` back after running it, even in CI mode (an obsolete
# entry, or a hinted snapshot of a failed test, is enough), and the tests are read-only: the
# write fails and takes the whole file's results with it. So they read and write a private copy,
# made in a new directory of the run's /tmp just before it is read: the problem's snapshots are
# never written, and no copy exists for a process of the submission to tamper with beforehand.
def write_snapshot_resolver(ctx: RunContext) -> str:
    """The snapshot resolver module in the config dir; its path as the sandbox sees it."""
    return install(
        ctx,
        SNAPSHOT_RESOLVER,
        ("runners-snapshots.json", {"prefix": f"{ctx.layout.tmp}/runners-snapshot-"}),
    )


def obsolete_snapshots(data: bytes) -> str | None:
    """A note when the (signed) report says the run failed only for obsolete snapshots: entries
    no test checked, or snapshot files of test files that did not run. None otherwise."""
    try:
        snapshot = json.loads(data).get("snapshot") or {}
        unchecked, files = (
            int(snapshot.get("unchecked") or 0),
            int(snapshot.get("filesRemoved") or 0),
        )
        unmatched = int(snapshot.get("unmatched") or 0)
    except (ValueError, TypeError, AttributeError):
        return None
    if unmatched or not (unchecked or files):
        return None
    return (
        f"{unchecked} obsolete snapshot(s) and {files} snapshot file(s) of tests that did not run: "
        "not counted, and the problem's snapshot files were not changed"
    )
