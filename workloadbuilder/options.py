"""BuildOptions: how a tree is built and what the controller allows (deny by default)."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from .api.meta_v1 import OwnerReference
from .field import ErrorList, FieldPath

__all__ = ["BuildOptions", "DisruptionModeOption", "SchedulingPolicyOption"]


class SchedulingPolicyOption(enum.Enum):
    """A scheduling policy a controller supports."""

    BASIC = "Basic"
    GANG = "Gang"


class DisruptionModeOption(enum.Enum):
    """A disruption mode a controller supports."""

    SINGLE = "Single"
    ALL = "All"


def _owner(value: OwnerReference | Mapping[str, Any] | None) -> OwnerReference | None:
    if value is None or isinstance(value, OwnerReference):
        return value
    if isinstance(value, Mapping):
        try:
            return OwnerReference.model_validate(value)
        except ValidationError as exc:
            errors = ErrorList.from_pydantic(exc, FieldPath("owner"), model=OwnerReference)
            raise ValueError(f"owner is not an OwnerReference: {errors}") from None
    raise TypeError(
        "owner must be an OwnerReference or its dict (see controller_ref()),"
        f" not {type(value).__name__}"
    )


@dataclass(frozen=True, slots=True)
class BuildOptions:
    """How to build: the Workload's name and namespace, its owner, what the controller allows.

    Deny by default: an empty allow-list allows nothing. ``check_api_server_rules`` (on by
    default) makes ``validate()`` also report what the API server would reject later.
    """

    name: str = ""
    namespace: str = ""
    owner: OwnerReference | None = None
    allowed_policies: frozenset[SchedulingPolicyOption] = frozenset()
    allowed_disruption_modes: frozenset[DisruptionModeOption] = frozenset()
    disable_declarative_validation: bool = False
    check_api_server_rules: bool = True

    def __post_init__(self) -> None:
        for label, value, scalar in (
            ("name", self.name, str),
            ("namespace", self.namespace, str),
            ("disable_declarative_validation", self.disable_declarative_validation, bool),
            ("check_api_server_rules", self.check_api_server_rules, bool),
        ):
            if not isinstance(value, scalar):
                raise TypeError(f"{label} must be a {scalar.__name__}, not {type(value).__name__}")
        object.__setattr__(self, "owner", _owner(self.owner))
        object.__setattr__(self, "allowed_policies", frozenset(self.allowed_policies))
        object.__setattr__(
            self, "allowed_disruption_modes", frozenset(self.allowed_disruption_modes)
        )
        for label, kind, values in (
            ("allowed_policies", SchedulingPolicyOption, self.allowed_policies),
            ("allowed_disruption_modes", DisruptionModeOption, self.allowed_disruption_modes),
        ):
            wrong = [v for v in values if not isinstance(v, kind)]
            if wrong:
                raise TypeError(f"{label} takes {kind.__name__} values, got {wrong[0]!r}")
