"""BuildOptions: how a tree is built and what the controller allows (deny by default)."""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from ._formats import parse_group_version
from .api import client_json
from .api.meta_v1 import OwnerReference
from .field import ErrorList, FieldPath

__all__ = [
    "BuildOptions",
    "DisruptionModeOption",
    "SchedulingPolicyOption",
    "api_group",
    "controller_ref",
    "object_json",
]


class SchedulingPolicyOption(enum.Enum):
    """A scheduling policy a controller supports."""

    BASIC = "Basic"
    GANG = "Gang"


class DisruptionModeOption(enum.Enum):
    """A disruption mode a controller supports."""

    SINGLE = "Single"
    ALL = "All"


OwnerLike = OwnerReference | Mapping[str, Any] | Any
"""What ``BuildOptions(owner=...)`` takes: our ``OwnerReference``, its dict, or an owner
reference of the official client (``V1OwnerReference``) or of lightkube."""


def object_json(obj: object, wanted: str) -> dict[str, Any]:
    """The Kubernetes JSON of ``obj`` (a dict, one of our models, an official-client model or a
    lightkube object); else ``TypeError``: ``wanted``, not the type given."""
    data = None if isinstance(obj, (str, bytes)) else client_json(obj)
    if data is None:
        raise TypeError(f"{wanted}, not {type(obj).__name__}")
    return data


def controller_ref(obj: Any, *, block_owner_deletion: bool = True) -> OwnerReference:
    """A controller owner reference to ``obj``: a dict, one of our models, an official-client
    model or a lightkube object, as read from the API server."""
    data = object_json(
        obj,
        "controller_ref() takes a Kubernetes object (a dict, one of our models, an"
        " official-client or lightkube object)",
    )
    meta = data.get("metadata")
    meta = meta if isinstance(meta, Mapping) else {}
    values = {
        "apiVersion": data.get("apiVersion", data.get("api_version")),
        "kind": data.get("kind"),
        "metadata.name": meta.get("name"),
        "metadata.uid": meta.get("uid"),
    }
    missing = [k for k, v in values.items() if not v]
    if missing:
        raise ValueError(
            f"cannot reference the owner: it has no {', '.join(missing)};"
            " pass the object as read from the API server"
        )
    wrong = [k for k, v in values.items() if not isinstance(v, str)]
    if wrong:
        raise ValueError(f"cannot reference the owner: {', '.join(wrong)} must be strings")
    return OwnerReference(
        api_version=values["apiVersion"],
        kind=values["kind"],
        name=values["metadata.name"],
        uid=values["metadata.uid"],
        controller=True,
        block_owner_deletion=block_owner_deletion,
    )


def api_group(api_version: str) -> str | None:
    """The group of an apiVersion, parsed as apimachinery's ``ParseGroupVersion`` does
    (``None`` where it fails)."""
    parsed = parse_group_version(api_version)
    return None if parsed is None else parsed[0]


def _owner(value: OwnerLike) -> OwnerReference | None:
    if value is None or isinstance(value, OwnerReference):
        return value
    data = object_json(
        value,
        "owner must be an OwnerReference, its dict or a client's owner reference"
        " (see controller_ref())",
    )
    try:
        return OwnerReference.model_validate(data)
    except ValidationError as exc:
        errors = ErrorList.from_pydantic(exc, FieldPath("owner"), model=OwnerReference)
        raise ValueError(f"owner is not an OwnerReference: {errors}") from None


def _options(label: str, kind: type[enum.Enum], values: Any) -> frozenset[Any]:
    if isinstance(values, (str, bytes, enum.Enum)) or not isinstance(values, Iterable):
        raise TypeError(f"{label} takes an iterable of {kind.__name__} values, not {values!r}")
    out = frozenset(values)
    wrong = [v for v in out if not isinstance(v, kind)]
    if wrong:
        raise TypeError(f"{label} takes {kind.__name__} values, got {wrong[0]!r}")
    return out


@dataclass(frozen=True, slots=True, init=False)
class BuildOptions:
    """How to build: the Workload's name and namespace, its owner, what the controller allows.

    Deny by default: an empty allow-list allows nothing. ``check_api_server_rules`` (on by
    default) makes ``validate()`` also report what the API server would reject later;
    ``check_satisfiable_counts`` (on by default) what can never be scheduled although the API
    server accepts it (a gang ``minCount`` above the leaf's ``replicas``, a ``minGroupCount``
    above the composite's ``child_groups``).
    ``owner`` takes our ``OwnerReference``, its dict, or a client's owner reference; the
    allow-lists take any iterable of the options (both are held as given types).
    """

    name: str
    namespace: str
    owner: OwnerReference | None
    allowed_policies: frozenset[SchedulingPolicyOption]
    allowed_disruption_modes: frozenset[DisruptionModeOption]
    disable_declarative_validation: bool
    check_api_server_rules: bool
    check_satisfiable_counts: bool

    def __init__(
        self,
        name: str = "",
        namespace: str = "",
        owner: OwnerLike = None,
        allowed_policies: Iterable[SchedulingPolicyOption] = frozenset(),
        allowed_disruption_modes: Iterable[DisruptionModeOption] = frozenset(),
        disable_declarative_validation: bool = False,
        check_api_server_rules: bool = True,
        check_satisfiable_counts: bool = True,
    ) -> None:
        for label, value, scalar in (
            ("name", name, str),
            ("namespace", namespace, str),
            ("disable_declarative_validation", disable_declarative_validation, bool),
            ("check_api_server_rules", check_api_server_rules, bool),
            ("check_satisfiable_counts", check_satisfiable_counts, bool),
        ):
            if not isinstance(value, scalar):
                raise TypeError(f"{label} must be a {scalar.__name__}, not {type(value).__name__}")
        set_ = object.__setattr__
        set_(self, "name", name)
        set_(self, "namespace", namespace)
        set_(self, "owner", _owner(owner))
        set_(
            self,
            "allowed_policies",
            _options("allowed_policies", SchedulingPolicyOption, allowed_policies),
        )
        set_(
            self,
            "allowed_disruption_modes",
            _options("allowed_disruption_modes", DisruptionModeOption, allowed_disruption_modes),
        )
        set_(self, "disable_declarative_validation", disable_declarative_validation)
        set_(self, "check_api_server_rules", check_api_server_rules)
        set_(self, "check_satisfiable_counts", check_satisfiable_counts)
