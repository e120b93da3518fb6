"""The WorkloadItem tree: a controller's roles, their building blocks and where they live.

An item with children compiles to a CompositePodGroupTemplate, an item without to a
PodGroupTemplate. Each ``*Input`` carries a v1alpha3 building block exactly as the
controller's object holds it, plus ``path_elements``: where that block sits below the item's
``path`` in the controller's API. ``field_paths`` maps a field inside the block (as rendered
below the block, e.g. ``"gang.minCount"``) to the controller's own path, for controllers whose
API does not embed the block verbatim.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar, Literal, TypeVar

from pydantic import ValidationError

from .api.scheduling_v1alpha3 import (
    TopologyConstraint,
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
    config_type_errors,
)
from .field import ErrorList, FieldPath

__all__ = [
    "ConstraintsInput",
    "DisruptionModeInput",
    "PolicyInput",
    "ResourceClaimsInput",
    "WorkloadInput",
    "WorkloadItem",
    "basic",
    "composite",
    "gang",
    "leaf",
]

PathLike = FieldPath | str | None
_T = TypeVar("_T")


def as_path(path: PathLike) -> FieldPath | None:
    """A ``FieldPath`` from a path or its string form (``"spec.replicaSpecs[Worker]"``)."""
    if path is None or isinstance(path, FieldPath):
        return path
    if isinstance(path, str):
        return FieldPath.parse(path)
    raise TypeError(f"path must be a FieldPath, a string or None, not {type(path).__name__}")


def _check_type(what: str, value: Any, *types: type) -> None:
    if value is not None and not isinstance(value, types):
        allowed = " or ".join(t.__name__ for t in types)
        raise TypeError(f"{what} must be a {allowed} or None, not {type(value).__name__}")


@dataclass(frozen=True, slots=True, kw_only=True)
class _BlockInput:
    """Where a building block sits in the controller's API."""

    path_elements: tuple[str, ...] = ()
    field_paths: Mapping[str, FieldPath] = field(default_factory=dict)

    block_types: ClassVar[Mapping[str, type]] = {}
    """The building-block type each ``*_data`` attribute must hold (or ``None``)."""

    def __post_init__(self) -> None:
        if isinstance(self.path_elements, str):
            raise TypeError("path_elements must be a sequence of field names, not a string")
        object.__setattr__(self, "path_elements", tuple(self.path_elements))
        mapped = {str(k): as_path(v) for k, v in dict(self.field_paths).items()}
        object.__setattr__(self, "field_paths", MappingProxyType(mapped))
        for name, kind in self.block_types.items():
            _check_type(f"{type(self).__name__}.{name}", getattr(self, name), kind)


