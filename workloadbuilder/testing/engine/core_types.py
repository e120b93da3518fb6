"""The Go types of the fields of the core kinds the SDK does not model, for decoding errors.

The tables use :mod:`~workloadbuilder.testing.engine.object_types`' form (a JSON name to a Go
type name, a nested ``(struct name, fields)``, or a list of one) and its checker. They cover
the fields of Pod, Job and PriorityClass that tests commonly set, and every field of a Lease;
other fields are not looked into.
"""

from __future__ import annotations

from typing import Any, Final

from workloadbuilder.testing.engine.object_types import (
    BOOL,
    INT32,
    INT64,
    MICRO_TIME,
    RESOURCE_LIST,
    STRING,
    STRING_LIST,
    STRING_MAP,
    Fields,
    TypeMismatch,
    check_struct,
)


def _all(go_type: str, *names: str) -> Fields:
    return dict.fromkeys(names, go_type)


CONTAINER: Final[Fields] = {
    **_all(
        STRING, "name", "image", "workingDir", "restartPolicy", "terminationMessagePath",
        "terminationMessagePolicy", "imagePullPolicy",
    ),
    **_all(BOOL, "stdin", "stdinOnce", "tty"),
    **_all(STRING_LIST, "command", "args"),
    "resources": ("ResourceRequirements", {"limits": RESOURCE_LIST, "requests": RESOURCE_LIST}),
}  # fmt: skip
POD_SPEC: Final[Fields] = {
    **_all(
        STRING, "restartPolicy", "dnsPolicy", "serviceAccountName", "serviceAccount", "nodeName",
        "hostname", "subdomain", "schedulerName", "priorityClassName", "runtimeClassName",
        "preemptionPolicy", "hostnameOverride",
    ),
    **_all(INT64, "terminationGracePeriodSeconds", "activeDeadlineSeconds"),
    **_all(INT32, "priority"),
    **_all(
        BOOL, "automountServiceAccountToken", "hostNetwork", "hostPID", "hostIPC",
        "shareProcessNamespace", "enableServiceLinks", "setHostnameAsFQDN", "hostUsers",
    ),
    "nodeSelector": STRING_MAP,
    "overhead": RESOURCE_LIST,
    "resources": ("ResourceRequirements", {"limits": RESOURCE_LIST, "requests": RESOURCE_LIST}),
    "schedulingGroup": ("PodSchedulingGroup", {"podGroupName": STRING}),
    "containers": [("Container", CONTAINER)],
    "initContainers": [("Container", CONTAINER)],
}  # fmt: skip
JOB_SPEC: Final[Fields] = {
    **_all(
        INT32, "parallelism", "completions", "backoffLimit", "backoffLimitPerIndex",
        "maxFailedIndexes", "ttlSecondsAfterFinished",
    ),
    **_all(INT64, "activeDeadlineSeconds"),
    **_all(BOOL, "manualSelector", "suspend"),
    **_all(STRING, "completionMode", "podReplacementPolicy", "managedBy"),
    "template": ("PodTemplateSpec", {"spec": ("PodSpec", POD_SPEC)}),
}  # fmt: skip
LEASE_SPEC: Final[Fields] = {
    **_all(STRING, "holderIdentity", "strategy", "preferredHolder"),
    **_all(INT32, "leaseDurationSeconds", "leaseTransitions"),
    **_all(MICRO_TIME, "acquireTime", "renewTime"),
}
KINDS: Final[dict[tuple[str, str], tuple[str, Fields]]] = {
    ("", "Pod"): ("Pod", {"spec": ("PodSpec", POD_SPEC)}),
    ("batch", "Job"): ("Job", {"spec": ("JobSpec", JOB_SPEC)}),
    ("scheduling.k8s.io", "PriorityClass"): (
        "PriorityClass",
        {"value": INT32, "globalDefault": BOOL, **_all(STRING, "description", "preemptionPolicy")},
    ),
    ("coordination.k8s.io", "Lease"): (
        "Lease",
        {"spec": ("LeaseSpec", LEASE_SPEC)},
    ),
}


def core_type_errors(group: str, kind: str, obj: dict[str, Any]) -> list[str]:
    """The decoder's first wrong-type error in ``obj`` (outside ``metadata``), if any; the
    ``null``s of the checked fields are normalised in place, as Go decodes them."""
    known = KINDS.get((group, kind))
    if known is None:
        return []
    name, fields = known
    try:
        check_struct(obj, fields, name, "")
    except TypeMismatch as exc:
        return [str(exc)]
    return []
