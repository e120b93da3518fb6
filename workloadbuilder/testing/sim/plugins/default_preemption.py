"""DefaultPreemption (PostFilter): which pods a preemptor evicts, as kube-scheduler's two
preemption paths choose them, and why a preemptor is not eligible.

* A plain pod (DefaultPreemption, node by node): on each node where evicting could help, every
  pod of lower priority is removed, then added back in order of importance (``MoreImportantPod``:
  higher priority first, then the earlier ``status.startTime``) while the preemptor still fits;
  what cannot be added back is the node's victim set. The node is chosen by
  ``pickOneNodeForPreemption``'s criteria in turn: the fewest PDB violations (the test server
  serves no PodDisruptionBudget, so none), the lowest highest-victim priority, the lowest sum of
  priorities (each raised by 2^31, so more victims weigh more), the fewest victims, the latest
  start time of the earliest highest-priority victim, then the first node (by name; upstream's
  order is a map's). Start times are whole seconds, as the field is; a victim without one (no
  kubelet started it) counts as starting when the scheduler reads it, and those moments grow
  node after node, so among such nodes the last one evaluated has the latest start. It evicts
  single pods and does not honour a victim gang's ``disruptionMode``.
* A gang (workload-aware preemption, over the whole cluster, "node cluster"): the units of lower
  priority are pods, or whole PodGroups with ``disruptionMode: {all: {}}``; a victim's priority
  is its PodGroup's. All are removed and the gang is placed once; the units are then added back
  in order of importance (``moreImportantVictim``: higher priority, a group before a single pod,
  single pods by earlier start time, groups by more members then earlier start) while every pod
  of that placement still fits on its node; what cannot be added back is evicted.

A pod already terminating is leaving anyway: it is always removed and never evicted again.
Equal or higher priority is never a victim; ``preemptionPolicy: Never`` never preempts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ..groups import Group
from ..interface import ASSIGNED_POD_TERMINATING, ClusterEvent, Filter, Rejection
from ..model import Cluster, PodInfo, SimNode

NAME: Final = "DefaultPreemption"
NOT_HELPFUL: Final = "Preemption is not helpful for scheduling"
NO_VICTIMS_FOR_POD: Final = "No preemption victims found for incoming pod"
NEVER: Final = "not eligible due to preemptionPolicy=Never."
TERMINATING: Final = "not eligible due to a terminating pod on the nominated node."
WORKLOAD_AWARE: Final = "not eligible due to workload aware preemption enabled"
"""A pod of a PodGroup: its group preempts, not the pod."""
PLACEMENT_LIMITED: Final = "not eligible due to placement-based pod group scheduling limitation"
"""A pod of a PodGroup with a topology constraint."""
NO_VICTIMS: Final = "No preemption victims found for incoming preemptor"
CONSTRAINED: Final = (
    "workload aware preemption is not supported for pod groups with scheduling constraints"
)
GROUP_PREEMPTING: Final = (
    "0/1 placements are available, first placement status: pod group is unschedulable"
)
"""A gang whose victims were chosen: its group condition while they go."""


@dataclass(frozen=True)
class PodPreemption:
    """A plain preemptor's choice: the node it is nominated to and the pods to evict there."""

    node: str
    victims: tuple[PodInfo, ...]


_SUM_OFFSET = 2**31  # upstream adds MaxInt32+1 to each priority it sums: never negative
_NOT_STARTED = 1 << 62  # "now" for a pod without status.startTime: after any recorded start


def _importance(pod: PodInfo) -> tuple[int, tuple[int, int]]:
    """``MoreImportantPod``'s order: higher priority, then the earlier start."""
    return (-pod.priority, pod.start_key(_NOT_STARTED))


def hint(event: ClusterEvent, rejection: Rejection) -> bool:
    """While its preemption runs the preemptor is held (upstream's PreEnqueue,
    ``IsPodRunningPreemption``); a victim's graceful deletion beginning, the last step of that
    preemption, is the update that sends it back to be tried."""
    return event.kind == ASSIGNED_POD_TERMINATING and event.key in rejection.victims


def _fits(run: Filter, cluster: Cluster, node: SimNode, pod: PodInfo) -> bool:
    return run(cluster, node, pod) is None


