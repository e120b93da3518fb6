"""The resolved intermediate form of one WorkloadItem: what a template is compiled from.

Mirrors upstream's ``SchedulingConfig``. Values are immutable: a callback returns an adjusted
copy (``dataclasses.replace``) instead of mutating its argument.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = [
    "AllDisruptionMode",
    "BasicSchedulingPolicy",
    "DisruptionMode",
    "GangSchedulingPolicy",
    "ResourceClaim",
    "SchedulingConfig",
    "SchedulingConfigFunc",
    "SchedulingConstraints",
    "SchedulingPolicy",
    "SingleDisruptionMode",
]


@dataclass(frozen=True, slots=True)
class BasicSchedulingPolicy:
    """Standard scheduling, pod by pod."""


@dataclass(frozen=True, slots=True)
class GangSchedulingPolicy:
    """All-or-nothing scheduling.

    ``min_count`` is the member threshold of a leaf and the child-group threshold
    (``minGroupCount``) of a composite; ``None`` until a callback or the input sets it.
    """

    min_count: int | None = None


@dataclass(frozen=True, slots=True)
class SchedulingPolicy:
    """One of ``basic`` or ``gang``."""

    basic: BasicSchedulingPolicy | None = None
    gang: GangSchedulingPolicy | None = None


@dataclass(frozen=True, slots=True)
class SchedulingConstraints:
    """Topology constraints: node label keys whose single domain must hold the group."""

    topology: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SingleDisruptionMode:
    """Disrupt one pod (or child group) at a time."""


@dataclass(frozen=True, slots=True)
class AllDisruptionMode:
    """Disrupt the group as a whole."""


@dataclass(frozen=True, slots=True)
class DisruptionMode:
    """One of ``single`` or ``all``."""

    single: SingleDisruptionMode | None = None
    all: AllDisruptionMode | None = None


@dataclass(frozen=True, slots=True)
class ResourceClaim:
    """A DRA claim shared by the pods of a group: one of the two references."""

    name: str
    resource_claim_name: str | None = None
    resource_claim_template_name: str | None = None


@dataclass(frozen=True, slots=True)
class SchedulingConfig:
    """The scheduling settings of one item after defaults, user input and callbacks."""

    policy: SchedulingPolicy | None = None
    constraints: SchedulingConstraints | None = None
    disruption_mode: DisruptionMode | None = None
    resource_claims: tuple[ResourceClaim, ...] = field(default=())
    priority_class_name: str = ""


SchedulingConfigFunc = Callable[[SchedulingConfig], SchedulingConfig]
"""A callback: takes the resolved config, returns the adjusted one (e.g. a minCount default)."""
