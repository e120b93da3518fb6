"""``diagnose``: what the scheduler is doing with a group, as a typed verdict.

The scheduler writes nothing while a gang waits for its members to exist, and its
``...InitiallyScheduled`` condition never reverts once True. So a verdict is read from the
group, its member pods (``spec.schedulingGroup.podGroupName``) and their events together;
``docs/observe.md`` has the decision table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from ._groups import DISRUPTION_TARGET, GroupLike, condition, condition_type, group_ref
from ._snapshot import Snapshot, name_of
from ._transport import RetryPolicy, Transport
from .errors import ObjectRef

__all__ = [
    "GroupState",
    "Member",
    "MemberProblem",
    "SchedulingEvent",
    "Verdict",
    "diagnose",
]

Obj = Mapping[str, Any]

PREEMPTION_REASON: Final = "PreemptionByScheduler"
PREEMPTED_EVENT: Final = "Preempted"
IMAGE_PULL_REASONS: Final = frozenset(
    {"ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull"}
)


class GroupState(StrEnum):
    """What the scheduler is doing with a group."""

    MISSING = "Missing"
    """The group object does not exist; pods naming it stay Pending."""
    WAITING_FOR_MEMBERS = "WaitingForMembers"
    """Fewer members exist than ``minCount`` (``minGroupCount`` children for a composite)."""
    PENDING = "Pending"
    """Enough members exist and the scheduler has not written its verdict yet."""
    UNSCHEDULABLE = "Unschedulable"
    """The condition is False: ``Unschedulable``, ``SchedulerError`` or ``Invalid``."""
    SCHEDULED = "Scheduled"
    """Placed, and every member is healthy."""
    DEGRADED = "Degraded"
    """Placed once, then a member failed, was evicted, is gone, cannot be placed again or
    is stuck pulling its image (the condition stays True)."""
    PREEMPTED = "Preempted"
    """The scheduler preempted the group or one of its members (``DisruptionTarget``)."""


class MemberProblem(StrEnum):
    """What is wrong with one member pod."""

    PREEMPTED = "Preempted"
    EVICTED = "Evicted"
    FAILED = "Failed"
    DELETING = "Deleting"
    IMAGE_PULL = "ImagePull"
    UNPLACED = "Unplaced"


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


@dataclass(frozen=True)
class Verdict:
    """A group's state, the evidence behind it and, for a composite, its children's verdicts."""

    group: ObjectRef
    state: GroupState
    summary: str
    """One sentence saying what is happening and what to do."""
    reason: str | None
    """The ``...InitiallyScheduled`` condition's reason, if written."""
    message: str | None
    """The condition's message (the scheduler's), if written."""
    required: int | None
    """``minCount`` (``minGroupCount`` for a composite); ``None`` for the basic policy."""
    present: int
    """Active member pods (child groups for a composite)."""
    members: tuple[Member, ...] = ()
    children: tuple[Verdict, ...] = ()
    blocking: tuple[ObjectRef, ...] = ()
    """Children that keep ``minGroupCount`` from being met."""


async def diagnose(
    api_client: Any, group: GroupLike, *, retry: RetryPolicy | None = None
) -> Verdict:
    """Tell what the scheduler is doing with ``group`` (a PodGroup or CompositePodGroup).

    Reads the group, its member pods and their events (a composite: its child groups too)
    through ``api_client`` (kubernetes-asyncio or ``kubernetes.aio``).
    """
    ref = group_ref(group)
    snapshot = await Snapshot.read(Transport(api_client, retry), ref.namespace)
    return verdict_of(snapshot, ref)


def verdict_of(snapshot: Snapshot, ref: ObjectRef) -> Verdict:
    """The verdict on ``ref`` from an already read namespace."""
    obj = snapshot.group(ref.kind, ref.name)
    if ref.kind == "CompositePodGroup":
        return _composite(snapshot, ref, obj)
    return _pod_group(snapshot, ref, obj)


def _required(obj: Obj, key: str) -> int | None:
    gang = ((obj.get("spec") or {}).get("schedulingPolicy") or {}).get("gang")
    return None if gang is None else int(gang.get(key) or 1)


def _terminal(pod: Obj) -> bool:
    return (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")


def _active(pod: Obj) -> bool:
    return not _terminal(pod) and not (pod.get("metadata") or {}).get("deletionTimestamp")


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


def _member(snapshot: Snapshot, pod: Obj) -> Member:
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
    )


def _initially_scheduled(
    ref: ObjectRef, obj: Obj
) -> tuple[Mapping[str, Any] | None, str | None, str | None]:
    """The ``...InitiallyScheduled`` condition, its reason and message (``None``: unwritten)."""
    found = condition(obj, condition_type(ref.kind))
    if found is None:
        return None, None, None
    return found, str(found.get("reason") or ""), str(found.get("message") or "")


_WAITING: Final = (GroupState.MISSING, GroupState.WAITING_FOR_MEMBERS)
"""Child states that cannot count towards ``minGroupCount`` yet."""


