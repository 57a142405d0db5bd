from slop_code.evaluation.verifiers import models, parsers, verifiers
from slop_code.evaluation.verifiers.models import (
    VerificationResult,
    VerifierError,
    VerifierProtocol,
    VerifierReturnType,
)
from slop_code.evaluation.verifiers.verifiers import (
    DEFAULT_DEEPDIFF_KWARGS,
    deepdiff_verify,
    jsonschema_verify,
    matches_regex,
    matches_status_code,
    validate_format,
)

__all__ = [
    "DEFAULT_DEEPDIFF_KWARGS",
    "VerificationResult",
    "VerifierError",
    "VerifierProtocol",
    "VerifierReturnType",
    "deepdiff_verify",
    "jsonschema_verify",
    "matches_regex",
    "matches_status_code",
    "models",
    "parsers",
    "validate_format",
    "verifiers",
]
