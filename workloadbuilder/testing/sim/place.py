"""One deterministic scheduling pass over plain data: what binds where, which conditions change.

Rules (a model of the 1.37 kube-scheduler with its gang plugin):

* Units are scheduled by priority (highest first, as the scheduling queue sorts), then in
  ``(namespace, name)`` order: plain pods, standalone PodGroups and root CompositePodGroups.
  Pods are placed first-fit over nodes sorted by name, in pod name order (a plain pod tries its
  ``nominatedNodeName`` first); topology domains (placements) are tried in label-value order.
  No backtracking. A terminating pod still holds its node, and a nominated pod that waits for
  its victims reserves its node against the units tried after it (lower or equal priority).
* A unit that does not fit preempts lower-priority pods as
  :mod:`.plugins.default_preemption` chooses them; the victims are listed in the plan for the
  simulator to evict. A plain preemptor is nominated to the victims' node. Gangs with a
  topology constraint, composites and basic groups do not preempt (as the real scheduler:
  "not supported for pod groups with scheduling constraints").
* A gang waits (nothing is written) until enough members exist: ``minCount`` pods, or
  ``minGroupCount`` child groups that could each proceed. Then it binds only if the
  threshold is met by placements made together; otherwise its condition becomes False
  with reason ``Unschedulable``. On success every member that fits is bound and the
  condition becomes True with reason ``Scheduled``; True is never revisited.
* Once admitted, a group's further pending members are placed one by one (inside the
  domain its bound pods already use, when it has a topology constraint).
* A basic PodGroup places its members independently; it is marked True once one is bound.
  As a composite child it counts as satisfied when at least one member can be placed.

What is written follows a real kube-scheduler (see ``docs/testing.md``): nothing while a gang
waits for its members; ``PodScheduled=False``/``Unschedulable`` on every pending member that
was tried (members that had a place get the gang plugin's "waiting for minCount" message,
the others the node-fit message ``0/N nodes are available: ...``) and a ``FailedScheduling``
event when that message changes (a gang with a topology constraint writes each placement's
outcome in turn, so ``N`` counts that placement's nodes); a PodGroup
condition with the "placements" message; on
success ``PodScheduled=True`` without reason, a ``Scheduled`` event and an empty group message.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from . import framework
from .framework import first_fit, nodes_message, post_filter_message
from .groups import COMPOSITE, CONDITION_TYPES, POD_GROUP, Group, build_forest
from .interface import Rejection
from .model import Cluster, PodInfo, SimNode, is_active
from .plugins import default_preemption as preemption
from .plugins import gang_scheduling as gang
from .plugins import topology_placement as topology

SCHEDULED = "Scheduled"
UNSCHEDULABLE = "Unschedulable"
INVALID = "Invalid"
NO_FIT = "no node fits: insufficient free resources or nodeSelector mismatch"
GANG_PREEMPTION: Final = post_filter_message(preemption.WORKLOAD_AWARE)
PLACEMENT_PREEMPTION: Final = post_filter_message(preemption.PLACEMENT_LIMITED)


@dataclass(frozen=True)
class PodWrite:
    """What to write on a pod: its ``PodScheduled`` condition, and an event if it changed."""

    status: str
    reason: str
    message: str
    event: bool


@dataclass(frozen=True)
class ConditionChange:
    """A group condition to write, with the group's current conditions and generation."""

    kind: str
    namespace: str
    name: str
    type: str
    status: str
    reason: str
    message: str
    existing: tuple[Mapping[str, Any], ...] = ()
    generation: int = 0


@dataclass(frozen=True)
class Preemption:
    """Victims to evict for a preemptor: a plain pod (nominated to ``node``) or a PodGroup."""

    kind: str  # "Pod" or "PodGroup"
    namespace: str
    name: str
    uid: str
    victims: tuple[PodInfo, ...]
    node: str | None = None


