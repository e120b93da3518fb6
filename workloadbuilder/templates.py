"""Compiling one item of a tree into its template: ``PodGroupTemplate`` for a leaf,
``CompositePodGroupTemplate`` for a composite (its children inside), and ``BuildError``, what a
tree that cannot be compiled raises. ``Builder`` (``builder.py``) drives it over a whole tree."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import ValidationError

from ._gorender import go_quote
from .api.scheduling_v1beta1 import CompositePodGroupTemplate, PodGroupTemplate
from .config import ResourceClaim, SchedulingConfig
from .field import ErrorList
from .item import WorkloadItem
from .validation import MAX_TREE_DEPTH, TreeCheckCache, resolves_alone

__all__ = [
    "BuildError",
    "check_depth",
    "composite_template",
    "leaf_template",
    "template_json",
]


class BuildError(ValueError):
    """The tree cannot be compiled, or the Builder was used out of order.

    ``errors`` holds field errors when the cause is a malformed object of the controller's
    (e.g. a Job whose ``spec.scheduling`` does not parse), so a webhook can answer with them.
    """

    def __init__(self, message: str, errors: ErrorList | None = None) -> None:
        super().__init__(message)
        self.errors = errors if errors is not None else ErrorList()


def template_json(item: WorkloadItem, facts: TreeCheckCache) -> dict[str, Any]:
    """The template of ``item`` and its subtree as JSON (raises ``BuildError`` as resolving).

    The JSON of a subtree whose items resolve alone is the items' own: kept with the item,
    shared by the Workloads of every Builder (never changed, as every document's parts)."""
    derived = item.derived()
    known: dict[str, Any] | None = derived.get(_TEMPLATE_JSON)
    if known is not None:
        return known
    fields = _template_fields(item, item.is_composite, facts)
    if item.is_composite:
        _add_children(fields, item, facts, template_json, template_json)
    if resolves_alone(item) and all(_TEMPLATE_JSON in c.derived() for c in item.children):
        derived[_TEMPLATE_JSON] = fields
    return fields


_TEMPLATE_JSON = "template JSON"


def _add_children(
    fields: dict[str, Any],
    item: WorkloadItem,
    facts: TreeCheckCache,
    leaf: Callable[[WorkloadItem, TreeCheckCache], Any],
    composite: Callable[[WorkloadItem, TreeCheckCache], Any],
) -> None:
    """A composite's child templates into ``fields``: every leaf, then every composite."""
    leaves = [leaf(c, facts) for c in item.children if not c.is_composite]
    composites = [composite(c, facts) for c in item.children if c.is_composite]
    if leaves:
        fields["podGroupTemplates"] = leaves
    if composites:
        fields["compositePodGroupTemplates"] = composites


def check_depth(root: WorkloadItem) -> None:
    """Refuse a tree deeper than the API server accepts (it could not be stored anyway).
    Only composites can be too deep, so only they are visited."""
    stack = [(root, 1)]
    while stack:
        item, depth = stack.pop()
        if item.is_composite and depth >= MAX_TREE_DEPTH:
            raise BuildError(
                f"workload item {go_quote(item.name)} is below {MAX_TREE_DEPTH - 1} levels of"
                f" composites: maximum template hierarchy depth is {MAX_TREE_DEPTH}"
            )
        stack.extend((child, depth + 1) for child in item.children if child.children)


def _resolve(item: WorkloadItem, facts: TreeCheckCache) -> SchedulingConfig:
    """``item``'s resolved config, resolved once for the Builder (``validate()`` included)."""
    resolution = facts.resolutions.of(item)
    if resolution.config is None:
        error = resolution.error
        raise BuildError(f"resolving workload item {go_quote(item.name)}: {error}") from error
    return resolution.config


def _template_fields(item: WorkloadItem, composite: bool, facts: TreeCheckCache) -> dict[str, Any]:
    """The JSON fields a leaf and a composite template share, from the resolved config."""
    config = _resolve(item, facts)
    fields: dict[str, Any] = {"name": item.name}
    policy = config.policy
    if policy is not None and policy.gang is not None:
        count = policy.gang.min_count
        if count is None:
            what = (
                "composite gang scheduling requires minGroupCount"
                if composite
                else ("gang scheduling requires minCount")
            )
            raise BuildError(f"{what} to be set after resolution")
        fields["schedulingPolicy"] = {"gang": {"minGroupCount" if composite else "minCount": count}}
    else:
        fields["schedulingPolicy"] = {"basic": {}}
    if config.constraints is not None and config.constraints.topology:
        fields["schedulingConstraints"] = {
            "topology": [{"key": key} for key in config.constraints.topology]
        }
    if config.resource_claims and not composite:
        fields["resourceClaims"] = [_claim_json(c) for c in config.resource_claims]
    mode = config.disruption_mode
    if mode is not None and mode.all is not None:
        fields["disruptionMode"] = {"all": {}}
    elif mode is not None and mode.single is not None:
        fields["disruptionMode"] = {"single": {}}
    if config.priority_class_name:
        fields["priorityClassName"] = config.priority_class_name
    return fields


def _claim_json(claim: ResourceClaim) -> dict[str, Any]:
    out: dict[str, Any] = {"name": claim.name}
    if claim.resource_claim_name is not None:
        out["resourceClaimName"] = claim.resource_claim_name
    if claim.resource_claim_template_name is not None:
        out["resourceClaimTemplateName"] = claim.resource_claim_template_name
    return out


_T = TypeVar("_T", PodGroupTemplate, CompositePodGroupTemplate)


def _parsed(kind: type[_T], item: WorkloadItem, fields: dict[str, Any]) -> _T:
    try:
        return kind.model_validate(fields)
    except ValidationError as exc:
        errors = ErrorList.from_pydantic(exc, model=kind)
        raise BuildError(
            f"workload item {go_quote(item.name)} cannot be compiled (validate() reports it at"
            f" the controller's path): {errors}",
            errors,
        ) from None


def leaf_template(item: WorkloadItem, facts: TreeCheckCache) -> PodGroupTemplate:
    fields = _template_fields(item, False, facts)
    if "resourceClaims" in fields:  # an error shows each claim with its unset sources as null
        claims = _resolve(item, facts).resource_claims
        fields["resourceClaims"] = [
            {
                "name": c.name,
                "resourceClaimName": c.resource_claim_name,
                "resourceClaimTemplateName": c.resource_claim_template_name,
            }
            for c in claims
        ]
    return _parsed(PodGroupTemplate, item, fields)


def composite_template(item: WorkloadItem, facts: TreeCheckCache) -> CompositePodGroupTemplate:
    fields = _template_fields(item, True, facts)
    _add_children(fields, item, facts, leaf_template, composite_template)
    return _parsed(CompositePodGroupTemplate, item, fields)
