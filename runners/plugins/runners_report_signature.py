"""Signing of the pytest-json-report by our plugin, and its check by the harness.

Shared by both sides on purpose: the plugin (copied into the test toolchain) signs the report
object before pytest-json-report writes it; the harness recomputes the HMAC over the parsed file.
Standalone: no imports from `runners` or pytest.
"""

import hashlib
import hmac
import json

SIGNATURE_FIELD = "runners_signature"
KEY_FILE_ENV = "RUNNERS_REPORT_KEY_FILE"
# Not signing, but shared the same way: the groups' markers the plugin registers ("name: text"
# lines), and the files whose doctests alone count (os.pathsep-separated paths).
MARKERS_ENV = "RUNNERS_PYTEST_MARKERS"
DOCTEST_ONLY_ENV = "RUNNERS_DOCTEST_ONLY"
KEY_FILE_NAME = ".runners-report-key"
# What the plugin records of files that failed to load (runners.engine.blame): a field of the signed
# report, and a file beside it for a conftest that failed before any report could exist.
LOAD_ERRORS_FIELD = "runners_load_errors"
CONFTEST_ERROR_FILE = "runners-conftest-error.json"


def canonical(report):
    """The signed bytes: the report without its signature, in a stable form.

    `default=str` matches how pytest-json-report serializes values JSON cannot hold, so the
    parsed file canonicalizes to the same bytes as the object it was written from.
    """
    body = {k: v for k, v in report.items() if k != SIGNATURE_FIELD}
    return json.dumps(
        body, sort_keys=True, separators=(",", ":"), ensure_ascii=True, default=str
    ).encode()


def sign(report, key):
    return hmac.new(key, canonical(report), hashlib.sha256).hexdigest()


def verify(report, key):
    signature = report.get(SIGNATURE_FIELD)
    return isinstance(signature, str) and hmac.compare_digest(signature, sign(report, key))
