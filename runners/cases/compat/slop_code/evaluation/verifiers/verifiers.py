from runners.cases.scbench.formats import validate_format
from runners.cases.scbench.verifiers import (
    DEFAULT_DEEPDIFF_KWARGS,
    deepdiff_verify,
    jsonschema_verify,
    matches_regex,
    matches_status_code,
)
from runners.cases.scoring import VerificationResult, VerifierError
from runners.cases.verification import VerifierReturnType

__all__ = [
    "DEFAULT_DEEPDIFF_KWARGS",
    "VerificationResult",
    "VerifierError",
    "VerifierReturnType",
    "deepdiff_verify",
    "jsonschema_verify",
    "matches_regex",
    "matches_status_code",
    "validate_format",
]
