"""The review APIs, impersonation, and real clients (kubectl, kubernetes-asyncio, the official
client) on ``FakeAPIServer(authorization="RBAC")``.

Expected answers come from kube-apiserver's sources: the allowed reason of the RBAC
authorizer (``RBAC: allowed by %s`` with ``rule.go``'s binding describers), the reviews'
validation (``pkg/apis/authorization/validation``) and REST storages (``no namespace on
request``), the impersonation filter (``impersonation.go``: the ``impersonate`` checks, the
``requested %v without impersonating a user`` message, the groups it adds) and kubectl's own
output for ``auth can-i`` (``yes`` / ``no``, exit 0 / 1), ``auth whoami`` and errors
(``Error from server (Forbidden): <message>``).
"""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from rbac_helpers import RBAC, as_user, binding, grant, namespace, rule, user_subject
from server_helpers import bounded

from workloadbuilder.testing import FakeAPIServer

pytestmark = pytest.mark.fake_apiserver(authorization="RBAC")
KUBECTL = shutil.which("kubectl")
needs_kubectl = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")
SSAR = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
SAR = "/apis/authorization.k8s.io/v1/subjectaccessreviews"
SSRR = "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews"
WHO = "/apis/authentication.k8s.io/v1/selfsubjectreviews"
MASTERS = ("system:masters",)


def review(kind: str, spec: dict[str, Any], group: str = "authorization.k8s.io") -> dict[str, Any]:
    return {"apiVersion": f"{group}/v1", "kind": kind, "spec": spec}


def can(verb: str, resource: str, namespace: str = "", **more: str) -> dict[str, Any]:
    attrs = {"verb": verb, "resource": resource, "namespace": namespace, **more}
    return review("SelfSubjectAccessReview", {"resourceAttributes": attrs})


@bounded()
async def test_self_subject_access_reviews(fake_apiserver: FakeAPIServer) -> None:
    server = fake_apiserver
    admin = await as_user(server, "root", "POST", SSAR, can("list", "nodes"), groups=MASTERS)
    assert admin.status == 201
    assert admin.json()["status"] == {
        "allowed": True,
        "reason": 'RBAC: allowed by ClusterRoleBinding "cluster-admin" of ClusterRole '
        '"cluster-admin" to Group "system:masters"',
    }
    denied = await as_user(server, "alice", "POST", SSAR, can("list", "nodes"))
    assert denied.json()["status"] == {"allowed": False}
    path = review(
        "SelfSubjectAccessReview", {"nonResourceAttributes": {"path": "/api", "verb": "get"}}
    )
    discovery = await as_user(server, "alice", "POST", SSAR, path)
    assert discovery.json()["status"]["reason"] == (
        'RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole '
        '"system:discovery" to Group "system:authenticated"'
    )
    grant(server, "alice", "default", rule(["scheduling.k8s.io"], ["podgroups/status"], ["patch"]))
    status = can("patch", "podgroups", "default", group="scheduling.k8s.io", subresource="status")
    assert (await as_user(server, "alice", "POST", SSAR, status)).json()["status"]["allowed"]
    neither = await as_user(server, "alice", "POST", SSAR, review("SelfSubjectAccessReview", {}))
    assert neither.status == 422
    cause = neither.json()["details"]["causes"][0]
    assert cause["field"] == "spec.resourceAttributes"
    assert cause["message"].endswith(
        "exactly one of nonResourceAttributes or resourceAttributes must be specified"
    )
    # a review is never stored: a GET of the collection is not allowed
    assert (await as_user(server, "root", "GET", SSAR, groups=MASTERS)).status == 405


