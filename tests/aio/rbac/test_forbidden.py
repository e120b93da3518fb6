"""``aio.ForbiddenError`` reads kube-apiserver's 403 as its responsewriters build it
(``forbiddenMessage`` inside ``apierrors.NewForbidden``): who was refused what, and the rule
to add."""

from __future__ import annotations

import pytest

from workloadbuilder import aio

# kube-apiserver's wording (responsewriters/errors.go forbiddenMessage, apierrors.NewForbidden).
NAMESPACED = (
    'podgroups.scheduling.k8s.io "pg" is forbidden: User "alice" cannot patch resource'
    ' "podgroups/status" in API group "scheduling.k8s.io" in the namespace "ml"'
)
CLUSTER = (
    'nodes is forbidden: User "system:serviceaccount:ml:op" cannot list resource "nodes"'
    ' in API group "" at the cluster scope'
)
PATH = 'forbidden: User "system:anonymous" cannot get path "/apis"'


def test_a_namespaced_refusal_names_the_subresource_and_the_role_rule() -> None:
    exc = aio.ForbiddenError.build(NAMESPACED, status=403, reason="Forbidden")
    assert isinstance(exc, aio.APIError)
    assert exc.user == "alice"
    refused = exc.refused
    assert refused is not None and exc.rule is not None
    assert (refused.verb, refused.api_group, refused.full_resource, refused.namespace) == (
        "patch",
        "scheduling.k8s.io",
        "podgroups/status",
        "ml",
    )
    assert exc.rule.to_dict() == {
        "apiGroups": ["scheduling.k8s.io"],
        "resources": ["podgroups/status"],
        "verbs": ["patch"],
    }
    assert str(exc).startswith(NAMESPACED + "; add the rule ")
    assert 'to a Role in namespace "ml" bound to User "alice"' in str(exc)


def test_a_cluster_scoped_refusal_asks_for_a_cluster_role_bound_to_the_account() -> None:
    exc = aio.ForbiddenError.build(CLUSTER, status=403)
    assert exc.refused is not None
    assert exc.refused.namespace == "" and exc.refused.resource == "nodes"
    assert str(exc).endswith(
        '; add the rule {apiGroups: [""], resources: [nodes], verbs: [list]} to a ClusterRole'
        " bound to ServiceAccount ml/op"
    )


def test_a_non_resource_refusal_names_the_path() -> None:
    exc = aio.ForbiddenError.build(PATH, status=403)
    assert exc.rule is not None
    assert exc.rule.to_dict() == {"nonResourceURLs": ["/apis"], "verbs": ["get"]}


def test_a_refusal_that_is_not_the_authorizers_gives_no_rule() -> None:
    # ResourceQuota admission (apiserver/pkg/admission/plugin/resourcequota): a 403 no rule fixes
    quota = 'workloads.scheduling.k8s.io "w" is forbidden: exceeded quota: q, requested: count=1'
    exc = aio.ForbiddenError.build(quota, status=403)
    assert (exc.user, exc.refused, exc.rule, str(exc)) == ("", None, None, quota)


@pytest.mark.parametrize(
    ("method", "path", "query", "verb", "resource", "namespace", "name"),
    [
        # kube-apiserver's RequestInfoFactory (apiserver/pkg/endpoints/request/requestinfo.go)
        ("GET", "/api/v1/namespaces/ml/pods", [], "list", "pods", "ml", ""),
        ("GET", "/api/v1/namespaces/ml/pods", [("watch", "true")], "watch", "pods", "ml", ""),
        ("GET", "/api/v1/watch/namespaces/ml/pods", [], "watch", "pods", "ml", ""),
        ("GET", "/api/v1/namespaces/ml/pods/p", [], "get", "pods", "ml", "p"),
        ("DELETE", "/api/v1/namespaces/ml/pods", [], "deletecollection", "pods", "ml", ""),
        ("DELETE", "/api/v1/namespaces/ml/pods/p", [], "delete", "pods", "ml", "p"),
        (
            "PUT",
            "/apis/batch/v1/namespaces/ml/jobs/j/status",
            [],
            "update",
            "jobs/status",
            "ml",
            "j",
        ),
        ("GET", "/api/v1/namespaces/ml", [], "get", "namespaces", "ml", "ml"),
        ("PUT", "/api/v1/namespaces/ml/finalize", [], "update", "namespaces/finalize", "ml", "ml"),
        ("GET", "/api/v1/nodes", [], "list", "nodes", "", ""),
    ],
)
def test_request_attributes_are_derived_as_the_api_server_derives_them(
    method: str,
    path: str,
    query: list[tuple[str, str]],
    verb: str,
    resource: str,
    namespace: str,
    name: str,
) -> None:
    found = aio.RequestAttributes.of(method, path, query)
    assert (found.verb, found.full_resource, found.namespace, found.name) == (
        verb,
        resource,
        namespace,
        name,
    )
