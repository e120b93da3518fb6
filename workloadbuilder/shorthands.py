"""Shorthands for trees written by hand: ``leaf()``, ``composite()``, ``gang()``, ``basic()``.

They put the v1alpha3 building blocks at the standard path elements (``schedulingPolicy``,
``schedulingConstraints``, ``disruptionMode``, ``resourceClaims``), so an error reads
``<path>.schedulingPolicy.gang.minCount: ...``.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, overload

from pydantic import ValidationError

from .api.scheduling_v1alpha3 import (
    TopologyConstraint,
    WorkloadCompositePodGroupDisruptionMode,
    WorkloadCompositePodGroupGangSchedulingPolicy,
    WorkloadCompositePodGroupSchedulingPolicy,
    WorkloadPodGroupDisruptionMode,
    WorkloadPodGroupGangSchedulingPolicy,
    WorkloadPodGroupResourceClaim,
    WorkloadPodGroupSchedulingPolicy,
)
from .config import (
    BasicSchedulingPolicy,
    GangSchedulingPolicy,
    ResourceClaim,
    SchedulingConfig,
    SchedulingConfigFunc,
    SchedulingPolicy,
)
from .field import ErrorList, PathLike, parse_model
from .item import WorkloadItem, as_path, standard_input, standard_item
from .mapconfig import COMPOSITE, LEAF, ItemKind

__all__ = ["basic", "composite", "gang", "leaf"]


def basic() -> SchedulingPolicy:
    """The basic policy, for ``leaf(policy=...)`` / ``composite(policy=...)``."""
    return SchedulingPolicy(basic=BasicSchedulingPolicy())


@overload
def gang() -> SchedulingPolicy: ...
@overload
def gang(min_count: int) -> WorkloadPodGroupSchedulingPolicy: ...
@overload
def gang(*, min_group_count: int) -> WorkloadCompositePodGroupSchedulingPolicy: ...


def gang(
    min_count: int | None = None, *, min_group_count: int | None = None
) -> (
    SchedulingPolicy | WorkloadPodGroupSchedulingPolicy | WorkloadCompositePodGroupSchedulingPolicy
):
    """A gang policy: ``gang(4)`` for a leaf (pods), ``gang(min_group_count=2)`` for a
    composite (child groups), ``gang()`` for either when a callback supplies the count.

    Any integer is kept as given, so that ``validate()`` can report it; giving a leaf's count
    to a composite (or the reverse) is a ``ValueError`` when the item is made.
    """
    if type(min_count) is int and min_group_count is None:
        return _leaf_gang(min_count)
    if type(min_group_count) is int and min_count is None:
        return _composite_gang(min_group_count)
    for label, value in (("min_count", min_count), ("min_group_count", min_group_count)):
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            raise TypeError(f"gang({label}=...) takes an int, not {type(value).__name__}")
    if min_count is not None and min_group_count is not None:
        raise ValueError(
            "gang() takes min_count (a leaf) or min_group_count (a composite), not both"
        )
    if min_count is not None:
        return _leaf_gang(min_count)
    if min_group_count is not None:
        return _composite_gang(min_group_count)
    return SchedulingPolicy(gang=GangSchedulingPolicy())


# Blocks are frozen values: the shorthands give one per value (a bounded number of them), so
# that a tree written again is made without validating its blocks again.
_SHARED_BLOCKS = 1024


@functools.lru_cache(maxsize=_SHARED_BLOCKS, typed=True)
def _leaf_gang(count: int) -> WorkloadPodGroupSchedulingPolicy:
    return WorkloadPodGroupSchedulingPolicy(
        gang=WorkloadPodGroupGangSchedulingPolicy(min_count=count)
    )


@functools.lru_cache(maxsize=_SHARED_BLOCKS, typed=True)
def _composite_gang(count: int) -> WorkloadCompositePodGroupSchedulingPolicy:
    return WorkloadCompositePodGroupSchedulingPolicy(
        gang=WorkloadCompositePodGroupGangSchedulingPolicy(min_group_count=count)
    )


PolicyArg = (
    SchedulingPolicy | WorkloadPodGroupSchedulingPolicy | WorkloadCompositePodGroupSchedulingPolicy
)
DisruptionArg = (
    Literal["single", "all"]
    | WorkloadPodGroupDisruptionMode
    | WorkloadCompositePodGroupDisruptionMode
)
ClaimArg = ResourceClaim | WorkloadPodGroupResourceClaim | Mapping[str, Any]


def _policy_block(name: str, policy: object, kind: ItemKind) -> Any:
    if type(policy) is kind.policy or isinstance(policy, kind.policy):
        return policy
    other = COMPOSITE if kind is LEAF else LEAF
    if isinstance(policy, other.policy):
        counts = "child groups" if other is COMPOSITE else "pods"
        raise ValueError(
            f"{kind.what} {name!r}: {other.shorthand} counts {counts}, which only a"
            f" {other.what} has; a {kind.what}'s gang is {kind.shorthand}"
        )
    if not isinstance(policy, SchedulingPolicy):
        raise TypeError(
            f"a {kind.what}'s policy is {kind.shorthand}, basic() or a {kind.policy.__name__},"
            f" not {type(policy).__name__}"
        )
    if policy.gang is not None:
        return kind.policy(gang=kind.gang(**{kind.count: policy.gang.min_count}))
    return kind.policy(basic=kind.basic() if policy.basic is not None else None)


def _mode_block(mode: object, kind: ItemKind) -> Any:
    if type(mode) is kind.mode:
        return mode
    if type(mode) is str and (mode == "single" or mode == "all"):
        return _named_mode(kind, mode)
    if isinstance(mode, kind.mode):
        return mode
    if mode == "single" or mode == "all":
        return _named_mode(kind, str(mode))
    raise ValueError(
        f"disruption_mode must be 'single' or 'all' (or a {kind.mode.__name__}), got {mode!r}"
    )


@functools.lru_cache(maxsize=4)
def _named_mode(kind: ItemKind, mode: str) -> Any:
    return kind.mode(single=kind.single()) if mode == "single" else kind.mode(all=kind.all())


def _constraints(keys: Iterable[str], kind: ItemKind) -> Any:
    """The constraints block of the label ``keys`` (``None`` for none)."""
    if keys == () and type(keys) is tuple:
        return None
    if type(keys) not in (list, tuple) and (
        isinstance(keys, str) or not isinstance(keys, Iterable)
    ):
        raise TypeError(
            "topology is a sequence of label keys, e.g. ('topology.kubernetes.io/zone',)"
        )
    given = tuple(keys)
    for key in given:
        if not isinstance(key, str):
            raise TypeError(f"each topology key is a label key (str), not {type(key).__name__}")
    if not given:
        return None
    if all(type(key) is str for key in given):
        return _shared_constraints(given, kind)
    return kind.constraints(topology=[TopologyConstraint(key=key) for key in given])


@functools.lru_cache(maxsize=_SHARED_BLOCKS)
def _shared_constraints(keys: tuple[str, ...], kind: ItemKind) -> Any:
    return kind.constraints(topology=[TopologyConstraint(key=key) for key in keys])


def _claim(claim: ClaimArg) -> WorkloadPodGroupResourceClaim:
    if isinstance(claim, ResourceClaim):
        return WorkloadPodGroupResourceClaim(
            name=claim.name,
            resource_claim_name=claim.resource_claim_name,
            resource_claim_template_name=claim.resource_claim_template_name,
        )
    expected = "each resource claim is a ResourceClaim, a WorkloadPodGroupResourceClaim or its dict"
    try:
        return parse_model(WorkloadPodGroupResourceClaim, claim, expected)
    except ValidationError as exc:
        errors = ErrorList.from_pydantic(exc, model=WorkloadPodGroupResourceClaim)
        detail = f"resource claim {dict(claim)!r} is not a WorkloadPodGroupResourceClaim: {errors}"
    raise ValueError(detail)


def _defaults(priority_class_name: str) -> SchedulingConfig | None:
    return (
        SchedulingConfig(priority_class_name=priority_class_name) if priority_class_name else None
    )


def _item(
    kind: ItemKind,
    name: str,
    path: PathLike,
    policy: PolicyArg | None,
    disruption_mode: DisruptionArg | None,
    topology: Iterable[str],
    priority_class_name: str,
    callbacks: Iterable[SchedulingConfigFunc],
    claims: tuple[WorkloadPodGroupResourceClaim, ...] = (),
    children: tuple[WorkloadItem, ...] = (),
    replicas: int | None = None,
    child_groups: int | None = None,
) -> WorkloadItem:
    if not isinstance(name, str):
        raise TypeError(f"a {kind.what}'s name must be a string, not {type(name).__name__}")
    if not isinstance(priority_class_name, str):
        raise TypeError(
            f"priority_class_name must be a string, not {type(priority_class_name).__name__}"
        )
    given = standard_input(
        kind,
        None if policy is None else _policy_block(name, policy, kind),
        _constraints(topology, kind),
        None if disruption_mode is None else _mode_block(disruption_mode, kind),
        claims,
        shared=True,
    )
    return standard_item(
        name,
        as_path(path),
        _defaults(priority_class_name),
        given,
        callbacks if type(callbacks) is tuple else tuple(callbacks),
        children,
        replicas,
        child_groups,
    )


def leaf(
    name: str,
    *,
    path: PathLike = None,
    policy: PolicyArg | None = None,
    disruption_mode: DisruptionArg | None = None,
    topology: Iterable[str] = (),
    resource_claims: Iterable[ClaimArg] = (),
    priority_class_name: str = "",
    callbacks: Iterable[SchedulingConfigFunc] = (),
    replicas: int | None = None,
) -> WorkloadItem:
    """A PodGroupTemplate item with its blocks at the standard path elements; ``replicas`` is
    how many pods the controller creates for it, when it knows."""
    if resource_claims == () and type(resource_claims) is tuple:
        claims: tuple[WorkloadPodGroupResourceClaim, ...] = ()
    elif isinstance(resource_claims, (str, Mapping)) or not isinstance(resource_claims, Iterable):
        raise TypeError("resource_claims is a sequence of claims (ResourceClaim or dicts)")
    else:
        claims = tuple(_claim(c) for c in resource_claims)
    return _item(
        LEAF, name, path, policy, disruption_mode, topology, priority_class_name, callbacks,
        claims, replicas=replicas,
    )  # fmt: skip


def composite(
    name: str,
    children: Sequence[WorkloadItem],
    *,
    path: PathLike = None,
    policy: PolicyArg | None = None,
    disruption_mode: DisruptionArg | None = None,
    topology: Iterable[str] = (),
    priority_class_name: str = "",
    callbacks: Iterable[SchedulingConfigFunc] = (),
    child_groups: int | None = None,
) -> WorkloadItem:
    """A CompositePodGroupTemplate item over ``children`` (at least one); ``child_groups`` is
    how many child groups the controller creates under each of its groups, when it knows."""
    if type(children) not in (list, tuple) and (
        isinstance(children, (str, Mapping)) or not isinstance(children, Iterable)
    ):
        raise TypeError("children is a sequence of WorkloadItems")
    kids = tuple(children)
    if not kids:
        raise ValueError(
            f"composite {name!r} needs at least one child; an item without children is a leaf()"
        )
    return _item(
        COMPOSITE,
        name,
        path,
        policy,
        disruption_mode,
        topology,
        priority_class_name,
        callbacks,
        children=kids,
        child_groups=child_groups,
    )
