"""The Priority plugin (``plugin/pkg/admission/priority``): what it writes and refuses.

On a create, a Pod gets ``spec.priority`` from the PriorityClass its ``spec.priorityClassName``
names; naming none, the cluster's ``globalDefault`` class (whose name it then carries) or, with
no such class, priority 0 and ``preemptionPolicy: PreemptLowerPriority``. ``spec.preemptionPolicy``
comes from the class. A pod that sets a different ``priority`` or ``preemptionPolicy`` itself is
refused, and so is a class name that does not exist (403 ``Forbidden``, the plugin's messages).
The built-in ``system-cluster-critical`` and ``system-node-critical`` classes resolve as on a
cluster even when not stored.

A PodGroup (and a CompositePodGroup) is resolved the same way (kubernetes/api 1.37,
``scheduling/v1beta1`` ``PodGroupSpec``): ``spec.priority`` from its class, the global default
or 0; with the PodGroupPreemptionPolicy gate (the field exists only then) ``spec.preemptionPolicy``
from the class, ``PreemptLowerPriority`` when the class sets none.

On a Pod's update the plugin only keeps what it set: a ``spec.priority`` or
``spec.preemptionPolicy`` the update leaves out is the old pod's (so a PUT of the manifest
that created the pod is no change to them).
"""

from __future__ import annotations

from typing import Any, Final

from workloadbuilder.testing.common import errors
from workloadbuilder.testing.common.resources import SCHEDULING, ResourceType
from workloadbuilder.testing.engine.admission.attributes import CREATE, UPDATE, Attributes
from workloadbuilder.testing.store.store import Store

_GROUP_KINDS = frozenset({"PodGroup", "CompositePodGroup"})
PREEMPT_LOWER: Final = "PreemptLowerPriority"
_MIRROR = "kubernetes.io/config.mirror"
_SYSTEM_CLASSES: Final = {
    "system-node-critical": 2000001000,
    "system-cluster-critical": 2000000000,
}


def _classes(store: Store) -> list[dict[str, Any]]:
    return [s.obj for s in store.select((SCHEDULING, "priorityclasses"), None)]


def _forbidden(rt: ResourceType, obj: dict[str, Any], why: str) -> errors.APIStatusError:
    name = obj["metadata"].get("name", "")
    details: dict[str, Any] = {"name": name}
    if rt.group:
        details["group"] = rt.group
    details["kind"] = rt.plural
    return errors.APIStatusError(
        errors.status_body(
            403, "Forbidden", f'{rt.qualified} "{name}" is forbidden: {why}', details
        )
    )


def _resolve(
    store: Store, rt: ResourceType, obj: dict[str, Any], name: Any
) -> tuple[str, int, str]:
    """The class name to keep, its value and its preemption policy."""
    if isinstance(name, str) and name:
        chosen = next((c for c in _classes(store) if c["metadata"]["name"] == name), None)
        if chosen is None and name in _SYSTEM_CLASSES:
            return name, _SYSTEM_CLASSES[name], PREEMPT_LOWER
        if chosen is None:
            raise _forbidden(rt, obj, f"no PriorityClass with name {name} was found")
    else:
        chosen = next((c for c in _classes(store) if c.get("globalDefault") is True), None)
        if chosen is None:
            return "", 0, PREEMPT_LOWER
    value, policy = chosen.get("value"), chosen.get("preemptionPolicy")
    return (
        str(chosen["metadata"]["name"]),
        value if isinstance(value, int) else 0,
        policy if isinstance(policy, str) and policy else PREEMPT_LOWER,
    )


def _admit_pod(store: Store, rt: ResourceType, obj: dict[str, Any], spec: dict[str, Any]) -> None:
    if _MIRROR in (obj["metadata"].get("annotations") or {}):
        return
    class_name, priority, policy = _resolve(store, rt, obj, spec.get("priorityClassName"))
    for field, computed, what in (
        ("priority", priority, "the integer value of priority"),
        ("preemptionPolicy", policy, "the string value of PreemptionPolicy"),
    ):
        given = spec.get(field)
        if given is not None and given != computed:
            raise _forbidden(
                rt,
                obj,
                f"{what} ({given}) must not be provided in pod spec; priority admission "
                f"controller computed {computed} from the given PriorityClass name",
            )
    if class_name:
        spec["priorityClassName"] = class_name
    spec["priority"] = priority
    spec["preemptionPolicy"] = policy


def _admit_create(
    store: Store, rt: ResourceType, obj: dict[str, Any], gates: frozenset[str]
) -> None:
    """A new object's priority: Pods and groups."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return
    if (rt.group, rt.kind) == ("", "Pod"):
        _admit_pod(store, rt, obj, spec)
        return
    if rt.group != SCHEDULING or rt.kind not in _GROUP_KINDS:
        return
    _, priority, policy = _resolve(store, rt, obj, spec.get("priorityClassName"))
    spec["priority"] = priority
    if "PodGroupPreemptionPolicy" in gates and "preemptionPolicy" not in spec:
        spec["preemptionPolicy"] = policy


def _admit_pod_update(rt: ResourceType, obj: dict[str, Any], old: dict[str, Any]) -> None:
    """A Pod's update: a missing priority or preemption policy is the old pod's."""
    if (rt.group, rt.kind) != ("", "Pod"):
        return
    spec, old_spec = obj.get("spec"), old.get("spec")
    if not isinstance(spec, dict) or not isinstance(old_spec, dict):
        return
    for key in ("priority", "preemptionPolicy"):
        if spec.get(key) is None and old_spec.get(key) is not None:
            spec[key] = old_spec[key]


class Priority:
    """Resolves the priority of new Pods and groups; keeps a Pod's on its updates."""

    name = "Priority"

    def __init__(self, store: Store, gates: frozenset[str]) -> None:
        self.store, self.gates = store, gates

    def admit(self, attrs: Attributes) -> None:
        if attrs.obj is None:
            return
        if attrs.operation == CREATE:
            _admit_create(self.store, attrs.rt, attrs.obj, self.gates)
        elif attrs.operation == UPDATE and attrs.old is not None:
            _admit_pod_update(attrs.rt, attrs.obj, attrs.old)
