"""Async helpers on kubernetes-asyncio (or ``kubernetes.aio``): apply, wait, diagnose, audit."""

from .diagnose import GroupState, Member, MemberProblem, SchedulingEvent, Verdict, diagnose
from .wait import NotScheduledError, wait_scheduled

__all__ = [
    "GroupState",
    "Member",
    "MemberProblem",
    "NotScheduledError",
    "SchedulingEvent",
    "Verdict",
    "diagnose",
    "wait_scheduled",
]
