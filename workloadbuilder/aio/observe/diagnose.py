"""``diagnose``: what the scheduler is doing with a group, as a typed verdict.

The scheduler writes nothing while a gang waits for its members to exist, writes a composite's
verdict on the composite only, and its ``...InitiallyScheduled`` condition never reverts once
True. So a verdict is read from the group, its member pods (``spec.schedulingGroup.podGroupName``)
and their events together; ``docs/observe.md`` has the decision table.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from ..cache.cache import Cache
from ..cache.groups import DISRUPTION_TARGET, condition, condition_type, target_ref
from ..cache.members import Member, MemberProblem, SchedulingEvent, active, member_of, misfit_reason
from ..cache.reader import reader_for
from ..cache.snapshot import Snapshot, pod_group_of
from ..errors import ObjectRef
from ..wire.resources import COMPOSITE_POD_GROUPS, POD_GROUPS, WORKLOADS
from ..wire.transport import RetryPolicy, transport_for

__all__ = [
    "GroupState",
    "Member",
    "MemberProblem",
    "SchedulingEvent",
    "Verdict",
    "diagnose",
]

Obj = Mapping[str, Any]


class GroupState(StrEnum):
    """What the scheduler is doing with a group."""

    MISSING = "Missing"
    """The group object does not exist; pods naming it stay Pending."""
    WAITING_FOR_MEMBERS = "WaitingForMembers"
    """Fewer members exist than ``minCount`` (``minGroupCount`` children for a composite)."""
    PENDING = "Pending"
    """Enough members exist and the scheduler has not tried them yet."""
    UNSCHEDULABLE = "Unschedulable"
    """The scheduler tried and could not place it: its condition is False (``Unschedulable``,
    ``SchedulerError``, ``Invalid``) or, for a composite's child (on which the scheduler writes
    no condition), every member is ``PodScheduled=False`` ``Unschedulable``."""
    SCHEDULED = "Scheduled"
    """Placed, and at least ``minCount`` members run; extras beyond it may still be pending."""
    DEGRADED = "Degraded"
    """Placed once, then members were lost and fewer than ``minCount`` run, or a placed member
    failed (the condition stays True)."""
    PREEMPTED = "Preempted"
    """The scheduler preempted the group or one of its members (``DisruptionTarget``)."""


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
    """``minCount`` (``minGroupCount`` for a composite) as the group reads now; ``None`` for
    the basic policy."""
    present: int
    """Active member pods; for a composite, child groups that can count towards
    ``minGroupCount`` (they exist and have enough members to be tried)."""
    members: tuple[Member, ...] = ()
    children: tuple[Verdict, ...] = ()
    blocking: tuple[ObjectRef, ...] = ()
    """Children that keep ``minGroupCount`` from being met."""
    running: int = 0
    """Members on a node with nothing wrong (children Scheduled, for a composite)."""
    cause: str = ""
    """Why members are not placed, from their ``PodScheduled`` messages (``1 of 4 members fit;
    3 cannot: 3 Insufficient cpu``), or ``""``."""
    extras: tuple[str, ...] = ()
    """Members beyond ``minCount`` of a placed gang that have no node yet (scheduled when
    they can)."""


async def diagnose(
    api_client: Any, group: Any, *, retry: RetryPolicy | None = None, cache: Cache | None = None
) -> Verdict:
    """Tell what the scheduler is doing with ``group``.

    ``group`` is a PodGroup or CompositePodGroup (an SDK model, its JSON, or an ``ObjectRef``
    as ``audit()`` findings and ``ApplyError`` carry); a Pod's reference gives its group's
    verdict, a Workload's the verdicts of the groups stamped from it. Anything else is a
    ``TypeError``. Reads the namespace through ``api_client`` (kubernetes-asyncio or
    ``kubernetes.aio``); raises ``MissingAPIError`` when the cluster does not serve the
    group's API. With a ``cache`` (or an ``aio.Client``'s), the namespace is read from it.
    """
    ref = target_ref(group)
    reader = reader_for(api_client, cache, transport_for(api_client, retry))
    snapshot = await reader.snapshot(ref.namespace)
    return verdict_of(snapshot, ref)


def verdict_of(snapshot: Snapshot, ref: ObjectRef) -> Verdict:
    """The verdict on ``ref`` from an already read namespace."""
    if ref.kind == "Pod":
        return verdict_of(snapshot, _group_of_pod(snapshot, ref))
    needed = {"Workload": WORKLOADS, "CompositePodGroup": COMPOSITE_POD_GROUPS}
    missing = snapshot.missing_api(POD_GROUPS, *([needed[ref.kind]] if ref.kind in needed else []))
    if missing is not None:
        raise missing
    if ref.kind == "Workload":
        return _workload(snapshot, ref)
    obj = snapshot.group(ref.kind, ref.name)
    if ref.kind == "CompositePodGroup":
        return _composite(snapshot, ref, obj)
    return _pod_group(snapshot, ref, obj)


def _group_of_pod(snapshot: Snapshot, ref: ObjectRef) -> ObjectRef:
    pod = next(
        (p for p in snapshot.pods if (p.get("metadata") or {}).get("name") == ref.name), None
    )
    if pod is None:
        raise ValueError(f"{ref} not found: pass the PodGroup it names instead")
    name = pod_group_of(pod)
    if name is None:
        raise ValueError(
            f"{ref} names no group (spec.schedulingGroup.podGroupName): it is scheduled as a"
            " plain pod"
        )
    return ObjectRef("PodGroup", ref.namespace, name, POD_GROUPS.api_version)


def _required(obj: Obj, key: str) -> int | None:
    gang = ((obj.get("spec") or {}).get("schedulingPolicy") or {}).get("gang")
    return None if gang is None else int(gang.get(key) or 1)


def _initially_scheduled(
    ref: ObjectRef, obj: Obj
) -> tuple[Mapping[str, Any] | None, str | None, str | None]:
    """The ``...InitiallyScheduled`` condition, its reason and message (``None``: unwritten)."""
    found = condition(obj, condition_type(ref.kind))
    if found is None:
        return None, None, None
    return found, str(found.get("reason") or ""), str(found.get("message") or "")


def _template_count(snapshot: Snapshot, obj: Obj) -> int | None:
    """The ``minCount`` the group's Workload template holds (``None``: no template found)."""
    ref = (obj.get("spec") or {}).get("workloadRef") or {}
    workload = snapshot.workload(str(ref.get("workloadName") or ""))
    if workload is None:
        return None
    stack = [workload.get("spec") or {}]
    while stack:
        spec = stack.pop()
        for template in spec.get("podGroupTemplates") or ():
            if template.get("name") == ref.get("templateName"):
                return _required(template and {"spec": template}, "minCount")
        stack.extend(spec.get("compositePodGroupTemplates") or ())
    return None


