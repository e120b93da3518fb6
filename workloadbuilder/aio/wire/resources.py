"""The resources the helpers touch: their URLs, SDK models and the feature gates serving them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from pydantic import ValidationError

from ...api import K8sModel
from ...api.scheduling_v1alpha3 import CompositePodGroup
from ...api.scheduling_v1beta1 import PodGroup, Workload
from ..errors import APIError, ObjectRef

__all__ = [
    "COMPOSITE_POD_GROUPS",
    "EVENTS",
    "JOBS",
    "PODS",
    "POD_GROUPS",
    "WORKLOADS",
    "Resource",
    "SchedulingObject",
    "as_document",
    "resource_of",
]

SchedulingObject = Workload | PodGroup | CompositePodGroup

SCHEDULING = "scheduling.k8s.io"


@dataclass(frozen=True)
class Resource:
    """A namespaced API resource; ``gates`` are the feature gates a cluster needs to serve it."""

    group: str
    version: str
    plural: str
    kind: str
    gates: tuple[str, ...] = ()
    hint: str = ""
    model: type[K8sModel] | None = None

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def group_version_path(self) -> str:
        return f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"

    def path(self, namespace: str | None, name: str | None = None) -> str:
        """The collection URL, or the object's URL with ``name``; ``namespace`` ``None``: the
        collection across every namespace."""
        if namespace is None:
            return f"{self.group_version_path}/{self.plural}"
        base = f"{self.group_version_path}/namespaces/{quote(namespace, safe='')}/{self.plural}"
        return f"{base}/{quote(name, safe='')}" if name else base


def _runtime_config(group_version: str) -> str:
    return f"serve the API with --runtime-config={group_version}=true"


WORKLOADS = Resource(
    SCHEDULING,
    "v1beta1",
    "workloads",
    "Workload",
    ("GenericWorkload",),
    _runtime_config("scheduling.k8s.io/v1beta1"),
    Workload,
)
POD_GROUPS = Resource(
    SCHEDULING,
    "v1beta1",
    "podgroups",
    "PodGroup",
    ("GenericWorkload",),
    _runtime_config("scheduling.k8s.io/v1beta1"),
    PodGroup,
)
COMPOSITE_POD_GROUPS = Resource(
    SCHEDULING,
    "v1alpha3",
    "compositepodgroups",
    "CompositePodGroup",
    ("CompositePodGroup",),
    _runtime_config("scheduling.k8s.io/v1alpha3"),
    CompositePodGroup,
)
JOBS = Resource("batch", "v1", "jobs", "Job")
EVENTS = Resource("", "v1", "events", "Event")
PODS = Resource("", "v1", "pods", "Pod")

_BY_KIND: dict[tuple[str, str], Resource] = {
    (r.api_version, r.kind): r for r in (WORKLOADS, POD_GROUPS, COMPOSITE_POD_GROUPS, JOBS)
}


def as_document(obj: K8sModel | Mapping[str, Any]) -> dict[str, Any]:
    """The object's JSON (an SDK model's ``to_dict()``, or a copy of a mapping)."""
    if isinstance(obj, K8sModel):
        return obj.to_dict()
    if isinstance(obj, Mapping):
        return dict(obj)
    raise TypeError(
        "expected a Workload, PodGroup or CompositePodGroup (SDK model or dict),"
        f" not {type(obj).__name__}"
    )


def resource_of(doc: Mapping[str, Any]) -> Resource:
    """The resource serving ``doc`` (by ``apiVersion`` and ``kind``); ``ValueError`` if none."""
    key = (str(doc.get("apiVersion", "")), str(doc.get("kind", "")))
    resource = _BY_KIND.get(key)
    if resource is None:
        allowed = ", ".join(f"{k} ({v})" for v, k in _BY_KIND)
        raise ValueError(
            f"cannot handle apiVersion {key[0]!r} kind {key[1]!r}; expected one of: {allowed}"
        )
    return resource


def ref_of(doc: Mapping[str, Any]) -> ObjectRef:
    """The ``ObjectRef`` of a document."""
    meta = doc.get("metadata") or {}
    return ObjectRef(
        str(doc.get("kind", "")),
        str(meta.get("namespace") or ""),
        str(meta.get("name") or ""),
        str(doc.get("apiVersion", "")),
    )


def parse(resource: Resource, doc: Mapping[str, Any]) -> Any:
    """A server document as the resource's SDK model (unknown fields ignored), else the dict;
    an ``APIError`` naming the object when the server's document does not parse as one."""
    if resource.model is None:
        return dict(doc)
    try:
        return resource.model.from_server(doc)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "the object"
        target = ref_of(doc)
        raise APIError(
            f"the server's answer for {target} is not a valid {resource.kind}:"
            f" {where}: {first['msg']} ({exc.error_count()} problem(s)); nothing of it was used",
            target=target,
        ) from None
