"""Authentication and the RBAC authorizer of ``FakeAPIServer(authorization="RBAC")``.

Expected answers come from kube-apiserver's sources: the 401 body of
``apierrors.NewUnauthorized("Unauthorized")`` (``pkg/endpoints/filters/authentication.go``),
the 403 of ``responsewriters.ForbiddenStatusError`` (``forbiddenMessage`` + ``NewForbidden``:
``User %q cannot %s resource %q in API group %q in the namespace %q`` / ``at the cluster
scope`` / ``cannot %s path %q``), the verbs of ``RequestInfoFactory`` (``requestinfo.go``), the
rule matching of ``RuleAllows`` (``pkg/apis/rbac/v1/evaluation_helpers.go``), the subject
matching of ``appliesToUser`` (``pkg/registry/rbac/validation/rule.go``), the groups of
``serviceaccount.MakeGroupNames``, and the bootstrap policy (``bootstrappolicy/testdata``).
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from rbac_helpers import RBAC, as_user, bearer, binding, grant, namespace, role, rule, user_subject
from server_helpers import PG_PATH, bounded, call, pod, pod_group

from workloadbuilder.testing import FakeAPIServer

pytestmark = pytest.mark.fake_apiserver(authorization="RBAC")
SCHED = "scheduling.k8s.io"
PODS = "/api/v1/namespaces/default/pods"


def forbidden(message: str, **details: str) -> dict[str, Any]:
    """The Status body of ``apierrors.NewForbidden``."""
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": "Forbidden",
        "details": details,
        "code": 403,
    }


@bounded()
async def test_an_unknown_token_is_401_unauthorized(fake_apiserver: FakeAPIServer) -> None:
    reply = await call(fake_apiserver, "GET", PODS, headers=bearer("no-such-token"))
    assert reply.status == 401
    assert "no-such-token" not in reply.text
    assert reply.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": "Unauthorized",
        "reason": "Unauthorized",
        "code": 401,
    }


@bounded()
async def test_the_denials_word_for_word(fake_apiserver: FakeAPIServer) -> None:
    path = "/apis/scheduling.k8s.io/v1beta1/namespaces/ml/podgroups/pg/status"
    reply = await as_user(
        fake_apiserver, "alice", "PATCH", path, {}, content_type="application/merge-patch+json"
    )
    assert reply.status == 403
    assert reply.json() == forbidden(
        'podgroups.scheduling.k8s.io "pg" is forbidden: User "alice" cannot patch resource '
        '"podgroups/status" in API group "scheduling.k8s.io" in the namespace "ml"',
        name="pg",
        group="scheduling.k8s.io",
        kind="podgroups",
    )
    reply = await as_user(fake_apiserver, "alice", "GET", "/api/v1/nodes")
    assert reply.json() == forbidden(
        'nodes is forbidden: User "alice" cannot list resource "nodes" in API group "" at the '
        "cluster scope",
        kind="nodes",
    )


@bounded()
async def test_anonymous_reads_only_the_public_info(fake_apiserver: FakeAPIServer) -> None:
    # system:public-info-viewer is bound to system:unauthenticated; discovery is not
    assert (await call(fake_apiserver, "GET", "/version")).status == 200
    assert (await call(fake_apiserver, "GET", "/healthz")).status == 200
    reply = await call(fake_apiserver, "GET", "/api")
    assert reply.json() == forbidden('forbidden: User "system:anonymous" cannot get path "/api"')
    reply = await call(fake_apiserver, "GET", PODS)
    assert reply.json()["message"] == (
        'pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group '
        '"" in the namespace "default"'
    )
    # a binding can grant the anonymous user too
    grant(fake_apiserver, "system:anonymous", "default", rule([""], ["pods"], ["list"]))
    assert (await call(fake_apiserver, "GET", PODS)).status == 200


@bounded()
async def test_every_authenticated_user_may_discover(fake_apiserver: FakeAPIServer) -> None:
    for path in ("/api", "/apis", "/api/v1", "/apis/scheduling.k8s.io/v1beta1", "/openapi/v2"):
        reply = await as_user(fake_apiserver, "alice", "GET", path)
        assert reply.status == 200, path
    reply = await as_user(fake_apiserver, "alice", "GET", "/metrics")
    assert reply.json()["message"] == 'forbidden: User "alice" cannot get path "/metrics"'


async def _who(server: FakeAPIServer, user: str, **headers: str) -> dict[str, Any]:
    body = {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}
    path = "/apis/authentication.k8s.io/v1/selfsubjectreviews"
    reply = await as_user(server, user, "POST", path, body, headers=headers)
    assert reply.status == 201, reply.text
    user_info: dict[str, Any] = reply.json()["status"]["userInfo"]
    return user_info


@bounded()
async def test_tokens_carry_the_groups_of_real_tokens(fake_apiserver: FakeAPIServer) -> None:
    assert await _who(fake_apiserver, "alice") == {
        "username": "alice",
        "groups": ["system:authenticated"],
    }
    assert await _who(fake_apiserver, "system:serviceaccount:ml:runner") == {
        "username": "system:serviceaccount:ml:runner",
        "groups": ["system:serviceaccounts", "system:serviceaccounts:ml", "system:authenticated"],
    }
    token = fake_apiserver.token_for("bob", ["team"])
    assert token == fake_apiserver.token_for("bob", ["team"])
    assert token != fake_apiserver.token_for("bob")


@bounded()
async def test_verbs_as_the_request_info_factory_derives_them(
    fake_apiserver: FakeAPIServer,
) -> None:
    server = fake_apiserver
    grant(server, "alice", "default", rule([""], ["pods"], ["watch"]))
    watch = await as_user(
        server, "alice", "GET", PODS, params={"watch": "true", "timeoutSeconds": "1"}
    )
    assert watch.status == 200
    listing = await as_user(server, "alice", "GET", PODS)
    assert 'cannot list resource "pods"' in listing.json()["message"]
    gone = await as_user(server, "alice", "DELETE", PODS)
    assert gone.json()["message"] == (
        'pods is forbidden: User "alice" cannot deletecollection resource "pods" in API group '
        '"" in the namespace "default"'
    )
    # server-side apply is a patch, a dry run needs the verb as much as a real write
    apply = await as_user(
        server, "alice", "PATCH", f"{PODS}/p", pod("p"),
        content_type="application/apply-patch+yaml", params={"fieldManager": "m"},
    )  # fmt: skip
    assert apply.json()["details"] == {"name": "p", "kind": "pods"}
    assert 'cannot patch resource "pods"' in apply.json()["message"]
    dry = await as_user(server, "alice", "POST", PODS, pod("p"), params={"dryRun": "All"})
    assert 'cannot create resource "pods"' in dry.json()["message"]
    grant(server, "alice", "default", rule([""], ["pods"], ["create", "patch"]))
    assert (
        await as_user(server, "alice", "POST", PODS, pod("p"), params={"dryRun": "All"})
    ).status == 201
    assert server.get_object("", "v1", "pods", "default", "p") is None


@bounded()
async def test_resource_names_never_grant_a_collection(fake_apiserver: FakeAPIServer) -> None:
    server = fake_apiserver
    for name in ("p", "q"):
        server.create_object(
            "", "v1", "pods", {**pod(name), "metadata": {"name": name, "namespace": "default"}}
        )
    grant(
        server,
        "alice",
        "default",
        rule([""], ["pods"], ["get", "list", "create"], resourceNames=["p"]),
    )
    assert (await as_user(server, "alice", "GET", f"{PODS}/p")).status == 200
    other = await as_user(server, "alice", "GET", f"{PODS}/q")
    assert other.json()["details"] == {"name": "q", "kind": "pods"}
    assert (await as_user(server, "alice", "GET", PODS)).status == 403
    assert (await as_user(server, "alice", "POST", PODS, pod("p2"))).status == 403
    # a list whose field selector pins the name is a request for that object
    one = await as_user(server, "alice", "GET", PODS, params={"fieldSelector": "metadata.name=p"})
    assert one.status == 200
    assert [i["metadata"]["name"] for i in one.json()["items"]] == ["p"]


@bounded()
async def test_subresources_are_their_own_resources(fake_apiserver: FakeAPIServer) -> None:
    server = fake_apiserver
    server.create_object(SCHED, "v1beta1", "podgroups", pod_group("pg"))
    grant(server, "alice", "default", rule([SCHED], ["podgroups/status"], ["patch"]))
    status = {"status": {"conditions": []}}
    merge = "application/merge-patch+json"
    assert (
        await as_user(server, "alice", "PATCH", f"{PG_PATH}/pg/status", status, content_type=merge)
    ).status == 200
    main = await as_user(
        server,
        "alice",
        "PATCH",
        f"{PG_PATH}/pg",
        {"metadata": {"labels": {"a": "b"}}},
        content_type=merge,
    )
    assert main.json()["message"] == (
        'podgroups.scheduling.k8s.io "pg" is forbidden: User "alice" cannot patch resource '
        '"podgroups" in API group "scheduling.k8s.io" in the namespace "default"'
    )
    # "*/status" matches the status of every resource in the rule's groups
    grant(server, "bob", "default", rule(["*"], ["*/status"], ["get"]))
    assert (await as_user(server, "bob", "GET", f"{PG_PATH}/pg/status")).status == 200
    assert (await as_user(server, "bob", "GET", f"{PG_PATH}/pg")).status == 403


@bounded()
async def test_pod_binding_is_a_subresource_to_grant(fake_apiserver: FakeAPIServer) -> None:
    server = fake_apiserver
    server.create_object(
        "", "v1", "pods", {**pod("p"), "metadata": {"name": "p", "namespace": "default"}}
    )
    target = {
        "apiVersion": "v1",
        "kind": "Binding",
        "metadata": {"name": "p"},
        "target": {"kind": "Node", "name": "n1"},
    }
    refused = await as_user(server, "sched", "POST", f"{PODS}/p/binding", target)
    assert refused.json()["message"] == (
        'pods "p" is forbidden: User "sched" cannot create resource "pods/binding" in API group '
        '"" in the namespace "default"'
    )
    grant(server, "sched", "default", rule([""], ["pods/binding"], ["create"]))
    assert (await as_user(server, "sched", "POST", f"{PODS}/p/binding", target)).status == 201


@bounded()
async def test_a_role_binding_grants_in_its_namespace_only(fake_apiserver: FakeAPIServer) -> None:
    server = fake_apiserver
    namespace(server, "ml")
    reader = role("pod-reader", None, rule([""], ["pods"], ["list"]))
    server.create_object(RBAC, "v1", "clusterroles", reader)
    server.create_object(
        RBAC, "v1", "rolebindings",
        binding("read", "ml", "ClusterRole", "pod-reader", user_subject("alice")),
    )  # fmt: skip
    assert (await as_user(server, "alice", "GET", "/api/v1/namespaces/ml/pods")).status == 200
    assert (await as_user(server, "alice", "GET", PODS)).status == 403
    everywhere = await as_user(server, "alice", "GET", "/api/v1/pods")
    assert everywhere.json()["message"] == (
        'pods is forbidden: User "alice" cannot list resource "pods" in API group "" at the '
        "cluster scope"
    )


@bounded()
async def test_group_and_service_account_subjects(fake_apiserver: FakeAPIServer) -> None:
    server = fake_apiserver
    namespace(server, "ml")
    server.create_object(RBAC, "v1", "roles", role("r", "ml", rule([""], ["pods"], ["list"])))
    subjects = (
        {"kind": "Group", "name": "team", "apiGroup": RBAC},
        {"kind": "ServiceAccount", "name": "runner"},  # namespace: the binding's
    )
    server.create_object(RBAC, "v1", "rolebindings", binding("b", "ml", "Role", "r", *subjects))
    path = "/api/v1/namespaces/ml/pods"
    assert (await as_user(server, "carol", "GET", path, groups=("team",))).status == 200
    assert (await as_user(server, "carol", "GET", path)).status == 403
    assert (await as_user(server, "system:serviceaccount:ml:runner", "GET", path)).status == 200
    assert (await as_user(server, "system:serviceaccount:other:runner", "GET", path)).status == 403
    # every service account, through the system:serviceaccounts:NS group
    group = {"kind": "Group", "name": "system:serviceaccounts:ml", "apiGroup": RBAC}
    server.create_object(RBAC, "v1", "rolebindings", binding("all", "ml", "Role", "r", group))
    assert (await as_user(server, "system:serviceaccount:ml:other", "GET", path)).status == 200


@bounded()
async def test_a_missing_role_is_named_in_the_reason(fake_apiserver: FakeAPIServer) -> None:
    server = fake_apiserver
    server.create_object(
        RBAC, "v1", "rolebindings",
        binding("b", "default", "ClusterRole", "nope", user_subject("alice")),
    )  # fmt: skip
    reply = await as_user(server, "alice", "GET", PODS)
    assert reply.json()["message"] == (
        'pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the '
        'namespace "default": RBAC: clusterrole.rbac.authorization.k8s.io "nope" not found'
    )


@bounded()
async def test_bootstrap_roles_aggregate(fake_apiserver: FakeAPIServer) -> None:
    server = fake_apiserver
    names = {r["metadata"]["name"] for r in server.list_objects(RBAC, "v1", "clusterroles")}
    assert {
        "cluster-admin",
        "admin",
        "edit",
        "view",
        "system:discovery",
        "system:basic-user",
        "system:public-info-viewer",
    } <= names
    view = server.get_object(RBAC, "v1", "clusterroles", None, "view")
    assert view is not None
    assert (
        rule(
            ["batch"],
            ["cronjobs", "cronjobs/status", "jobs", "jobs/status"],
            ["get", "list", "watch"],
        )
        in view["rules"]
    )
    server.create_object(
        RBAC,
        "v1",
        "rolebindings",
        binding("v", "default", "ClusterRole", "view", user_subject("alice")),
    )
    jobs = "/apis/batch/v1/namespaces/default/jobs"
    assert (await as_user(server, "alice", "GET", jobs)).status == 200
    assert (await as_user(server, "alice", "GET", PG_PATH)).status == 403  # not in view
    # a new role labelled to aggregate into view reaches view, edit and admin
    extra = role("pg-view", None, rule([SCHED], ["podgroups"], ["get", "list", "watch"]))
    extra["metadata"]["labels"] = {"rbac.authorization.k8s.io/aggregate-to-view": "true"}
    server.create_object(RBAC, "v1", "clusterroles", extra)
    assert (await as_user(server, "alice", "GET", PG_PATH)).status == 200
    for name in ("edit", "admin"):
        aggregated = server.get_object(RBAC, "v1", "clusterroles", None, name)
        assert aggregated is not None
        assert extra["rules"][0] in aggregated["rules"], name


@bounded()
async def test_custom_resources_are_authorized(fake_apiserver: FakeAPIServer) -> None:
    server = fake_apiserver
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "trainings.ml.example.com"},
        "spec": {
            "group": "ml.example.com",
            "names": {"plural": "trainings", "singular": "training", "kind": "Training"},
            "scope": "Namespaced",
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "x-kubernetes-preserve-unknown-fields": True,
                        }
                    },
                }
            ],
        },
    }
    server.create_object("apiextensions.k8s.io", "v1", "customresourcedefinitions", crd)
    path = "/apis/ml.example.com/v1/namespaces/default/trainings"
    reply = await as_user(server, "alice", "GET", path)
    assert reply.json()["message"] == (
        'trainings.ml.example.com is forbidden: User "alice" cannot list resource "trainings" '
        'in API group "ml.example.com" in the namespace "default"'
    )
    grant(server, "alice", "default", rule(["ml.example.com"], ["trainings"], ["list"]))
    assert (await as_user(server, "alice", "GET", path)).status == 200


@bounded()
async def test_the_kubeconfig_and_api_client_are_an_administrators(
    fake_apiserver: FakeAPIServer,
) -> None:
    from kubernetes_asyncio import client
    from kubernetes_asyncio.client.rest import ApiException

    async with fake_apiserver.api_client() as api:
        nodes = await client.CoreV1Api(api).list_node()
        assert nodes.items == []
    async with fake_apiserver.api_client(user="alice") as api:
        with pytest.raises(ApiException) as caught:
            await client.CoreV1Api(api).list_node()
    assert caught.value.status == 403
    text = fake_apiserver.kubeconfig_path.read_text()
    token = text.split("token: ")[1].split()[0]
    assert (await call(fake_apiserver, "GET", "/api/v1/nodes", headers=bearer(token))).status == 200


@pytest.mark.fake_apiserver(authorization="AlwaysAllow")
@bounded()
async def test_always_allow_lets_every_request_in(fake_apiserver: FakeAPIServer) -> None:
    assert (
        await call(fake_apiserver, "GET", "/api/v1/nodes", headers=bearer("anything"))
    ).status == 200
    assert fake_apiserver.serves(RBAC, "v1", "roles")  # in every mode, as by kube-apiserver


def test_an_unknown_authorization_mode_is_refused() -> None:
    with pytest.raises(
        ValueError, match="unknown authorization 'Node': use one of AlwaysAllow, RBAC"
    ):
        FakeAPIServer(authorization="Node")


@bounded(30)
async def test_the_gang_simulator_acts_as_the_administrator(
    fake_apiserver: FakeAPIServer, gang_simulator: Any
) -> None:
    fake_apiserver.create_object(
        "", "v1", "pods", {**pod("p"), "metadata": {"name": "p", "namespace": "default"}}
    )
    await gang_simulator.step()
    placed = fake_apiserver.get_object("", "v1", "pods", "default", "p")
    assert placed is not None and placed["spec"].get("nodeName")
    assert fake_apiserver.admin_headers["Authorization"].startswith("Bearer ")


@pytest.mark.fake_apiserver(authorization="RBAC", group_versions=["v1"])
@bounded()
async def test_an_rbac_server_always_serves_rbac(fake_apiserver: FakeAPIServer) -> None:
    assert fake_apiserver.serves(RBAC, "v1", "clusterrolebindings")
    assert not fake_apiserver.serves(SCHED, "v1beta1", "podgroups")
    async with fake_apiserver.api_client() as api:
        from kubernetes_asyncio import client

        assert (await client.CoreV1Api(api).list_namespace()).items


@bounded()
async def test_a_deleted_binding_or_role_grants_nothing(fake_apiserver: FakeAPIServer) -> None:
    server = fake_apiserver
    grant(server, "alice", "default", rule([""], ["pods"], ["list"]))
    assert (await as_user(server, "alice", "GET", PODS)).status == 200
    (bound,) = [
        b for b in server.list_objects(RBAC, "v1", "rolebindings", "default")
        if b["subjects"][0]["name"] == "alice"
    ]  # fmt: skip
    server.delete_object(RBAC, "v1", "roles", "default", bound["roleRef"]["name"])
    refused = await as_user(server, "alice", "GET", PODS)
    assert refused.json()["message"].endswith(
        f'RBAC: role.rbac.authorization.k8s.io "{bound["roleRef"]["name"]}" not found'
    )
    server.delete_object(RBAC, "v1", "rolebindings", "default", bound["metadata"]["name"])
    assert (await as_user(server, "alice", "GET", PODS)).json()["message"] == (
        'pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the '
        'namespace "default"'
    )


async def test_a_kubeconfig_for_an_identity_carries_its_token() -> None:
    async with FakeAPIServer(authorization="RBAC") as server:
        path = server.kubeconfig_for("system:serviceaccount:ml:trainer")
        written = yaml.safe_load(path.read_text())
        token = written["users"][0]["user"]["token"]
        assert token == server.token_for("system:serviceaccount:ml:trainer")
        assert written["clusters"][0]["cluster"]["server"] == server.secure_url
        assert path.parent == server.kubeconfig_path.parent
    assert not path.exists()  # removed with the server's kubeconfig
    async with FakeAPIServer() as default:
        with pytest.raises(RuntimeError, match="needs FakeAPIServer\\(authorization='RBAC'\\)"):
            default.kubeconfig_for("alice")
