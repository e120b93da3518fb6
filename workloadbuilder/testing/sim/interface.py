"""What the scheduling framework and its plugins share (kube-scheduler's ``fwk`` package): a
filter's verdict, the cluster events a queueing hint answers, and a pod's last rejection."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from .model import Cluster, PodInfo, SimNode

NODE_CHANGED: Final = "Node/Add|Update"
"""A Node was added or changed (its ``resourceVersion`` moved)."""
ASSIGNED_POD_DELETED: Final = "AssignedPod/Delete"
"""A pod that held a node is gone."""
ASSIGNED_POD_TERMINATING: Final = "AssignedPod/Update"
"""A pod that holds a node was updated with a ``deletionTimestamp``: its graceful deletion began."""
POD_UPDATED: Final = "UnscheduledPod/Update"
"""The waiting pod's own spec changed (its ``generation`` moved)."""


@dataclass(frozen=True)
class Status:
    """A filter's rejection of a node: the plugin, its reasons, and whether evicting pods cannot
    help (``UnschedulableAndUnresolvable``) or may (``Unschedulable``)."""

    plugin: str
    reasons: tuple[str, ...]
    unresolvable: bool


@dataclass(frozen=True)
class ClusterEvent:
    """One change the scheduling queue hears of: its kind and the object (node or ``ns/name``)."""

    kind: str
    key: str


@dataclass(frozen=True)
class Rejection:
    """Why a pod was left unschedulable: the plugins that rejected it (upstream's
    ``UnschedulablePlugins``) and, while its preemption runs, the victims it waits for."""

    pod: str
    plugins: frozenset[str]
    victims: frozenset[str] = frozenset()


Filter = Callable[[Cluster, SimNode, PodInfo], Status | None]
"""A Filter extension point: ``None`` when the pod passes on the node."""
Hint = Callable[[ClusterEvent, Rejection], bool]
"""A queueing hint: whether the event may make the rejected pod schedulable (``Queue``)."""