@dataclass
class Plan:
    """The outcome of one pass: binds (in order), condition changes, and why pods wait."""

    binds: dict[str, str] = field(default_factory=dict)  # pod key -> node
    conditions: list[ConditionChange] = field(default_factory=list)
    pending: dict[str, str] = field(default_factory=dict)  # pod key -> reason
    # pod key -> the PodScheduled writes of this pass, in order (placements tried in turn)
    unschedulable: dict[str, list[PodWrite]] = field(default_factory=dict)
    preemptions: list[Preemption] = field(default_factory=list)
    nominations: dict[str, str] = field(default_factory=dict)  # pod key -> nominated node
    # plain pod key -> why it was left unschedulable, for the queue's hints
    rejections: dict[str, Rejection] = field(default_factory=dict)


@dataclass
class _Context:
    """What preemption needs: the pods on nodes, their groups, the victims already chosen."""

    occupying: list[PodInfo]
    group_of: dict[str, Group]
    claimed: set[str] = field(default_factory=set)


@dataclass
class _Placement:
    cluster: Cluster
    binds: list[tuple[PodInfo, str]]
    satisfied: list[Group]


@dataclass(frozen=True)
class _Shortfall:
    placed: int
    needed: int
    placements: int = 1


def plan(
    nodes: Sequence[SimNode],
    pods: Sequence[Mapping[str, Any]],
    pod_groups: Sequence[Mapping[str, Any]],
    composites: Sequence[Mapping[str, Any]],
    parked: Collection[str] = frozenset(),
) -> Plan:
    """Schedule everything pending once, given the current objects. ``parked``: plain pods
    (``ns/name``) left unschedulable by an earlier pass, with no event since that may help; they are
    not tried again (nothing is written for them), but a nominated one keeps its node."""
    result = Plan()
    active = []
    for obj in pods:
        if is_active(obj):
            try:
                active.append(PodInfo.from_object(obj))
            except ValueError as err:  # a stored pod the simulator cannot read: it waits
                meta = obj.get("metadata") or {}
                result.pending[f"{meta.get('namespace', 'default')}/{meta.get('name')}"] = str(err)
    occupying = [p for p in active if p.node]
    cluster = Cluster.build(nodes, occupying)
    forest = build_forest(pod_groups, composites, [p for p in active if not p.deleting])
    context = _Context(occupying, _owners(forest.roots, occupying))
    for group, message in forest.invalid:
        _change(result, group, "False", INVALID, message)
    for group, reason in forest.blocked:
        for pod in group.pending:
            result.pending[pod.key] = reason
    for pod in forest.unowned:
        if pod.node is None:
            result.pending[pod.key] = f"pod group {pod.namespace}/{pod.group} not found"
    units: list[tuple[tuple[int, str, str, int], Group | PodInfo]] = [
        ((-p.priority, p.namespace, p.name, 0), p)
        for p in active
        if p.node is None and p.group is None and not p.deleting
    ]
    units += [((-g.priority, g.namespace, g.name, 1), g) for g in forest.roots]
    for _, unit in sorted(units, key=lambda u: u[0]):
        if isinstance(unit, PodInfo):
            cluster = _plain(unit, cluster, result, context, unit.key in parked)
        else:
            cluster = _schedule_root(unit, cluster, result, context)
    return result


def _owners(roots: Sequence[Group], pods: Sequence[PodInfo]) -> dict[str, Group]:
    """The PodGroup of each pod on a node (terminating members included)."""
    by_name = {(g.namespace, g.name): g for r in roots for g in r.walk() if g.kind == POD_GROUP}
    owners = {}
    for pod in pods:
        owner = by_name.get((pod.namespace, pod.group or ""))
        if owner is not None:
            owners[pod.key] = owner
    return owners


