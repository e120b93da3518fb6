"""Checks shared by every scheduling kind: names, unions, bounds, list maps, immutability."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, Final

from .errors import (
    FieldErr,
    child,
    duplicate,
    forbidden,
    index,
    invalid,
    not_supported,
    required,
    too_many,
)
from .formats import dns_label, dns_subdomain, path_segment_name, qualified_name

Obj = dict[str, Any]
Errs = list[FieldErr]

MAX_TEMPLATES: Final = 8
MAX_DEPTH: Final = 4
MAX_CLAIMS: Final = 4
MAX_TOPOLOGY: Final = 1
MAX_PRIORITY: Final = 1_000_000_000
PREEMPTION_POLICIES: Final = ["Never", "PreemptLowerPriority"]

IMMUTABLE: Final = "field is immutable"
NO_SET: Final = "field cannot be set once created"
NO_UNSET: Final = "field cannot be cleared once set"


def mapping(value: Any) -> Obj:
    """``value`` if it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def items(value: Any) -> list[Any]:
    """``value`` if it is a JSON array, else an empty one."""
    return value if isinstance(value, list) else []


def is_set(value: Any) -> bool:
    """Whether a union member or optional field counts as set (``null`` and ``[]`` do not)."""
    return value is not None and value != []


def union(path: str, obj: Any, members: Sequence[str]) -> Errs:
    """Exactly one of ``members`` must be set in ``obj``."""
    present = [m for m in members if is_set(mapping(obj).get(m))]
    listed = ", ".join(f"`{m}`" for m in members)
    if not present:
        return [invalid(path, "", f"must specify one of: {listed}")]
    if len(present) > 1:
        return [
            invalid(path, "{" + ", ".join(present) + "}", f"must specify exactly one of: {listed}")
        ]
    return []


def _string(path: str, value: Any, is_required: bool, check: Callable[[str], list[str]]) -> Errs:
    if value is None or value == "":
        return [required(path)] if is_required else []
    if not isinstance(value, str):
        return [invalid(path, value, "must be a string")]
    return [invalid(path, value, msg) for msg in check(value)]


def short_name(path: str, value: Any, *, is_required: bool = True) -> Errs:
    """A DNS label (``format=k8s-short-name``)."""
    return _string(path, value, is_required, dns_label)


def long_name(path: str, value: Any, *, is_required: bool = True) -> Errs:
    """A DNS subdomain (``format=k8s-long-name``)."""
    return _string(path, value, is_required, dns_subdomain)


def label_key(path: str, value: Any, *, is_required: bool = True) -> Errs:
    """A label key (``format=k8s-label-key``)."""
    return _string(path, value, is_required, qualified_name)


def segment_name(path: str, value: Any, *, is_required: bool = True) -> Errs:
    """A path segment name (``format=k8s-path-segment-name``)."""
    return _string(path, value, is_required, path_segment_name)


def bounded_int(
    path: str,
    value: Any,
    *,
    minimum: int | None = None,
    maximum: int | None = None,
    is_required: bool = False,
) -> Errs:
    """An integer within bounds; a required zero (or absent) value is Required."""
    if value is None or (is_required and value == 0):
        return [required(path)] if is_required else []
    if isinstance(value, bool) or not isinstance(value, int):
        return [invalid(path, value, "must be an integer")]
    if minimum is not None and value < minimum:
        return [invalid(path, value, f"must be greater than or equal to {minimum}")]
    if maximum is not None and value > maximum:
        return [invalid(path, value, f"must be less than or equal to {maximum}")]
    return []


def list_map(
    path: str, value: Any, maximum: int, each: Callable[[str, Obj], Errs], key: str = "name"
) -> Errs:
    """A list keyed by ``key``: at most ``maximum`` items, unique keys, ``each`` per item."""
    entries = items(value)
    errs: Errs = []
    if len(entries) > maximum:
        errs.append(too_many(path, len(entries), maximum))
    seen: set[Any] = set()
    for i, entry in enumerate(entries):
        item = mapping(entry)
        errs.extend(each(index(path, i), item))
        name = item.get(key)
        if isinstance(name, str) and name:
            if name in seen:
                errs.append(duplicate(index(path, i), name))
            seen.add(name)
    return errs


def gated(value: Any, gate: str, gates: frozenset[str]) -> bool:
    """Whether a field may be validated further: absent, or its gate is on."""
    return not is_set(value) or gate in gates


def topology(path: str, constraints: Any) -> Errs:
    """``schedulingConstraints``: at most one topology constraint with a label-key ``key``."""
    tpath = child(path, "topology")
    entries = items(mapping(constraints).get("topology"))
    errs: Errs = []
    if len(entries) > MAX_TOPOLOGY:
        # MaxItems(...).MarkShortCircuit() in the generated validation: items go unchecked.
        return [too_many(tpath, len(entries), MAX_TOPOLOGY)]
    for i, entry in enumerate(entries):
        errs.extend(label_key(child(index(tpath, i), "key"), mapping(entry).get("key")))
    return errs


