"""Rules of the runtime groups: ``PodGroup`` and ``CompositePodGroup``."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Final

from .common import (
    MAX_CLAIMS,
    Errs,
    Obj,
    gated,
    group_fields,
    group_fields_update,
    immutable,
    items,
    label_key,
    long_name,
    mapping,
    short_name,
)
from .errors import (
    child,
    duplicate,
    forbidden,
    index,
    invalid,
    not_supported,
    required,
    too_long,
    too_many,
)
from .formats import condition_reason

_REF = "spec.workloadRef"
_PARENT = "parentCompositePodGroupName"
_CONDITION_STATUSES: Final = ["True", "False", "Unknown"]
_MAX_REASON: Final = 1024
_MAX_MESSAGE: Final = 32768


def _workload_ref(ref: Any) -> Errs:
    ref = mapping(ref)
    errs = long_name(child(_REF, "workloadName"), ref.get("workloadName"))
    return errs + short_name(child(_REF, "templateName"), ref.get("templateName"))


def _disruption_mode(spec: Obj) -> Errs:
    """``disruptionMode`` is defaulted, so a missing one is an error."""
    if spec.get("disruptionMode") is None:
        return [required("spec.disruptionMode")]
    return []


def _conditions(path: str, conditions: Any) -> Errs:
    """The generic condition rules (type, status, reason, message, times, generation):
    hand-written (``metav1validation.ValidateConditions``), so never ratcheted."""
    errs: Errs = []
    seen: set[str] = set()
    for i, entry in enumerate(items(conditions)):
        cond, cpath = mapping(entry), index(path, i)
        ctype = cond.get("type")
        errs += label_key(child(cpath, "type"), ctype)
        if isinstance(ctype, str) and ctype:
            if ctype in seen:
                errs.append(duplicate(child(cpath, "type"), ctype, ratchet=False))
            seen.add(ctype)
        status = cond.get("status")
        if status not in _CONDITION_STATUSES:
            errs.append(not_supported(child(cpath, "status"), status, _CONDITION_STATUSES))
        generation = cond.get("observedGeneration")
        if isinstance(generation, int) and generation < 0:
            detail = "must be greater than or equal to zero"
            errs.append(invalid(child(cpath, "observedGeneration"), generation, detail))
        if not cond.get("lastTransitionTime"):
            errs.append(required(child(cpath, "lastTransitionTime"), "must be set"))
        errs += _reason(child(cpath, "reason"), cond.get("reason"))
        message = cond.get("message")
        if isinstance(message, str) and len(message.encode()) > _MAX_MESSAGE:
            errs.append(too_long(child(cpath, "message"), _MAX_MESSAGE))
    return [replace(e, ratchet=False) for e in errs]


def _reason(path: str, reason: Any) -> Errs:
    if not reason or not isinstance(reason, str):
        return [required(path, "must be set")]
    errs = [invalid(path, reason, msg) for msg in condition_reason(reason)]
    if len(reason.encode()) > _MAX_REASON:
        errs.append(too_long(path, _MAX_REASON))
    return errs


def _claim_statuses(obj: Obj) -> Errs:
    path = "status.resourceClaimStatuses"
    statuses = items(mapping(obj.get("status")).get("resourceClaimStatuses"))
    claims = {mapping(c).get("name") for c in items(mapping(obj.get("spec")).get("resourceClaims"))}
    errs: Errs = []
    if len(statuses) > MAX_CLAIMS:
        errs.append(too_many(path, len(statuses), MAX_CLAIMS))
    for i, entry in enumerate(statuses):
        name = mapping(entry).get("name")
        if name not in claims:
            detail = "must match the name of an entry in `spec.resourceClaims`"
            errs.append(invalid(child(index(path, i), "name"), name, detail, ratchet=False))
    return errs


def validate_pod_group(obj: Obj, gates: frozenset[str]) -> Errs:
    """Rules of a PodGroup (spec and status)."""
    spec = mapping(obj.get("spec"))
    errs = group_fields("spec", spec, gates, composite=False)
    if spec.get("workloadRef") is not None:
        errs += _workload_ref(spec["workloadRef"])
    parent = spec.get(_PARENT)
    if not gated(parent, "CompositePodGroup", gates):
        errs.append(forbidden(child("spec", _PARENT)))
    elif parent:
        errs += long_name(child("spec", _PARENT), parent)
        if spec.get("workloadRef") is None:
            errs.append(required(_REF, f"must be set when {_PARENT} is set"))
    errs += _disruption_mode(spec)
    errs += _claim_statuses(obj)
    return errs + _conditions("status.conditions", mapping(obj.get("status")).get("conditions"))


def validate_composite_pod_group(obj: Obj, gates: frozenset[str]) -> Errs:
    """Rules of a CompositePodGroup (spec and status)."""
    spec = mapping(obj.get("spec"))
    errs = group_fields("spec", spec, gates, composite=True)
    if spec.get("workloadRef") is None:
        errs.append(required(_REF))
    else:
        errs += _workload_ref(spec["workloadRef"])
    errs += long_name(child("spec", _PARENT), spec.get(_PARENT), is_required=False)
    errs += _disruption_mode(spec)
    return errs + _conditions("status.conditions", mapping(obj.get("status")).get("conditions"))


def validate_group_update(obj: Obj, old: Obj, *, composite: bool) -> Errs:
    """Everything in a group's spec is fixed but ``schedulingPolicy.gang.minCount``."""
    spec, old_spec = mapping(obj.get("spec")), mapping(old.get("spec"))
    errs = group_fields_update("spec", spec, old_spec, freeze_policy=composite)
    for name in ("workloadRef", _PARENT):
        errs += immutable(child("spec", name), spec.get(name), old_spec.get(name))
    return errs
