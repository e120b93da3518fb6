"""NodeAffinity (Filter): the node's labels must match the pod's ``nodeSelector``."""

from __future__ import annotations

from typing import Final

from ..interface import NODE_CHANGED, POD_UPDATED, ClusterEvent, Rejection, Status
from ..model import Cluster, PodInfo, SimNode

NAME: Final = "NodeAffinity"
REASON: Final = "node(s) didn't match Pod's node affinity/selector"


def filter_node(cluster: Cluster, node: SimNode, pod: PodInfo) -> Status | None:
    """Rejects a node whose labels miss a selected value (unresolvable by preemption)."""
    if any(node.label(k) != v for k, v in pod.node_selector.items()):
        return Status(NAME, (REASON,), unresolvable=True)
    return None


def hint(event: ClusterEvent, rejection: Rejection) -> bool:
    """A Node added or relabelled, or the pod's own selector changed."""
    return event.kind == NODE_CHANGED or (event.kind == POD_UPDATED and event.key == rejection.pod)
