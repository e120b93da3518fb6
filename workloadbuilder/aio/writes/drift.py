"""What a tree asks of a live Workload or group that the API server does not let change.

Every field of a Workload's templates and of a PodGroup or CompositePodGroup is immutable but
gang ``minCount`` (kubernetes/api ``scheduling/v1beta1`` markers), and templates cannot be
added or removed. ``reconcile`` keeps ``minCount`` in sync; every other difference between
the tree and the live object is reported here, field by field, instead of being dropped.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ...field import FieldPath
from ..errors import ObjectRef

__all__ = ["ImmutableChange", "group_changes", "workload_changes"]

IMMUTABLE = "field is immutable"
_LISTS = ("podGroupTemplates", "compositePodGroupTemplates")
# Compared as they are: the tree sets them or leaves them out, the server adds nothing.
_FIELDS = ("schedulingConstraints", "disruptionMode", "resourceClaims", "priorityClassName")
# Filled in by the server (Priority admission) when the tree leaves them out.
_FILLED = ("priority", "preemptionPolicy")
_GROUP_FIELDS = (
    "workloadRef",
    "parentCompositePodGroupName",
    "schedulingConstraints",
    "resourceClaims",
    "priorityClassName",
)


@dataclass(frozen=True)
class ImmutableChange:
    """A change of the tree that cannot reach a live object: which object, which field, the
    live and the desired value (``None``: not set) and why."""

    def __str__(self) -> str:
        return (
            f"{self.object}: {self.field}: {self.reason}"
            f" (live: {_text(self.live)}, desired: {_text(self.desired)})"
        )

    object: ObjectRef
    field: str
    live: Any
    desired: Any
    reason: str = IMMUTABLE


def _text(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def _unset(value: Any) -> bool:
    return value is None or value == "" or value == [] or value == {}


def _differs(live: Any, desired: Any) -> bool:
    return not (_unset(live) and _unset(desired)) and live != desired


def _without_min_count(policy: Any) -> Any:
    """A leaf's scheduling policy without the one field ``reconcile`` keeps in sync."""
    if not isinstance(policy, Mapping) or not isinstance(policy.get("gang"), Mapping):
        return policy
    gang = {k: v for k, v in policy["gang"].items() if k != "minCount"}
    return {**policy, "gang": gang}


def _field_changes(
    ref: ObjectRef, path: FieldPath, live: Mapping[str, Any], desired: Mapping[str, Any]
) -> Iterator[ImmutableChange]:
    for name in _FIELDS:
        if _differs(live.get(name), desired.get(name)):
            yield ImmutableChange(ref, str(path.child(name)), live.get(name), desired.get(name))
    for name in _FILLED:
        if name in desired and live.get(name) != desired[name]:
            yield ImmutableChange(ref, str(path.child(name)), live.get(name), desired[name])


def _template_changes(
    ref: ObjectRef, path: FieldPath, live: Mapping[str, Any], desired: Mapping[str, Any]
) -> Iterator[ImmutableChange]:
    composite = any(name in desired or name in live for name in _LISTS)
    live_policy, want_policy = live.get("schedulingPolicy"), desired.get("schedulingPolicy")
    if not composite:
        live_policy, want_policy = _without_min_count(live_policy), _without_min_count(want_policy)
    if _differs(live_policy, want_policy):
        both_gangs = all(isinstance(p, Mapping) and "gang" in p for p in (live_policy, want_policy))
        reason = (
            "not applied: a CompositePodGroup's schedulingPolicy is immutable, so reconcile"
            " keeps only gang minCount in sync"
            if composite and both_gangs
            else IMMUTABLE
        )
        yield ImmutableChange(
            ref,
            str(path.child("schedulingPolicy")),
            live.get("schedulingPolicy"),
            desired.get("schedulingPolicy"),
            reason,
        )
    yield from _field_changes(ref, path, live, desired)
    yield from _tree_changes(ref, path, live, desired)


def _tree_changes(
    ref: ObjectRef, path: FieldPath, live: Mapping[str, Any], desired: Mapping[str, Any]
) -> Iterator[ImmutableChange]:
    for list_name in _LISTS:
        live_items = [t for t in live.get(list_name) or () if isinstance(t, Mapping)]
        want_items = [t for t in desired.get(list_name) or () if isinstance(t, Mapping)]
        live_by_name = {t.get("name"): t for t in live_items}
        want_names = {t.get("name") for t in want_items}
        for i, template in enumerate(want_items):
            at = path.child(list_name).index(i)
            found = live_by_name.get(template.get("name"))
            if found is None:
                reason = "a template cannot be added to a live Workload"
                yield ImmutableChange(ref, str(at), None, template.get("name"), reason)
            else:
                yield from _template_changes(ref, at, found, template)
        for i, template in enumerate(live_items):
            if template.get("name") not in want_names:
                reason = "a template cannot be removed from a live Workload"
                at = path.child(list_name).index(i)
                yield ImmutableChange(ref, str(at), template.get("name"), None, reason)


def workload_changes(
    ref: ObjectRef, live: Mapping[str, Any], desired: Mapping[str, Any]
) -> list[ImmutableChange]:
    """The differences between the live Workload and the desired one, but gang ``minCount``
    of leaf templates (``live`` and ``desired`` are Workload documents)."""
    spec = FieldPath("spec")
    live_spec, want_spec = live.get("spec") or {}, desired.get("spec") or {}
    return list(_tree_changes(ref, spec, live_spec, want_spec))


def group_changes(
    ref: ObjectRef, live: Mapping[str, Any], desired: Mapping[str, Any]
) -> list[ImmutableChange]:
    """The differences between a live PodGroup or CompositePodGroup and the desired one, but
    a PodGroup's gang ``minCount``; ``disruptionMode`` left out defaults to ``single``."""
    spec = FieldPath("spec")
    live_spec, want_spec = live.get("spec") or {}, desired.get("spec") or {}
    out: list[ImmutableChange] = []
    live_policy, want_policy = live_spec.get("schedulingPolicy"), want_spec.get("schedulingPolicy")
    if ref.kind == "PodGroup":
        live_policy, want_policy = _without_min_count(live_policy), _without_min_count(want_policy)
    if _differs(live_policy, want_policy):
        out.append(
            ImmutableChange(
                ref,
                str(spec.child("schedulingPolicy")),
                live_spec.get("schedulingPolicy"),
                want_spec.get("schedulingPolicy"),
            )
        )
    for name in _GROUP_FIELDS:
        if _differs(live_spec.get(name), want_spec.get(name)):
            path = str(spec.child(name))
            out.append(ImmutableChange(ref, path, live_spec.get(name), want_spec.get(name)))
    single: dict[str, Any] = {"single": {}}  # the API default
    mode = want_spec.get("disruptionMode") or single
    if (live_spec.get("disruptionMode") or single) != mode:
        path = str(spec.child("disruptionMode"))
        out.append(ImmutableChange(ref, path, live_spec.get("disruptionMode"), mode))
    for name in _FILLED:
        if name in want_spec and live_spec.get(name) != want_spec[name]:
            path = str(spec.child(name))
            out.append(ImmutableChange(ref, path, live_spec.get(name), want_spec[name]))
    return out
