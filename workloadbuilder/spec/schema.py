"""The schema of a spec file: its models, as pydantic reads them, and its JSON Schema.

The nodes hold the v1alpha3 building blocks exactly as a controller's own API embeds them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Discriminator, Field, StrictInt, Tag

from ..api import scheduling_v1alpha3 as v1alpha3
from ..api.sdk import K8sModel, OptList, OptMap, Str
from ..options import DisruptionModeOption, SchedulingPolicyOption

__all__ = [
    "API_VERSION",
    "KIND",
    "SpecBody",
    "SpecCapabilities",
    "SpecComposite",
    "SpecLeaf",
    "SpecNode",
    "SpecOwner",
    "WorkloadSpecFile",
    "dump_schema",
    "spec_json_schema",
]

API_VERSION = "workloadbuilder.dev/v1alpha1"
KIND = "WorkloadSpec"


class _SpecModel(K8sModel):
    """A part of a spec file; attribute docstrings become the schema's descriptions."""

    model_config = ConfigDict(use_attribute_docstrings=True)


class SpecOwner(_SpecModel):
    """The controller's object that owns the Workload (garbage collection follows it)."""

    api_version: Str
    kind: Str
    name: Str
    uid: Str


class SpecCapabilities(_SpecModel):
    """What the controller supports; deny by default (an empty list allows nothing)."""

    policies: list[SchedulingPolicyOption]
    disruption_modes: list[DisruptionModeOption]


class SpecLeaf(_SpecModel):
    """A pod group (a PodGroupTemplate): no ``children``."""

    name: Str
    """The template's name: a DNS label, unique across the tree."""
    scheduling_policy: v1alpha3.WorkloadPodGroupSchedulingPolicy | None = None
    scheduling_constraints: v1alpha3.WorkloadPodGroupSchedulingConstraints | None = None
    disruption_mode: v1alpha3.WorkloadPodGroupDisruptionMode | None = None
    resource_claims: OptList[v1alpha3.WorkloadPodGroupResourceClaim] = None
    priority_class_name: Str = ""
    replicas: Annotated[StrictInt, Field(ge=0)] | None = None
    """How many pods the controller creates for the group (``explain``, ``simulate``, and
    ``validate``: a gang ``minCount`` above it can never form)."""
    resources: OptMap[Str | StrictInt] = None
    """Each pod's resource requests, e.g. ``{cpu: "2", nvidia.com/gpu: 1}`` (``simulate``)."""


class SpecComposite(_SpecModel):
    """A group of groups (a CompositePodGroupTemplate): one or more ``children``."""

    name: Str
    scheduling_policy: v1alpha3.WorkloadCompositePodGroupSchedulingPolicy | None = None
    scheduling_constraints: v1alpha3.WorkloadCompositePodGroupSchedulingConstraints | None = None
    disruption_mode: v1alpha3.WorkloadCompositePodGroupDisruptionMode | None = None
    priority_class_name: Str = ""
    children: Annotated[list[SpecNode], Field(min_length=1)]
    """The child groups: leaves (no ``children``) or composites."""


def _node_kind(value: Any) -> str:
    has_children = isinstance(value, Mapping) and "children" in value
    if isinstance(value, SpecComposite):
        has_children = True
    return "SpecComposite" if has_children else "SpecLeaf"


SpecNode = Annotated[
    Annotated[SpecLeaf, Tag("SpecLeaf")] | Annotated[SpecComposite, Tag("SpecComposite")],
    Discriminator(_node_kind),
]


class SpecBody(_SpecModel):
    """Naming inputs, capabilities and the tree."""

    namespace: Str
    """The namespace of the Workload and its runtime objects."""
    owner: SpecOwner
    workload_name: Str | None = None
    """Defaults to ``generate_workload_name(owner.name, owner.uid)``, as the Job controller."""
    capabilities: SpecCapabilities
    root: SpecNode | None = None
    """The tree's root group (or give ``roots``)."""
    roots: Annotated[list[SpecNode], Field(min_length=1)] | None = None
    """Independent groups, one template each of the Workload's own list (``podGroupTemplates``
    for leaves: a cluster without the CompositePodGroup gate runs them); instead of ``root``."""


class WorkloadSpecFile(_SpecModel):
    """A ``WorkloadSpec`` document."""

    api_version: Literal["workloadbuilder.dev/v1alpha1"]
    kind: Literal["WorkloadSpec"]
    spec: SpecBody


SpecComposite.model_rebuild()
SpecBody.model_rebuild()
WorkloadSpecFile.model_rebuild()


def spec_json_schema() -> dict[str, Any]:
    """The JSON Schema of a spec file (draft 2020-12), for editors and linters."""
    schema = WorkloadSpecFile.model_json_schema(by_alias=True)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://workloadbuilder.dev/schemas/v1alpha1/workloadspec.json",
        **schema,
    }


def dump_schema() -> str:
    """The spec's JSON Schema as indented JSON."""
    return json.dumps(spec_json_schema(), indent=2, sort_keys=False) + "\n"
