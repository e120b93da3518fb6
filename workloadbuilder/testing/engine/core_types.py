"""The Go types of the fields of the core kinds the SDK does not model, for decoding errors.

The tables use :mod:`~workloadbuilder.testing.engine.object_types`' form (a JSON name to a Go
type name, a nested ``(struct name, fields)``, or a list of one) and its checker. They cover
the fields of Pod, Job, Node and PriorityClass that tests commonly set (the status fields the
server itself reads among them, and every ``resource.Quantity`` of a Pod, a Job's template and
a Node but the DRA claim statuses'), every field of a Lease and of the RBAC kinds and reviews;
other fields are not looked into.
"""

from __future__ import annotations

from typing import Any, Final

from workloadbuilder.testing.engine.object_types import (
    BOOL,
    INT32,
    INT64,
    MICRO_TIME,
    OPTIONAL_QUANTITY,
    QUANTITY,
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


RESOURCE_REQUIREMENTS: Final = (
    "ResourceRequirements",
    {"limits": RESOURCE_LIST, "requests": RESOURCE_LIST},
)
RESOURCE_FIELD_SELECTOR: Final = (
    "ResourceFieldSelector",
    {"containerName": STRING, "resource": STRING, "divisor": QUANTITY},
)
CONTAINER: Final[Fields] = {
    **_all(
        STRING, "name", "image", "workingDir", "restartPolicy", "terminationMessagePath",
        "terminationMessagePolicy", "imagePullPolicy",
    ),
    **_all(BOOL, "stdin", "stdinOnce", "tty"),
    **_all(STRING_LIST, "command", "args"),
    "env": [
        (
            "EnvVar",
            {
                "name": STRING,
                "value": STRING,
                "valueFrom": ("EnvVarSource", {"resourceFieldRef": RESOURCE_FIELD_SELECTOR}),
            },
        )
    ],
    "resources": RESOURCE_REQUIREMENTS,
}  # fmt: skip
_DOWNWARD_API_ITEMS: Final = [
    ("DownwardAPIVolumeFile", {"path": STRING, "resourceFieldRef": RESOURCE_FIELD_SELECTOR})
]
VOLUME: Final[Fields] = {
    "name": STRING,
    "emptyDir": ("EmptyDirVolumeSource", {"medium": STRING, "sizeLimit": OPTIONAL_QUANTITY}),
    "downwardAPI": ("DownwardAPIVolumeSource", {"items": _DOWNWARD_API_ITEMS}),
    "projected": (
        "ProjectedVolumeSource",
        {
            "sources": [
                (
                    "VolumeProjection",
                    {"downwardAPI": ("DownwardAPIProjection", {"items": _DOWNWARD_API_ITEMS})},
                )
            ]
        },
    ),
    "ephemeral": (
        "EphemeralVolumeSource",
        {
            "volumeClaimTemplate": (
                "PersistentVolumeClaimTemplate",
                {
                    "spec": (
                        "PersistentVolumeClaimSpec",
                        {
                            "resources": (
                                "VolumeResourceRequirements",
                                {"limits": RESOURCE_LIST, "requests": RESOURCE_LIST},
                            )
                        },
                    )
                },
            )
        },
    ),
}
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
    "resources": RESOURCE_REQUIREMENTS,
    "schedulingGroup": ("PodSchedulingGroup", {"podGroupName": STRING}),
    "containers": [("Container", CONTAINER)],
    "initContainers": [("Container", CONTAINER)],
    "ephemeralContainers": [("EphemeralContainer", CONTAINER)],
    "volumes": [("Volume", VOLUME)],
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


def _conditions(name: str) -> list[tuple[str, Fields]]:
    return [(name, _all(STRING, "type", "status", "reason", "message"))]


_CONTAINER_STATUSES: Final = [
    (
        "ContainerStatus",
        {"allocatedResources": RESOURCE_LIST, "resources": RESOURCE_REQUIREMENTS},
    )
]
POD_STATUS: Final[Fields] = {
    **_all(STRING, "phase", "nominatedNodeName"),
    "conditions": _conditions("PodCondition"),
    "allocatedResources": RESOURCE_LIST,
    "resources": RESOURCE_REQUIREMENTS,
    **dict.fromkeys(
        ["containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"],
        _CONTAINER_STATUSES,
    ),
}
JOB_STATUS: Final[Fields] = {
    **_all(INT32, "active", "succeeded", "failed"),
    "conditions": _conditions("JobCondition"),
}
NODE_STATUS: Final[Fields] = {
    **_all(RESOURCE_LIST, "capacity", "allocatable"),
    "conditions": _conditions("NodeCondition"),
}
_RBAC = "rbac.authorization.k8s.io"
POLICY_RULE: Final[Fields] = _all(
    STRING_LIST, "verbs", "apiGroups", "resources", "resourceNames", "nonResourceURLs"
)
LABEL_SELECTOR: Final[Fields] = {
    "matchLabels": STRING_MAP,
    "matchExpressions": [
        (
            "LabelSelectorRequirement",
            {"key": STRING, "operator": STRING, "values": STRING_LIST},
        )
    ],
}
_ROLE: Final[Fields] = {"rules": [("PolicyRule", POLICY_RULE)]}
_BINDING: Final[Fields] = {
    "subjects": [("Subject", _all(STRING, "kind", "apiGroup", "name", "namespace"))],
    "roleRef": ("RoleRef", _all(STRING, "apiGroup", "kind", "name")),
}
_ATTRIBUTES: Final[Fields] = {
    "resourceAttributes": (
        "ResourceAttributes",
        _all(STRING, "namespace", "verb", "group", "version", "resource", "subresource", "name"),
    ),
    "nonResourceAttributes": ("NonResourceAttributes", _all(STRING, "path", "verb")),
}
KINDS: Final[dict[tuple[str, str], tuple[str, Fields]]] = {
    ("coordination.k8s.io", "Lease"): ("Lease", {"spec": ("LeaseSpec", LEASE_SPEC)}),
    (_RBAC, "Role"): ("Role", _ROLE),
    (_RBAC, "ClusterRole"): (
        "ClusterRole",
        {
            **_ROLE,
            "aggregationRule": (
                "AggregationRule",
                {"clusterRoleSelectors": [("LabelSelector", LABEL_SELECTOR)]},
            ),
        },
    ),
    (_RBAC, "RoleBinding"): ("RoleBinding", _BINDING),
    (_RBAC, "ClusterRoleBinding"): ("ClusterRoleBinding", _BINDING),
    ("authorization.k8s.io", "SelfSubjectAccessReview"): (
        "SelfSubjectAccessReview",
        {"spec": ("SelfSubjectAccessReviewSpec", _ATTRIBUTES)},
    ),
    ("authorization.k8s.io", "SubjectAccessReview"): (
        "SubjectAccessReview",
        {
            "spec": (
                "SubjectAccessReviewSpec",
                {**_ATTRIBUTES, "user": STRING, "groups": STRING_LIST, "uid": STRING},
            )
        },
    ),
    ("authorization.k8s.io", "SelfSubjectRulesReview"): (
        "SelfSubjectRulesReview",
        {"spec": ("SelfSubjectRulesReviewSpec", {"namespace": STRING})},
    ),
    ("", "Pod"): ("Pod", {"spec": ("PodSpec", POD_SPEC), "status": ("PodStatus", POD_STATUS)}),
    ("", "Node"): ("Node", {"status": ("NodeStatus", NODE_STATUS)}),
    ("batch", "Job"): ("Job", {"spec": ("JobSpec", JOB_SPEC), "status": ("JobStatus", JOB_STATUS)}),
    ("scheduling.k8s.io", "PriorityClass"): (
        "PriorityClass",
        {"value": INT32, "globalDefault": BOOL, **_all(STRING, "description", "preemptionPolicy")},
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