def _pod_group(snapshot: Snapshot, ref: ObjectRef, obj: Obj | None) -> Verdict:
    pods = snapshot.members(ref.name)
    members = tuple(_member(snapshot, p) for p in pods)
    present = sum(1 for p in pods if _active(p))
    if obj is None:
        return Verdict(
            ref,
            GroupState.MISSING,
            f"{ref} does not exist; {len(pods)} pod(s) name it and stay Pending: create it",
            None,
            None,
            None,
            present,
            members,
        )
    required = _required(obj, "minCount")
    found, reason, message = _initially_scheduled(ref, obj)
    group_disrupted = condition(obj, DISRUPTION_TARGET)

    def verdict(state: GroupState, summary: str) -> Verdict:
        return Verdict(ref, state, summary, reason, message, required, present, members)

    placed = found is not None and found.get("status") == "True"
    if group_disrupted and group_disrupted.get("status") == "True":
        return verdict(
            GroupState.PREEMPTED, f"{ref} was preempted: {group_disrupted.get('message') or ''}"
        )
    preempted = [m.name for m in members if m.problem is MemberProblem.PREEMPTED]
    if preempted:
        return verdict(
            GroupState.PREEMPTED,
            f"{ref}: the scheduler preempted {', '.join(preempted)} for a higher-priority"
            " pod or group",
        )
    needed = required if required is not None else 1
    if not placed and present < needed:
        stale = f" (its {reason} condition is from an earlier attempt)" if found else ""
        return verdict(
            GroupState.WAITING_FOR_MEMBERS,
            f"{ref} waits for its members: {present} of {needed} pods required by minCount exist"
            f"{stale}; the scheduler writes nothing until they do: create the missing pods",
        )
    if found is None:
        return verdict(
            GroupState.PENDING,
            f"{ref}: {present} member pods exist; the scheduler has not decided yet",
        )
    if not placed:
        return verdict(GroupState.UNSCHEDULABLE, f"{ref} cannot be placed ({reason}): {message}")
    lost = [m for m in members if m.problem is not None]
    if lost or (required is not None and present < required):
        what = "; ".join(f"{m.name} {m.problem}: {m.detail}" for m in lost) or "pods are gone"
        return verdict(
            GroupState.DEGRADED,
            f"{ref} was placed but is degraded: {present} of {needed} required members active"
            f" ({what}); the condition stays True: replace or restart the lost members",
        )
    return verdict(GroupState.SCHEDULED, f"{ref} is placed and its {present} members are healthy")


def _composite(snapshot: Snapshot, ref: ObjectRef, obj: Obj | None) -> Verdict:
    children = tuple(verdict_of(snapshot, c) for c in snapshot.children(ref.name))
    blocking = tuple(c.group for c in children if c.state in (*_WAITING, GroupState.UNSCHEDULABLE))
    present = len(children)
    if obj is None:
        return Verdict(
            ref,
            GroupState.MISSING,
            f"{ref} does not exist; {present} child group(s) name it as parent: create it",
            None,
            None,
            None,
            present,
            children=children,
            blocking=blocking,
        )
    required = _required(obj, "minGroupCount")
    found, reason, message = _initially_scheduled(ref, obj)
    needed = required if required is not None else 1
    ready = sum(1 for c in children if c.state not in _WAITING)
    disrupted = condition(obj, DISRUPTION_TARGET)

    def verdict(state: GroupState, summary: str) -> Verdict:
        return Verdict(
            ref,
            state,
            summary,
            reason,
            message,
            required,
            present,
            children=children,
            blocking=blocking,
        )

    names = ", ".join(c.name for c in blocking)
    preempted = [c.group.name for c in children if c.state is GroupState.PREEMPTED]
    if (disrupted and disrupted.get("status") == "True") or preempted:
        return verdict(
            GroupState.PREEMPTED, f"{ref}: preempted ({', '.join(preempted) or 'the group'})"
        )
    placed = found is not None and found.get("status") == "True"
    if not placed and ready < needed:
        return verdict(
            GroupState.WAITING_FOR_MEMBERS,
            f"{ref} waits: {ready} of {needed} child groups required by minGroupCount can be tried"
            f" ({present} exist); blocked by: {names or 'missing child groups'}",
        )
    if found is None:
        return verdict(
            GroupState.PENDING,
            f"{ref}: enough child groups exist; the scheduler has not decided yet",
        )
    if not placed:
        return verdict(
            GroupState.UNSCHEDULABLE,
            f"{ref} cannot be placed ({reason}): {message}"
            + (f"; blocked by: {names}" if names else ""),
        )
    degraded = [c.group.name for c in children if c.state is GroupState.DEGRADED]
    if degraded:
        return verdict(
            GroupState.DEGRADED,
            f"{ref} was placed but child groups are degraded: {', '.join(degraded)}",
        )
    return verdict(
        GroupState.SCHEDULED, f"{ref} is placed and its {present} child groups are healthy"
    )
