from runners.cases.scoring import VerificationResult, VerifierError
from runners.cases.verification import VerifierProtocol, VerifierReturnType

__all__ = ["VerificationResult", "VerifierError", "VerifierProtocol", "VerifierReturnType"]