@bounded()
async def test_subject_access_reviews_are_for_the_privileged(fake_apiserver: FakeAPIServer) -> None:
    server = fake_apiserver
    attrs = {"verb": "get", "resource": "pods", "namespace": "default"}
    ask = review("SubjectAccessReview", {"user": "bob", "resourceAttributes": attrs})
    refused = await as_user(server, "alice", "POST", SAR, ask)
    assert refused.json()["message"] == (
        'subjectaccessreviews.authorization.k8s.io is forbidden: User "alice" cannot create '
        'resource "subjectaccessreviews" in API group "authorization.k8s.io" at the cluster scope'
    )
    assert (await as_user(server, "root", "POST", SAR, ask, groups=MASTERS)).json()["status"] == {
        "allowed": False
    }
    server.create_object(
        RBAC,
        "v1",
        "rolebindings",
        binding("bob-view", "default", "ClusterRole", "view", user_subject("bob")),
    )
    allowed = await as_user(server, "root", "POST", SAR, ask, groups=MASTERS)
    assert allowed.json()["status"] == {
        "allowed": True,
        "reason": 'RBAC: allowed by RoleBinding "bob-view/default" of ClusterRole "view" '
        'to User "bob"',
    }
    nobody = review("SubjectAccessReview", {"resourceAttributes": attrs})
    invalid = await as_user(server, "root", "POST", SAR, nobody, groups=MASTERS)
    assert invalid.status == 422
    assert invalid.json()["details"]["causes"][0]["message"] == (
        'Invalid value: "": at least one of user or group must be specified'
    )


@bounded()
async def test_self_subject_rules_reviews(fake_apiserver: FakeAPIServer) -> None:
    server = fake_apiserver
    grant(server, "alice", "default", rule(["scheduling.k8s.io"], ["podgroups"], ["get", "list"]))
    reply = await as_user(
        server, "alice", "POST", SSRR, review("SelfSubjectRulesReview", {"namespace": "default"})
    )
    status = reply.json()["status"]
    assert {
        "verbs": ["get", "list"],
        "apiGroups": ["scheduling.k8s.io"],
        "resources": ["podgroups"],
    } in status["resourceRules"]
    public = ["/healthz", "/livez", "/readyz", "/version", "/version/"]
    assert {"verbs": ["get"], "nonResourceURLs": public} in status["nonResourceRules"]
    assert status["incomplete"] is False
    other = await as_user(
        server, "alice", "POST", SSRR, review("SelfSubjectRulesReview", {"namespace": "ml"})
    )
    assert {
        "verbs": ["get", "list"],
        "apiGroups": ["scheduling.k8s.io"],
        "resources": ["podgroups"],
    } not in other.json()["status"]["resourceRules"]
    server.create_object(
        RBAC, "v1", "rolebindings",
        binding("gone", "default", "ClusterRole", "nope", user_subject("alice")),
    )  # fmt: skip
    spec = {"namespace": "default"}
    broken = await as_user(server, "alice", "POST", SSRR, review("SelfSubjectRulesReview", spec))
    assert broken.json()["status"]["incomplete"] is False  # the RBAC authorizer never says so
    assert broken.json()["status"]["evaluationError"] == (
        'clusterrole.rbac.authorization.k8s.io "nope" not found'
    )
    none = await as_user(server, "alice", "POST", SSRR, review("SelfSubjectRulesReview", {}))
    assert (none.status, none.json()["message"]) == (400, "no namespace on request")


async def _who(server: FakeAPIServer, user: str, **headers: str) -> Any:
    body = {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}
    return await as_user(server, user, "POST", WHO, body, headers=headers)


@bounded()
async def test_impersonation(fake_apiserver: FakeAPIServer) -> None:
    server = fake_apiserver
    refused = await _who(server, "alice", **{"Impersonate-User": "bob"})
    assert refused.json()["message"] == (
        'users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API '
        'group "" at the cluster scope'
    )
    assert refused.json()["details"] == {"name": "bob", "kind": "users"}
    grant(server, "alice", None, rule([""], ["users"], ["impersonate"]))
    bob = await _who(server, "alice", **{"Impersonate-User": "bob"})
    assert bob.json()["status"]["userInfo"] == {
        "username": "bob",
        "groups": ["system:authenticated"],
    }
    group = await _who(server, "alice", **{"Impersonate-User": "bob", "Impersonate-Group": "team"})
    assert group.json()["message"] == (
        'groups "team" is forbidden: User "alice" cannot impersonate resource "groups" in API '
        'group "" at the cluster scope'
    )
    alone = await _who(server, "alice", **{"Impersonate-Group": "team"})
    assert (alone.status, alone.json()["message"]) == (
        400,
        "requested [{Group  team    }] without impersonating a user",
    )
    account = await _who(server, "alice", **{"Impersonate-User": "system:serviceaccount:ml:runner"})
    assert account.json()["message"] == (
        'serviceaccounts "runner" is forbidden: User "alice" cannot impersonate resource '
        '"serviceaccounts" in API group "" in the namespace "ml"'
    )
    namespace(server, "ml")
    grant(server, "alice", "ml", rule([""], ["serviceaccounts"], ["impersonate"]))
    account = await _who(server, "alice", **{"Impersonate-User": "system:serviceaccount:ml:runner"})
    assert account.json()["status"]["userInfo"] == {
        "username": "system:serviceaccount:ml:runner",
        "groups": ["system:serviceaccounts", "system:serviceaccounts:ml", "system:authenticated"],
    }
    # the impersonated user is the one authorized
    pods = await as_user(
        server,
        "alice",
        "GET",
        "/api/v1/namespaces/ml/pods",
        headers={"Impersonate-User": "system:serviceaccount:ml:runner"},
    )
    assert pods.json()["message"] == (
        'pods is forbidden: User "system:serviceaccount:ml:runner" cannot list resource "pods" '
        'in API group "" in the namespace "ml"'
    )


