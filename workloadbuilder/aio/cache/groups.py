"""Which group is meant, where it is served, and the conditions the scheduler writes on it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from workloadbuilder.api import scheduling_v1alpha3, scheduling_v1beta1

from ...api import K8sModel
from ..errors import ObjectRef
from ..wire.resources import COMPOSITE_POD_GROUPS, POD_GROUPS, PODS, WORKLOADS, Resource

__all__ = [
    "DISRUPTION_TARGET",
    "GroupLike",
    "condition",
    "condition_type",
    "group_ref",
    "group_resource",
    "target_ref",
]

GroupLike = (
    scheduling_v1beta1.PodGroup
    | scheduling_v1alpha3.PodGroup
    | scheduling_v1alpha3.CompositePodGroup
    | ObjectRef
    | Mapping[str, Any]
)
"""A PodGroup or CompositePodGroup: an SDK model, the object's JSON or an ``ObjectRef``."""

DISRUPTION_TARGET: Final = "DisruptionTarget"
_SERVED: Final[Mapping[str, tuple[Resource, str]]] = {
    "PodGroup": (POD_GROUPS, "PodGroupInitiallyScheduled"),
    "CompositePodGroup": (COMPOSITE_POD_GROUPS, "CompositePodGroupInitiallyScheduled"),
}
_TARGETS: Final[Mapping[str, Resource]] = {
    "PodGroup": POD_GROUPS,
    "CompositePodGroup": COMPOSITE_POD_GROUPS,
    "Workload": WORKLOADS,
    "Pod": PODS,
}
ACCEPTED: Final = (
    "a PodGroup or CompositePodGroup (an SDK model, its JSON with kind, metadata.name and"
    " metadata.namespace, or an ObjectRef such as audit() findings and ApplyError carry)"
)


def _document(obj: object) -> Mapping[str, Any]:
    if isinstance(obj, ObjectRef):
        return {"kind": obj.kind, "metadata": {"name": obj.name, "namespace": obj.namespace}}
    if isinstance(obj, Mapping):
        return obj
    if isinstance(obj, K8sModel) or (
        callable(getattr(obj, "to_dict", None)) and hasattr(obj, "metadata")
    ):  # an SDK model, or one of the official client's
        doc = obj.to_dict()  # type: ignore[attr-defined]
        if isinstance(doc, Mapping):
            return doc
    raise TypeError(f"expected {ACCEPTED}, not {type(obj).__name__}")


def target_ref(obj: object, kinds: Mapping[str, Resource] = _TARGETS) -> ObjectRef:
    """The reference of an SDK model, an object's JSON or an ``ObjectRef`` of one of ``kinds``.

    ``TypeError`` for anything else (a bare name, say), ``ValueError`` naming what is missing.
    """
    doc = _document(obj)
    kind = doc.get("kind")
    if kind not in kinds:
        raise ValueError(
            f"kind {kind!r} is not a group: pass {ACCEPTED}"
            + (" (or the reference of a Pod or a Workload)" if "Pod" in kinds else "")
        )
    meta = doc.get("metadata") or {}
    name, namespace = meta.get("name"), meta.get("namespace")
    if not isinstance(name, str) or not name or not isinstance(namespace, str) or not namespace:
        raise ValueError(
            f"the {kind} needs metadata.name and metadata.namespace to be found on the server,"
            f" got name={name!r}, namespace={namespace!r}"
        )
    return ObjectRef(str(kind), namespace, name, kinds[str(kind)].api_version)


def group_ref(group: object) -> ObjectRef:
    """The reference of a group (see :data:`GroupLike`); TypeError/ValueError as ``target_ref``."""
    return target_ref(group, {k: r for k, (r, _) in _SERVED.items()})


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
