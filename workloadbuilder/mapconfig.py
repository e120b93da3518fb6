"""The building blocks of an item mapped to its ``SchedulingConfig``, as upstream's mapconfig.go.

An empty block (no member set) counts as unset. Resolving starts from the controller's default
config, takes each block the item sets in place of the default's, then runs the callbacks in
order. The two kinds of item (``LEAF``, ``COMPOSITE``) name their building-block classes, so
that one generic form serves both.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from .api.scheduling_v1alpha3 import (
    WorkloadCompositePodGroupAllDisruptionMode,
    WorkloadCompositePodGroupBasicSchedulingPolicy,
    WorkloadCompositePodGroupDisruptionMode,
    WorkloadCompositePodGroupGangSchedulingPolicy,
    WorkloadCompositePodGroupSchedulingConstraints,
    WorkloadCompositePodGroupSchedulingPolicy,
    WorkloadCompositePodGroupSingleDisruptionMode,
    WorkloadPodGroupAllDisruptionMode,
    WorkloadPodGroupBasicSchedulingPolicy,
    WorkloadPodGroupDisruptionMode,
    WorkloadPodGroupGangSchedulingPolicy,
    WorkloadPodGroupResourceClaim,
    WorkloadPodGroupSchedulingConstraints,
    WorkloadPodGroupSchedulingPolicy,
    WorkloadPodGroupSingleDisruptionMode,
)
from .config import (
    AllDisruptionMode,
    BasicSchedulingPolicy,
    DisruptionMode,
    GangSchedulingPolicy,
    ResourceClaim,
    SchedulingConfig,
    SchedulingConfigFunc,
    SchedulingConstraints,
    SchedulingPolicy,
    SingleDisruptionMode,
)

__all__ = [
    "COMPOSITE",
    "LEAF",
    "ItemKind",
    "config_type_errors",
    "map_blocks",
    "overridden",
    "resolve_config",
]


@dataclass(frozen=True, slots=True, eq=False)
class ItemKind:
    """A kind of item (leaf or composite) and its building-block classes (two constants,
    each equal to itself alone)."""

    what: str
    data: str  # the *Input attribute holding this kind's blocks
    policy: type[WorkloadPodGroupSchedulingPolicy] | type[WorkloadCompositePodGroupSchedulingPolicy]
    basic: type[BaseModel]
    gang: type[BaseModel]
    count: str  # the gang block's count attribute
    shorthand: str  # how gang() is called for this kind
    mode: type[WorkloadPodGroupDisruptionMode] | type[WorkloadCompositePodGroupDisruptionMode]
    single: type[BaseModel]
    all: type[BaseModel]
    constraints: (
        type[WorkloadPodGroupSchedulingConstraints]
        | type[WorkloadCompositePodGroupSchedulingConstraints]
    )


LEAF = ItemKind(
    "leaf",
    "pod_group_data",
    WorkloadPodGroupSchedulingPolicy,
    WorkloadPodGroupBasicSchedulingPolicy,
    WorkloadPodGroupGangSchedulingPolicy,
    "min_count",
    "gang(min_count)",
    WorkloadPodGroupDisruptionMode,
    WorkloadPodGroupSingleDisruptionMode,
    WorkloadPodGroupAllDisruptionMode,
    WorkloadPodGroupSchedulingConstraints,
)
COMPOSITE = ItemKind(
    "composite",
    "composite_pod_group_data",
    WorkloadCompositePodGroupSchedulingPolicy,
    WorkloadCompositePodGroupBasicSchedulingPolicy,
    WorkloadCompositePodGroupGangSchedulingPolicy,
    "min_group_count",
    "gang(min_group_count=...)",
    WorkloadCompositePodGroupDisruptionMode,
    WorkloadCompositePodGroupSingleDisruptionMode,
    WorkloadCompositePodGroupAllDisruptionMode,
    WorkloadCompositePodGroupSchedulingConstraints,
)


# The blocks without fields map to one shared (immutable) value each.
_BASIC = SchedulingPolicy(basic=BasicSchedulingPolicy())
_SINGLE = DisruptionMode(single=SingleDisruptionMode())
_ALL = DisruptionMode(all=AllDisruptionMode())


_GANGS: dict[int, SchedulingPolicy] = {}

# SchedulingConfig's slots, set as its (frozen) __init__ sets them but without a call of
# object.__setattr__ per field: the same object, made in about half the time.
_NEW_CONFIG = object.__new__
_SET_CONFIG = tuple(
    vars(SchedulingConfig)[f.name].__set__ for f in dataclasses.fields(SchedulingConfig)
)


def _config(
    policy: SchedulingPolicy | None,
    constraints: SchedulingConstraints | None,
    mode: DisruptionMode | None,
    claims: tuple[ResourceClaim, ...],
    priority_class_name: str,
) -> SchedulingConfig:
    """``SchedulingConfig(policy, constraints, mode, claims, priority_class_name)``."""
    config: SchedulingConfig = _NEW_CONFIG(SchedulingConfig)
    set_policy, set_constraints, set_mode, set_claims, set_priority = _SET_CONFIG
    set_policy(config, policy)
    set_constraints(config, constraints)
    set_mode(config, mode)
    set_claims(config, claims)
    set_priority(config, priority_class_name)
    return config


def _gang_policy(count: int | None) -> SchedulingPolicy:
    """The gang policy of ``count``, one shared value per small int count."""
    if type(count) is not int or not 0 < count <= 1024:
        return SchedulingPolicy(None, GangSchedulingPolicy(count))
    policy = _GANGS.get(count)
    if policy is None:
        policy = _GANGS[count] = SchedulingPolicy(None, GangSchedulingPolicy(count))
    return policy


def map_blocks(
    kind: ItemKind,
    policy: WorkloadPodGroupSchedulingPolicy | WorkloadCompositePodGroupSchedulingPolicy | None,
    constraints: WorkloadPodGroupSchedulingConstraints
    | WorkloadCompositePodGroupSchedulingConstraints
    | None,
    mode: WorkloadPodGroupDisruptionMode | WorkloadCompositePodGroupDisruptionMode | None,
    claims: Sequence[WorkloadPodGroupResourceClaim] = (),
) -> SchedulingConfig:
    """One item's blocks of ``kind`` as a partial config (unset blocks stay ``None``)."""
    mapped_policy = None
    if policy is not None:
        if policy.basic is not None:
            mapped_policy = _BASIC
        elif policy.gang is not None:
            mapped_policy = _gang_policy(getattr(policy.gang, kind.count))
    mapped_mode = None
    if mode is not None:
        if mode.single is not None:
            mapped_mode = _SINGLE
        elif mode.all is not None:
            mapped_mode = _ALL
    topology = None if constraints is None else constraints.topology
    return _config(
        mapped_policy,
        SchedulingConstraints(tuple(t.key for t in topology)) if topology else None,
        mapped_mode,
        tuple(
            ResourceClaim(c.name, c.resource_claim_name, c.resource_claim_template_name)
            for c in claims
        )
        if claims
        else (),
        "",
    )


