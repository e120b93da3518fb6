"""Which unschedulable plain pods wait for a cluster event, as kube-scheduler's queue holds them.

A pod the scheduler found unschedulable goes to the queue's unschedulable pool and is tried
again only when a cluster event may help it (a Node added or changed, a pod that held a node
removed, the pod itself changed) or after ``DefaultPodMaxInUnschedulablePodsDuration`` (five
minutes, the scheduling queue's default). So a plain preemptor's first message stays as
written until such an event: "later retries, set off by unrelated node events, gave the
message ... not eligible due to a terminating pod on the nominated node"
(real-apiserver-observed.md, 1a). A new pod binding somewhere is no such event (it only takes
room). Pods of a PodGroup are not held here: the simulator tries groups at every pass (a real
gang, once an event wakes it, retries in a busy loop: observed 1b, 2a and 3).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from .model import is_active

FLUSH: Final = timedelta(minutes=5)


@dataclass(frozen=True)
class ClusterState:
    """What a retry depends on: each Node's ``resourceVersion`` and the pods holding a node."""

    nodes: frozenset[tuple[str, str]]
    occupying: frozenset[str]

    @classmethod
    def read(
        cls, nodes: Iterable[Mapping[str, Any]], pods: Iterable[Mapping[str, Any]]
    ) -> ClusterState:
        """The state of the listed Nodes and pods."""
        return cls(
            frozenset((_name(n), str(_meta(n).get("resourceVersion") or "")) for n in nodes),
            frozenset(
                _key(p) for p in pods if (p.get("spec") or {}).get("nodeName") and is_active(p)
            ),
        )

    def helps_since(self, earlier: ClusterState) -> bool:
        """Whether anything happened since ``earlier`` that may let a waiting pod fit."""
        return self.nodes != earlier.nodes or not earlier.occupying <= self.occupying


@dataclass(frozen=True)
class _Attempt:
    state: ClusterState
    generation: int
    at: datetime


class UnschedulablePool:
    """Plain pods left unschedulable, with the cluster state of their last attempt."""

    def __init__(self) -> None:
        self._attempts: dict[str, _Attempt] = {}

    def parked(
        self, state: ClusterState, pods: Sequence[Mapping[str, Any]], now: datetime
    ) -> frozenset[str]:
        """The pods (``ns/name``) not to try in this pass: no event since their attempt."""
        by_key = {_key(p): p for p in pods}
        held = set()
        for key, attempt in self._attempts.items():
            pod = by_key.get(key)
            if (
                pod is not None
                and _generation(pod) == attempt.generation
                and not state.helps_since(attempt.state)
                and now - attempt.at < FLUSH
            ):
                held.add(key)
        self._attempts = {k: a for k, a in self._attempts.items() if k in held}
        return frozenset(held)

    def tried(
        self,
        state: ClusterState,
        pods: Sequence[Mapping[str, Any]],
        unschedulable: Iterable[str],
        now: datetime,
    ) -> None:
        """Record the plain pods this pass tried and left unschedulable."""
        by_key = {_key(p): p for p in pods}
        for key in unschedulable:
            pod = by_key.get(key)
            if pod is not None and not ((pod.get("spec") or {}).get("schedulingGroup")):
                self._attempts[key] = _Attempt(state, _generation(pod), now)


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return obj.get("metadata") or {}


def _name(obj: Mapping[str, Any]) -> str:
    return str(_meta(obj).get("name") or "")


def _key(obj: Mapping[str, Any]) -> str:
    return f"{_meta(obj).get('namespace', 'default')}/{_meta(obj).get('name')}"


def _generation(pod: Mapping[str, Any]) -> int:
    value = _meta(pod).get("generation")
    return value if isinstance(value, int) else 0