def _cause(members: Sequence[Member]) -> str:
    """``k of n members fit; m cannot: <node-fit reasons>`` from the members' messages."""
    tried = [m for m in members if m.scheduler_message is not None]
    if not tried:
        return ""
    reasons = [misfit_reason(m.scheduler_message) for m in tried]
    misfits = [r for r in reasons if r is not None]
    fit = len(tried) - len(misfits) + sum(1 for m in members if m.running)
    told = f"{fit} of {len(members)} members fit"
    if misfits:
        told += f"; {len(misfits)} cannot: {'; '.join(dict.fromkeys(misfits))}"
    return told


_Make = Callable[[GroupState, str, tuple[str, ...]], Verdict]

_WAITING: Final = (GroupState.MISSING, GroupState.WAITING_FOR_MEMBERS)
"""Child states that cannot count towards ``minGroupCount`` yet."""


def _pod_group(snapshot: Snapshot, ref: ObjectRef, obj: Obj | None) -> Verdict:
    pods = snapshot.members(ref.name)
    members = tuple(member_of(snapshot, p) for p in pods)
    present = sum(1 for p in pods if active(p))
    running = sum(1 for m in members if m.running)
    cause = _cause(members)
    if obj is None:
        summary = f"{ref} does not exist; {len(pods)} pod(s) name it and stay Pending: create it"
        return Verdict(ref, GroupState.MISSING, summary, None, None, None, present, members)
    required = _required(obj, "minCount")
    found, reason, message = _initially_scheduled(ref, obj)
    group_disrupted = condition(obj, DISRUPTION_TARGET)
    needed = required if required is not None else 1
    count = f"minCount {required}" if required is not None else "the basic policy (1 at a time)"
    template = _template_count(snapshot, obj)
    if required is not None and template is not None and template != required:
        count += (
            f" (its Workload template says {template}: a resize has not finished; the scheduler"
            " reads the PodGroup's)"
        )

    def verdict(state: GroupState, summary: str, extras: tuple[str, ...] = ()) -> Verdict:
        return Verdict(
            ref, state, summary, reason, message, required, present, members, (), (),
            running, cause, extras,
        )  # fmt: skip

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
    if not placed and present < needed:
        stale = f" (its {reason} condition is from an earlier attempt)" if found else ""
        return verdict(
            GroupState.WAITING_FOR_MEMBERS,
            f"{ref} waits for its members: {present} of {needed} pods required by {count} exist"
            f"{stale}; the scheduler writes nothing until they do: create the missing pods",
        )
    if found is not None and not placed:
        return verdict(
            GroupState.UNSCHEDULABLE,
            f"{ref} cannot be placed ({reason}): {message}" + (f" [{cause}]" if cause else ""),
        )
    if not placed:
        waiting = [m for m in members if m.problem is None and m.node is None and _active(m)]
        tried = [m for m in members if m.scheduler_reason == "Unschedulable" and _active(m)]
        if tried and len(tried) == present:
            parent = (obj.get("spec") or {}).get("parentCompositePodGroupName")
            where = f" (the scheduler writes the verdict on its parent {parent})" if parent else ""
            fits = all(misfit_reason(m.scheduler_message) is None for m in tried)
            why = (
                f"every member has a place and waits with the rest of {parent}"
                if (fits and parent)
                else cause
            )
            return verdict(
                GroupState.UNSCHEDULABLE,
                f"{ref} cannot be placed: every member is PodScheduled=False Unschedulable"
                f"{where}; {why} ({count})",
            )
        return verdict(
            GroupState.PENDING,
            f"{ref}: {present} member pods exist ({count}); the scheduler has not tried"
            f" {len(waiting) or 'them'} yet",
        )
    return _placed(ref, members, needed, count, verdict)