def overridden(default: SchedulingConfig | None, user: SchedulingConfig) -> SchedulingConfig:
    """``default`` with each block ``user`` sets (a partial config of ``map_blocks()``)."""
    if not default:
        if (
            type(user) is SchedulingConfig
            and type(user.resource_claims) is tuple
            and type(user.priority_class_name) is str
            and not user.priority_class_name
        ):  # as map_blocks() gives it: its unset blocks are the empty config's already
            return user
        default = SchedulingConfig()
    changes: dict[str, Any] = {}
    if user.policy is not None:
        changes["policy"] = user.policy
    if user.constraints is not None:
        changes["constraints"] = user.constraints
    if user.disruption_mode is not None:
        changes["disruption_mode"] = user.disruption_mode
    if user.resource_claims:
        changes["resource_claims"] = user.resource_claims
    if not changes:
        return default
    if type(default) is not SchedulingConfig:  # a subclass keeps its class and fields
        return dataclasses.replace(default, **changes)
    return _config(
        changes.get("policy", default.policy),
        changes.get("constraints", default.constraints),
        changes.get("disruption_mode", default.disruption_mode),
        changes.get("resource_claims", default.resource_claims),
        default.priority_class_name,
    )


def resolve_config(
    default: SchedulingConfig | None,
    user: SchedulingConfig,
    callbacks: tuple[SchedulingConfigFunc, ...] = (),
) -> SchedulingConfig:
    """``default`` overridden per field by ``user``, then adjusted by each callback in order.

    Raises whatever a callback raises, and ``TypeError`` when a callback or the default config
    gives something other than a well-typed ``SchedulingConfig``.
    """
    resolved = overridden(default, user)
    for cb in callbacks:
        resolved = cb(resolved)
        if not isinstance(resolved, SchedulingConfig):
            raise TypeError(
                f"a callback returned {type(resolved).__name__};"
                " it must return the adjusted SchedulingConfig"
            )
    if callbacks or default is not None:
        problems = config_type_errors(resolved)
        if problems:
            raise TypeError(
                "the callbacks or the default config gave a malformed SchedulingConfig: "
                + "; ".join(problems)
            )
    return resolved


def _kind(value: object) -> str:
    return type(value).__name__


def config_type_errors(config: SchedulingConfig) -> list[str]:
    """What in ``config`` has the wrong Python type (a callback's or a default's mistake)."""
    problems: list[str] = []
    policy = config.policy
    if policy is not None:
        if not isinstance(policy, SchedulingPolicy):
            problems.append(f"policy is a {_kind(policy)}, not a SchedulingPolicy")
        elif policy.gang is not None:
            count = policy.gang.min_count
            if count is not None and (not isinstance(count, int) or isinstance(count, bool)):
                problems.append(f"policy.gang.min_count is a {_kind(count)}, not an int")
    constraints = config.constraints
    if constraints is not None:
        if not isinstance(constraints, SchedulingConstraints):
            problems.append(f"constraints is a {_kind(constraints)}, not SchedulingConstraints")
        elif not all(isinstance(key, str) for key in constraints.topology):
            problems.append("constraints.topology must hold label keys (str)")
    mode = config.disruption_mode
    if mode is not None and not isinstance(mode, DisruptionMode):
        problems.append(f"disruption_mode is a {_kind(mode)}, not a DisruptionMode")
    if not all(isinstance(claim, ResourceClaim) for claim in config.resource_claims):
        problems.append("resource_claims must hold ResourceClaim values")
    if not isinstance(config.priority_class_name, str):
        problems.append(f"priority_class_name is a {_kind(config.priority_class_name)}, not a str")
    return problems
