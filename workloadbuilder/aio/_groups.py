"""Which group is meant, where it is served, and the conditions the scheduler writes on it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from workloadbuilder.api import scheduling_v1alpha3, scheduling_v1beta1

from ._resources import COMPOSITE_POD_GROUPS, POD_GROUPS, Resource
from .errors import ObjectRef

__all__ = [
    "DISRUPTION_TARGET",
    "GroupLike",
    "condition",
    "condition_type",
    "group_ref",
    "group_resource",
]

GroupLike = (
    scheduling_v1beta1.PodGroup
    | scheduling_v1alpha3.PodGroup
    | scheduling_v1alpha3.CompositePodGroup
    | Mapping[str, Any]
)
"""A PodGroup or CompositePodGroup: an SDK model or the object's JSON."""

DISRUPTION_TARGET: Final = "DisruptionTarget"
_SERVED: Final[Mapping[str, tuple[Resource, str]]] = {
    "PodGroup": (POD_GROUPS, "PodGroupInitiallyScheduled"),
    "CompositePodGroup": (COMPOSITE_POD_GROUPS, "CompositePodGroupInitiallyScheduled"),
}


def group_ref(group: GroupLike) -> ObjectRef:
    """The reference of an SDK group model or a group's JSON; ValueError names what is missing."""
    doc = group if isinstance(group, Mapping) else group.to_dict()
    kind = doc.get("kind")
    if kind not in _SERVED:
        raise ValueError(
            f"kind {kind!r} is not a group: pass a PodGroup or CompositePodGroup (an SDK model "
            "or its JSON with kind, metadata.name and metadata.namespace)"
        )
    meta = doc.get("metadata") or {}
    name, namespace = meta.get("name"), meta.get("namespace")
    if not isinstance(name, str) or not name or not isinstance(namespace, str) or not namespace:
        raise ValueError(
            f"the {kind} needs metadata.name and metadata.namespace to be found on the server,"
            f" got name={name!r}, namespace={namespace!r}"
        )
    resource = group_resource(str(kind))
    return ObjectRef(str(kind), namespace, name, resource.api_version)


def group_resource(kind: str) -> Resource:
    """Where a group kind is served (PodGroup v1beta1, CompositePodGroup v1alpha3)."""
    return _SERVED[kind][0]


def condition_type(kind: str) -> str:
    """``PodGroupInitiallyScheduled`` or ``CompositePodGroupInitiallyScheduled``."""
    return _SERVED[kind][1]


def condition(obj: Mapping[str, Any], type_: str) -> Mapping[str, Any] | None:
    """The object's status condition of ``type_``, if written."""
    status = obj.get("status")
    conditions = status.get("conditions") if isinstance(status, Mapping) else None
    if not isinstance(conditions, list):
        return None
    return next((c for c in conditions if isinstance(c, Mapping) and c.get("type") == type_), None)
