"""The ClusterRoles and ClusterRoleBindings a new cluster starts with (kubernetes
``plugin/pkg/auth/authorizer/rbac/bootstrappolicy``, as its ``testdata/cluster-roles.yaml`` and
``cluster-role-bindings.yaml`` record them): ``cluster-admin`` bound to ``system:masters``; the
discovery roles bound to every user; ``admin``, ``edit`` and ``view`` aggregated from the
``system:aggregate-to-*`` roles.
"""

from __future__ import annotations

from typing import Any, Final

from workloadbuilder.testing.rbac.identity import AUTHENTICATED, MASTERS, UNAUTHENTICATED

RBAC_V1: Final = "rbac.authorization.k8s.io/v1"
AGGREGATE_TO: Final = "rbac.authorization.k8s.io/aggregate-to-"
_READ = ["get", "list", "watch"]
_WRITE = ["create", "delete", "deletecollection", "patch", "update"]
_ALL = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]


def _rule(groups: list[str], resources: list[str], verbs: list[str]) -> dict[str, Any]:
    return {"apiGroups": groups, "resources": resources, "verbs": verbs}


def _urls(*urls: str) -> dict[str, Any]:
    return {"nonResourceURLs": list(urls), "verbs": ["get"]}


_VIEW_RULES = [
    _rule(
        [""],
        [
            "configmaps", "endpoints", "persistentvolumeclaims", "persistentvolumeclaims/status",
            "pods", "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts",
            "services", "services/status",
        ],
        _READ,
    ),
    _rule(
        [""],
        [
            "bindings", "events", "limitranges", "namespaces/status", "pods/log", "pods/status",
            "replicationcontrollers/status", "resourcequotas", "resourcequotas/status",
        ],
        _READ,
    ),
    _rule([""], ["namespaces"], _READ),
    _rule(["discovery.k8s.io"], ["endpointslices"], _READ),
    _rule(
        ["apps"],
        [
            "controllerrevisions", "daemonsets", "daemonsets/status", "deployments",
            "deployments/scale", "deployments/status", "replicasets", "replicasets/scale",
            "replicasets/status", "statefulsets", "statefulsets/scale", "statefulsets/status",
        ],
        _READ,
    ),
    _rule(["autoscaling"], ["horizontalpodautoscalers", "horizontalpodautoscalers/status"], _READ),
    _rule(["batch"], ["cronjobs", "cronjobs/status", "jobs", "jobs/status"], _READ),
    _rule(
        ["extensions"],
        [
            "daemonsets", "daemonsets/status", "deployments", "deployments/scale",
            "deployments/status", "ingresses", "ingresses/status", "networkpolicies",
            "replicasets", "replicasets/scale", "replicasets/status",
            "replicationcontrollers/scale",
        ],
        _READ,
    ),
    _rule(["policy"], ["poddisruptionbudgets", "poddisruptionbudgets/status"], _READ),
    _rule(["networking.k8s.io"], ["ingresses", "ingresses/status", "networkpolicies"], _READ),
]  # fmt: skip
_EDIT_RULES = [
    _rule(
        [""],
        [
            "pods/attach", "pods/exec", "pods/portforward", "pods/proxy", "secrets",
            "services/proxy",
        ],
        _READ,
    ),
    _rule([""], ["serviceaccounts"], ["impersonate"]),
    _rule([""], ["pods", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy"], _WRITE),
    _rule([""], ["pods/eviction"], ["create"]),
    _rule(
        [""],
        [
            "configmaps", "events", "persistentvolumeclaims", "replicationcontrollers",
            "replicationcontrollers/scale", "secrets", "serviceaccounts", "services",
            "services/proxy",
        ],
        _WRITE,
    ),
    _rule([""], ["serviceaccounts/token"], ["create"]),
    _rule(
        ["apps"],
        [
            "daemonsets", "deployments", "deployments/rollback", "deployments/scale",
            "replicasets", "replicasets/scale", "statefulsets", "statefulsets/scale",
        ],
        _WRITE,
    ),
    _rule(["autoscaling"], ["horizontalpodautoscalers"], _WRITE),
    _rule(["batch"], ["cronjobs", "jobs"], _WRITE),
    _rule(
        ["extensions"],
        [
            "daemonsets", "deployments", "deployments/rollback", "deployments/scale",
            "ingresses", "networkpolicies", "replicasets", "replicasets/scale",
            "replicationcontrollers/scale",
        ],
        _WRITE,
    ),
    _rule(["policy"], ["poddisruptionbudgets"], _WRITE),
    _rule(["networking.k8s.io"], ["ingresses", "networkpolicies"], _WRITE),
    _rule(["coordination.k8s.io"], ["leases"], _ALL),
]  # fmt: skip
_ADMIN_RULES = [
    _rule(["authorization.k8s.io"], ["localsubjectaccessreviews"], ["create"]),
    _rule(["rbac.authorization.k8s.io"], ["rolebindings", "roles"], _ALL),
]
_DISCOVERY = _urls(
    "/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*",
    "/readyz", "/version", "/version/",
)  # fmt: skip


def _meta(name: str, **labels: str) -> dict[str, Any]:
    return {
        "name": name,
        "labels": {"kubernetes.io/bootstrapping": "rbac-defaults", **labels},
        "annotations": {"rbac.authorization.kubernetes.io/autoupdate": "true"},
    }


def _role(name: str, rules: list[dict[str, Any]], **labels: str) -> dict[str, Any]:
    return {
        "apiVersion": RBAC_V1,
        "kind": "ClusterRole",
        "metadata": _meta(name, **labels),
        "rules": rules,
    }


def _aggregated(name: str, source: str, **labels: str) -> dict[str, Any]:
    role = _role(name, [], **labels)
    role["aggregationRule"] = {
        "clusterRoleSelectors": [{"matchLabels": {AGGREGATE_TO + source: "true"}}]
    }
    return role


def _binding(role: str, *groups: str) -> dict[str, Any]:
    return {
        "apiVersion": RBAC_V1,
        "kind": "ClusterRoleBinding",
        "metadata": _meta(role),
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
        "subjects": [
            {"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": g} for g in groups
        ],
    }


def cluster_roles() -> list[dict[str, Any]]:
    """The bootstrap ClusterRoles (aggregated ones with empty rules: aggregation fills them)."""
    agg = {AGGREGATE_TO + "admin": "true"}
    return [
        _aggregated("admin", "admin"),
        _role(
            "cluster-admin",
            [_rule(["*"], ["*"], ["*"]), {"nonResourceURLs": ["*"], "verbs": ["*"]}],
        ),
        _aggregated("edit", "edit", **agg),
        _role("system:aggregate-to-admin", _ADMIN_RULES, **agg),
        _role("system:aggregate-to-edit", _EDIT_RULES, **{AGGREGATE_TO + "edit": "true"}),
        _role("system:aggregate-to-view", _VIEW_RULES, **{AGGREGATE_TO + "view": "true"}),
        _role(
            "system:basic-user",
            [
                _rule(
                    ["authorization.k8s.io"],
                    ["selfsubjectaccessreviews", "selfsubjectrulesreviews"],
                    ["create"],
                ),
                _rule(["authentication.k8s.io"], ["selfsubjectreviews"], ["create"]),
            ],
        ),
        _role("system:discovery", [_DISCOVERY]),
        _role(
            "system:public-info-viewer",
            [_urls("/healthz", "/livez", "/readyz", "/version", "/version/")],
        ),
        _aggregated("view", "view", **{AGGREGATE_TO + "edit": "true"}),
    ]


def cluster_role_bindings() -> list[dict[str, Any]]:
    """``cluster-admin`` to ``system:masters``; ``system:basic-user`` and ``system:discovery``
    to authenticated users; ``system:public-info-viewer`` to everyone."""
    return [
        _binding("cluster-admin", MASTERS),
        _binding("system:basic-user", AUTHENTICATED),
        _binding("system:discovery", AUTHENTICATED),
        _binding("system:public-info-viewer", AUTHENTICATED, UNAUTHENTICATED),
    ]