def _plain(
    pod: PodInfo, cluster: Cluster, result: Plan, context: _Context, parked: bool
) -> Cluster:
    nominated = [n for n in cluster.nodes if n.name == pod.nominated]
    node = first_fit(cluster, pod, nominated) or first_fit(cluster, pod, cluster.nodes)
    if node is not None:
        cluster.take(node, pod.requests)
        result.binds[pod.key] = node
        return cluster
    result.pending[pod.key] = NO_FIT
    if parked:  # not retried: no cluster event since its last attempt
        if nominated:
            cluster.take(nominated[0].name, pod.requests)  # its nominated node stays reserved
        return cluster
    fit, rejected = framework.fit_error(cluster, pod, cluster.nodes)
    choice = preemption.for_pod(
        pod, cluster, context.occupying, context.claimed, framework.run_filters
    )
    if isinstance(choice, str):
        result.rejections[pod.key] = Rejection(pod.key, rejected)
        _unschedulable(result, pod, f"{fit} {post_filter_message(choice)}")
        if choice == preemption.TERMINATING and pod.nominated:
            cluster.take(pod.nominated, pod.requests)  # the nominated node stays reserved
        return cluster
    _unschedulable(result, pod, fit)  # the first attempt, which preempts, has no suffix
    victims = frozenset(v.key for v in choice.victims)
    # while its victims' eviction runs, the pod waits on DefaultPreemption too
    waits = rejected | {preemption.NAME} if victims else rejected
    result.rejections[pod.key] = Rejection(pod.key, waits, victims)
    result.nominations[pod.key] = choice.node
    cluster.take(choice.node, pod.requests)  # reserved against the units tried after it
    context.claimed.update(v.key for v in choice.victims)
    if choice.victims:
        result.preemptions.append(
            Preemption("Pod", pod.namespace, pod.name, pod.uid, choice.victims, choice.node)
        )
    return cluster


def _satisfy(
    g: Group, cluster: Cluster, candidates: Sequence[SimNode], top: bool
) -> _Placement | _Shortfall:
    """Place the group inside ``candidates``: a ``_Placement``, or the best ``_Shortfall``."""
    need, best = gang.need(g, top), 0
    domains = topology.placements(g, candidates)
    for domain in domains:
        trial, have = cluster.copy(), 0
        binds: list[tuple[PodInfo, str]] = []
        satisfied: list[Group] = []
        if g.kind == COMPOSITE:
            for child in g.children:
                outcome = _satisfy(child, trial, domain, False)
                if isinstance(outcome, _Placement):
                    trial, have = outcome.cluster, have + 1
                    binds += outcome.binds
                    satisfied += outcome.satisfied
        else:
            names = {n.name for n in domain}
            have = sum(1 for p in g.members if p.node in names)
            for pod in g.pending:
                node = first_fit(trial, pod, domain)
                if node is not None:
                    trial.take(node, pod.requests)
                    binds.append((pod, node))
            have += len(binds)
        if have >= need:
            return _Placement(trial, binds, [*satisfied, g])
        best = max(best, have)
    return _Shortfall(best, need, len(domains))


def _schedule_root(root: Group, cluster: Cluster, result: Plan, context: _Context) -> Cluster:
    ready, waiting = gang.ready(root, True)
    if not ready:
        _pend(root, result, waiting)
        return cluster
    outcome = _satisfy(root, cluster, cluster.nodes, True)
    if isinstance(outcome, _Shortfall):
        victims = _group_victims(root, cluster, context)
        message = (
            preemption.GROUP_PREEMPTING
            if victims is not None
            else _shortfall_message(root, outcome)
        )
        _change(result, root, "False", UNSCHEDULABLE, message)
        _pend(root, result, f"{UNSCHEDULABLE}: {message}")
        _tried(root, cluster, result)
        new = tuple(v for v in victims or () if not v.deleting)
        context.claimed.update(v.key for v in victims or ())
        if new:
            uid = str((root.obj.get("metadata") or {}).get("uid") or "")
            result.preemptions.append(Preemption(POD_GROUP, root.namespace, root.name, uid, new))
        return cluster
    for pod, node in outcome.binds:
        result.binds[pod.key] = node
    if root.threshold is not None and len(outcome.binds) >= 2:
        # observed: the member a gang binds second is nominated just before its binding
        second, node = outcome.binds[1]
        result.nominations[second.key] = node
    satisfied = {id(g) for g in outcome.satisfied}
    for g in outcome.satisfied:
        if g.threshold is not None or _progressed(g, satisfied, result):
            _change(result, g, "True", SCHEDULED, "")
    _pend(root, result, NO_FIT)
    for g in root.walk():
        for pod in g.pending:
            if pod.key not in result.binds:
                message = nodes_message(outcome.cluster, pod, outcome.cluster.nodes)
                _unschedulable(result, pod, f"{message} {GANG_PREEMPTION}")
    return outcome.cluster


