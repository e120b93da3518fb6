"""Which group is meant, where it is served, and the conditions the scheduler writes on it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, cast

from workloadbuilder.api import scheduling_v1alpha3, scheduling_v1beta1

from ._read import COMPOSITE_POD_GROUPS, POD_GROUPS, Resource

__all__ = [
    "DISRUPTION_TARGET",
    "GroupKind",
    "GroupLike",
    "GroupRef",
    "condition",
    "group_ref",
]

GroupKind = Literal["PodGroup", "CompositePodGroup"]
GroupLike = (
    scheduling_v1beta1.PodGroup
    | scheduling_v1alpha3.PodGroup
    | scheduling_v1alpha3.CompositePodGroup
    | Mapping[str, Any]
)
"""A PodGroup or CompositePodGroup: an SDK model or the object's JSON."""

INITIALLY_SCHEDULED: Final[Mapping[GroupKind, str]] = {
    "PodGroup": "PodGroupInitiallyScheduled",
    "CompositePodGroup": "CompositePodGroupInitiallyScheduled",
}
DISRUPTION_TARGET: Final = "DisruptionTarget"
_RESOURCES: Final[Mapping[GroupKind, Resource]] = {
    "PodGroup": POD_GROUPS,
    "CompositePodGroup": COMPOSITE_POD_GROUPS,
}


@dataclass(frozen=True)
class GroupRef:
    """A PodGroup or CompositePodGroup by kind, namespace and name."""

    kind: GroupKind
    namespace: str
    name: str

    def __str__(self) -> str:
        return f"{self.kind} {self.namespace}/{self.name}"

    @property
    def resource(self) -> Resource:
        """Where the kind is served (PodGroup v1beta1, CompositePodGroup v1alpha3)."""
        return _RESOURCES[self.kind]

    @property
    def condition_type(self) -> str:
        """``PodGroupInitiallyScheduled`` or ``CompositePodGroupInitiallyScheduled``."""
        return INITIALLY_SCHEDULED[self.kind]


def group_ref(group: GroupLike) -> GroupRef:
    """The reference of an SDK group model or a group's JSON; ValueError names what is missing."""
    doc = group if isinstance(group, Mapping) else group.to_dict()
    kind = doc.get("kind")
    if kind not in _RESOURCES:
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
    return GroupRef(cast(GroupKind, kind), namespace, name)


def condition(obj: Mapping[str, Any], type_: str) -> Mapping[str, Any] | None:
    """The object's status condition of ``type_``, if written."""
    conditions = (obj.get("status") or {}).get("conditions") or []
    return next((c for c in conditions if isinstance(c, Mapping) and c.get("type") == type_), None)
