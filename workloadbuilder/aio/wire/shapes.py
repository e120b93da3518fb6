"""The JSON shape of what the helpers read from an answer, checked before anything reads it.

A server that answers a field with the wrong JSON type (``"metadata": "pg-a"``, a string
where ``spec.schedulingPolicy`` is an object, a condition that is a number) must give a typed
error naming the object and the field, never an ``AttributeError`` deep in a diagnosis. Each
kind lists the fields the helpers read, with the JSON type the API server writes for them
(from the 1.37 OpenAPI schemas); a field that is ``null`` is read as absent, as the API server
writes a zero ``metav1.Time`` as ``null`` (an item of a list or a map that is ``null`` is not).
Fields not listed are not looked at.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

__all__ = ["json_type", "misshapen"]


class _Leaf:
    """A leaf: the JSON types it may have (``string``, ``integer``, ``number``, ``boolean``)."""

    def __init__(self, *names: str) -> None:
        self.names = names
        found: tuple[type, ...] = ()
        for name in names:
            found += {"string": (str,), "integer": (int,), "number": (int, float)}.get(name, ())
        self.types = found
        self.boolean = "boolean" in names

    def accepts(self, value: Any) -> bool:
        if isinstance(value, bool):
            return self.boolean
        return isinstance(value, self.types)


class _Map:
    """An object with any keys, each value of one shape (labels, resource requests)."""

    def __init__(self, values: Any) -> None:
        self.values = values


S: Final = _Leaf("string")
N: Final = _Leaf("integer")
B: Final = _Leaf("boolean")
QUANTITY: Final = _Leaf("string", "integer", "number")
ANY_OBJECT: Final[dict[str, Any]] = {}

_CONDITIONS = [{"type": S, "status": S, "reason": S, "message": S, "lastTransitionTime": S}]
_OWNER = {"apiVersion": S, "kind": S, "name": S, "uid": S, "controller": B, "blockOwnerDeletion": B}
_METADATA = {
    "name": S,
    "namespace": S,
    "uid": S,
    "resourceVersion": S,
    "generateName": S,
    "creationTimestamp": S,
    "deletionTimestamp": S,
    "labels": _Map(S),
    "annotations": _Map(S),
    "finalizers": [S],
    "ownerReferences": [_OWNER],
}
_CLAIMS = [{"name": S, "resourceClaimName": S, "resourceClaimTemplateName": S}]
_TEMPLATE_FIELDS: dict[str, Any] = {
    "name": S,
    "schedulingPolicy": {"basic": ANY_OBJECT, "gang": {"minCount": N, "minGroupCount": N}},
    "disruptionMode": {"single": ANY_OBJECT, "all": ANY_OBJECT},
    "schedulingConstraints": {"topology": [{"key": S}]},
    "resourceClaims": _CLAIMS,
    "priorityClassName": S,
    "priority": N,
    "preemptionPolicy": S,
}
_LEAF_TEMPLATE = dict(_TEMPLATE_FIELDS)
_COMPOSITE_TEMPLATE: dict[str, Any] = {**_TEMPLATE_FIELDS, "podGroupTemplates": [_LEAF_TEMPLATE]}
_COMPOSITE_TEMPLATE["compositePodGroupTemplates"] = [_COMPOSITE_TEMPLATE]  # nested composites
_GROUP_SPEC = {
    **_TEMPLATE_FIELDS,
    "workloadRef": {"workloadName": S, "templateName": S},
    "parentCompositePodGroupName": S,
}
_GROUP_STATUS = {
    "conditions": _CONDITIONS,
    "resourceClaimStatuses": [{"name": S, "resourceClaimName": S}],
}
_CONTAINER = {"name": S, "resources": {"requests": _Map(QUANTITY), "limits": _Map(QUANTITY)}}
_CONTAINER_STATUS = {"name": S, "state": {"waiting": {"reason": S, "message": S}}}
_REFERENCE = {"kind": S, "name": S, "namespace": S, "uid": S, "apiVersion": S}

_COMMON: Final[dict[str, Any]] = {
    "apiVersion": S,
    "kind": S,
    "metadata": _METADATA,
    "spec": ANY_OBJECT,
    "status": ANY_OBJECT,
}
_KINDS: Final[dict[str, dict[str, Any]]] = {
    "Workload": {
        **_COMMON,
        "spec": {
            "controllerRef": {"apiGroup": S, "kind": S, "name": S},
            "podGroupTemplates": [_LEAF_TEMPLATE],
            "compositePodGroupTemplates": [_COMPOSITE_TEMPLATE],
        },
    },
    "PodGroup": {**_COMMON, "spec": _GROUP_SPEC, "status": _GROUP_STATUS},
    "CompositePodGroup": {**_COMMON, "spec": _GROUP_SPEC, "status": _GROUP_STATUS},
    "Pod": {
        **_COMMON,
        "spec": {
            "schedulingGroup": {"podGroupName": S},
            "containers": [_CONTAINER],
            "initContainers": [_CONTAINER],
            "resourceClaims": _CLAIMS,
            "nodeName": S,
            "schedulerName": S,
            "priorityClassName": S,
            "priority": N,
            "preemptionPolicy": S,
        },
        "status": {
            "phase": S,
            "reason": S,
            "message": S,
            "nominatedNodeName": S,
            "conditions": _CONDITIONS,
            "containerStatuses": [_CONTAINER_STATUS],
            "initContainerStatuses": [_CONTAINER_STATUS],
        },
    },
    "Event": {
        **_COMMON,
        "involvedObject": _REFERENCE,
        "regarding": _REFERENCE,
        "reason": S,
        "message": S,
        "note": S,
        "type": S,
        "count": N,
        "firstTimestamp": S,
        "lastTimestamp": S,
        "eventTime": S,
        "series": {"count": N, "lastObservedTime": S},
    },
}


def misshapen(doc: Mapping[str, Any], kind: str) -> str | None:
    """Where ``doc`` (an object of ``kind``) has a field of the wrong JSON type, in words
    (``spec.schedulingPolicy is a JSON string, not an object``); ``None`` when none has."""
    found = _check(doc, _KINDS.get(kind, _COMMON))
    if found is None:
        return None
    where, value, wanted = found
    path = "".join(reversed(where)).lstrip(".")
    return f"{path} is a JSON {json_type(value)}, not {wanted}"


_Found = tuple[list[str], Any, str]
"""Where (path segments, innermost first), the value found, and what was wanted."""


def _check(value: Any, shape: Any) -> _Found | None:
    """The first field of ``value`` that ``shape`` does not allow (a ``null`` field of an
    object is absent)."""
    if isinstance(shape, _Leaf):
        return None if shape.accepts(value) else ([], value, _wanted(shape))
    if isinstance(shape, dict):
        if not isinstance(value, Mapping):
            return [], value, "an object"
        for key, item in value.items():
            inner = shape.get(key)
            if inner is not None and item is not None and (found := _check(item, inner)):
                found[0].append(f".{key}")
                return found
        return None
    if isinstance(shape, list):
        if not isinstance(value, list):
            return [], value, "a list"
        for i, item in enumerate(value):  # a null item is not absent: it is read
            if (found := _check(item, shape[0])) is not None:
                found[0].append(f"[{i}]")
                return found
        return None
    if not isinstance(value, Mapping):  # a _Map
        return [], value, "an object"
    for key, item in value.items():
        if (found := _check(item, shape.values)) is not None:
            found[0].append(f"[{str(key)[:60]}]")
            return found
    return None


def _wanted(leaf: _Leaf) -> str:
    return " or ".join(f"a{'n' if name[0] == 'i' else ''} {name}" for name in leaf.names)


def json_type(value: Any) -> str:
    """The JSON type of a decoded value: object, list, string, boolean, integer, number, null."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    names = {list: "list", dict: "object", str: "string", float: "number", type(None): "null"}
    return names.get(type(value), "object" if isinstance(value, Mapping) else "value")
