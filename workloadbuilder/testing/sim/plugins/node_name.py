"""NodeName (Filter): a pod naming a node in ``spec.nodeName`` fits that node only.

The simulator schedules only pods without ``nodeName``, so this filter passes every node for
them; it is kept so that the profile runs the filters kube-scheduler runs, in its order."""

from __future__ import annotations

from typing import Final

from ..interface import NODE_CHANGED, ClusterEvent, Rejection, Status
from ..model import Cluster, PodInfo, SimNode

NAME: Final = "NodeName"
REASON: Final = "node(s) didn't match the requested node name"


def filter_node(cluster: Cluster, node: SimNode, pod: PodInfo) -> Status | None:
    """Rejects every node but the one the pod names (unresolvable by preemption)."""
    if pod.node is not None and pod.node != node.name:
        return Status(NAME, (REASON,), unresolvable=True)
    return None


def hint(event: ClusterEvent, rejection: Rejection) -> bool:
    """Only a Node added (the named one) may help."""
    return event.kind == NODE_CHANGED