@bounded(30)
async def test_kubernetes_asyncio_as_a_service_account(fake_apiserver: FakeAPIServer) -> None:
    from kubernetes_asyncio import client
    from kubernetes_asyncio.client.rest import ApiException

    server = fake_apiserver
    namespace(server, "ml")
    account = "system:serviceaccount:ml:runner"
    async with server.api_client(user=account) as api:
        with pytest.raises(ApiException) as caught:
            await client.CoreV1Api(api).list_namespaced_pod("ml")
        assert caught.value.status == 403
        server.create_object(
            RBAC,
            "v1",
            "rolebindings",
            binding(
                "run",
                "ml",
                "ClusterRole",
                "edit",
                {"kind": "ServiceAccount", "name": "runner", "namespace": "ml"},
            ),
        )
        pods = await client.CoreV1Api(api).list_namespaced_pod("ml")
        assert pods.items == []


@bounded(60)
async def test_the_official_client_reads_the_kubeconfig(fake_apiserver: FakeAPIServer) -> None:
    from kubernetes import client, config

    def scenario() -> list[str]:
        api = config.new_client_from_config(config_file=str(fake_apiserver.kubeconfig_path))
        with api:
            roles = client.RbacAuthorizationV1Api(api).list_cluster_role()
            return [r.metadata.name for r in roles.items]

    names = await asyncio.to_thread(scenario)
    assert "cluster-admin" in names and "view" in names
    assert fake_apiserver.secure_url.startswith("https://127.0.0.1:")


async def kubectl(server: FakeAPIServer, tmp: Path, *args: str) -> tuple[int, str]:
    assert KUBECTL is not None
    proc = await asyncio.create_subprocess_exec(
        KUBECTL, f"--kubeconfig={server.kubeconfig_path}", f"--cache-dir={tmp / 'cache'}", *args,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "HOME": str(tmp)},
    )  # fmt: skip
    out, err = await proc.communicate()
    assert proc.returncode is not None
    return proc.returncode, out.decode() + err.decode()


@needs_kubectl
@bounded(60)
async def test_kubectl_auth(fake_apiserver: FakeAPIServer, tmp_path: Path) -> None:
    server = fake_apiserver
    grant(server, "alice", "default", rule(["scheduling.k8s.io"], ["podgroups"], ["get", "list"]))
    grant(server, "alice", None, rule([""], ["users"], ["impersonate"]))
    assert await kubectl(
        server, tmp_path, "auth", "can-i", "list", "podgroups.scheduling.k8s.io", "--as=alice"
    ) == (0, "yes\n")
    code, out = await kubectl(
        server, tmp_path, "auth", "can-i", "delete", "podgroups.scheduling.k8s.io", "--as=alice"
    )
    assert (code, out.splitlines()[0]) == (1, "no")
    code, out = await kubectl(server, tmp_path, "auth", "can-i", "--list", "--as=alice")
    assert code == 0
    rows = [line.split() for line in out.splitlines()]
    assert ["podgroups.scheduling.k8s.io", "[]", "[]", "[get", "list]"] in rows
    code, out = await kubectl(
        server, tmp_path, "auth", "whoami", "--as=system:serviceaccount:ml:runner"
    )
    assert code == 0
    assert out.split() == [
        "ATTRIBUTE",
        "VALUE",
        "Username",
        "system:serviceaccount:ml:runner",
        "Groups",
        "[system:serviceaccounts",
        "system:serviceaccounts:ml",
        "system:authenticated]",
    ]
    code, out = await kubectl(server, tmp_path, "get", "pods", "--as=alice")
    assert (code, out) == (
        1,
        'Error from server (Forbidden): pods is forbidden: User "alice" cannot list resource '
        '"pods" in API group "" in the namespace "default"\n',
    )


