"""One member pod as a verdict sees it: where it runs, what is wrong with it, what the
scheduler said about it (its ``PodScheduled=False`` message and its events)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from .groups import DISRUPTION_TARGET, condition
from .snapshot import Snapshot, name_of

__all__ = [
    "Member",
    "MemberProblem",
    "SchedulingEvent",
    "active",
    "member_of",
    "misfit_reason",
]

Obj = Mapping[str, Any]

PREEMPTION_REASON: Final = "PreemptionByScheduler"
PREEMPTED_EVENT: Final = "Preempted"
IMAGE_PULL_REASONS: Final = frozenset(
    {"ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull"}
)
_NODES_MESSAGE: Final = re.compile(r"^0/\d+ nodes are available: (?P<why>.*?)\.(?: |$)")


class MemberProblem(StrEnum):
    """What is wrong with one member pod."""

    PREEMPTED = "Preempted"
    EVICTED = "Evicted"
    FAILED = "Failed"
    DELETING = "Deleting"
    IMAGE_PULL = "ImagePull"
    UNPLACED = "Unplaced"


HOW_LOST: Final[Mapping[MemberProblem, str]] = {
    MemberProblem.PREEMPTED: "preempted",
    MemberProblem.EVICTED: "evicted",
    MemberProblem.FAILED: "failed",
    MemberProblem.DELETING: "being deleted",
    MemberProblem.IMAGE_PULL: "cannot pull its image",
    MemberProblem.UNPLACED: "not placed",
}
"""How a member with each problem is told in a summary."""


@dataclass(frozen=True)
class SchedulingEvent:
    """One event about a member: ``type`` (Normal/Warning), ``reason`` and message."""

    type: str
    reason: str
    message: str


@dataclass(frozen=True)
class Member:
    """One member pod as the verdict saw it."""

    name: str
    node: str | None
    phase: str | None
    problem: MemberProblem | None
    detail: str
    """Why the problem was seen (the pod's condition or status message), or ``""``."""
    scheduler_message: str | None
    """The ``PodScheduled=False`` message, when the scheduler could not place the pod."""
    events: tuple[SchedulingEvent, ...]
    scheduler_reason: str | None = None
    """The ``PodScheduled=False`` reason (``Unschedulable`` once the scheduler tried the pod,
    ``SchedulingGated`` while a scheduling gate holds it back)."""

    @property
    def running(self) -> bool:
        """On a node and nothing wrong with it: it counts towards ``minCount`` once placed."""
        return self.node is not None and self.problem is None

    def told(self) -> str:
        """``name how: detail`` for a summary."""
        how = HOW_LOST[self.problem] if self.problem else "healthy"
        return f"{self.name} {how}" + (f": {self.detail}" if self.detail else "")


def misfit_reason(message: str | None) -> str | None:
    """What a node-fit message says (``3 Insufficient cpu`` of ``0/3 nodes are available: 3
    Insufficient cpu. ...``); ``None`` for any other message (a member that has a place and
    waits for its gang, say)."""
    found = _NODES_MESSAGE.match(message or "")
    return found.group("why") if found else None


def active(pod: Obj) -> bool:
    """Neither terminal (``Succeeded``/``Failed``) nor being deleted."""
    if (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
        return False
    return not (pod.get("metadata") or {}).get("deletionTimestamp")


def _events(snapshot: Snapshot, pod: Obj) -> tuple[SchedulingEvent, ...]:
    return tuple(
        SchedulingEvent(
            str(e.get("type") or ""),
            str(e.get("reason") or ""),
            str(e.get("message") or e.get("note") or ""),
        )
        for e in snapshot.events_of("Pod", name_of(pod))
    )


def _image_pull(pod: Obj) -> str | None:
    status = pod.get("status") or {}
    for cs in [
        *(status.get("initContainerStatuses") or []),
        *(status.get("containerStatuses") or []),
    ]:
        waiting = (cs.get("state") or {}).get("waiting") or {}
        if waiting.get("reason") in IMAGE_PULL_REASONS:
            message = waiting.get("message") or ""
            return f"container {cs.get('name')!r}: {waiting['reason']}" + (
                f": {message}" if message else ""
            )
    return None


def _problem(pod: Obj, events: Sequence[SchedulingEvent]) -> tuple[MemberProblem | None, str]:
    status = pod.get("status") or {}
    target = condition(pod, DISRUPTION_TARGET)
    if target and target.get("status") == "True" and target.get("reason") == PREEMPTION_REASON:
        return MemberProblem.PREEMPTED, str(target.get("message") or "")
    preempted = next((e for e in events if e.reason == PREEMPTED_EVENT), None)
    if preempted is not None:
        return MemberProblem.PREEMPTED, preempted.message
    if status.get("phase") == "Failed":
        if status.get("reason") == "Evicted" or (target and target.get("status") == "True"):
            detail = status.get("message") or (target or {}).get("message") or "evicted"
            return MemberProblem.EVICTED, str(detail)
        return MemberProblem.FAILED, str(status.get("message") or status.get("reason") or "")
    if (pod.get("metadata") or {}).get("deletionTimestamp"):
        return MemberProblem.DELETING, "the pod is being deleted"
    pull = _image_pull(pod)
    if pull is not None:
        return MemberProblem.IMAGE_PULL, pull
    scheduled = condition(pod, "PodScheduled")
    if scheduled and scheduled.get("status") == "False":
        return MemberProblem.UNPLACED, str(scheduled.get("message") or "")
    return None, ""


def member_of(snapshot: Snapshot, pod: Obj) -> Member:
    """The member as read from the pod and its events."""
    events = _events(snapshot, pod)
    problem, detail = _problem(pod, events)
    scheduled = condition(pod, "PodScheduled")
    unplaced = scheduled is not None and scheduled.get("status") == "False"
    return Member(
        name=name_of(pod),
        node=(pod.get("spec") or {}).get("nodeName") or None,
        phase=(pod.get("status") or {}).get("phase"),
        problem=problem,
        detail=detail,
        scheduler_message=str(scheduled.get("message") or "") if unplaced and scheduled else None,
        events=events,
        scheduler_reason=str(scheduled.get("reason") or "") if unplaced and scheduled else None,
    )