def _group_victims(root: Group, cluster: Cluster, context: _Context) -> list[PodInfo] | None:
    """Workload-aware preemption for a gang PodGroup without topology constraints."""
    if root.kind != POD_GROUP or root.threshold is None or root.topology_key is not None:
        return None
    free = [p for p in context.occupying if p.key not in context.claimed or p.deleting]
    return preemption.for_group(
        root,
        cluster,
        free,
        context.group_of,
        lambda trial: _assignment(_satisfy(root, trial, trial.nodes, True)),
        framework.run_filters,
    )


def _assignment(outcome: _Placement | _Shortfall) -> preemption.Assignment | None:
    """Where a placement puts the gang's pods (None: it has no placement)."""
    return outcome.binds if isinstance(outcome, _Placement) else None


def _unschedulable(result: Plan, pod: PodInfo, message: str) -> None:
    """``PodScheduled=False``/``Unschedulable`` with ``message``; an event if it changed. A
    retry of the same pass with the same outcome writes nothing more."""
    writes = result.unschedulable.setdefault(pod.key, [])
    if writes and writes[-1].message == message:
        return
    before = (writes[-1].status, writes[-1].reason, writes[-1].message) if writes else pod.scheduled
    writes.append(
        PodWrite("False", UNSCHEDULABLE, message, before != ("False", UNSCHEDULABLE, message))
    )


def _tried(root: Group, cluster: Cluster, result: Plan) -> None:
    """Every pending member of a gang that was tried: waiting (it had a place) or misfit.

    A gang that cannot be placed is retried at once, again and again (observed: a busy loop
    until a cluster event), and each retry reports the pods' outcome in one placement (the
    ``anyResult`` of the placement it ended with). One pass stands for those retries: with a
    topology constraint, the outcome in each placement in turn (label-value order), so a misfit
    counts that placement's nodes (``0/2 nodes are available: ...``), not the cluster's, and a
    pod's message changes (with a new event) where two placements differ.
    """
    suffix = PLACEMENT_PREEMPTION if root.topology_key else GANG_PREEMPTION
    for candidates in topology.placements(root, cluster.nodes):
        trial = cluster.copy()
        for g in root.walk():
            for pod in g.pending:
                node = first_fit(trial, pod, candidates)
                if node is not None:
                    trial.take(node, pod.requests)
                    _unschedulable(result, pod, gang.WAITING_FOR_GANG)
                else:
                    message = nodes_message(trial, pod, candidates)
                    _unschedulable(result, pod, f"{message} {suffix}")


def _progressed(g: Group, satisfied: set[int], result: Plan) -> bool:
    """Whether a basic group got anything placed (a member bound, or a child satisfied)."""
    if g.kind == COMPOSITE:
        return any(id(c) in satisfied for c in g.children)
    return any(p.node or p.key in result.binds for p in g.members)


def _pend(root: Group, result: Plan, reason: str) -> None:
    for g in root.walk():
        for pod in g.pending:
            if pod.key not in result.binds:
                result.pending[pod.key] = reason


def _shortfall_message(g: Group, shortfall: _Shortfall) -> str:
    where = f" within one {g.topology_key!r} domain" if g.topology_key else ""
    if g.kind == COMPOSITE:
        return (
            f"only {shortfall.placed} of the {shortfall.needed} child groups required by "
            f"minGroupCount could be placed together{where}"
        )
    why = preemption.CONSTRAINED if g.topology_key else preemption.NO_VICTIMS
    return (
        f"0/{shortfall.placements} placements are available, first placement status:"
        f" pod group is unschedulable, {why}"
    )


def _change(result: Plan, g: Group, status: str, reason: str, message: str) -> None:
    current = g.condition or {}
    if g.admitted:
        return
    if (current.get("status"), current.get("reason"), current.get("message")) == (
        status,
        reason,
        message,
    ):
        return
    existing = tuple((g.obj.get("status") or {}).get("conditions") or ())
    generation = int((g.obj.get("metadata") or {}).get("generation") or 0)
    kind_type = CONDITION_TYPES[g.kind]
    result.conditions.append(
        ConditionChange(
            g.kind, g.namespace, g.name, kind_type, status, reason, message, existing, generation
        )
    )
