"""What the engine checks of every run, whatever the framework ran it.

A runner says what its tool's exit codes mean (`ExitContract`) and whether its reports are
signed; the engine then, once for all runners:

- leaves a one-time report key in the reports dir before the runner writes its config
  (`issue_report_key`); the framework's reporter or plugin reads and deletes it before any test
  runs and signs the report with it, and the runner checks the signature when it reads the report
  (`check_signature_file` for a `<report>.sig` beside it: the JS reporters, Go's signer);
- after the runner has read its reports, checks that the exit code and the report agree
  (`exit_reason`): a report that lists failures when the tool exited 0, or none when it exited 1,
  was written or rewritten by something else, and is not trusted.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from pathlib import Path

from runners.engine.context import ExitContract, Verdict
from runners.parsers.report_file import ReportError, read_report
from runners.plugins.runners_report_signature import KEY_FILE_NAME

KEY_BYTES = 32


def issue_report_key(reports: Path) -> bytes:
    """A fresh key in `<reports>/.runners-report-key`, readable by its owner only."""
    key = secrets.token_bytes(KEY_BYTES)
    key_file = reports / KEY_FILE_NAME
    key_file.write_bytes(key)
    key_file.chmod(0o600)
    return key


def check_signature_file(
    signature: Path, key: bytes, data: bytes, not_before: float | None
) -> None:
    """Raises ReportError unless the file `signature` (`<report>.sig`, written by the run's
    reporter) holds the hex HMAC-SHA256 of the report's bytes `data` under the run's key."""
    report_name = signature.name.removesuffix(".sig")
    forged = ReportError(
        f"{report_name} does not carry the run's signature: it was written or "
        "rewritten by something other than the test run's reporter"
    )
    try:
        written = read_report(signature, max_bytes=1024, not_before=not_before)
    except ReportError:
        raise forged from None
    expected = hmac.new(key, data, hashlib.sha256).hexdigest().encode()
    if not key or not hmac.compare_digest(written.strip(), expected):
        raise forged


def exit_reason(contract: ExitContract, code: int | None, verdict: Verdict) -> str | None:
    """Why the report cannot be trusted given the exit code, or None when they agree."""
    tool = contract.tool
    if code is not None and code in contract.meanings:
        return f"{tool} exited {code} ({contract.meanings[code]})"
    if contract.normal is not None and code not in contract.normal:
        return f"{tool} ended abnormally (exit code {code})"
    report = verdict.report
    if report.exit_code is not None and report.exit_code != code:
        return (
            f"the report says exit code {report.exit_code} but {tool} exited {code}: report not "
            "trusted"
        )
    if not report.records:
        return contract.no_tests
    failing = sum(1 for r in report.records if r.status in ("failed", "error"))
    if code == 0 and failing and contract.zero_means_passed:
        return f"{tool} exited 0 but the report lists {failing} failing test(s): report not trusted"
    if code not in (0, None) and not failing:
        if verdict.exit_explained:  # e.g. jest failing a run for obsolete snapshots alone
            verdict.errors.append(verdict.exit_explained)
            return None
        return f"{tool} exited {code} but the report lists no failing test: report not trusted"
    return None