@needs_kubectl
@bounded(60)
async def test_kubectl_creates_roles_and_bindings(
    fake_apiserver: FakeAPIServer, tmp_path: Path
) -> None:
    server = fake_apiserver
    code, out = await kubectl(
        server,
        tmp_path,
        "create",
        "role",
        "pg-reader",
        "--verb=get,list",
        "--resource=podgroups.scheduling.k8s.io",
    )
    assert (code, out) == (0, "role.rbac.authorization.k8s.io/pg-reader created\n")
    code, out = await kubectl(
        server, tmp_path, "create", "rolebinding", "alice-reads", "--role=pg-reader", "--user=alice"
    )
    assert (code, out) == (0, "rolebinding.rbac.authorization.k8s.io/alice-reads created\n")
    stored = server.get_object(RBAC, "v1", "roles", "default", "pg-reader")
    assert stored is not None
    assert stored["rules"] == [
        {"verbs": ["get", "list"], "apiGroups": ["scheduling.k8s.io"], "resources": ["podgroups"]}
    ]
    bound = server.get_object(RBAC, "v1", "rolebindings", "default", "alice-reads")
    assert bound is not None
    assert bound["subjects"] == [{"kind": "User", "apiGroup": RBAC, "name": "alice"}]
    assert await kubectl(
        server, tmp_path, "auth", "can-i", "list", "podgroups.scheduling.k8s.io", "--as=alice"
    ) == (0, "yes\n")
    # the RoleBinding printer's columns, as kubectl shows them from a cluster
    code, out = await kubectl(server, tmp_path, "get", "rolebindings", "-o", "wide")
    assert code == 0
    rows = [line.split() for line in out.splitlines()]
    assert rows[0] == ["NAME", "ROLE", "AGE", "USERS", "GROUPS", "SERVICEACCOUNTS"]
    assert rows[1][:2] == ["alice-reads", "Role/pg-reader"] and rows[1][3:] == ["alice"]


def test_the_standalone_server_authorizes_with_rbac() -> None:
    from kubernetes import client, config
    from kubernetes.client.rest import ApiException
    from server_process import server_process

    with server_process("--authorization-mode", "RBAC", "-n", "ml") as kubeconfig:
        written = yaml.safe_load(kubeconfig.read_text())
        assert written["clusters"][0]["cluster"]["server"].startswith("https://127.0.0.1:")
        api = config.new_client_from_config(config_file=str(kubeconfig))
        try:
            roles = client.RbacAuthorizationV1Api(api).list_cluster_role().items
            settings = client.Configuration(host=api.configuration.host)
            settings.ssl_ca_cert = api.configuration.ssl_ca_cert  # no token: anonymous
            anonymous = client.ApiClient(settings)
            with pytest.raises(ApiException) as refused:
                client.CoreV1Api(anonymous).list_namespace()
            anonymous.close()
        finally:
            api.close()
    assert "cluster-admin" in {r.metadata.name for r in roles}
    assert refused.value.status == 403


@bounded(30)
async def test_the_sdk_reads_the_kubeconfig(fake_apiserver: FakeAPIServer) -> None:
    from kubernetes_asyncio import client

    from workloadbuilder import aio

    api = await aio.new_client(fake_apiserver.kubeconfig_path)
    async with api:
        roles = await client.RbacAuthorizationV1Api(api).list_cluster_role()
    assert "system:basic-user" in {r.metadata.name for r in roles.items}


@bounded(30)
async def test_kube_cluster_runs_on_an_rbac_server(kube_cluster: Any) -> None:
    from kubernetes_asyncio import client

    pods = await client.CoreV1Api(kube_cluster.api).list_namespaced_pod(kube_cluster.namespace)
    assert pods.items == []
    assert kube_cluster.server.authorization == "RBAC"
