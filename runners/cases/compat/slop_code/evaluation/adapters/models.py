from runners.cases.model import BaseCase, CaseResult, CaseResultError
from runners.cases.spec import DEFAULT_GROUP_TYPE, GroupType

__all__ = ["DEFAULT_GROUP_TYPE", "BaseCase", "CaseResult", "CaseResultError", "GroupType"]
