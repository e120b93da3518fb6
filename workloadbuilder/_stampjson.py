"""``to_dict()`` of a stamped runtime object, from what the Builder shares between stamps.

A stamp's input is its name and parent, the namespace, the owner's JSON and its template's spec
JSON, the last two shared with every other stamp of the Builder. ``to_dict()`` must return a
fresh deep copy of all of it. Copying the whole input value by value (``deferred_json``) also
copies what the Builder knows the shape of: the metadata is written out and the owner's flat
object copied in one step, so that only the template's spec is copied value by value.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pydantic_core import to_jsonable_python

from .api.scheduling_v1alpha3 import CompositePodGroup
from .api.scheduling_v1beta1 import PodGroup
from .api.sdk import JsonFactory, deferred_json

__all__ = [
    "COMPOSITE_SPEC_FIELDS",
    "POD_GROUP_SPEC_FIELDS",
    "check_names",
    "flat_copy",
    "stamp_json_factory",
    "stamp_spec",
    "templates_by_name",
]

_SCALARS = (str, int, bool, type(None))
_PARENT = "parentCompositePodGroupName"


def flat_copy(value: dict[str, Any] | None) -> Callable[[], dict[str, Any]] | None:
    """``value.copy`` when that is a deep copy ``to_jsonable_python`` would also give (every
    key an exact ``str``, every value an exact ``str``, ``int``, ``bool`` or ``None``)."""
    if type(value) is not dict:
        return None
    for key, item in value.items():
        if type(key) is not str or type(item) not in _SCALARS:
            return None
    return value.copy


# By kind (a PodGroup or not): the defaults a stamp's to_dict() starts with, its generic copy.
_DEFAULTS = {
    True: dict(PodGroup._deferred_defaults),
    False: dict(CompositePodGroup._deferred_defaults),
}
_FALLBACKS: dict[bool, JsonFactory] = {
    True: lambda data: deferred_json(PodGroup, data),
    False: lambda data: deferred_json(CompositePodGroup, data),
}


def stamp_json_factory(
    leaf: bool, spec: dict[str, Any], copy_owner: Callable[[], dict[str, Any]] | None
) -> JsonFactory | None:
    """``to_dict()`` of each object whose input is ``{"metadata": {"name", "namespace"[,
    "ownerReferences": [owner]]}, "spec": spec}``, ``spec`` with ``parentCompositePodGroupName``
    after its ``workloadRef`` or not, as ``Builder._stamped`` makes it, where ``copy_owner`` is
    ``flat_copy(owner)``, of a PodGroup (``leaf``) or a CompositePodGroup: the JSON
    ``deferred_json`` gives, keys in the same order, values of the same types, sharing
    nothing. ``None`` when the owner is not a flat object or ``spec`` has a ``None`` member;
    an input whose name or parent is not an exact ``str`` goes to ``deferred_json``."""
    if copy_owner is None or None in spec.values() or _PARENT in spec:
        return None
    defaults, fallback = _DEFAULTS[leaf], _FALLBACKS[leaf]

    def to_json(data: dict[str, Any]) -> dict[str, Any]:
        metadata, given = data["metadata"], data["spec"]
        name = metadata["name"]
        parent = given.get(_PARENT)
        if type(name) is not str or (parent is not None and type(parent) is not str):
            return fallback(data)
        meta: dict[str, Any] = {"name": name}
        namespace = metadata["namespace"]
        if namespace is not None:
            meta["namespace"] = namespace
        if "ownerReferences" in metadata:
            meta["ownerReferences"] = [copy_owner()]
        copied: dict[str, Any] = to_jsonable_python(spec)
        if parent is not None:
            copied = {"workloadRef": copied["workloadRef"], _PARENT: parent, **copied}
        return {**defaults, "metadata": meta, "spec": copied}

    return to_json


# What a PodGroup / CompositePodGroup copies from its template, as upstream, in the order of
# the runtime object's spec fields (after workloadRef and parentCompositePodGroupName).
COMPOSITE_SPEC_FIELDS = (
    "schedulingPolicy",
    "schedulingConstraints",
    "disruptionMode",
    "priorityClassName",
    "priority",
)
POD_GROUP_SPEC_FIELDS = (
    "schedulingPolicy",
    "schedulingConstraints",
    "resourceClaims",
    "disruptionMode",
    "priorityClassName",
    "priority",
)


def stamp_spec(workload_name: str, template: Mapping[str, Any], leaf: bool) -> dict[str, Any]:
    """The spec the runtime objects of ``template`` (its JSON) share."""
    stamped: dict[str, Any] = {
        "workloadRef": {"workloadName": workload_name, "templateName": template["name"]}
    }
    for key in POD_GROUP_SPEC_FIELDS if leaf else COMPOSITE_SPEC_FIELDS:
        if key in template:
            stamped[key] = template[key]
    return stamped


def templates_by_name(
    spec: dict[str, Any],
) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """The JSON of every PodGroup template and every CompositePodGroup template by name: the
    Workload's own leaves first, then each composite's, composites depth first."""
    every_composite = []
    stack = list(reversed(spec.get("compositePodGroupTemplates", ())))
    while stack:
        template = stack.pop()
        every_composite.append(template)
        stack.extend(reversed(template.get("compositePodGroupTemplates", ())))
    leaves = {t["name"]: t for t in spec.get("podGroupTemplates", ())}
    for template in every_composite:
        leaves.update((t["name"], t) for t in template.get("podGroupTemplates", ()))
    return leaves, {t["name"]: t for t in every_composite}


def check_names(name: object, template_name: object) -> None:
    """``TypeError`` unless a stamp's name and its template's name are both ``str``."""
    if isinstance(name, str) and isinstance(template_name, str):
        return
    for label, value in (("the object's name", name), ("template_name", template_name)):
        if not isinstance(value, str):
            raise TypeError(f"{label} must be a str, not {type(value).__name__}")
