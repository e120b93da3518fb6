"""The resource types a CustomResourceDefinition adds, one per served version."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from workloadbuilder.testing.common.resources import ResourceType

APIEXTENSIONS = "apiextensions.k8s.io"
DEFINITIONS = (APIEXTENSIONS, "customresourcedefinitions")
"""The store key of CustomResourceDefinitions."""


def is_definition(rt: ResourceType) -> bool:
    """Whether ``rt`` is ``apiextensions.k8s.io`` ``customresourcedefinitions``."""
    return (rt.group, rt.plural) == DEFINITIONS


@dataclass(frozen=True, eq=False)
class CustomResourceType(ResourceType):
    """A served version of a custom resource, with what its definition says of it."""

    singular: str = ""
    list_kind: str = ""
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    schema: Mapping[str, Any] = field(default_factory=dict)
    columns: tuple[Mapping[str, Any], ...] = ()
    definition: str = ""
    storage_version: str = ""


_KUBE_VERSION = re.compile(r"^v([1-9][0-9]*)(?:(alpha|beta)([1-9][0-9]*))?$")


def version_priority(name: str) -> tuple[int, int, int, str]:
    """Sort key of Kubernetes version names: GA, then beta, then alpha (newest first), then
    any other name alphabetically, as discovery orders a group's versions."""
    match = _KUBE_VERSION.match(name)
    if match is None:
        return (3, 0, 0, name)
    stage = {None: 0, "beta": 1, "alpha": 2}[match.group(2)]
    return (stage, -int(match.group(1)), -int(match.group(3) or 0), name)


def from_definition(crd: Mapping[str, Any]) -> list[CustomResourceType]:
    """The served versions of an established CRD (its ``spec`` already checked)."""
    spec = crd["spec"]
    names = spec["names"]
    versions = sorted(
        (v for v in spec.get("versions") or [] if v.get("served")),
        key=lambda v: version_priority(str(v.get("name", ""))),
    )
    storage = next((v["name"] for v in spec.get("versions") or [] if v.get("storage")), "")
    return [
        CustomResourceType(
            spec["group"],
            v["name"],
            names["kind"],
            names["plural"],
            namespaced=spec.get("scope") == "Namespaced",
            status="status" in (v.get("subresources") or {}),
            singular=names.get("singular") or names["kind"].lower(),
            list_kind=names.get("listKind") or names["kind"] + "List",
            short_names=tuple(names.get("shortNames") or ()),
            categories=tuple(names.get("categories") or ()),
            schema=(v.get("schema") or {}).get("openAPIV3Schema") or {},
            columns=tuple(v.get("additionalPrinterColumns") or ()),
            definition=crd["metadata"]["name"],
            storage_version=storage,
        )
        for v in versions
    ]