def for_pod(
    pod: PodInfo, cluster: Cluster, occupying: Sequence[PodInfo], claimed: set[str], run: Filter
) -> PodPreemption | str:
    """Where a plain pod preempts and whom, or why it does not (the ``preemption:`` text).
    ``run`` is the profile's filter chain (upstream's framework handle)."""
    if not pod.preempts:
        return NEVER
    if pod.nominated and any(
        p.node == pod.nominated and p.deleting and p.priority < pod.priority for p in occupying
    ):
        return TERMINATING
    statuses: Counter[str] = Counter()
    found: list[PodPreemption] = []
    for node in cluster.nodes:
        status = run(cluster, node, pod)
        if status is not None and status.unresolvable:
            statuses[NOT_HELPFUL] += 1
            continue
        here = [p for p in occupying if p.node == node.name and p.key not in claimed]
        leaving = [p for p in here if p.deleting]
        lower = sorted(
            (p for p in here if not p.deleting and p.priority < pod.priority),
            key=_importance,
        )
        trial = cluster.copy()
        for p in [*leaving, *lower]:
            trial.give(node.name, p.requests)
        if not _fits(run, trial, node, pod):
            statuses[NO_VICTIMS_FOR_POD] += 1
            continue
        victims = []
        for p in lower:
            trial.take(node.name, p.requests)
            if not _fits(run, trial, node, pod):
                trial.give(node.name, p.requests)
                victims.append(p)
        if not victims and not leaving:
            continue  # it fits as is: not a preemption case
        found.append(PodPreemption(node.name, tuple(victims)))
    if not found:
        listed = ", ".join(sorted(f"{count} {why}" for why, count in statuses.items()))
        return f"0/{len(cluster.nodes)} nodes are available: {listed}."
    return _pick_one_node(found)


def _pick_one_node(candidates: Sequence[PodPreemption]) -> PodPreemption:
    """``pickOneNodeForPreemption``: each criterion keeps the best candidates, in node order."""
    for candidate in candidates:
        if not candidate.victims:
            return candidate  # only terminating pods stand in the way: nothing to evict

    def latest_start(index: int, c: PodPreemption) -> tuple[int, int]:
        top = max(v.priority for v in c.victims)
        return min(v.start_key(index) for v in c.victims if v.priority == top)

    criteria: list[Callable[[int, PodPreemption], Any]] = [
        lambda _, c: 0,  # PDB violations: no PodDisruptionBudget is served
        lambda _, c: -max(v.priority for v in c.victims),
        lambda _, c: -sum(v.priority + _SUM_OFFSET for v in c.victims),
        lambda _, c: -len(c.victims),
        latest_start,
    ]
    remaining = list(candidates)
    for score in criteria:
        scored = [(score(i, c), c) for i, c in enumerate(remaining)]
        best = max(s for s, _ in scored)
        remaining = [c for s, c in scored if s == best]
        if len(remaining) == 1:
            break
    return remaining[0]


@dataclass(frozen=True)
class _Unit:
    """A preemption unit of a gang preemptor: one pod, or a whole ``all``-mode PodGroup."""

    priority: int
    group: bool
    pods: tuple[PodInfo, ...]

    def importance(self) -> tuple[int, int, int, tuple[int, int]]:
        """``moreImportantVictim``: priority, a group before a pod, more members, earlier start."""
        earliest = min(p.start_key(_NOT_STARTED) for p in self.pods)
        return (-self.priority, 0 if self.group else 1, -len(self.pods), earliest)


Assignment = Sequence[tuple[PodInfo, str]]


def _still_fits(cluster: Cluster, assignment: Assignment, run: Filter) -> bool:
    """Whether every pod of the gang's placement still fits on the node it was given."""
    trial = cluster.copy()
    nodes = {n.name: n for n in cluster.nodes}
    for pod, node in assignment:
        if not _fits(run, trial, nodes[node], pod):
            return False
        trial.take(node, pod.requests)
    return True


def for_group(
    g: Group,
    cluster: Cluster,
    occupying: Sequence[PodInfo],
    group_of: Mapping[str, Group],
    place: Callable[[Cluster], Assignment | None],
    run: Filter,
) -> list[PodInfo] | None:
    """The pods a gang evicts (those already terminating included), or None: no victims."""
    if not g.preempts:
        return None
    own = {id(d) for d in g.walk()}
    members: dict[str, tuple[int, bool, list[PodInfo]]] = {}
    for pod in sorted(occupying, key=lambda p: (p.node or "", p.namespace, p.name)):
        owner = group_of.get(pod.key)
        if owner is not None and id(owner) in own:
            continue
        priority = owner.priority if owner is not None else pod.priority
        if priority >= g.priority:
            continue
        whole = owner is not None and owner.disrupts_all
        name = f"group {owner.key}" if whole and owner is not None else pod.key
        members.setdefault(name, (priority, whole, []))[2].append(pod)
    units = [_Unit(prio, whole, tuple(pods)) for prio, whole, pods in members.values()]
    trial = cluster.copy()
    for unit in units:
        for p in unit.pods:
            trial.give(p.node or "", p.requests)
    assignment = place(trial)
    if assignment is None:
        return None
    victims: list[PodInfo] = []
    for unit in sorted(units, key=_Unit.importance):
        if all(p.deleting for p in unit.pods):
            victims += unit.pods
            continue
        for p in unit.pods:
            trial.take(p.node or "", p.requests)
        if not _still_fits(trial, assignment, run):
            for p in unit.pods:
                trial.give(p.node or "", p.requests)
            victims += unit.pods
    return victims