def resource_claim(path: str, claim: Obj) -> Errs:
    """One group resource claim: DNS-label name, exactly one DNS-subdomain reference."""
    errs = short_name(child(path, "name"), claim.get("name"))
    errs += union(path, claim, ["resourceClaimName", "resourceClaimTemplateName"])
    for ref in ("resourceClaimName", "resourceClaimTemplateName"):
        errs += long_name(child(path, ref), claim.get(ref), is_required=False)
    return errs


def group_fields(path: str, obj: Obj, gates: frozenset[str], *, composite: bool) -> Errs:
    """Fields common to (composite) pod group templates and runtime groups, at ``path``."""
    errs = scheduling_policy(
        child(path, "schedulingPolicy"), obj.get("schedulingPolicy"), composite
    )
    constraints = obj.get("schedulingConstraints")
    cpath = child(path, "schedulingConstraints")
    if composite or gated(constraints, "TopologyAwareWorkloadScheduling", gates):
        errs += topology(cpath, constraints)
    else:
        errs.append(forbidden(cpath))
    if not composite:
        claims = obj.get("resourceClaims")
        rpath = child(path, "resourceClaims")
        if gated(claims, "DRAWorkloadResourceClaims", gates):
            errs += list_map(rpath, claims, MAX_CLAIMS, resource_claim)
        else:
            errs.append(forbidden(rpath))
    if obj.get("disruptionMode") is not None:
        errs += union(child(path, "disruptionMode"), obj["disruptionMode"], ["single", "all"])
    errs += priority_fields(path, obj, gates)
    return errs


def scheduling_policy(
    path: str, policy: Any, composite: bool, *, threshold_required: bool = True
) -> Errs:
    """Exactly one of ``basic`` / ``gang``; the gang threshold is at least 1 (and required in
    API objects; optional in the building blocks controllers embed)."""
    errs = union(path, policy, ["basic", "gang"])
    gang = mapping(policy).get("gang")
    if gang is not None:
        key = "minGroupCount" if composite else "minCount"
        value = mapping(gang).get(key)
        errs += bounded_int(
            child(child(path, "gang"), key), value, minimum=1, is_required=threshold_required
        )
    return errs


def priority_fields(path: str, obj: Obj, gates: frozenset[str]) -> Errs:
    """``priorityClassName``, ``priority`` and the gated ``preemptionPolicy``."""
    errs = long_name(
        child(path, "priorityClassName"), obj.get("priorityClassName"), is_required=False
    )
    errs += bounded_int(child(path, "priority"), obj.get("priority"), maximum=MAX_PRIORITY)
    policy = obj.get("preemptionPolicy")
    ppath = child(path, "preemptionPolicy")
    if not gated(policy, "PodGroupPreemptionPolicy", gates):
        errs.append(forbidden(ppath))
    elif policy is not None and policy not in PREEMPTION_POLICIES:
        errs.append(not_supported(ppath, policy, PREEMPTION_POLICIES))
    return errs


def immutable(path: str, new: Any, old: Any) -> Errs:
    """Setting, clearing or changing the value is rejected."""
    if new == old:
        return []
    return [invalid(path, None, IMMUTABLE, ratchet=False)]


def set_once(path: str, new: Any, old: Any) -> Errs:
    """The value may be neither set nor cleared after creation (changes inside are allowed)."""
    if new is not None and old is None:
        return [invalid(path, None, NO_SET, ratchet=False)]
    if new is None and old is not None:
        return [invalid(path, None, NO_UNSET, ratchet=False)]
    return []


_FROZEN_FIELDS: Final = (
    "schedulingConstraints",
    "resourceClaims",
    "disruptionMode",
    "priorityClassName",
    "priority",
    "preemptionPolicy",
)


def group_fields_update(path: str, new: Obj, old: Obj, *, freeze_policy: bool = False) -> Errs:
    """Updates of common group fields: only the gang threshold may change."""
    ppath = child(path, "schedulingPolicy")
    new_policy, old_policy = new.get("schedulingPolicy"), old.get("schedulingPolicy")
    if freeze_policy:
        errs = immutable(ppath, new_policy, old_policy)
    else:
        new_p, old_p = mapping(new_policy), mapping(old_policy)
        errs = immutable(child(ppath, "basic"), new_p.get("basic"), old_p.get("basic"))
        errs += set_once(child(ppath, "gang"), new_p.get("gang"), old_p.get("gang"))
    for name in _FROZEN_FIELDS:
        errs += immutable(child(path, name), new.get(name), old.get(name))
    return errs


_PATH_TOKEN: Final = re.compile(r"([^.\[\]]+)|\[(\d+)\]")
_MISSING: Final = object()


def lookup(obj: Any, path: str) -> Any:
    """The value at a field path (``spec.items[0].name``), or a marker when absent."""
    for name, idx in _PATH_TOKEN.findall(path):
        if name:
            obj = obj.get(name, _MISSING) if isinstance(obj, dict) else _MISSING
        else:
            i = int(idx)
            obj = obj[i] if isinstance(obj, list) and i < len(obj) else _MISSING
    return obj


def ratcheted(errs: Errs, obj: Obj, old: Obj | None) -> Errs:
    """Ratcheting: on update, a value that did not change is not re-validated."""
    if old is None:
        return errs
    return [e for e in errs if not (e.ratchet and lookup(obj, e.field) == lookup(old, e.field))]