def _active(member: Member) -> bool:
    return (
        member.phase not in ("Succeeded", "Failed") and member.problem is not MemberProblem.DELETING
    )


def _placed(
    ref: ObjectRef, members: Sequence[Member], needed: int, count: str, verdict: _Make
) -> Verdict:
    """A placed PodGroup: Scheduled while ``minCount`` members run, else Degraded."""
    running = [m for m in members if m.running]
    lost = [m for m in members if m.problem not in (None, MemberProblem.UNPLACED)]
    failed = [m for m in lost if m.problem is MemberProblem.FAILED]
    extras = tuple(m.name for m in members if m.node is None and _active(m))
    if len(running) < needed or failed:
        what = "; ".join(m.told() for m in lost) or "the missing pods are gone (deleted)"
        return verdict(
            GroupState.DEGRADED,
            f"{ref} was placed but is degraded: {len(running)} members run, {count}; lost: {what};"
            " the condition stays True: replace or restart the lost members",
            extras,
        )
    told = f"{ref} is placed: {len(running)} members run ({count})"
    if extras:
        told += (
            f"; {len(extras)} member(s) beyond minCount still pending ({', '.join(extras)}):"
            " they are scheduled when they can"
        )
    if lost:
        told += f"; lost, minCount still met: {'; '.join(m.told() for m in lost)}"
    return verdict(GroupState.SCHEDULED, told, extras)


def _blocks(child: Verdict) -> bool:
    """Whether a child keeps its composite from being placed: it cannot be tried, or members
    of it do not fit (a child whose members all have a place only waits for the others)."""
    if child.state in _WAITING:
        return True
    if child.state is not GroupState.UNSCHEDULABLE:
        return False
    if child.children:
        return bool(child.blocking) or child.reason is not None
    fits = all(misfit_reason(m.scheduler_message) is None for m in child.members)
    return child.reason is not None or not fits


def _child_told(child: Verdict) -> str:
    """``name (state: why)``: the members' cause, how many exist, or the state alone."""
    if child.cause:
        why = f": {child.cause}"
    elif child.state is GroupState.WAITING_FOR_MEMBERS:
        noun = "child groups can be tried" if child.children else "members exist"
        why = f": {child.present} of {child.required or 1} {noun}"
    else:
        why = ""
    return f"{child.group.name} ({child.state}{why})"


