"""Discovery documents: ``/api/v1`` and ``/apis/<g>/<v>`` resource lists, and aggregated discovery.

Each resource carries what ``kubectl api-resources`` shows: short names, categories, the
verbs it has, and ``storageVersionHash`` (the first 8 bytes of the SHA-256 of the storage
``group/version/kind``, base64, as apimachinery's ``discovery.StorageVersionHash``).
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from typing import Any

from workloadbuilder.testing.common.custom_types import CustomResourceType
from workloadbuilder.testing.common.resources import Registry, ResourceType

_ALL_VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")
_STATUS_VERBS = ("get", "patch", "update")
_CUSTOM_VERBS = ("delete", "deletecollection", "get", "list", "patch", "create", "update", "watch")
"""The verbs apiextensions' discovery controller lists for a custom resource, in its order."""


@dataclass(frozen=True)
class Facts:
    """What discovery says about one resource beyond its name and kind."""

    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    verbs: tuple[str, ...] = _ALL_VERBS
    storage_version: str = ""


_FACTS: dict[tuple[str, str], Facts] = {
    ("", "pods"): Facts(("po",), ("all",)),
    ("", "namespaces"): Facts(
        ("ns",), verbs=("create", "delete", "get", "list", "patch", "update", "watch")
    ),
    ("", "nodes"): Facts(("no",)),
    ("", "events"): Facts(("ev",)),
    ("batch", "jobs"): Facts(categories=("all",)),
    ("coordination.k8s.io", "leases"): Facts(),
    **{
        (group, plural): Facts(verbs=("create",))
        for group, plural in (
            ("authentication.k8s.io", "selfsubjectreviews"),
            ("authorization.k8s.io", "selfsubjectaccessreviews"),
            ("authorization.k8s.io", "selfsubjectrulesreviews"),
            ("authorization.k8s.io", "subjectaccessreviews"),
        )
    },
    ("scheduling.k8s.io", "priorityclasses"): Facts(("pc",)),
    ("scheduling.k8s.io", "workloads"): Facts(storage_version="v1beta1"),
    ("scheduling.k8s.io", "podgroups"): Facts(storage_version="v1beta1"),
    ("scheduling.k8s.io", "compositepodgroups"): Facts(storage_version="v1alpha3"),
    ("apiextensions.k8s.io", "customresourcedefinitions"): Facts(
        ("crd", "crds"), ("api-extensions",)
    ),
}


def facts(rt: ResourceType) -> Facts:
    """The discovery facts of ``rt`` (defaults for resources this server does not know)."""
    if isinstance(rt, CustomResourceType):
        return Facts(rt.short_names, rt.categories, _CUSTOM_VERBS, rt.storage_version)
    return _FACTS.get((rt.group, rt.plural), Facts())


def _singular(rt: ResourceType) -> str:
    return rt.singular if isinstance(rt, CustomResourceType) else rt.kind.lower()


def storage_version_hash(group: str, version: str, kind: str) -> str:
    """apimachinery's ``StorageVersionHash``."""
    digest = hashlib.sha256(f"{group}/{version}/{kind}".encode()).digest()
    return base64.b64encode(digest[:8]).decode()


def _hash(rt: ResourceType) -> str:
    return storage_version_hash(rt.group, facts(rt).storage_version or rt.version, rt.kind)


def _served(registry: Registry, group: str, version: str) -> list[ResourceType]:
    return [rt for rt in registry.all() if rt.group == group and rt.version == version]


def resource_list(registry: Registry, group: str, version: str) -> dict[str, Any] | None:
    """``GET /api/v1`` or ``/apis/<group>/<version>``, or ``None`` if not served."""
    entries: list[dict[str, Any]] = []
    for rt in _served(registry, group, version):
        info = facts(rt)
        entry: dict[str, Any] = {
            "name": rt.plural,
            "singularName": _singular(rt),
            "namespaced": rt.namespaced,
            "kind": rt.kind,
            "verbs": list(info.verbs),
        }
        if info.short_names:
            entry["shortNames"] = list(info.short_names)
        if info.categories:
            entry["categories"] = list(info.categories)
        entry["storageVersionHash"] = _hash(rt)
        entries.append(entry)
        if rt.status:
            entries.append(
                {
                    "name": f"{rt.plural}/status",
                    "singularName": "",
                    "namespaced": rt.namespaced,
                    "kind": rt.kind,
                    "verbs": list(_STATUS_VERBS),
                }
            )
    if not entries:
        return None
    document: dict[str, Any] = {"kind": "APIResourceList"}
    if group:  # the legacy /api/v1 list has kind and groupVersion only (observed)
        document["apiVersion"] = "v1"
    document["groupVersion"] = f"{group}/{version}" if group else version
    document["resources"] = entries
    return document


def _aggregated_resource(rt: ResourceType) -> dict[str, Any]:
    info = facts(rt)
    entry: dict[str, Any] = {
        "resource": rt.plural,
        "responseKind": {"group": rt.group, "version": rt.version, "kind": rt.kind},
        "scope": "Namespaced" if rt.namespaced else "Cluster",
        "singularResource": _singular(rt),
        "verbs": list(info.verbs),
    }
    if info.short_names:
        entry["shortNames"] = list(info.short_names)
    if info.categories:
        entry["categories"] = list(info.categories)
    if rt.status:
        entry["subresources"] = [
            {
                "subresource": "status",
                "responseKind": {"group": rt.group, "version": rt.version, "kind": rt.kind},
                "verbs": list(_STATUS_VERBS),
            }
        ]
    return entry


def aggregated(registry: Registry, *, core: bool, version: str) -> dict[str, Any]:
    """``GET /api`` or ``/apis`` as an ``APIGroupDiscoveryList`` (``apidiscovery.k8s.io``)."""
    groups: list[str] = []
    for rt in registry.all():
        if bool(rt.group) != core and rt.group not in groups:
            groups.append(rt.group)
    items = []
    for group in groups:
        versions = [
            {
                "version": v,
                "resources": [_aggregated_resource(rt) for rt in _served(registry, group, v)],
                "freshness": "Current",
            }
            for v in registry.group_versions(group)
        ]
        meta: dict[str, Any] = {"name": group} if group else {}
        meta["creationTimestamp"] = None
        items.append({"metadata": meta, "versions": versions})
    return {
        "kind": "APIGroupDiscoveryList",
        "apiVersion": f"apidiscovery.k8s.io/{version}",
        "metadata": {},
        "items": items,
    }
