"""Escalation prevention, validation and defaults of the RBAC kinds on the RBAC server.

Expected answers come from kubernetes' sources: ``ConfirmNoEscalation``'s message
(``user %q (groups=%q) is attempting to grant RBAC permissions not currently held:\\n%s``,
the missing rules compacted by ``CompactRules``, printed by ``CompactString``, sorted) in
``pkg/registry/rbac/validation/rule.go``; ``Covers`` (``k8s.io/component-helpers``); the
``escalate`` and ``bind`` checks and the aggregationRule message of ``pkg/registry/rbac``'s
policy-based storages; ``pkg/apis/rbac/validation``'s field errors and
``pkg/apis/rbac/v1/defaults.go``.
"""

from __future__ import annotations

import pytest
from rbac_helpers import (
    RBAC,
    RBAC_PATH,
    as_user,
    binding,
    grant,
    namespace,
    role,
    rule,
    user_subject,
)
from server_helpers import bounded

from workloadbuilder.testing import FakeAPIServer

pytestmark = pytest.mark.fake_apiserver(authorization="RBAC")
SCHED = "scheduling.k8s.io"
ROLES = f"{RBAC_PATH}/namespaces/ml/roles"
BINDINGS = f"{RBAC_PATH}/namespaces/ml/rolebindings"
HEAD = (
    'user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions '
    "not currently held:\n"
)


def _admin_of_ml(server: FakeAPIServer) -> None:
    """alice administers namespace ml through the bootstrap ``admin`` ClusterRole."""
    namespace(server, "ml")
    server.create_object(
        RBAC,
        "v1",
        "rolebindings",
        binding("alice-admin", "ml", "ClusterRole", "admin", user_subject("alice")),
    )


@bounded()
async def test_a_role_may_grant_only_what_its_author_holds(fake_apiserver: FakeAPIServer) -> None:
    server = fake_apiserver
    _admin_of_ml(server)
    held = role("pods", "ml", rule([""], ["pods"], ["get", "list"]))
    assert (await as_user(server, "alice", "POST", ROLES, held)).status == 201
    wider = role(
        "wider",
        "ml",
        rule([""], ["nodes"], ["list"]),
        rule([SCHED], ["podgroups"], ["get", "list"]),
        rule([SCHED], ["podgroups/status"], ["patch"]),
    )
    reply = await as_user(server, "alice", "POST", ROLES, wider)
    assert reply.status == 403
    assert reply.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": 'roles.rbac.authorization.k8s.io "wider" is forbidden: '
        + HEAD
        + '{APIGroups:[""], Resources:["nodes"], Verbs:["list"]}\n'
        + '{APIGroups:["scheduling.k8s.io"], Resources:["podgroups"], Verbs:["get" "list"]}\n'
        + '{APIGroups:["scheduling.k8s.io"], Resources:["podgroups/status"], Verbs:["patch"]}',
        "reason": "Forbidden",
        "details": {"name": "wider", "group": RBAC, "kind": "roles"},
        "code": 403,
    }
    assert server.get_object(RBAC, "v1", "roles", "ml", "wider") is None
    # an update is checked the same way, a patch and an apply included
    patch = [{"op": "add", "path": "/rules/-", "value": rule([""], ["nodes"], ["get"])}]
    patched = await as_user(
        server, "alice", "PATCH", f"{ROLES}/pods", patch, content_type="application/json-patch+json"
    )
    assert patched.json()["message"].endswith(
        '{APIGroups:[""], Resources:["nodes"], Verbs:["get"]}'
    )
    dry = await as_user(server, "alice", "POST", ROLES, wider, params={"dryRun": "All"})
    assert dry.status == 403


@bounded()
async def test_escalate_lets_a_role_grant_more(fake_apiserver: FakeAPIServer) -> None:
    server = fake_apiserver
    _admin_of_ml(server)
    grant(server, "alice", "ml", rule([RBAC], ["roles"], ["escalate"]))
    wider = role("wider", "ml", rule([""], ["nodes"], ["list"]))
    assert (await as_user(server, "alice", "POST", ROLES, wider)).status == 201


@bounded()
async def test_a_binding_needs_bind_or_the_roles_permissions(fake_apiserver: FakeAPIServer) -> None:
    server = fake_apiserver
    _admin_of_ml(server)
    to_admin = binding("b", "ml", "ClusterRole", "cluster-admin", user_subject("bob"))
    reply = await as_user(server, "alice", "POST", BINDINGS, to_admin)
    assert reply.status == 403
    assert reply.json()["message"] == (
        'rolebindings.rbac.authorization.k8s.io "b" is forbidden: '
        + HEAD
        + '{APIGroups:["*"], Resources:["*"], Verbs:["*"]}\n{NonResourceURLs:["*"], Verbs:["*"]}'
    )
    assert reply.json()["details"] == {"name": "b", "group": RBAC, "kind": "rolebindings"}
    # binding a role whose permissions alice holds needs no bind
    to_view = binding("v", "ml", "ClusterRole", "view", user_subject("bob"))
    assert (await as_user(server, "alice", "POST", BINDINGS, to_view)).status == 201
    # bind on that one ClusterRole, in this namespace, is enough
    grant(
        server,
        "alice",
        "ml",
        rule([RBAC], ["clusterroles"], ["bind"], resourceNames=["cluster-admin"]),
    )
    assert (await as_user(server, "alice", "POST", BINDINGS, to_admin)).status == 201
    missing = binding("m", "ml", "Role", "nope", user_subject("bob"))
    reply = await as_user(server, "alice", "POST", BINDINGS, missing)
    assert reply.status == 404
    assert reply.json()["message"] == 'roles.rbac.authorization.k8s.io "nope" not found'


