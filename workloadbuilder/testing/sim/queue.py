"""Which unschedulable plain pods wait for a cluster event, as kube-scheduler's queue holds them.

A pod the scheduler found unschedulable goes to the queue's unschedulable pool and is tried
again only when a cluster event may help it, or after ``DefaultPodMaxInUnschedulablePodsDuration``
(five minutes, the scheduling queue's default). Whether an event may help is asked of the
plugins that rejected the pod, through their queueing hints (``plugins.HINTS``; upstream's
``isPodWorthRequeuing``); a pod whose rejecting plugins are not known is tried at any event.
The events, found by comparing what the pass reads with what the pod's attempt read: a Node
added or changed, a pod that held a node deleted (or finished), a pod that holds a node
starting its graceful deletion (its update with ``deletionTimestamp``), the pod's own spec
changed. A new pod binding somewhere is none (it only takes room).

So a preemptor, left waiting while its victims are evicted, is tried again when a victim's
deletion begins, and that attempt ends "... not eligible due to a terminating pod on the
nominated node." with a second FailedScheduling event (issue 33, item 14, on the real
scheduler's records of real-apiserver-observed.md 1a and 1e); it binds once the victim is gone.
Pods of a PodGroup are not held here: the simulator tries groups at every pass (a real gang,
once an event wakes it, retries in a busy loop: observed 1b, 2a and 3).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from .interface import (
    ASSIGNED_POD_DELETED,
    ASSIGNED_POD_TERMINATING,
    NODE_CHANGED,
    POD_UPDATED,
    ClusterEvent,
    Rejection,
)
from .model import is_active
from .plugins import HINTS

FLUSH: Final = timedelta(minutes=5)


@dataclass(frozen=True)
class ClusterState:
    """What a retry depends on: each Node's ``resourceVersion``, the pods holding a node and
    those of them terminating."""

    nodes: frozenset[tuple[str, str]]
    occupying: frozenset[str]
    terminating: frozenset[str] = frozenset()

    @classmethod
    def read(
        cls, nodes: Iterable[Mapping[str, Any]], pods: Iterable[Mapping[str, Any]]
    ) -> ClusterState:
        """The state of the listed Nodes and pods."""
        holding = [p for p in pods if (p.get("spec") or {}).get("nodeName") and is_active(p)]
        return cls(
            frozenset((_name(n), str(_meta(n).get("resourceVersion") or "")) for n in nodes),
            frozenset(_key(p) for p in holding),
            frozenset(_key(p) for p in holding if _meta(p).get("deletionTimestamp")),
        )

    def events_since(self, earlier: ClusterState) -> list[ClusterEvent]:
        """The cluster events between ``earlier`` and this state."""
        return [
            *(ClusterEvent(NODE_CHANGED, name) for name, _ in sorted(self.nodes - earlier.nodes)),
            *(
                ClusterEvent(ASSIGNED_POD_DELETED, k)
                for k in sorted(earlier.occupying - self.occupying)
            ),
            *(
                ClusterEvent(ASSIGNED_POD_TERMINATING, k)
                for k in sorted(self.terminating - earlier.terminating)
            ),
        ]


def worth_requeuing(event: ClusterEvent, rejection: Rejection | None) -> bool:
    """Whether one of the rejecting plugins' hints says the event may help (no plugin known:
    any event may)."""
    if rejection is None or not rejection.plugins:
        return True
    return any(HINTS[p](event, rejection) for p in rejection.plugins if p in HINTS)


@dataclass(frozen=True)
class _Attempt:
    state: ClusterState
    generation: int
    at: datetime
    rejection: Rejection | None


class UnschedulablePool:
    """Plain pods left unschedulable, with the cluster state and the rejection of their last
    attempt."""

    def __init__(self) -> None:
        self._attempts: dict[str, _Attempt] = {}

    def parked(
        self, state: ClusterState, pods: Sequence[Mapping[str, Any]], now: datetime
    ) -> frozenset[str]:
        """The pods (``ns/name``) not to try in this pass: no event since their attempt that
        one of their rejecting plugins says may help."""
        by_key = {_key(p): p for p in pods}
        held = set()
        for key, attempt in self._attempts.items():
            pod = by_key.get(key)
            if pod is None or now - attempt.at >= FLUSH:
                continue
            events = state.events_since(attempt.state)
            if _generation(pod) != attempt.generation:
                events.append(ClusterEvent(POD_UPDATED, key))
            if not any(worth_requeuing(e, attempt.rejection) for e in events):
                held.add(key)
        self._attempts = {k: a for k, a in self._attempts.items() if k in held}
        return frozenset(held)

    def tried(
        self,
        state: ClusterState,
        pods: Sequence[Mapping[str, Any]],
        unschedulable: Iterable[str],
        now: datetime,
        rejections: Mapping[str, Rejection] | None = None,
    ) -> None:
        """Record the plain pods this pass tried and left unschedulable, with why
        (``rejections``; a pod missing there is tried again at any event)."""
        by_key = {_key(p): p for p in pods}
        for key in unschedulable:
            pod = by_key.get(key)
            if pod is not None and not ((pod.get("spec") or {}).get("schedulingGroup")):
                reason = (rejections or {}).get(key)
                self._attempts[key] = _Attempt(state, _generation(pod), now, reason)


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return obj.get("metadata") or {}


def _name(obj: Mapping[str, Any]) -> str:
    return str(_meta(obj).get("name") or "")


def _key(obj: Mapping[str, Any]) -> str:
    return f"{_meta(obj).get('namespace', 'default')}/{_meta(obj).get('name')}"


def _generation(pod: Mapping[str, Any]) -> int:
    value = _meta(pod).get("generation")
    return value if isinstance(value, int) else 0
