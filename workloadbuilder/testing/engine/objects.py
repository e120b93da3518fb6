"""Pure helpers on stored objects: new objects and names, the fields the server keeps on a
write, generations, key order, and what a delete answers."""

from __future__ import annotations

import random
import uuid
from datetime import UTC, datetime
from typing import Any

from workloadbuilder.testing.apply import managed
from workloadbuilder.testing.apply.merge import copy_json
from workloadbuilder.testing.common import errors
from workloadbuilder.testing.common.resources import ResourceType
from workloadbuilder.testing.store.store import GroupResource

NAMESPACES: GroupResource = ("", "namespaces")
PODS: GroupResource = ("", "pods")
POD_GROUPS: GroupResource = ("scheduling.k8s.io", "podgroups")

_NAME_CHARS = "bcdfghjklmnpqrstvwxz2456789"
_MAX_GENERATED_PREFIX = 58  # 63 minus the 5 random characters (apiserver's names.go)


def now() -> str:
    """The current time as the API server writes it (RFC 3339, seconds, ``Z``)."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def resource_of(rt: ResourceType) -> GroupResource:
    """The group/resource ``rt``'s objects are stored under (shared by every version)."""
    return (rt.group, rt.plural)


def ownership_scope(rt: ResourceType, subresource: str) -> str:
    """Which fields a write to ``subresource`` of ``rt`` may own (``managed.tracked_view``)."""
    if subresource == "status":
        return "status"
    return "main" if rt.status else "all"


def _spec(obj: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if k not in ("metadata", "status", "apiVersion", "kind")}


_METADATA_ORDER = (
    "name",
    "generateName",
    "namespace",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    "managedFields",
)
_TOP_ORDER = ("kind", "apiVersion", "metadata", "spec")


