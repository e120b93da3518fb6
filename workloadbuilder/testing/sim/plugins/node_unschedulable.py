"""NodeUnschedulable (Filter): a node with ``spec.unschedulable`` takes only pods tolerating the
``node.kubernetes.io/unschedulable:NoSchedule`` taint."""

from __future__ import annotations

from typing import Final

from ..interface import NODE_CHANGED, POD_UPDATED, ClusterEvent, Rejection, Status
from ..model import Cluster, PodInfo, SimNode, tolerates

NAME: Final = "NodeUnschedulable"
REASON: Final = "node(s) were unschedulable"
_TAINT: Final = {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}


def filter_node(cluster: Cluster, node: SimNode, pod: PodInfo) -> Status | None:
    """Rejects a cordoned node the pod does not tolerate (unresolvable by preemption)."""
    if node.unschedulable and not tolerates(pod.tolerations, _TAINT):
        return Status(NAME, (REASON,), unresolvable=True)
    return None


def hint(event: ClusterEvent, rejection: Rejection) -> bool:
    """A Node added or changed (uncordoned), or the pod itself changed (a toleration added)."""
    return event.kind == NODE_CHANGED or (event.kind == POD_UPDATED and event.key == rejection.pod)
