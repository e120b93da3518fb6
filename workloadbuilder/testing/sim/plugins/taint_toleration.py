"""TaintToleration (Filter): a node's ``NoSchedule`` / ``NoExecute`` taints must be tolerated."""

from __future__ import annotations

from typing import Final

from ..interface import NODE_CHANGED, POD_UPDATED, ClusterEvent, Rejection, Status
from ..model import Cluster, PodInfo, SimNode, tolerates

NAME: Final = "TaintToleration"
REASON: Final = "node(s) had untolerated taint(s)"
_FILTERED_EFFECTS: Final = frozenset({"NoSchedule", "NoExecute"})


def filter_node(cluster: Cluster, node: SimNode, pod: PodInfo) -> Status | None:
    """Rejects a node with a taint the pod does not tolerate (unresolvable by preemption)."""
    if any(
        t.get("effect") in _FILTERED_EFFECTS and not tolerates(pod.tolerations, t)
        for t in node.taints
    ):
        return Status(NAME, (REASON,), unresolvable=True)
    return None


def hint(event: ClusterEvent, rejection: Rejection) -> bool:
    """A Node added or changed (a taint removed), or the pod itself changed (a toleration
    added)."""
    return event.kind == NODE_CHANGED or (event.kind == POD_UPDATED and event.key == rejection.pod)