@dataclass(frozen=True, slots=True, kw_only=True)
class PolicyInput(_BlockInput):
    """The scheduling policy block of a leaf (``pod_group_data``) or composite item."""

    pod_group_data: WorkloadPodGroupSchedulingPolicy | None = None
    composite_pod_group_data: WorkloadCompositePodGroupSchedulingPolicy | None = None

    block_types = MappingProxyType(
        {
            "pod_group_data": WorkloadPodGroupSchedulingPolicy,
            "composite_pod_group_data": WorkloadCompositePodGroupSchedulingPolicy,
        }
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class ConstraintsInput(_BlockInput):
    """The scheduling constraints block of a leaf or composite item."""

    pod_group_data: WorkloadPodGroupSchedulingConstraints | None = None
    composite_pod_group_data: WorkloadCompositePodGroupSchedulingConstraints | None = None

    block_types = MappingProxyType(
        {
            "pod_group_data": WorkloadPodGroupSchedulingConstraints,
            "composite_pod_group_data": WorkloadCompositePodGroupSchedulingConstraints,
        }
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class DisruptionModeInput(_BlockInput):
    """The disruption mode block of a leaf or composite item."""

    pod_group_data: WorkloadPodGroupDisruptionMode | None = None
    composite_pod_group_data: WorkloadCompositePodGroupDisruptionMode | None = None

    block_types = MappingProxyType(
        {
            "pod_group_data": WorkloadPodGroupDisruptionMode,
            "composite_pod_group_data": WorkloadCompositePodGroupDisruptionMode,
        }
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class ResourceClaimsInput(_BlockInput):
    """The shared DRA claims of a leaf item (composites have none)."""

    pod_group_data: tuple[WorkloadPodGroupResourceClaim, ...] = ()

    def __post_init__(self) -> None:
        _BlockInput.__post_init__(self)
        claims = tuple(self.pod_group_data or ())
        for claim in claims:
            _check_type("each resource claim", claim, WorkloadPodGroupResourceClaim)
        object.__setattr__(self, "pod_group_data", claims)


@dataclass(frozen=True, slots=True)
class WorkloadInput:
    """The building blocks of one item, as the controller's object holds them."""

    policy: PolicyInput = field(default_factory=PolicyInput)
    constraints: ConstraintsInput = field(default_factory=ConstraintsInput)
    disruption_mode: DisruptionModeInput = field(default_factory=DisruptionModeInput)
    resource_claims: ResourceClaimsInput = field(default_factory=ResourceClaimsInput)

    def __post_init__(self) -> None:
        for name, kind in (
            ("policy", PolicyInput),
            ("constraints", ConstraintsInput),
            ("disruption_mode", DisruptionModeInput),
            ("resource_claims", ResourceClaimsInput),
        ):
            value = getattr(self, name)
            if not isinstance(value, kind):
                raise TypeError(f"WorkloadInput.{name} must be a {kind.__name__}")


@functools.lru_cache(maxsize=4096)
def _below_path(
    path: FieldPath | None, rendered: str | None, elements: tuple[str, ...]
) -> FieldPath | None:
    """``path`` (rendered as ``rendered``) extended by ``elements``; paths are immutable, so
    one object serves every item, and non-str names raise before anything is cached."""
    for element in elements:
        path = FieldPath(element) if path is None else path.child(element)
    return path


@dataclass(frozen=True, slots=True, eq=True)
class WorkloadItem:
    """One role of the controller's workload: a PodGroupTemplate, or a composite of children.

    Immutable. ``path`` is where the role lives in the controller's API (errors are reported
    below it); ``default_config`` is the controller's default, overridden field by field by
    ``input``, then adjusted by ``callbacks`` in order.
    """

    name: str
    path: FieldPath | None = None
    default_config: SchedulingConfig | None = None
    input: WorkloadInput = field(default_factory=WorkloadInput)
    callbacks: tuple[SchedulingConfigFunc, ...] = ()
    children: tuple[WorkloadItem, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise TypeError(f"WorkloadItem name must be a string, not {type(self.name).__name__}")
        object.__setattr__(self, "path", as_path(self.path))
        _check_type("default_config", self.default_config, SchedulingConfig)
        if not isinstance(self.input, WorkloadInput):
            raise TypeError("WorkloadItem input must be a WorkloadInput")
        callbacks = tuple(self.callbacks)
        for cb in callbacks:
            if not callable(cb):
                raise TypeError(f"each callback of {self.name!r} must be callable, got {cb!r}")
        children = tuple(self.children)
        for child in children:
            if not isinstance(child, WorkloadItem):
                raise TypeError(
                    f"each child of workload item {self.name!r} must be a WorkloadItem,"
                    f" not {type(child).__name__}"
                )
        object.__setattr__(self, "callbacks", callbacks)
        object.__setattr__(self, "children", children)

    @property
    def is_composite(self) -> bool:
        """True when the item has children (a CompositePodGroupTemplate)."""
        return bool(self.children)

    def walk(self) -> Iterable[WorkloadItem]:
        """This item and its descendants, depth first, in child order."""
        yield self
        for child in self.children:
            yield from child.walk()

    def block_path(self, block: _BlockInput) -> FieldPath | None:
        """The controller path of one of this item's building blocks."""
        path = self.path
        # The rendering is part of the key: equal paths may render differently.
        return _below_path(path, None if path is None else str(path), block.path_elements)

    def user_config(self) -> SchedulingConfig:
        """The item's building blocks as a partial config (unset blocks stay ``None``)."""
        if self.is_composite:
            return _map_composite_input(self.input)
        return _map_leaf_input(self.input)

    def resolve(self) -> SchedulingConfig:
        """Default config, overridden per field by the item's blocks, then the callbacks.

        Raises whatever a callback raises, and ``TypeError`` when a callback or the default
        config gives something other than a well-typed ``SchedulingConfig``.
        """
        resolved = self.default_config or SchedulingConfig()
        user = self.user_config()
        changes: dict[str, Any] = {}
        if user.policy is not None:
            changes["policy"] = user.policy
        if user.constraints is not None:
            changes["constraints"] = user.constraints
        if user.disruption_mode is not None:
            changes["disruption_mode"] = user.disruption_mode
        if user.resource_claims:
            changes["resource_claims"] = user.resource_claims
        if changes:
            resolved = dataclasses.replace(resolved, **changes)
        for cb in self.callbacks:
            resolved = cb(resolved)
            if not isinstance(resolved, SchedulingConfig):
                raise TypeError(
                    f"a callback returned {type(resolved).__name__};"
                    " it must return the adjusted SchedulingConfig"
                )
        if self.callbacks or self.default_config is not None:
            problems = config_type_errors(resolved)
            if problems:
                raise TypeError(
                    "the callbacks or the default config gave a malformed SchedulingConfig: "
                    + "; ".join(problems)
                )
        return resolved


# Mapping the building blocks into the intermediate form (an empty block counts as unset).


def _map_policy(basic: object, gang: object, count: int | None) -> SchedulingPolicy | None:
    if basic is not None:
        return SchedulingPolicy(basic=BasicSchedulingPolicy())
    if gang is not None:
        return SchedulingPolicy(gang=GangSchedulingPolicy(min_count=count))
    return None


def _map_disruption(single: object, all_: object) -> DisruptionMode | None:
    if single is not None:
        return DisruptionMode(single=SingleDisruptionMode())
    if all_ is not None:
        return DisruptionMode(all=AllDisruptionMode())
    return None


def _map_topology(topology: Sequence[TopologyConstraint] | None) -> SchedulingConstraints | None:
    return SchedulingConstraints(tuple(t.key for t in topology)) if topology else None


def _map_leaf_input(given: WorkloadInput) -> SchedulingConfig:
    policy = given.policy.pod_group_data
    constraints = given.constraints.pod_group_data
    mode = given.disruption_mode.pod_group_data
    return SchedulingConfig(
        policy=None
        if policy is None
        else _map_policy(policy.basic, policy.gang, policy.gang.min_count if policy.gang else None),
        constraints=None if constraints is None else _map_topology(constraints.topology),
        disruption_mode=None if mode is None else _map_disruption(mode.single, mode.all),
        resource_claims=tuple(
            ResourceClaim(c.name, c.resource_claim_name, c.resource_claim_template_name)
            for c in given.resource_claims.pod_group_data
        ),
    )


def _map_composite_input(given: WorkloadInput) -> SchedulingConfig:
    policy = given.policy.composite_pod_group_data
    constraints = given.constraints.composite_pod_group_data
    mode = given.disruption_mode.composite_pod_group_data
    return SchedulingConfig(
        policy=None
        if policy is None
        else _map_policy(
            policy.basic, policy.gang, policy.gang.min_group_count if policy.gang else None
        ),
        constraints=None if constraints is None else _map_topology(constraints.topology),
        disruption_mode=None if mode is None else _map_disruption(mode.single, mode.all),
    )


# Shorthands for trees written by hand.


def basic() -> SchedulingPolicy:
    """The basic policy, for ``leaf(policy=...)`` / ``composite(policy=...)``."""
    return SchedulingPolicy(basic=BasicSchedulingPolicy())


def gang(min_count: int | None = None, *, min_group_count: int | None = None) -> SchedulingPolicy:
    """A gang policy: ``gang(4)`` for a leaf, ``gang(min_group_count=2)`` for a composite.

    The count may be left out when a callback supplies it; any integer is kept as given, so
    that ``validate()`` can report it.
    """
    if min_count is not None and min_group_count is not None:
        raise ValueError(
            "gang() takes min_count (a leaf) or min_group_count (a composite), not both"
        )
    count = min_count if min_group_count is None else min_group_count
    return SchedulingPolicy(gang=GangSchedulingPolicy(min_count=count))


PolicyArg = (
    SchedulingPolicy | WorkloadPodGroupSchedulingPolicy | WorkloadCompositePodGroupSchedulingPolicy
)
DisruptionArg = (
    Literal["single", "all"]
    | WorkloadPodGroupDisruptionMode
    | WorkloadCompositePodGroupDisruptionMode
)
ClaimArg = ResourceClaim | WorkloadPodGroupResourceClaim | Mapping[str, Any]


def _leaf_policy(policy: PolicyArg) -> WorkloadPodGroupSchedulingPolicy:
    if isinstance(policy, WorkloadPodGroupSchedulingPolicy):
        return policy
    if not isinstance(policy, SchedulingPolicy):
        raise TypeError(
            "a leaf's policy is gang(min_count), basic() or a WorkloadPodGroupSchedulingPolicy"
        )
    return WorkloadPodGroupSchedulingPolicy(
        basic=WorkloadPodGroupBasicSchedulingPolicy() if policy.basic else None,
        gang=WorkloadPodGroupGangSchedulingPolicy(min_count=policy.gang.min_count)
        if policy.gang
        else None,
    )


def _composite_policy(policy: PolicyArg) -> WorkloadCompositePodGroupSchedulingPolicy:
    if isinstance(policy, WorkloadCompositePodGroupSchedulingPolicy):
        return policy
    if not isinstance(policy, SchedulingPolicy):
        raise TypeError(
            "a composite's policy is gang(min_group_count=...), basic() or a"
            " WorkloadCompositePodGroupSchedulingPolicy"
        )
    return WorkloadCompositePodGroupSchedulingPolicy(
        basic=WorkloadCompositePodGroupBasicSchedulingPolicy() if policy.basic else None,
        gang=WorkloadCompositePodGroupGangSchedulingPolicy(min_group_count=policy.gang.min_count)
        if policy.gang
        else None,
    )


def _mode_name(mode: object, block: type) -> str:
    if mode not in ("single", "all"):
        raise ValueError(
            f"disruption_mode must be 'single' or 'all' (or a {block.__name__}), got {mode!r}"
        )
    return str(mode)


def _leaf_mode(mode: DisruptionArg) -> WorkloadPodGroupDisruptionMode:
    if isinstance(mode, WorkloadPodGroupDisruptionMode):
        return mode
    name = _mode_name(mode, WorkloadPodGroupDisruptionMode)
    if name == "single":
        return WorkloadPodGroupDisruptionMode(single=WorkloadPodGroupSingleDisruptionMode())
    return WorkloadPodGroupDisruptionMode(all=WorkloadPodGroupAllDisruptionMode())


def _composite_mode(mode: DisruptionArg) -> WorkloadCompositePodGroupDisruptionMode:
    if isinstance(mode, WorkloadCompositePodGroupDisruptionMode):
        return mode
    name = _mode_name(mode, WorkloadCompositePodGroupDisruptionMode)
    if name == "single":
        return WorkloadCompositePodGroupDisruptionMode(
            single=WorkloadCompositePodGroupSingleDisruptionMode()
        )
    return WorkloadCompositePodGroupDisruptionMode(all=WorkloadCompositePodGroupAllDisruptionMode())


def _topology(keys: Iterable[str]) -> list[TopologyConstraint]:
    if isinstance(keys, str):
        raise TypeError(
            "topology is a sequence of label keys, e.g. ('topology.kubernetes.io/zone',)"
        )
    return [TopologyConstraint(key=k) for k in keys]


def _claim(claim: ClaimArg) -> WorkloadPodGroupResourceClaim:
    if isinstance(claim, WorkloadPodGroupResourceClaim):
        return claim
    if isinstance(claim, ResourceClaim):
        return WorkloadPodGroupResourceClaim(
            name=claim.name,
            resource_claim_name=claim.resource_claim_name,
            resource_claim_template_name=claim.resource_claim_template_name,
        )
    if not isinstance(claim, Mapping):
        raise TypeError(
            "each resource claim is a ResourceClaim, a WorkloadPodGroupResourceClaim or its dict,"
            f" not {type(claim).__name__}"
        )
    try:
        return WorkloadPodGroupResourceClaim.model_validate(claim)
    except ValidationError as exc:
        errors = ErrorList.from_pydantic(exc, model=WorkloadPodGroupResourceClaim)
        raise ValueError(
            f"resource claim {dict(claim)!r} is not a WorkloadPodGroupResourceClaim: {errors}"
        ) from None


STANDARD = {
    "policy": ("schedulingPolicy",),
    "constraints": ("schedulingConstraints",),
    "disruption_mode": ("disruptionMode",),
    "resource_claims": ("resourceClaims",),
}


def _defaults(priority_class_name: str) -> SchedulingConfig | None:
    return (
        SchedulingConfig(priority_class_name=priority_class_name) if priority_class_name else None
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
) -> WorkloadItem:
    """A PodGroupTemplate item with its blocks at the standard path elements."""
    keys = _topology(topology)
    return WorkloadItem(
        name,
        path=as_path(path),
        default_config=_defaults(priority_class_name),
        input=WorkloadInput(
            policy=PolicyInput(
                path_elements=STANDARD["policy"],
                pod_group_data=None if policy is None else _leaf_policy(policy),
            ),
            constraints=ConstraintsInput(
                path_elements=STANDARD["constraints"],
                pod_group_data=WorkloadPodGroupSchedulingConstraints(topology=keys)
                if keys
                else None,
            ),
            disruption_mode=DisruptionModeInput(
                path_elements=STANDARD["disruption_mode"],
                pod_group_data=None if disruption_mode is None else _leaf_mode(disruption_mode),
            ),
            resource_claims=ResourceClaimsInput(
                path_elements=STANDARD["resource_claims"],
                pod_group_data=tuple(_claim(c) for c in resource_claims),
            ),
        ),
        callbacks=tuple(callbacks),
    )


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
) -> WorkloadItem:
    """A CompositePodGroupTemplate item over ``children`` (at least one)."""
    children = tuple(children)
    if not children:
        raise ValueError(
            f"composite {name!r} needs at least one child; an item without children is a leaf()"
        )
    keys = _topology(topology)
    return WorkloadItem(
        name,
        path=as_path(path),
        default_config=_defaults(priority_class_name),
        input=WorkloadInput(
            policy=PolicyInput(
                path_elements=STANDARD["policy"],
                composite_pod_group_data=None if policy is None else _composite_policy(policy),
            ),
            constraints=ConstraintsInput(
                path_elements=STANDARD["constraints"],
                composite_pod_group_data=WorkloadCompositePodGroupSchedulingConstraints(
                    topology=keys
                )
                if keys
                else None,
            ),
            disruption_mode=DisruptionModeInput(
                path_elements=STANDARD["disruption_mode"],
                composite_pod_group_data=None
                if disruption_mode is None
                else _composite_mode(disruption_mode),
            ),
        ),
        callbacks=tuple(callbacks),
        children=children,
    )
