"""Admission on create: what the API server's Priority plugin writes into a PodGroup.

A PodGroup (and a CompositePodGroup) gets ``spec.priority`` from the PriorityClass its
``spec.priorityClassName`` names, from the cluster's ``globalDefault`` class when it names
none, else 0 (the observed default); with the PodGroupPreemptionPolicy gate its
``spec.preemptionPolicy`` comes from the same class (``PreemptLowerPriority`` by default).
A name with no PriorityClass is refused with 403 ``Forbidden``.
"""

from __future__ import annotations

from typing import Any

from workloadbuilder.testing.common import errors
from workloadbuilder.testing.common.resources import SCHEDULING, ResourceType
from workloadbuilder.testing.store.store import Store

_GROUP_KINDS = frozenset({"PodGroup", "CompositePodGroup"})
_PREEMPT = "PreemptLowerPriority"


def _classes(store: Store) -> list[dict[str, Any]]:
    return [s.obj for s in store.select((SCHEDULING, "priorityclasses"), None)]


def admit_priority(
    store: Store, rt: ResourceType, obj: dict[str, Any], gates: frozenset[str]
) -> None:
    """Resolve ``spec.priority`` (and ``spec.preemptionPolicy``) of a new group object."""
    spec = obj.get("spec")
    if rt.group != SCHEDULING or rt.kind not in _GROUP_KINDS or not isinstance(spec, dict):
        return
    name = spec.get("priorityClassName")
    chosen: dict[str, Any] | None = None
    if isinstance(name, str) and name:
        chosen = next((c for c in _classes(store) if c["metadata"]["name"] == name), None)
        if chosen is None:
            raise errors.APIStatusError(
                errors.status_body(
                    403,
                    "Forbidden",
                    f'{rt.qualified} "{obj["metadata"].get("name", "")}" is forbidden: '
                    f"no PriorityClass with name {name} was found",
                    {"name": obj["metadata"].get("name", ""), "group": rt.group, "kind": rt.plural},
                )
            )
    else:
        chosen = next((c for c in _classes(store) if c.get("globalDefault") is True), None)
    value = chosen.get("value") if chosen else 0
    spec["priority"] = value if isinstance(value, int) else 0
    if "PodGroupPreemptionPolicy" in gates and "preemptionPolicy" not in spec:
        policy = chosen.get("preemptionPolicy") if chosen else None
        spec["preemptionPolicy"] = policy if isinstance(policy, str) and policy else _PREEMPT
