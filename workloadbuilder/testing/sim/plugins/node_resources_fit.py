"""NodeResourcesFit (Filter): the pod's requests must fit the node's free allocatable.

Each short resource is a reason (``Insufficient <resource>``, ``Too many pods``), listed by
resource name. A request larger than the node's whole allocatable is unresolvable: no eviction
makes room."""

from __future__ import annotations

from fractions import Fraction
from typing import Final

from ..interface import (
    ASSIGNED_POD_DELETED,
    NODE_CHANGED,
    POD_UPDATED,
    ClusterEvent,
    Rejection,
    Status,
)
from ..model import Cluster, PodInfo, SimNode

NAME: Final = "NodeResourcesFit"
TOO_MANY_PODS: Final = "Too many pods"


def filter_node(cluster: Cluster, node: SimNode, pod: PodInfo) -> Status | None:
    """Rejects a node without room for the pod's requests."""
    free = cluster.free[node.name]
    short = []
    for r, q in sorted(pod.requests.items()):
        if r == "pods":
            if r in free and free[r] < q:
                short.append(TOO_MANY_PODS)
        elif q > 0 and free.get(r, Fraction(0)) < q:
            short.append(f"Insufficient {r}")
    if not short:
        return None
    return Status(NAME, tuple(short), unresolvable=_exceeds(node, pod))


def _exceeds(node: SimNode, pod: PodInfo) -> bool:
    """A request larger than the node's allocatable: evicting pods cannot make room."""
    total = node.allocatable_values
    return any(
        q > total.get(r, Fraction(0)) for r, q in pod.requests.items() if r != "pods" and q > 0
    )


def hint(event: ClusterEvent, rejection: Rejection) -> bool:
    """A Node added or changed (more allocatable), a pod that held a node deleted, or the pod
    itself changed (scaled down). A pod that only starts terminating frees nothing yet."""
    if event.kind == POD_UPDATED:
        return event.key == rejection.pod
    return event.kind in (NODE_CHANGED, ASSIGNED_POD_DELETED)
