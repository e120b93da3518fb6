"""Which pods a preemptor evicts, as kube-scheduler's two preemption paths choose them.

* A plain pod (DefaultPreemption, node by node): on each node where evicting could help, every
  pod of lower priority is removed, then added back in order of importance (higher priority
  first, then the earlier created) while the preemptor still fits; what cannot be added back is
  the node's victim set. The node chosen has the lowest highest-victim priority, then the lowest
  sum of priorities, then the fewest victims, then the latest-created earliest victim (the real
  scheduler's latest start time: the simulator has no kubelet start times), then the node name.
  It evicts single pods and does not honour a victim gang's ``disruptionMode``.
* A gang (workload-aware preemption, over the whole cluster, "node cluster"): the units of lower
  priority are pods, or whole PodGroups with ``disruptionMode: {all: {}}``; a victim's priority
  is its PodGroup's. All are removed, then added back in the same order while the gang can still
  be placed; what cannot be added back is evicted.

A pod already terminating is leaving anyway: it is always removed and never evicted again.
Equal or higher priority is never a victim; ``preemptionPolicy: Never`` never preempts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from .groups import Group
from .model import UNRESOLVABLE, Cluster, PodInfo

NOT_HELPFUL: Final = "Preemption is not helpful for scheduling"
NO_VICTIMS_FOR_POD: Final = "No preemption victims found for incoming pod"
NEVER: Final = "not eligible due to preemptionPolicy=Never."
TERMINATING: Final = "not eligible due to a terminating pod on the nominated node."


@dataclass(frozen=True)
class PodPreemption:
    """A plain preemptor's choice: the node it is nominated to and the pods to evict there."""

    node: str
    victims: tuple[PodInfo, ...]


def _importance(pod: PodInfo, priority: int) -> tuple[int, tuple[str, str]]:
    return (-priority, pod.order)


def _exceeds_node(cluster: Cluster, node_name: str, pod: PodInfo) -> bool:
    """A request larger than the node's allocatable: no eviction makes room."""
    node = next(n for n in cluster.nodes if n.name == node_name)
    total = node.capacity()
    return any(
        q > total.get(r, Fraction(0)) for r, q in pod.requests.items() if r != "pods" and q > 0
    )


def for_pod(
    pod: PodInfo, cluster: Cluster, occupying: Sequence[PodInfo], claimed: set[str]
) -> PodPreemption | str:
    """Where a plain pod preempts and whom, or why it does not (the ``preemption:`` text)."""
    if not pod.preempts:
        return NEVER
    if pod.nominated and any(
        p.node == pod.nominated and p.deleting and p.priority < pod.priority for p in occupying
    ):
        return TERMINATING
    statuses: Counter[str] = Counter()
    found: list[tuple[tuple[int, int, int], tuple[str, str], PodPreemption]] = []
    for node in cluster.nodes:
        reasons = cluster.misfit(node, pod)
        if any(r in UNRESOLVABLE for r in reasons) or _exceeds_node(cluster, node.name, pod):
            statuses[NOT_HELPFUL] += 1
            continue
        here = [p for p in occupying if p.node == node.name and p.key not in claimed]
        leaving = [p for p in here if p.deleting]
        lower = sorted(
            (p for p in here if not p.deleting and p.priority < pod.priority),
            key=lambda p: _importance(p, p.priority),
        )
        trial = cluster.copy()
        for p in [*leaving, *lower]:
            trial.give(node.name, p.requests)
        if not trial.fits(node, pod):
            statuses[NO_VICTIMS_FOR_POD] += 1
            continue
        victims = []
        for p in lower:
            trial.take(node.name, p.requests)
            if not trial.fits(node, pod):
                trial.give(node.name, p.requests)
                victims.append(p)
        if not victims and not leaving:
            continue  # it fits as is: not a preemption case
        prios = [v.priority for v in victims]
        earliest = min((v.order for v in victims), default=("", ""))
        key = (max(prios, default=0), sum(prios), len(victims))
        found.append((key, earliest, PodPreemption(node.name, tuple(victims))))
    if not found:
        listed = ", ".join(sorted(f"{count} {why}" for why, count in statuses.items()))
        return f"0/{len(cluster.nodes)} nodes are available: {listed}."
    found.sort(key=lambda f: f[2].node)  # stable sorts: the last one decides first
    found.sort(key=lambda f: f[1], reverse=True)
    found.sort(key=lambda f: f[0])
    return found[0][2]


def for_group(
    g: Group,
    cluster: Cluster,
    occupying: Sequence[PodInfo],
    group_of: Mapping[str, Group],
    placeable: Callable[[Cluster], bool],
) -> list[PodInfo] | None:
    """The pods a gang evicts (those already terminating included), or None: no victims."""
    if not g.preempts:
        return None
    own = {id(d) for d in g.walk()}
    units: dict[str, tuple[int, list[PodInfo]]] = {}
    for pod in occupying:
        owner = group_of.get(pod.key)
        if owner is not None and id(owner) in own:
            continue
        priority = owner.priority if owner is not None else pod.priority
        if priority >= g.priority:
            continue
        unit = f"group {owner.key}" if owner is not None and owner.disrupts_all else pod.key
        units.setdefault(unit, (priority, []))[1].append(pod)
    trial = cluster.copy()
    for _, pods in units.values():
        for p in pods:
            trial.give(p.node or "", p.requests)
    if not placeable(trial):
        return None
    victims: list[PodInfo] = []
    ordered = sorted(units.values(), key=lambda u: (-u[0], min(p.order for p in u[1])))
    for _, pods in ordered:
        if all(p.deleting for p in pods):
            victims += pods
            continue
        for p in pods:
            trial.take(p.node or "", p.requests)
        if not placeable(trial):
            for p in pods:
                trial.give(p.node or "", p.requests)
            victims += pods
    return victims