def _composite(snapshot: Snapshot, ref: ObjectRef, obj: Obj | None) -> Verdict:
    children = tuple(verdict_of(snapshot, c) for c in snapshot.children(ref.name))
    blocking_children = [c for c in children if _blocks(c)]
    blocking = tuple(c.group for c in blocking_children)
    ready = sum(1 for c in children if c.state not in _WAITING)
    running = sum(1 for c in children if c.state is GroupState.SCHEDULED)
    if obj is None:
        summary = (
            f"{ref} does not exist; {len(children)} child group(s) name it as parent: create it"
        )
        return Verdict(
            ref, GroupState.MISSING, summary, None, None, None, ready,
            children=children, blocking=blocking, running=running,
        )  # fmt: skip
    required = _required(obj, "minGroupCount")
    found, reason, message = _initially_scheduled(ref, obj)
    needed = required if required is not None else 1
    disrupted = condition(obj, DISRUPTION_TARGET)
    names = "; ".join(_child_told(c) for c in blocking_children)
    cause = f"blocked by: {names}" if names else ""

    def verdict(state: GroupState, summary: str) -> Verdict:
        return Verdict(
            ref, state, summary, reason, message, required, ready,
            children=children, blocking=blocking, running=running, cause=cause,
        )  # fmt: skip

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
            f" ({len(children)} exist); {cause or 'blocked by: missing child groups'}",
        )
    tried = [c for c in children if c.state not in _WAITING]
    if found is None and tried and all(c.state is GroupState.UNSCHEDULABLE for c in tried):
        parent = (obj.get("spec") or {}).get("parentCompositePodGroupName")
        where = f" (the scheduler writes the verdict on its parent {parent})" if parent else ""
        return verdict(
            GroupState.UNSCHEDULABLE,
            f"{ref} cannot be placed: every child group that can be tried is Unschedulable"
            f"{where}" + (f"; {cause}" if cause else ""),
        )
    if found is None:
        return verdict(
            GroupState.PENDING,
            f"{ref}: enough child groups exist; the scheduler has not decided yet",
        )
    if not placed:
        return verdict(
            GroupState.UNSCHEDULABLE,
            f"{ref} cannot be placed ({reason}): {message}" + (f"; {cause}" if cause else ""),
        )
    degraded = [c.group.name for c in children if c.state is GroupState.DEGRADED]
    if running < needed:
        lost = ", ".join(c.group.name for c in children if c.state is not GroupState.SCHEDULED)
        return verdict(
            GroupState.DEGRADED,
            f"{ref} was placed but only {running} of minGroupCount {needed} child groups run;"
            f" not running: {lost or 'the others are gone (deleted)'}",
        )
    told = (
        f"{ref} is placed: {running} of its {len(children)} child groups run"
        f" (minGroupCount {needed})"
    )
    if degraded:
        told += f"; degraded, minGroupCount still met: {', '.join(degraded)}"
    return verdict(GroupState.SCHEDULED, told)


_ORDER: Final = (
    GroupState.PREEMPTED,
    GroupState.DEGRADED,
    GroupState.UNSCHEDULABLE,
    GroupState.MISSING,
    GroupState.WAITING_FOR_MEMBERS,
    GroupState.PENDING,
    GroupState.SCHEDULED,
)


def _workload(snapshot: Snapshot, ref: ObjectRef) -> Verdict:
    """A Workload is not scheduled itself: the verdicts of its top-level groups."""
    if snapshot.workload(ref.name) is None:
        return Verdict(ref, GroupState.MISSING, f"{ref} does not exist", None, None, None, 0)
    tops = [
        g
        for g in snapshot.stamped_from(ref.name)
        if not ((snapshot.group(g.kind, g.name) or {}).get("spec") or {}).get(
            "parentCompositePodGroupName"
        )
    ]
    children = tuple(verdict_of(snapshot, g) for g in tops)
    if not children:
        summary = (
            f"{ref} is a Workload: no group has been stamped from it yet; create its PodGroups"
            " (instantiate() gives them)"
        )
        return Verdict(ref, GroupState.WAITING_FOR_MEMBERS, summary, None, None, None, 0)
    state = min((c.state for c in children), key=_ORDER.index)
    listed = ", ".join(f"{c.group.kind} {c.group.name} ({c.state})" for c in children)
    blocking = tuple(c.group for c in children if c.state is not GroupState.SCHEDULED)
    running = sum(1 for c in children if c.state is GroupState.SCHEDULED)
    summary = f"{ref} is a Workload, scheduled through its groups: {listed}"
    return Verdict(
        ref, state, summary, None, None, None, len(children),
        children=children, blocking=blocking, running=running,
    )  # fmt: skip
