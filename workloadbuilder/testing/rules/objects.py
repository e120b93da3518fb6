"""The API server's own rules for the scheduling kinds, on plain JSON objects.

An implementation of what the 1.37 kube-apiserver enforces for ``scheduling.k8s.io``
``Workload``, ``PodGroup`` and ``CompositePodGroup`` (defaulting, create and update
validation), plus the workload-aware fields of ``Pod`` (``spec.schedulingGroup``) and
``Job`` (``spec.scheduling``), and the metadata rules of every kind (``metadata``). It is
kept independent of the SDK's validation so that each checks the other.
"""

from __future__ import annotations

from typing import Any, Final

from .admissionregistration import ADMISSION_GROUP, default_webhooks, validate_webhooks
from .builtin import (
    default_job,
    default_namespace,
    default_pod,
    validate_job_spec,
    validate_job_update,
    validate_mirror_pod,
    validate_pod_images,
    validate_pod_spec,
)
from .common import Errs, Obj, ratcheted
from .core import drop_disabled_job_fields, validate_job, validate_pod
from .events import default_event, validate_event
from .groups import validate_composite_pod_group, validate_group_update, validate_pod_group
from .leases import validate_lease
from .metadata import (
    kube_finalizers,
    name_check,
    validate_object_meta,
    validate_object_meta_update,
)
from .pod_update import validate_pod_update
from .rbac import RBAC_GROUP, default_rbac, validate_rbac
from .serialized import fill_struct_zero_values
from .workload import validate_workload, validate_workload_update

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
POD_GROUP_PROTECTION: Final = "scheduling.k8s.io/podgroup-protection"
_CLUSTER_SCOPED: Final = frozenset({("", "Namespace"), ("", "Node")})


def apply_defaults(group: str, kind: str, obj: dict[str, Any], *, creating: bool = False) -> None:
    """Fill API defaults in place (``creating``: also what only a create sets, e.g. status).

    A group's ``spec.disruptionMode`` becomes ``{"single": {}}`` and a new one starts with
    ``status: {}``; Pods, Namespaces and Jobs get their core defaults (``builtin``); the
    zero values a core Go struct writes though unset are filled in (``serialized``).
    """
    fill_struct_zero_values(group, kind, obj)
    if (group, kind) == ("", "Pod"):
        default_pod(obj, creating=creating)
    elif (group, kind) == ("", "Namespace"):
        default_namespace(obj, creating=creating)
    elif (group, kind) == ("batch", "Job"):
        default_job(obj, creating=creating)
    elif (group, kind) == ("", "Event"):
        default_event(obj)
    elif (group, kind) == (SCHEDULING_GROUP, "PriorityClass"):
        obj.setdefault("preemptionPolicy", "PreemptLowerPriority")  # SetDefaults_PriorityClass
    elif group == RBAC_GROUP:
        default_rbac(kind, obj)
    elif group == ADMISSION_GROUP:
        default_webhooks(kind, obj)
    if group != SCHEDULING_GROUP or kind not in _DEFAULTED_GROUPS:
        return
    spec = obj.get("spec")
    if isinstance(spec, dict) and spec.get("disruptionMode") is None:
        spec["disruptionMode"] = {"single": {}}
    if creating:
        obj["status"] = {}


def drop_disabled_fields(
    group: str, kind: str, obj: dict[str, Any], old: dict[str, Any] | None, gates: frozenset[str]
) -> None:
    """A strategy's ``PrepareForCreate``/``PrepareForUpdate``: fields of a disabled gate go."""
    if (group, kind) == ("batch", "Job"):
        drop_disabled_job_fields(obj, old, gates)


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
    *,
    namespaced: bool | None = None,
) -> list[dict[str, str]]:
    """Validate a create (``old`` is None) or an update; return StatusCause dicts.

    ``namespaced`` says whether the kind lives in namespaces (by default: all but
    ``Namespace`` and ``Node``).
    """
    if namespaced is None:
        namespaced = (group, kind) not in _CLUSTER_SCOPED
    if old is None:
        errs = validate_object_meta(obj, name_check(group, kind), namespaced=namespaced)
    else:
        errs = validate_object_meta_update(obj, old)
    errs += kube_finalizers(obj)
    errs += _kind_rules(group, version, kind, obj, old, gates)
    return [e.to_cause() for e in ratcheted(errs, obj, old)]


def _core_rules(kind: str, obj: Obj, old: Obj | None, gates: frozenset[str]) -> Errs:
    if kind == "Pod":
        spec = obj.get("spec")
        errs = validate_mirror_pod(obj) + validate_pod_spec("spec", spec) + validate_pod(obj)
        errs += validate_pod_images(spec)
        return errs + (validate_pod_update(obj, old) if old is not None else [])
    if kind == "Job":
        errs = validate_job_spec(obj.get("spec"))
        if old is not None:
            errs += validate_job_update(obj, old)
        return errs + validate_job(obj, old, gates)
    if kind == "Event":
        return validate_event(obj, old)
    return []


def _kind_rules(
    group: str, version: str, kind: str, obj: Obj, old: Obj | None, gates: frozenset[str]
) -> Errs:
    if (group, kind) in (("", "Pod"), ("batch", "Job"), ("", "Event")):
        return _core_rules(kind, obj, old, gates)
    if (group, kind) == ("coordination.k8s.io", "Lease"):
        return validate_lease(obj)
    if group == RBAC_GROUP:
        return validate_rbac(kind, obj, old)
    if group == ADMISSION_GROUP:
        return validate_webhooks(kind, obj, old)
    if group != SCHEDULING_GROUP or kind == "PriorityClass":
        return []
    errs: Errs = []
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
    return errs
