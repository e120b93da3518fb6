"""The objects of one namespace that scheduling depends on, read once (``Reads.snapshot``)
and indexed."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import MissingAPI, MissingAPIError, ObjectRef
from ..wire.resources import Resource
from .groups import group_resource

__all__ = ["Snapshot", "name_of", "pod_group_of"]

Obj = Mapping[str, Any]


def name_of(obj: Obj) -> str:
    """``metadata.name`` (empty when absent)."""
    return str((obj.get("metadata") or {}).get("name") or "")


def pod_group_of(pod: Obj) -> str | None:
    """The PodGroup a pod names in ``spec.schedulingGroup.podGroupName``."""
    return ((pod.get("spec") or {}).get("schedulingGroup") or {}).get("podGroupName") or None


def _regarding(event: Obj) -> tuple[str, str]:
    """``(kind, name)`` of the object an event is about (core/v1 or events.k8s.io/v1 shape)."""
    target = event.get("involvedObject") or event.get("regarding") or {}
    return str(target.get("kind") or ""), str(target.get("name") or "")


@dataclass(frozen=True)
class Snapshot:
    """Pods, PodGroups, CompositePodGroups, Workloads and Events of ``namespace``."""

    namespace: str
    pods: tuple[Obj, ...]
    pod_groups: tuple[Obj, ...]
    composites: tuple[Obj, ...]
    workloads: tuple[Obj, ...]
    events: tuple[Obj, ...]
    unserved: frozenset[Resource] = frozenset()
    """The kinds the server answered 404 for (their feature gate is off): read as empty."""
    _members: Mapping[str, list[Obj]] = field(init=False, repr=False)
    _events: Mapping[tuple[str, str], list[Obj]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        members: dict[str, list[Obj]] = defaultdict(list)
        for pod in self.pods:
            group = pod_group_of(pod)
            if group:
                members[group].append(pod)
        events: dict[tuple[str, str], list[Obj]] = defaultdict(list)
        for event in self.events:
            events[_regarding(event)].append(event)
        object.__setattr__(self, "_members", members)
        object.__setattr__(self, "_events", events)

    def missing_api(self, *resources: Resource) -> MissingAPIError | None:
        """The error naming the gates of those of ``resources`` the server does not serve."""
        missing = [
            MissingAPI(r.group, r.version, r.plural, r.gates, r.hint)
            for r in resources
            if r in self.unserved
        ]
        return MissingAPIError(missing) if missing else None

    def workload(self, name: str) -> Obj | None:
        """The Workload called ``name``."""
        return next((w for w in self.workloads if name_of(w) == name), None)

    def stamped_from(self, workload: str) -> list[ObjectRef]:
        """Groups whose ``spec.workloadRef.workloadName`` is ``workload``, parents first."""
        pools = (("CompositePodGroup", self.composites), ("PodGroup", self.pod_groups))
        return [
            ObjectRef(kind, self.namespace, name_of(g), group_resource(kind).api_version)
            for kind, pool in pools
            for g in sorted(pool, key=name_of)
            if ((g.get("spec") or {}).get("workloadRef") or {}).get("workloadName") == workload
        ]

    def group(self, kind: str, name: str) -> Obj | None:
        """The PodGroup or CompositePodGroup called ``name``."""
        pool = self.composites if kind == "CompositePodGroup" else self.pod_groups
        return next((g for g in pool if name_of(g) == name), None)

    def members(self, pod_group: str) -> Sequence[Obj]:
        """Pods whose ``spec.schedulingGroup.podGroupName`` is ``pod_group``, by name."""
        return sorted(self._members.get(pod_group, []), key=name_of)

    def children(self, composite: str) -> list[ObjectRef]:
        """Groups whose ``spec.parentCompositePodGroupName`` is ``composite``, by name."""
        pools = (("CompositePodGroup", self.composites), ("PodGroup", self.pod_groups))
        found = [
            ObjectRef(kind, self.namespace, name_of(g), group_resource(kind).api_version)
            for kind, pool in pools
            for g in pool
            if (g.get("spec") or {}).get("parentCompositePodGroupName") == composite
        ]
        return sorted(found, key=lambda r: (r.name, r.kind))

    def events_of(self, kind: str, name: str) -> Sequence[Obj]:
        """Events about the object, oldest first."""
        return sorted(self._events.get((kind, name), []), key=_event_time)


def _event_time(event: Obj) -> str:
    return str(
        event.get("eventTime")
        or (event.get("series") or {}).get("lastObservedTime")
        or event.get("lastTimestamp")
        or event.get("firstTimestamp")
        or ""
    )
