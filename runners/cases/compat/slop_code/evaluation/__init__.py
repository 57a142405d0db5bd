from slop_code.evaluation import verifiers
from slop_code.evaluation.config import CheckpointConfig, GroupConfig, GroupType, ProblemConfig

__all__ = ["CheckpointConfig", "GroupConfig", "GroupType", "ProblemConfig", "verifiers"]
