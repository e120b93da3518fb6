"""Declarative validation of the v1alpha3 building blocks, as the generated upstream code does.

Each function takes the new block, the old one (for an update, else ``None``) and the path
the block sits at in the controller's API. On update, a value equal to the old one is not
validated again ("ratcheting"), so a stored object that predates a rule stays updatable.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ._formats import dns_label_errors, dns_subdomain_errors, label_key_errors
from .api.scheduling_v1alpha3 import (
    TopologyConstraint,
    WorkloadCompositePodGroupDisruptionMode,
    WorkloadCompositePodGroupSchedulingConstraints,
    WorkloadCompositePodGroupSchedulingPolicy,
    WorkloadPodGroupDisruptionMode,
    WorkloadPodGroupResourceClaim,
    WorkloadPodGroupSchedulingConstraints,
    WorkloadPodGroupSchedulingPolicy,
)
from .field import ErrorList, FieldError, FieldPath

__all__ = [
    "INT32_MAX",
    "count_errors",
    "union_errors",
    "validate_claim",
    "validate_constraints",
    "validate_disruption_mode",
    "validate_policy",
]

INT32_MAX = 2**31 - 1
MAX_TOPOLOGY = 1


def union_errors(path: FieldPath | None, members: dict[str, Any]) -> list[FieldError]:
    """Exactly one of ``members`` (JSON name -> value) is set, with apimachinery's messages."""
    chosen = [name for name, value in members.items() if value is not None]
    if len(chosen) == 1:
        return []
    listed = ", ".join(f"`{name}`" for name in members)
    if not chosen:
        return [FieldError.invalid(path, "", f"must specify one of: {listed}")]
    value = "{" + ", ".join(chosen) + "}"
    return [FieldError.invalid(path, value, f"must specify exactly one of: {listed}")]


def count_errors(path: FieldPath, value: int) -> list[FieldError]:
    """A group count: at least 1, and representable as the API's int32."""
    if value < 1:
        return [FieldError.invalid(path, value, "must be greater than or equal to 1")]
    if value > INT32_MAX:
        return [FieldError.invalid(path, value, f"must be less than or equal to {INT32_MAX}")]
    return []


def format_errors(
    path: FieldPath, value: str, check: Callable[[str], list[str]]
) -> list[FieldError]:
    """One Invalid error per problem ``check`` finds in ``value``."""
    return [FieldError.invalid(path, value, detail) for detail in check(value)]


def _child(path: FieldPath | None, *names: str) -> FieldPath:
    return FieldPath(*names) if path is None else path.child(*names)


def _unchanged(new: Any, old: Any) -> bool:
    return old is not None and new == old


def validate_policy(
    new: WorkloadPodGroupSchedulingPolicy | WorkloadCompositePodGroupSchedulingPolicy,
    old: Any,
    path: FieldPath | None,
) -> ErrorList:
    """A leaf or composite scheduling policy block: one of basic/gang, a positive count."""
    errors = ErrorList()
    if _unchanged(new, old):
        return errors
    errors.extend(union_errors(path, {"basic": new.basic, "gang": new.gang}))
    if new.gang is None:
        return errors
    old_gang = getattr(old, "gang", None)
    if isinstance(new, WorkloadCompositePodGroupSchedulingPolicy):
        field, count = "minGroupCount", new.gang.min_group_count
        old_count = getattr(old_gang, "min_group_count", None)
    else:
        field, count = "minCount", new.gang.min_count
        old_count = getattr(old_gang, "min_count", None)
    if count is not None and count != old_count:
        errors.extend(count_errors(_child(path, "gang", field), count))
    return errors


def validate_topology(
    topology: Sequence[TopologyConstraint],
    old: Sequence[TopologyConstraint] | None,
    path: FieldPath,
) -> list[FieldError]:
    """At most one constraint; each key a required, valid label key."""
    if _unchanged(list(topology), list(old) if old is not None else None):
        return []
    errors: list[FieldError] = []
    if len(topology) > MAX_TOPOLOGY:
        errors.append(FieldError.too_many(path, len(topology), MAX_TOPOLOGY))
    for i, constraint in enumerate(topology):
        key_path = path.index(i).child("key")
        if not constraint.key:
            errors.append(FieldError.required(key_path))
        else:
            errors.extend(format_errors(key_path, constraint.key, label_key_errors))
    return errors


def validate_constraints(
    new: WorkloadPodGroupSchedulingConstraints | WorkloadCompositePodGroupSchedulingConstraints,
    old: Any,
    path: FieldPath | None,
) -> ErrorList:
    """A scheduling constraints block."""
    old_topology = getattr(old, "topology", None) if old is not None else None
    return ErrorList(
        validate_topology(
            new.topology or [], old_topology or [] if old else None, _child(path, "topology")
        )
    )


def validate_disruption_mode(
    new: WorkloadPodGroupDisruptionMode | WorkloadCompositePodGroupDisruptionMode,
    old: Any,
    path: FieldPath | None,
) -> ErrorList:
    """A disruption mode block: one of single/all."""
    if _unchanged(new, old):
        return ErrorList()
    return ErrorList(union_errors(path, {"single": new.single, "all": new.all}))


def validate_claim(
    new: WorkloadPodGroupResourceClaim, old: WorkloadPodGroupResourceClaim | None, path: FieldPath
) -> ErrorList:
    """One shared claim: a DNS-label name and exactly one DNS-subdomain reference."""
    errors = ErrorList()
    if _unchanged(new, old):
        return errors
    if not new.name:
        errors.append(FieldError.required(path.child("name")))
    else:
        errors.extend(format_errors(path.child("name"), new.name, dns_label_errors))
    errors.extend(
        union_errors(
            path,
            {
                "resourceClaimName": new.resource_claim_name,
                "resourceClaimTemplateName": new.resource_claim_template_name,
            },
        )
    )
    for json_name, value in (
        ("resourceClaimName", new.resource_claim_name),
        ("resourceClaimTemplateName", new.resource_claim_template_name),
    ):
        if value is not None:
            errors.extend(format_errors(path.child(json_name), value, dns_subdomain_errors))
    return errors