@bounded()
async def test_an_aggregation_rule_needs_every_permission(fake_apiserver: FakeAPIServer) -> None:
    server = fake_apiserver
    grant(server, "alice", None, rule([RBAC], ["clusterroles"], ["create"]))
    aggregated = role(
        "agg", None, aggregationRule={"clusterRoleSelectors": [{"matchLabels": {"x": "y"}}]}
    )
    reply = await as_user(server, "alice", "POST", f"{RBAC_PATH}/clusterroles", aggregated)
    assert reply.status == 403
    assert reply.json()["message"] == (
        'clusterroles.rbac.authorization.k8s.io "agg" is forbidden: must have cluster-admin '
        "privileges to use the aggregationRule"
    )
    path = f"{RBAC_PATH}/clusterroles"
    admin = await as_user(server, "root", "POST", path, aggregated, groups=("system:masters",))
    assert admin.status == 201


@bounded()
async def test_the_rbac_kinds_are_validated(fake_apiserver: FakeAPIServer) -> None:
    server = fake_apiserver
    namespace(server, "ml")
    cases = [
        (
            ROLES,
            role("r", "ml", {"apiGroups": [""], "resources": ["pods"]}),
            "rules[0].verbs",
            'Role.rbac.authorization.k8s.io "r" is invalid: rules[0].verbs: Required value: '
            "verbs must contain at least one value",
        ),
        (
            ROLES,
            role("r", "ml", {"nonResourceURLs": ["/x"], "verbs": ["get"]}),
            "rules[0].nonResourceURLs",
            'Role.rbac.authorization.k8s.io "r" is invalid: rules[0].nonResourceURLs: Invalid '
            'value: ["/x"]: namespaced rules cannot apply to non-resource URLs',
        ),
        (
            f"{RBAC_PATH}/clusterroles",
            role("c", None, {"verbs": ["get"]}),
            "rules[0].apiGroups",
            'ClusterRole.rbac.authorization.k8s.io "c" is invalid: [rules[0].apiGroups: Required '
            "value: resource rules must supply at least one api group, rules[0].resources: "
            "Required value: resource rules must supply at least one resource]",
        ),
        (
            BINDINGS,
            binding("b", "ml", "Foo", "r", user_subject("bob")),
            "roleRef.kind",
            'RoleBinding.rbac.authorization.k8s.io "b" is invalid: roleRef.kind: Unsupported '
            'value: "Foo": supported values: "Role", "ClusterRole"',
        ),
        (
            f"{RBAC_PATH}/clusterrolebindings",
            binding("b", None, "ClusterRole", "view", {"kind": "ServiceAccount", "name": "sa"}),
            "subjects[0].namespace",
            'ClusterRoleBinding.rbac.authorization.k8s.io "b" is invalid: '
            "subjects[0].namespace: Required value",
        ),
    ]
    for path, obj, field, message in cases:
        reply = await as_user(server, "admin", "POST", path, obj, groups=("system:masters",))
        assert reply.status == 422, reply.text
        assert reply.json()["message"] == message
        assert reply.json()["details"]["causes"][0]["field"] == field


@bounded()
async def test_bindings_are_defaulted_and_keep_their_role(fake_apiserver: FakeAPIServer) -> None:
    server = fake_apiserver
    namespace(server, "ml")
    bare = binding("b", "ml", "ClusterRole", "view", {"kind": "User", "name": "bob"})
    del bare["roleRef"]["apiGroup"]
    created = server.create_object(RBAC, "v1", "rolebindings", bare)
    assert created["roleRef"]["apiGroup"] == RBAC
    assert (
        created["subjects"] == [{"kind": "User", "apiGroup": RBAC, "name": "bob"}]
        or created["subjects"][0]["apiGroup"] == RBAC
    )
    assert "generation" not in created["metadata"]
    changed = {**created, "roleRef": {"apiGroup": RBAC, "kind": "ClusterRole", "name": "edit"}}
    reply = await as_user(
        server, "admin", "PUT", f"{BINDINGS}/b", changed, groups=("system:masters",)
    )
    assert reply.status == 422
    cause = reply.json()["details"]["causes"][0]
    assert (cause["field"], cause["reason"]) == ("roleRef", "FieldValueInvalid")
    assert cause["message"].endswith("cannot change roleRef")