def in_server_order(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` with its keys in the order the API server writes them."""
    meta = obj["metadata"]
    ordered_meta = {k: meta[k] for k in _METADATA_ORDER if k in meta}
    ordered_meta.update((k, v) for k, v in meta.items() if k not in ordered_meta)
    out = {k: obj[k] for k in _TOP_ORDER if k in obj}
    out["metadata"] = ordered_meta
    out.update((k, v) for k, v in obj.items() if k not in out)
    return out


def is_namespace(rt: ResourceType) -> bool:
    """Whether ``rt`` is the core Namespace kind."""
    return (rt.group, rt.kind) == ("", "Namespace")


def finalizers_pending(obj: dict[str, Any]) -> bool:
    """Finalizers hold the object: its own, or a Namespace's ``spec.finalizers``."""
    if obj["metadata"].get("finalizers"):
        return True
    spec = obj.get("spec")
    return (
        obj.get("kind") == "Namespace" and isinstance(spec, dict) and bool(spec.get("finalizers"))
    )


def pod_group_of(pod: dict[str, Any]) -> Any:
    """The ``spec.schedulingGroup.podGroupName`` a pod names (``None`` when it names none)."""
    spec = pod.get("spec")
    group = spec.get("schedulingGroup") if isinstance(spec, dict) else None
    return group.get("podGroupName") if isinstance(group, dict) else None


def owner_uids(obj: dict[str, Any]) -> list[Any]:
    """The uids ``obj``'s ownerReferences name."""
    refs = obj["metadata"].get("ownerReferences") or []
    return [r.get("uid") for r in refs if isinstance(r, dict)]


def assign_name(rt: ResourceType, meta: dict[str, Any]) -> str:
    """``metadata.name``, generated from ``generateName`` when empty (422 without either)."""
    if not meta.get("name"):
        if not meta.get("generateName"):
            cause = {
                "reason": "FieldValueRequired",
                "message": "Required value: name or generateName is required",
                "field": "metadata.name",
            }
            raise errors.invalid(rt.kind, rt.group, "", [cause])
        prefix = meta["generateName"][:_MAX_GENERATED_PREFIX]
        meta["name"] = prefix + "".join(random.choices(_NAME_CHARS, k=5))
    return str(meta["name"])


def fresh_metadata(meta: dict[str, Any]) -> str:
    """Replace what a client may not set on create with a new uid and creationTimestamp."""
    for key in managed.SERVER_METADATA - {"name", "namespace"}:
        meta.pop(key, None)
    meta["uid"] = str(uuid.uuid4())
    meta["creationTimestamp"] = stamp = now()
    return stamp


def new_object(rt: ResourceType, namespace: str | None, name: str, stamp: str) -> dict[str, Any]:
    """The empty live object an apply to a missing name starts from."""
    live: dict[str, Any] = {
        "apiVersion": rt.api_version,
        "kind": rt.kind,
        "metadata": {"name": name, "uid": str(uuid.uuid4()), "creationTimestamp": stamp},
    }
    if rt.namespaced:
        live["metadata"]["namespace"] = namespace
    return live


def with_status_of(rt: ResourceType, old: dict[str, Any], obj: dict[str, Any]) -> dict[str, Any]:
    """A status write: the live object with only ``status`` taken from ``obj``."""
    new: dict[str, Any] = copy_json(old)
    new["apiVersion"] = rt.api_version
    if "status" in obj:
        new["status"] = obj["status"]
    else:
        new.pop("status", None)
    return new


def keeping_server_fields(
    rt: ResourceType, obj: dict[str, Any], old: dict[str, Any]
) -> dict[str, Any]:
    """A main-resource write: ``obj`` with the server's metadata (and status) of ``old``."""
    for key in managed.SERVER_METADATA - {"managedFields", "resourceVersion"}:
        if key in old["metadata"]:
            obj["metadata"][key] = old["metadata"][key]
        else:
            obj["metadata"].pop(key, None)
    if rt.status:
        if "status" in old:
            obj["status"] = copy_json(old["status"])
        else:
            obj.pop("status", None)
    return obj


_NO_GENERATION = frozenset(
    {
        ("", "Namespace"),
        ("", "Node"),
        ("", "Event"),
        ("coordination.k8s.io", "Lease"),
        # 1.37's Workload, PodGroup and CompositePodGroup strategies never set it (a PodGroup
        # was observed without one on 1.36 too)
        ("scheduling.k8s.io", "Workload"),
        ("scheduling.k8s.io", "PodGroup"),
        ("scheduling.k8s.io", "CompositePodGroup"),
        # RBAC's strategies set none either
        ("rbac.authorization.k8s.io", "Role"),
        ("rbac.authorization.k8s.io", "ClusterRole"),
        ("rbac.authorization.k8s.io", "RoleBinding"),
        ("rbac.authorization.k8s.io", "ClusterRoleBinding"),
    }
)
_CREATED_GENERATION_ONLY = frozenset({("scheduling.k8s.io", "PriorityClass")})
"""Kinds whose strategy sets generation 1 on create and never counts an update."""


def tracks_generation(rt: ResourceType) -> bool:
    """Whether the kind's registry strategy keeps ``metadata.generation`` (namespaces, nodes,
    events, Workloads, PodGroups and CompositePodGroups have none)."""
    return (rt.group, rt.kind) not in _NO_GENERATION


def generation(rt: ResourceType, obj: dict[str, Any], old: dict[str, Any] | None) -> int:
    """1 on create; +1 when anything outside metadata and status changes (once per write;
    a PriorityClass stays at 1)."""
    if old is None:
        return 1
    current = int(old["metadata"].get("generation", 1))
    if (rt.group, rt.kind) in _CREATED_GENERATION_ONLY:
        return current
    return current + 1 if _spec(obj) != _spec(old) else current


def deleted_status(rt: ResourceType, name: str, uid: str) -> dict[str, Any]:
    """The ``Status`` of ``Success`` a delete answers for kinds that do not return the object."""
    details: dict[str, Any] = {"name": name}
    if rt.group:
        details["group"] = rt.group
    details.update(kind=rt.plural, uid=uid)
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Success",
        "details": details,
    }


def without_managed_fields(obj: dict[str, Any]) -> dict[str, Any]:
    """A shallow copy of ``obj`` without ``metadata.managedFields``."""
    meta = {k: v for k, v in obj["metadata"].items() if k != "managedFields"}
    return {**obj, "metadata": meta}


def same_ownership(a: managed.Entries, b: managed.Entries) -> bool:
    """Whether two ownership records give every manager the same fields at the same version."""
    return a.keys() == b.keys() and all(
        a[k].fields == b[k].fields and a[k].api_version == b[k].api_version for k in a
    )
