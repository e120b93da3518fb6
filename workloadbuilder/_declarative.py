"""Declarative validation of the v1alpha3 building blocks, as the generated upstream code does.

Each function takes the new block, the old one (for an update, else ``None``) and the path
the block sits at in the controller's API. On update, a value equal to the old one is not
validated again ("ratcheting"), so a stored object that predates a rule stays updatable.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ._formats import dns_label_errors, dns_subdomain_errors, label_key_errors
from .api import INT32_MAX
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
from .field import ErrorList, FieldError, FieldPath, child_path

__all__ = [
    "INT32_MAX",
    "count_errors",
    "union_errors",
    "validate_claim",
    "validate_constraints",
    "validate_disruption_mode",
    "validate_policy",
]

MAX_TOPOLOGY = 1


def union_errors(
    path: FieldPath | None, members: dict[str, Any], old: dict[str, Any] | None = None
) -> list[FieldError]:
    """Exactly one of ``members`` (JSON name -> value) is set, with apimachinery's messages.

    On update (``old``: the old block's members), a union whose set of members is unchanged is
    not checked again, as ``validate.Union`` does.
    """
    chosen = [name for name, value in members.items() if value is not None]
    if old is not None and chosen == [name for name, value in old.items() if value is not None]:
        return []
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


def validate_policy(
    new: WorkloadPodGroupSchedulingPolicy | WorkloadCompositePodGroupSchedulingPolicy,
    old: WorkloadPodGroupSchedulingPolicy | WorkloadCompositePodGroupSchedulingPolicy | None,
    path: FieldPath | None,
) -> ErrorList:
    """A leaf or composite scheduling policy block: one of basic/gang, a positive count.

    On update the union ratchets on its membership, ``gang`` as a whole when equal to the old
    one, and the count when equal to the old count.
    """
    errors = ErrorList(
        union_errors(
            path,
            {"basic": new.basic, "gang": new.gang},
            None if old is None else {"basic": old.basic, "gang": old.gang},
        )
    )
    old_gang = None if old is None else old.gang
    if new.gang is None or (old is not None and new.gang == old_gang):
        return errors
    if isinstance(new, WorkloadCompositePodGroupSchedulingPolicy):
        field, attribute = "minGroupCount", "min_group_count"
    else:
        field, attribute = "minCount", "min_count"
    count = getattr(new.gang, attribute)
    old_count = None if old_gang is None else getattr(old_gang, attribute, None)
    if count is not None and (old_gang is None or count != old_count):
        errors.extend(count_errors(child_path(path, "gang", field), count))
    return errors


def validate_topology(
    topology: Sequence[TopologyConstraint],
    old: Sequence[TopologyConstraint] | None,
    path: FieldPath,
) -> list[FieldError]:
    """At most one constraint (else only that is reported); each key a required label key."""
    if old is not None and list(topology) == list(old):
        return []
    if len(topology) > MAX_TOPOLOGY:
        return [FieldError.too_many(path, len(topology), MAX_TOPOLOGY)]
    errors: list[FieldError] = []
    for i, constraint in enumerate(topology):
        key_path = path.index(i).child("key")
        if not constraint.key:
            errors.append(FieldError.required(key_path))
        else:
            errors.extend(format_errors(key_path, constraint.key, label_key_errors))
    return errors


def validate_constraints(
    new: WorkloadPodGroupSchedulingConstraints | WorkloadCompositePodGroupSchedulingConstraints,
    old: WorkloadPodGroupSchedulingConstraints
    | WorkloadCompositePodGroupSchedulingConstraints
    | None,
    path: FieldPath | None,
) -> ErrorList:
    """A scheduling constraints block (an unset and an empty topology are equal on update)."""
    old_topology: Sequence[TopologyConstraint] | None = (
        None if old is None else (old.topology or ())
    )
    return ErrorList(
        validate_topology(new.topology or (), old_topology, child_path(path, "topology"))
    )


def validate_disruption_mode(
    new: WorkloadPodGroupDisruptionMode | WorkloadCompositePodGroupDisruptionMode,
    old: WorkloadPodGroupDisruptionMode | WorkloadCompositePodGroupDisruptionMode | None,
    path: FieldPath | None,
) -> ErrorList:
    """A disruption mode block: one of single/all (ratcheting on membership)."""
    return ErrorList(
        union_errors(
            path,
            {"single": new.single, "all": new.all},
            None if old is None else {"single": old.single, "all": old.all},
        )
    )


_CLAIM_SOURCES = (
    ("resourceClaimName", "resource_claim_name"),
    ("resourceClaimTemplateName", "resource_claim_template_name"),
)


def _sources(claim: WorkloadPodGroupResourceClaim) -> dict[str, Any]:
    return {
        "resourceClaimName": claim.resource_claim_name,
        "resourceClaimTemplateName": claim.resource_claim_template_name,
    }


def validate_claim(
    new: WorkloadPodGroupResourceClaim, old: WorkloadPodGroupResourceClaim | None, path: FieldPath
) -> ErrorList:
    """One shared claim, in the generated order: exactly one source, a DNS-label name, each
    source a DNS subdomain. On update each field (and the union's membership) ratchets."""
    errors = ErrorList(
        union_errors(
            path,
            _sources(new),
            None if old is None else _sources(old),
        )
    )
    if old is None or new.name != old.name:
        if not new.name:
            errors.append(FieldError.required(path.child("name")))
        else:
            errors.extend(format_errors(path.child("name"), new.name, dns_label_errors))
    for json_name, attribute in _CLAIM_SOURCES:
        value = getattr(new, attribute)
        if value is not None and (old is None or value != getattr(old, attribute)):
            errors.extend(format_errors(path.child(json_name), value, dns_subdomain_errors))
    return errors
