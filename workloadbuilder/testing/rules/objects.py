"""The API server's own rules for the scheduling kinds, on plain JSON objects.

An implementation of what the 1.37 kube-apiserver enforces for ``scheduling.k8s.io``
``Workload``, ``PodGroup`` and ``CompositePodGroup`` (defaulting, create and update
validation), plus the workload-aware fields of ``Pod`` (``spec.schedulingGroup``) and
``Job`` (``spec.scheduling``). It is kept independent of the SDK's validation so that each
checks the other.
"""

from __future__ import annotations

import re
from typing import Any, Final

from .common import IMMUTABLE, Errs, Obj, mapping, short_name
from .core import validate_job, validate_pod
from .errors import invalid, required
from .formats import dns_subdomain
from .groups import validate_composite_pod_group, validate_group_update, validate_pod_group
from .workload import validate_workload, validate_workload_update

__all__ = ["apply_defaults", "has_status_subresource", "validate_object"]

SCHEDULING_GROUP: Final = "scheduling.k8s.io"
_DEFAULTED_GROUPS: Final = frozenset({"PodGroup", "CompositePodGroup"})
_STATUS_KINDS: Final = frozenset(
    {
        (SCHEDULING_GROUP, "PodGroup"),
        (SCHEDULING_GROUP, "CompositePodGroup"),
        ("", "Pod"),
        ("", "Node"),
        ("batch", "Job"),
    }
)
_PATH_TOKEN: Final = re.compile(r"([^.\[\]]+)|\[(\d+)\]")
_MISSING: Final = object()


def apply_defaults(group: str, kind: str, obj: dict[str, Any]) -> None:
    """Fill API defaults in place: a group's ``spec.disruptionMode`` becomes ``{"single": {}}``."""
    if group != SCHEDULING_GROUP or kind not in _DEFAULTED_GROUPS:
        return
    spec = obj.get("spec")
    if isinstance(spec, dict) and spec.get("disruptionMode") is None:
        spec["disruptionMode"] = {"single": {}}


def has_status_subresource(group: str, kind: str) -> bool:
    """Whether the kind serves ``/status`` (and so ignores status on the main resource)."""
    return (group, kind) in _STATUS_KINDS


def validate_object(
    group: str,
    version: str,
    kind: str,
    obj: dict[str, Any],
    old: dict[str, Any] | None,
    gates: frozenset[str],
) -> list[dict[str, str]]:
    """Validate a create (``old`` is None) or an update; return StatusCause dicts."""
    if (group, kind) == ("", "Pod"):
        return [e.to_cause() for e in _ratcheted(validate_pod(obj, old), obj, old)]
    if (group, kind) == ("batch", "Job"):
        return [e.to_cause() for e in _ratcheted(validate_job(obj, old, gates), obj, old)]
    if group != SCHEDULING_GROUP:
        return []
    errs = _metadata(obj)
    if kind == "Workload":
        errs += validate_workload(obj, gates)
        if old is not None:
            errs += validate_workload_update(obj, old)
    elif kind == "PodGroup":
        errs += validate_pod_group(obj, gates)
        if old is not None:
            errs += validate_group_update(obj, old, composite=False)
    elif kind == "CompositePodGroup" and version != "v1beta1":
        errs += validate_composite_pod_group(obj, gates)
        if old is not None:
            errs += validate_group_update(obj, old, composite=True)
    if old is not None:
        errs += _metadata_update(obj, old)
    return [e.to_cause() for e in _ratcheted(errs, obj, old)]


def _metadata(obj: Obj) -> Errs:
    meta = mapping(obj.get("metadata"))
    name = meta.get("name")
    errs: Errs = []
    if not name and not meta.get("generateName"):
        errs.append(required("metadata.name", "name or generateName is required"))
    elif isinstance(name, str) and name:
        errs += [invalid("metadata.name", name, msg) for msg in dns_subdomain(name)]
    namespace = meta.get("namespace")
    if not namespace:
        errs.append(required("metadata.namespace"))
    else:
        errs += short_name("metadata.namespace", namespace)
    return errs


def _metadata_update(obj: Obj, old: Obj) -> Errs:
    meta, old_meta = mapping(obj.get("metadata")), mapping(old.get("metadata"))
    return [
        invalid(f"metadata.{name}", meta.get(name), IMMUTABLE, ratchet=False)
        for name in ("name", "namespace")
        if meta.get(name) != old_meta.get(name)
    ]


def _lookup(obj: Any, path: str) -> Any:
    for name, idx in _PATH_TOKEN.findall(path):
        if name:
            obj = obj.get(name, _MISSING) if isinstance(obj, dict) else _MISSING
        else:
            i = int(idx)
            obj = obj[i] if isinstance(obj, list) and i < len(obj) else _MISSING
    return obj


def _ratcheted(errs: Errs, obj: Obj, old: Obj | None) -> Errs:
    """Ratcheting: on update, a value that did not change is not re-validated."""
    if old is None:
        return errs
    return [e for e in errs if not (e.ratchet and _lookup(obj, e.field) == _lookup(old, e.field))]
