"""The known fields of the kinds the SDK does not model, for ``fieldValidation``.

A shape maps each known field to ``None`` (any value, not looked into), to a shape (a
struct) or to a one-shape list (a list of structs). Unknown fields are reported with the
API server's paths: ``spec.bogus``, ``spec.containers[0].bogus``. ``metadata`` is checked
with the SDK's ``ObjectMeta`` model, through the caller's ``meta`` function.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Shape = dict[str, Any]
META = "ObjectMeta"
"""The shape of ``metadata``: checked by the caller's ``meta`` function, in document order."""


def _any(*names: str) -> Shape:
    return dict.fromkeys(names)


CONTAINER: Shape = _any(
    "name", "image", "command", "args", "workingDir", "ports", "envFrom", "env", "resources",
    "resizePolicy", "restartPolicy", "restartPolicyRules", "volumeMounts", "volumeDevices",
    "livenessProbe", "readinessProbe", "startupProbe", "lifecycle", "terminationMessagePath",
    "terminationMessagePolicy", "imagePullPolicy", "securityContext", "stdin", "stdinOnce", "tty",
)  # fmt: skip
POD_SPEC: Shape = {
    **_any(
        "volumes", "ephemeralContainers", "restartPolicy", "terminationGracePeriodSeconds",
        "activeDeadlineSeconds", "dnsPolicy", "nodeSelector", "serviceAccountName",
        "serviceAccount", "automountServiceAccountToken", "nodeName", "hostNetwork", "hostPID",
        "hostIPC", "shareProcessNamespace", "securityContext", "imagePullSecrets", "hostname",
        "subdomain", "affinity", "schedulerName", "tolerations", "hostAliases",
        "priorityClassName", "priority", "dnsConfig", "readinessGates", "runtimeClassName",
        "enableServiceLinks", "preemptionPolicy", "overhead", "topologySpreadConstraints",
        "setHostnameAsFQDN", "os", "hostUsers", "schedulingGates", "resourceClaims", "resources",
        "hostnameOverride", "schedulingGroup", "evictionResponders",
    ),
    "containers": [CONTAINER],
    "initContainers": [CONTAINER],
}  # fmt: skip
JOB_SPEC: Shape = {
    **_any(
        "parallelism", "completions", "activeDeadlineSeconds", "podFailurePolicy",
        "successPolicy", "backoffLimit", "backoffLimitPerIndex", "maxFailedIndexes", "selector",
        "manualSelector", "ttlSecondsAfterFinished", "completionMode", "suspend",
        "podReplacementPolicy", "managedBy", "scheduling",
    ),
    "template": {"metadata": META, "spec": POD_SPEC},
}  # fmt: skip
NODE_SPEC: Shape = _any(
    "podCIDR", "podCIDRs", "providerID", "unschedulable", "taints", "configSource", "externalID",
    "podPreemptionPolicy",
)  # fmt: skip
_TYPED: Shape = {**_any("apiVersion", "kind"), "metadata": META}
_OBJECT: Shape = {**_TYPED, "status": None}
_RULE: Shape = _any("verbs", "apiGroups", "resources", "resourceNames", "nonResourceURLs")
_SELECTOR: Shape = {
    "matchLabels": None, "matchExpressions": [_any("key", "operator", "values")],
}  # fmt: skip
_BINDING: Shape = {
    **_TYPED,
    "subjects": [_any("kind", "apiGroup", "name", "namespace")],
    "roleRef": _any("apiGroup", "kind", "name"),
}
_WEBHOOK: Shape = {
    **_any(
        "name", "admissionReviewVersions", "failurePolicy", "matchPolicy", "namespaceSelector",
        "objectSelector", "sideEffects", "timeoutSeconds", "matchConditions",
    ),
    "clientConfig": {
        **_any("url", "caBundle"), "service": _any("namespace", "name", "path", "port"),
    },
    "rules": [_any("apiGroups", "apiVersions", "operations", "resources", "scope")],
}  # fmt: skip
SHAPES: dict[tuple[str, str], Shape] = {
    ("", "Pod"): {**_OBJECT, "spec": POD_SPEC},
    ("", "Namespace"): {**_OBJECT, "spec": _any("finalizers")},
    ("", "Node"): {**_OBJECT, "spec": NODE_SPEC},
    ("batch", "Job"): {**_OBJECT, "spec": JOB_SPEC},
    ("rbac.authorization.k8s.io", "Role"): {**_TYPED, "rules": [_RULE]},
    ("rbac.authorization.k8s.io", "ClusterRole"): {
        **_TYPED, "rules": [_RULE], "aggregationRule": {"clusterRoleSelectors": [_SELECTOR]},
    },
    ("authentication.k8s.io", "SelfSubjectReview"): _OBJECT,
    ("authorization.k8s.io", "SelfSubjectAccessReview"): {**_OBJECT, "spec": None},
    ("authorization.k8s.io", "SelfSubjectRulesReview"): {**_OBJECT, "spec": None},
    ("authorization.k8s.io", "SubjectAccessReview"): {**_OBJECT, "spec": None},
    ("rbac.authorization.k8s.io", "RoleBinding"): _BINDING,
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"): _BINDING,
    ("", "Event"): {**_TYPED, **_any(
        "involvedObject", "reason", "message", "source",
        "firstTimestamp", "lastTimestamp", "count", "type", "eventTime", "series", "action",
        "related", "reportingComponent", "reportingInstance",
    )},
    ("scheduling.k8s.io", "PriorityClass"): {**_TYPED, **_any(
        "value", "globalDefault", "description", "preemptionPolicy",
    )},
    ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"): {
        **_TYPED, "webhooks": [_WEBHOOK],
    },
    ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"): {
        **_TYPED, "webhooks": [{**_WEBHOOK, "reinvocationPolicy": None}],
    },
    ("coordination.k8s.io", "Lease"): {**_TYPED, "spec": _any(
        "holderIdentity", "leaseDurationSeconds", "acquireTime", "renewTime", "leaseTransitions",
        "strategy", "preferredHolder",
    )},
}  # fmt: skip


def unknown_paths(
    shape: Shape, value: Any, meta: Callable[[Any, str], list[str]], path: str = ""
) -> list[str]:
    """The paths of the fields in ``value`` that ``shape`` does not know, in document order;
    ``meta(value, path)`` checks each ``metadata``."""
    if not isinstance(value, dict):
        return []
    out: list[str] = []
    for key, item in value.items():
        where = f"{path}.{key}" if path else str(key)
        if key not in shape:
            out.append(where)
            continue
        inner = shape[key]
        if inner == META:
            out += meta(item, where)
        elif isinstance(inner, dict):
            out += unknown_paths(inner, item, meta, where)
        elif isinstance(inner, list) and isinstance(item, list):
            for i, element in enumerate(item):
                out += unknown_paths(inner[0], element, meta, f"{where}[{i}]")
    return out
