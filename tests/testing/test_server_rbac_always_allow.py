"""The RBAC kinds on the default server (``authorization="AlwaysAllow"``).

kube-apiserver serves ``rbac.authorization.k8s.io/v1`` whatever its ``--authorization-mode``
(the group's storage is installed unconditionally, ``pkg/registry/rbac/rest``): Roles and
bindings are stored, validated (``pkg/apis/rbac/validation``: ``verbs must contain at least
one value``), listed and aggregated, and enforced only by the RBAC authorizer, which this mode
does not run.
"""

from __future__ import annotations

from rbac_helpers import RBAC, RBAC_PATH, binding, role, rule, user_subject
from server_helpers import bounded, call, pod

from workloadbuilder.testing import FakeAPIServer

ROLES = f"{RBAC_PATH}/namespaces/default/roles"


@bounded()
async def test_rbac_objects_are_stored_validated_and_listed(
    fake_apiserver: FakeAPIServer,
) -> None:
    server = fake_apiserver
    assert server.authorization == "AlwaysAllow"
    bad = await call(
        server, "POST", ROLES, role("r", "default", {"apiGroups": [""], "resources": ["pods"]})
    )
    assert (bad.status, bad.json()["message"]) == (
        422,
        'Role.rbac.authorization.k8s.io "r" is invalid: rules[0].verbs: Required value: '
        "verbs must contain at least one value",
    )
    reader = role("reader", "default", rule([""], ["pods"], ["get"]))
    assert (await call(server, "POST", ROLES, reader)).status == 201
    bound = binding("reader", "default", "Role", "reader", user_subject("alice"))
    path = f"{RBAC_PATH}/namespaces/default/rolebindings"
    assert (await call(server, "POST", path, bound)).status == 201
    listed = (await call(server, "GET", ROLES)).json()
    assert (listed["kind"], [r["metadata"]["name"] for r in listed["items"]]) == (
        "RoleList",
        ["reader"],
    )
    assert "kind" not in listed["items"][0]  # a built-in kind's list items carry no kind


@bounded()
async def test_bindings_are_not_enforced(fake_apiserver: FakeAPIServer) -> None:
    # alice is bound to a Role that only gets pods; AlwaysAllow lets her create one all the same.
    server = fake_apiserver
    reader = role("reader", "default", rule([""], ["pods"], ["get"]))
    server.create_object(RBAC, "v1", "roles", reader)
    bound = binding("reader", "default", "Role", "reader", user_subject("alice"))
    server.create_object(RBAC, "v1", "rolebindings", bound)
    headers = {"Authorization": "Bearer any-token", "Impersonate-User": "alice"}
    reply = await call(server, "POST", "/api/v1/namespaces/default/pods", pod(), headers=headers)
    assert reply.status == 201, reply.text


@bounded()
async def test_aggregated_cluster_roles_gather_their_rules(fake_apiserver: FakeAPIServer) -> None:
    # The clusterrole-aggregation controller runs whatever the authorization mode.
    server = fake_apiserver
    labels = {"example.com/aggregate-to-ml": "true"}
    part = role("ml-pods", None, rule([""], ["pods"], ["get"]))
    part["metadata"]["labels"] = labels
    aggregated = role(
        "ml", None, aggregationRule={"clusterRoleSelectors": [{"matchLabels": labels}]}
    )
    server.create_object(RBAC, "v1", "clusterroles", aggregated)
    server.create_object(RBAC, "v1", "clusterroles", part)
    got = server.get_object(RBAC, "v1", "clusterroles", None, "ml")
    assert got is not None and got["rules"] == [rule([""], ["pods"], ["get"])]
