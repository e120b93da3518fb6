"""The protobuf field numbers of the RBAC kinds and the reviews (``k8s.io/api`` ``rbac/v1``,
``authorization/v1`` and ``authentication/v1`` ``generated.proto``), in the server's
protobuf tables' form: ``number: (JSON name, kind, message type, keep a zero value)``.
``kubectl create role`` / ``rolebinding`` and ``kubectl auth`` send these bodies.
"""

from __future__ import annotations

from typing import Final

PROTOBUF_MESSAGES: Final[dict[str, dict[int, tuple[str, str, str, bool]]]] = {
    "Role": {
        1: ("metadata", "msg", "ObjectMeta", False),
        2: ("rules", "rep_msg", "PolicyRule", False),
    },
    "ClusterRole": {
        1: ("metadata", "msg", "ObjectMeta", False),
        2: ("rules", "rep_msg", "PolicyRule", False),
        3: ("aggregationRule", "msg", "AggregationRule", False),
    },
    "AggregationRule": {1: ("clusterRoleSelectors", "rep_msg", "LabelSelector", False)},
    "PolicyRule": {
        1: ("verbs", "rep_str", "", False),
        2: ("apiGroups", "rep_str", "", False),
        3: ("resources", "rep_str", "", False),
        4: ("resourceNames", "rep_str", "", False),
        5: ("nonResourceURLs", "rep_str", "", False),
    },
    "RoleBinding": {
        1: ("metadata", "msg", "ObjectMeta", False),
        2: ("subjects", "rep_msg", "Subject", False),
        3: ("roleRef", "msg", "RoleRef", False),
    },
    "RoleRef": {
        1: ("apiGroup", "str", "", False),
        2: ("kind", "str", "", False),
        3: ("name", "str", "", False),
    },
    "Subject": {
        1: ("kind", "str", "", False),
        2: ("apiGroup", "str", "", False),
        3: ("name", "str", "", False),
        4: ("namespace", "str", "", False),
    },
    # the reviews of authorization.k8s.io/v1 and authentication.k8s.io/v1 (kubectl auth)
    "SelfSubjectAccessReview": {
        1: ("metadata", "msg", "ObjectMeta", False),
        2: ("spec", "msg", "SelfSubjectAccessReviewSpec", False),
        3: ("status", "skip", "", False),
    },
    "SelfSubjectAccessReviewSpec": {
        1: ("resourceAttributes", "msg", "ResourceAttributes", False),
        2: ("nonResourceAttributes", "msg", "NonResourceAttributes", False),
    },
    "ResourceAttributes": {
        1: ("namespace", "str", "", False),
        2: ("verb", "str", "", False),
        3: ("group", "str", "", False),
        4: ("version", "str", "", False),
        5: ("resource", "str", "", False),
        6: ("subresource", "str", "", False),
        7: ("name", "str", "", False),
    },
    "NonResourceAttributes": {1: ("path", "str", "", False), 2: ("verb", "str", "", False)},
    "SelfSubjectRulesReview": {
        1: ("metadata", "msg", "ObjectMeta", False),
        2: ("spec", "msg", "SelfSubjectRulesReviewSpec", False),
        3: ("status", "skip", "", False),
    },
    "SelfSubjectRulesReviewSpec": {1: ("namespace", "str", "", False)},
    "SubjectAccessReview": {
        1: ("metadata", "msg", "ObjectMeta", False),
        2: ("spec", "msg", "SubjectAccessReviewSpec", False),
        3: ("status", "skip", "", False),
    },
    "SubjectAccessReviewSpec": {
        1: ("resourceAttributes", "msg", "ResourceAttributes", False),
        2: ("nonResourceAttributes", "msg", "NonResourceAttributes", False),
        3: ("user", "str", "", False),
        4: ("groups", "rep_str", "", False),
        6: ("uid", "str", "", False),
    },
    "SelfSubjectReview": {
        1: ("metadata", "msg", "ObjectMeta", False),
        2: ("status", "skip", "", False),
    },
}
PROTOBUF_MESSAGES["ClusterRoleBinding"] = PROTOBUF_MESSAGES["RoleBinding"]
PROTOBUF_KINDS: Final = {
    *(
        ("rbac.authorization.k8s.io", "v1", kind)
        for kind in ("Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding")
    ),
    *(
        ("authorization.k8s.io", "v1", kind)
        for kind in ("SelfSubjectAccessReview", "SelfSubjectRulesReview", "SubjectAccessReview")
    ),
    ("authentication.k8s.io", "v1", "SelfSubjectReview"),
}
