"""Admission webhooks called by FakeAPIServer as kube-apiserver calls them.

Expected texts come from upstream's sources: ``k8s.io/apiserver``
``pkg/admission/plugin/webhook/errors/statuserror.go`` (``ToStatusErr``: ``admission webhook
"x" denied the request: <message>``, the webhook's code kept when at least 400, ``... without
explanation``), ``pkg/util/webhook/error.go`` (``failed calling webhook "x": <reason>``),
``validating/dispatcher.go`` and ``mutating/dispatcher.go`` (``failed to call webhook: <Post
error>``, ``apierrors.NewInternalError`` when failing closed, ``NewDryRunUnsupportedErr``),
``request/admissionreview.go`` (the request's fields) and kubernetes
``pkg/apis/admissionregistration/v1/defaults.go`` and ``validation/validation.go``.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from server_helpers import SCHED, bounded, call, pod, pod_group
from test_server_kubectl import kubectl, needs_kubectl
from webhook_helpers import WebhookServer, allow, configuration, json_patch, webhook

from workloadbuilder.testing import FakeAPIServer
from workloadbuilder.testing.common.errors import APIStatusError

ADM = "admissionregistration.k8s.io"
VALIDATING = "ValidatingWebhookConfiguration"
MUTATING = "MutatingWebhookConfiguration"
PLURALS = {VALIDATING: "validatingwebhookconfigurations", MUTATING: "mutatingwebhookconfigurations"}


@pytest.fixture(scope="module")
def hooks(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebhookServer]:
    """One webhook server for the module; its certificate also names ``hook.system.svc``."""
    with WebhookServer(tmp_path_factory.mktemp("webhook"), ["hook.system.svc"]) as server:
        yield server


def install(server: FakeAPIServer, kind: str, name: str, *webhooks: dict[str, Any]) -> None:
    server.create_object(ADM, "v1", PLURALS[kind], configuration(kind, name, *webhooks))


def create_pod(server: FakeAPIServer, name: str = "p", **meta: Any) -> dict[str, Any]:
    body = pod(name, namespace="default", **meta)
    return server.create_object("", "v1", "pods", body)


def create_under(server: FakeAPIServer, policy: str) -> dict[str, Any] | None:
    """Create a pod: under ``Ignore`` it is created (``None``); under ``Fail`` it is refused
    with a 500 ``InternalError``, whose Status is returned."""
    if policy == "Ignore":
        assert create_pod(server)["metadata"]["name"] == "p"
        return None
    with pytest.raises(APIStatusError) as refused:
        create_pod(server)
    assert (refused.value.code, refused.value.reason) == (500, "InternalError")
    return refused.value.status


def closed_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# -- the configurations ----------------------------------------------------------------------


def test_configurations_get_upstreams_defaults() -> None:
    """``SetDefaults_ValidatingWebhook`` / ``SetDefaults_MutatingWebhook``, ``SetDefaults_Rule``
    and ``SetDefaults_ServiceReference`` (kubernetes ``admissionregistration/v1/defaults.go``)."""
    server = FakeAPIServer()
    hook = webhook("a.example.com", "https://127.0.0.1:1/x")
    hook["clientConfig"] = {"service": {"namespace": "system", "name": "hook"}}
    server.create_object(ADM, "v1", PLURALS[MUTATING], configuration(MUTATING, "m", hook))
    server.create_object(ADM, "v1", PLURALS[VALIDATING], configuration(VALIDATING, "v", hook))
    for kind in (MUTATING, VALIDATING):
        stored = server.get_object(ADM, "v1", PLURALS[kind], None, kind[0].lower())
        assert stored is not None
        got = stored["webhooks"][0]
        assert got["failurePolicy"] == "Fail"
        assert got["matchPolicy"] == "Equivalent"
        assert got["namespaceSelector"] == {} and got["objectSelector"] == {}
        assert got["timeoutSeconds"] == 10
        assert got["rules"][0]["scope"] == "*"
        assert got["clientConfig"]["service"]["port"] == 443
        assert ("reinvocationPolicy" in got) is (kind == MUTATING)
        if kind == MUTATING:
            assert got["reinvocationPolicy"] == "Never"


def test_configurations_are_validated_with_upstreams_messages() -> None:
    """``validation.go``: names unique, ``sideEffects`` one of None/NoneOnDryRun on create,
    ``admissionReviewVersions`` required, exactly one of url/service, an https URL."""
    server = FakeAPIServer()
    good = webhook("a.example.com", "https://127.0.0.1:1/x")
    bad = [
        good,
        {**good, "sideEffects": "Unknown"},
        {k: v for k, v in good.items() if k not in ("sideEffects", "admissionReviewVersions")},
        {**good, "name": "b.example.com", "clientConfig": {}},
        {**good, "name": "c.example.com", "clientConfig": {"url": "http://127.0.0.1/x"}},
        {**good, "name": "short", "timeoutSeconds": 31},
    ]
    with pytest.raises(APIStatusError) as refused:
        install(server, VALIDATING, "bad", *bad)
    assert refused.value.code == 422
    messages = {(c["field"], c["message"]) for c in refused.value.status["details"]["causes"]}
    assert messages == {
        ("webhooks[1].name", 'Duplicate value: "a.example.com"'),
        (
            "webhooks[1].sideEffects",
            'Unsupported value: "Unknown": supported values: "None", "NoneOnDryRun"',
        ),
        ("webhooks[2].name", 'Duplicate value: "a.example.com"'),
        ("webhooks[2].sideEffects", "Required value: must specify one of None, NoneOnDryRun"),
        ("webhooks[2].admissionReviewVersions", "Required value: must specify one of v1, v1beta1"),
        ("webhooks[3].clientConfig", "Required value: exactly one of url or service is required"),
        (
            "webhooks[4].clientConfig.url",
            "Invalid value: \"http\": 'https' is the only allowed URL scheme; "
            "desired format: https://host[/path]",
        ),
        (
            "webhooks[5].name",
            'Invalid value: "short": should be a domain with at least three segments '
            "separated by dots",
        ),
        (
            "webhooks[5].timeoutSeconds",
            "Invalid value: 31: the timeout value must be between 1 and 30 seconds",
        ),
    }


# -- calls ------------------------------------------------------------------------------------


@bounded()
async def test_a_denial_reaches_the_client_with_the_webhooks_code_and_causes(
    hooks: WebhookServer,
) -> None:
    from kubernetes_asyncio.client import CoreV1Api
    from kubernetes_asyncio.client.rest import ApiException

    causes = [{"reason": "FieldValueForbidden", "message": "no", "field": "spec.containers"}]
    url = hooks.on(
        "deny",
        lambda _: {
            "allowed": False,
            "status": {"code": 403, "reason": "Forbidden", "message": "no pods today",
                       "details": {"causes": causes}},
        },
    )  # fmt: skip
    async with FakeAPIServer() as server:
        install(server, VALIDATING, "deny", webhook("deny.example.com", url, hooks.ca_bundle))
        async with server.api_client() as api:
            with pytest.raises(ApiException) as refused:
                await CoreV1Api(api).create_namespaced_pod("default", pod("p"))
    assert refused.value.status == 403
    import json

    body = json.loads(refused.value.body)
    assert (
        body["message"] == 'admission webhook "deny.example.com" denied the request: no pods today'
    )
    assert body["reason"] == "Forbidden" and body["details"]["causes"] == causes
    assert server.get_object("", "v1", "pods", "default", "p") is None


def test_a_denial_without_a_status_is_a_400_without_explanation(hooks: WebhookServer) -> None:
    server = FakeAPIServer()
    url = hooks.on("bare-deny", lambda _: {"allowed": False})
    install(server, VALIDATING, "deny", webhook("deny.example.com", url, hooks.ca_bundle))
    with pytest.raises(APIStatusError) as refused:
        create_pod(server)
    assert refused.value.code == 400
    assert refused.value.status["message"] == (
        'admission webhook "deny.example.com" denied the request without explanation'
    )


@needs_kubectl
@bounded(60)
async def test_kubectl_prints_the_denial(hooks: WebhookServer, tmp_path: Path) -> None:
    """kubectl prints the Status as ``Error from server (<reason>): error when creating
    "STDIN": <message>``: a denial, then a webhook that timed out under ``Fail``."""
    url = hooks.on(
        "deny-kubectl",
        lambda _: {
            "allowed": False,
            "status": {"code": 403, "reason": "Forbidden", "message": "no"},
        },
    )
    async with FakeAPIServer() as server:
        install(server, VALIDATING, "deny", webhook("deny.example.com", url, hooks.ca_bundle))
        manifest = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: default\n" \
                   "spec:\n  containers:\n  - name: c\n    image: busybox\n"  # fmt: skip
        code, out = await kubectl(server, tmp_path, "create", "-f", "-", stdin=manifest)
        assert code == 1
        assert out.strip() == (
            'Error from server (Forbidden): error when creating "STDIN": '
            'admission webhook "deny.example.com" denied the request: no'
        )
        code, out = await kubectl(server, tmp_path, "get", "validatingwebhookconfigurations")
        assert code == 0, out
        assert out.split("\n")[0].split() == ["NAME", "WEBHOOKS", "AGE"]
        assert out.split("\n")[1].split()[:2] == ["deny", "1"]
        slow = hooks.on("hang-kubectl", allow)
        hook = webhook("slow.example.com", slow, hooks.ca_bundle, timeoutSeconds=1)
        install(server, MUTATING, "slow", hook)
        code, out = await kubectl(server, tmp_path, "create", "-f", "-", stdin=manifest)
        assert code == 1
        assert out.strip() == (
            'Error from server (InternalError): error when creating "STDIN": Internal error '
            'occurred: failed calling webhook "slow.example.com": failed to call webhook: '
            f'Post "{slow}?timeout=1s": context deadline exceeded'
        )


def test_a_patch_is_applied_then_the_object_is_validated_again(hooks: WebhookServer) -> None:
    server = FakeAPIServer()
    label = hooks.on(
        "label", json_patch({"op": "add", "path": "/metadata/labels", "value": {"by": "hook"}})
    )
    breaks = hooks.on(
        "break", json_patch({"op": "add", "path": "/metadata/labels", "value": {"bad": "a b"}})
    )
    labelling = webhook("label.example.com", label, hooks.ca_bundle)
    install(server, MUTATING, "label", labelling)
    assert create_pod(server, "p1")["metadata"]["labels"] == {"by": "hook"}
    install(server, MUTATING, "zz-break", webhook("break.example.com", breaks, hooks.ca_bundle))
    with pytest.raises(APIStatusError) as refused:
        create_pod(server, "p2")
    assert refused.value.code == 422
    assert refused.value.status["details"]["causes"][0]["field"] == "metadata.labels"


def test_mutating_webhooks_run_before_validating_ones(hooks: WebhookServer) -> None:
    server = FakeAPIServer()
    label = hooks.on(
        "order-label", json_patch({"op": "add", "path": "/metadata/labels", "value": {"m": "1"}})
    )
    check = hooks.on("order-check", allow)
    install(server, VALIDATING, "a-check", webhook("check.example.com", check, hooks.ca_bundle))
    install(server, MUTATING, "z-label", webhook("label.example.com", label, hooks.ca_bundle))
    create_pod(server)
    [seen] = hooks.requests("order-check")
    assert seen["object"]["metadata"]["labels"] == {"m": "1"}


def test_if_needed_webhooks_are_reinvoked_after_a_later_change(hooks: WebhookServer) -> None:
    """``reinvocationPolicy: IfNeeded``: called again when a later webhook changed the object;
    a ``Never`` webhook is not."""
    server = FakeAPIServer()
    first = hooks.on("again", allow)
    never = hooks.on("never", allow)
    change = hooks.on(
        "change", json_patch({"op": "add", "path": "/metadata/labels", "value": {"c": "1"}})
    )
    install(
        server,
        MUTATING,
        "a",
        webhook("again.example.com", first, hooks.ca_bundle, reinvocationPolicy="IfNeeded"),
    )
    install(server, MUTATING, "b", webhook("never.example.com", never, hooks.ca_bundle))
    install(server, MUTATING, "c", webhook("change.example.com", change, hooks.ca_bundle))
    create_pod(server)
    assert len(hooks.requests("again")) == 2
    assert len(hooks.requests("never")) == 1
    assert len(hooks.requests("change")) == 1
    assert hooks.requests("again")[1]["object"]["metadata"]["labels"] == {"c": "1"}


def test_the_review_carries_what_kube_apiserver_sends(hooks: WebhookServer) -> None:
    """``CreateV1AdmissionReview``: uid, kind, resource, requestKind/requestResource, name,
    namespace, operation, userInfo, object/oldObject, dryRun, options."""
    server = FakeAPIServer()
    url = hooks.on("review", allow)
    hook = webhook("review.example.com", url, hooks.ca_bundle)
    hook["rules"][0]["operations"] = ["*"]
    install(server, VALIDATING, "review", hook)
    create_pod(server, "r")
    server.delete_object("", "v1", "pods", "default", "r")
    created, deleted = hooks.requests("review")
    assert created["uid"] and created["uid"] != deleted["uid"]
    for request in (created, deleted):
        assert (
            request["kind"]
            == request["requestKind"]
            == {"group": "", "version": "v1", "kind": "Pod"}
        )
        assert request["resource"] == request["requestResource"] == {
            "group": "", "version": "v1", "resource": "pods"
        }  # fmt: skip
        assert (request["name"], request["namespace"]) == ("r", "default")
        assert request["userInfo"]["username"] == "kubernetes-admin"
        assert request["dryRun"] is False
    assert created["operation"] == "CREATE" and created["oldObject"] is None
    assert created["object"]["metadata"]["name"] == "r"
    assert created["options"]["kind"] == "CreateOptions"
    assert deleted["operation"] == "DELETE" and deleted["object"] is None
    assert deleted["oldObject"]["metadata"]["name"] == "r"
    assert deleted["options"] == {"kind": "DeleteOptions", "apiVersion": "meta.k8s.io/v1"}


def test_rules_and_selectors_choose_the_webhooks(hooks: WebhookServer) -> None:
    server = FakeAPIServer()
    url = hooks.on("select", allow)
    by_object = {"matchLabels": {"hooked": "yes"}}
    by_namespace = {"matchExpressions": [{"key": "team", "operator": "In", "values": ["a"]}]}
    install(
        server,
        VALIDATING,
        "select",
        webhook("objects.example.com", url, hooks.ca_bundle, objectSelector=by_object),
        webhook("namespaces.example.com", url, hooks.ca_bundle, namespaceSelector=by_namespace),
    )
    create_pod(server, "plain")
    assert hooks.requests("select") == []
    create_pod(server, "labelled", labels={"hooked": "yes"})
    assert len(hooks.requests("select")) == 1
    server.patch_object(
        "", "v1", "namespaces", None, "default", {"metadata": {"labels": {"team": "a"}}}
    )
    create_pod(server, "in-team")
    assert len(hooks.requests("select")) == 2
    server.patch_object(
        "", "v1", "pods", "default", "in-team", {"metadata": {"labels": {"x": "y"}}}
    )
    assert len(hooks.requests("select")) == 2  # the rules name CREATE only


@pytest.mark.parametrize("policy", ["Fail", "Ignore"])
def test_an_unreachable_webhook_fails_as_its_policy_says(policy: str, hooks: WebhookServer) -> None:
    server = FakeAPIServer()
    port = closed_port()
    url = f"https://127.0.0.1:{port}/gone"
    install(
        server,
        VALIDATING,
        "gone",
        webhook("gone.example.com", url, hooks.ca_bundle, failurePolicy=policy),
    )
    status = create_under(server, policy)
    if status is None:
        return
    reason = (
        f'failed calling webhook "gone.example.com": failed to call webhook: Post '
        f'"{url}?timeout=10s": dial tcp 127.0.0.1:{port}: connect: connection refused'
    )
    assert status["message"] == f"Internal error occurred: {reason}"
    assert status["details"]["causes"] == [{"message": reason}]


@pytest.mark.parametrize("policy", ["Fail", "Ignore"])
def test_a_webhook_that_times_out(policy: str, hooks: WebhookServer) -> None:
    """The context of the call ends after ``timeoutSeconds``: Go's ``context deadline
    exceeded`` in the ``Post`` error, the request carrying ``?timeout=1s``."""
    server = FakeAPIServer()
    url = hooks.on(f"hang-{policy}", allow)
    hook = webhook("slow.example.com", url, hooks.ca_bundle, failurePolicy=policy, timeoutSeconds=1)
    install(server, MUTATING, "slow", hook)
    status = create_under(server, policy)
    if status is None:
        return
    assert status["message"] == (
        'Internal error occurred: failed calling webhook "slow.example.com": failed to call '
        f'webhook: Post "{url}?timeout=1s": context deadline exceeded'
    )


def test_an_untrusted_certificate_is_a_failed_call(hooks: WebhookServer) -> None:
    server = FakeAPIServer()
    url = hooks.on("untrusted", allow)
    install(server, VALIDATING, "untrusted", webhook("untrusted.example.com", url))  # no caBundle
    with pytest.raises(APIStatusError) as refused:
        create_pod(server)
    assert refused.value.code == 500
    assert "x509: certificate signed by unknown authority" in refused.value.status["message"]
    assert hooks.requests("untrusted") == []


@pytest.mark.parametrize("policy", ["Fail", "Ignore"])
def test_a_non_loopback_url_is_never_called(policy: str) -> None:
    server = FakeAPIServer()
    url = "https://192.0.2.1/remote"  # TEST-NET-1: nothing may ever be sent there
    install(server, VALIDATING, "remote", webhook("remote.example.com", url, failurePolicy=policy))
    status = create_under(server, policy)
    if status is None:
        return
    assert status["message"] == (
        'Internal error occurred: failed calling webhook "remote.example.com": failed to call '
        f'webhook: Post "{url}?timeout=10s": the test server calls only loopback addresses '
        "(127.0.0.0/8, ::1, localhost), not 192.0.2.1"
    )


def test_dry_run_calls_side_effect_free_webhooks_and_stores_nothing(hooks: WebhookServer) -> None:
    server = FakeAPIServer()
    url = hooks.on("dry", allow)
    install(
        server,
        VALIDATING,
        "dry",
        webhook("dry.example.com", url, hooks.ca_bundle, sideEffects="NoneOnDryRun"),
    )
    server.create_object("", "v1", "pods", pod("d", namespace="default"), dry_run=True)
    [seen] = hooks.requests("dry")
    assert seen["dryRun"] is True and seen["options"]["dryRun"] == ["All"]
    assert server.get_object("", "v1", "pods", "default", "d") is None


def test_a_service_reference_is_called_at_its_mapped_loopback_address(hooks: WebhookServer) -> None:
    """The certificate is checked for ``<name>.<namespace>.svc``, as kube-apiserver's."""
    server = FakeAPIServer(webhook_services={"system/hook": f"127.0.0.1:{hooks.port}"})
    hooks.on("by-service", allow)
    hook = webhook("service.example.com", "", hooks.ca_bundle)
    hook["clientConfig"] = {
        "service": {"namespace": "system", "name": "hook", "path": "/by-service"},
        "caBundle": hooks.ca_bundle,
    }
    install(server, VALIDATING, "service", hook)
    create_pod(server)
    assert len(hooks.requests("by-service")) == 1


@needs_kubectl
@bounded(60)
async def test_kubectl_applies_and_watches_a_configuration(
    hooks: WebhookServer, tmp_path: Path
) -> None:
    """kubectl's apply (server-side field validation against our OpenAPI) creates it. A second
    apply re-sends the atomic ``rules`` list, which differs from the live one by its defaulted
    ``scope`` (kubectl's three-way diff), so kubectl prints ``configured``; the patch merges
    ``webhooks`` by ``name`` (``patchMergeKey=name``) and changes nothing. A pod update then
    reaches the webhook with its old object."""
    url = hooks.on("kubectl-applied", allow)
    manifest = f"""\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: applied
webhooks:
- name: applied.example.com
  clientConfig:
    url: {url}
    caBundle: {hooks.ca_bundle}
  rules:
  - operations: ["UPDATE"]
    apiGroups: [""]
    apiVersions: ["v1"]
    resources: ["pods"]
  sideEffects: None
  admissionReviewVersions: ["v1"]
"""
    async with FakeAPIServer() as server:
        code, out = await kubectl(server, tmp_path, "apply", "-f", "-", stdin=manifest)
        assert (code, out.strip()) == (
            0,
            "validatingwebhookconfiguration.admissionregistration.k8s.io/applied created",
        )
        before = server.get_object(ADM, "v1", PLURALS[VALIDATING], None, "applied")
        code, out = await kubectl(server, tmp_path, "apply", "-f", "-", stdin=manifest)
        assert (code, out.strip()) == (
            0,
            "validatingwebhookconfiguration.admissionregistration.k8s.io/applied configured",
        )
        after = server.get_object(ADM, "v1", PLURALS[VALIDATING], None, "applied")
        assert before is not None and after is not None
        assert after["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"]
        by_ssa = manifest.replace("name: applied\n", "name: by-ssa\n")
        code, out = await kubectl(
            server, tmp_path, "apply", "--server-side", "-f", "-", stdin=by_ssa
        )
        assert (code, out.strip()) == (
            0,
            "validatingwebhookconfiguration.admissionregistration.k8s.io/by-ssa serverside-applied",
        )
        create_pod(server, "u")
        assert hooks.requests("kubectl-applied") == []
        server.patch_object("", "v1", "pods", "default", "u", {"metadata": {"labels": {"a": "b"}}})
    update, same = hooks.requests("kubectl-applied")  # one call per configuration
    assert same["object"] == update["object"]
    assert update["operation"] == "UPDATE" and update["options"]["kind"] == "UpdateOptions"
    assert "labels" not in update["oldObject"]["metadata"]
    assert update["object"]["metadata"]["labels"] == {"a": "b"}


@bounded()
async def test_a_webhooks_warnings_reach_the_answer(hooks: WebhookServer) -> None:
    """``warning.AddWarning`` of each ``response.warnings`` entry: a ``Warning`` header."""
    url = hooks.on("warn", lambda _: {"allowed": True, "warnings": ["careful"]})
    async with FakeAPIServer() as server:
        install(server, VALIDATING, "warn", webhook("warn.example.com", url, hooks.ca_bundle))
        reply = await call(server, "POST", "/api/v1/namespaces/default/pods", pod("w"))
    assert reply.status == 201, reply.text
    assert reply.warnings == ['299 - "careful"']


def test_a_rule_without_the_subresource_does_not_match_it(hooks: WebhookServer) -> None:
    """``pods`` matches the pod itself, ``pods/status`` its status (``rules.Matcher``)."""
    server = FakeAPIServer()
    url = hooks.on("subresource", allow)
    hook = webhook("status.example.com", url, hooks.ca_bundle)
    hook["rules"][0] |= {"operations": ["UPDATE"], "resources": ["pods/status"]}
    install(server, VALIDATING, "status", hook)
    create_pod(server, "s")
    server.patch_object("", "v1", "pods", "default", "s", {"metadata": {"labels": {"a": "b"}}})
    assert hooks.requests("subresource") == []
    server.patch_status("", "v1", "pods", "default", "s", {"message": "hi"})
    [seen] = hooks.requests("subresource")
    assert seen["subResource"] == seen["requestSubResource"] == "status"


def test_an_equivalent_version_is_matched_and_sent_at_the_rules_version(
    hooks: WebhookServer,
) -> None:
    """``matchPolicy: Equivalent``: a rule for v1alpha3 podgroups matches a v1beta1 write; the
    webhook gets the object at v1alpha3 with ``requestKind`` v1beta1. ``Exact`` does not."""
    server = FakeAPIServer()
    url = hooks.on("equivalent", allow)
    hook = webhook("equivalent.example.com", url, hooks.ca_bundle)
    hook["rules"][0] |= {
        "apiGroups": [SCHED],
        "apiVersions": ["v1alpha3"],
        "resources": ["podgroups"],
    }
    install(server, VALIDATING, "equivalent", hook)
    install(
        server, VALIDATING, "exact", {**hook, "name": "exact.example.com", "matchPolicy": "Exact"}
    )
    server.create_object(SCHED, "v1beta1", "podgroups", pod_group("pg"))
    [seen] = hooks.requests("equivalent")
    assert seen["kind"] == {"group": SCHED, "version": "v1alpha3", "kind": "PodGroup"}
    assert seen["requestKind"] == {"group": SCHED, "version": "v1beta1", "kind": "PodGroup"}
    assert seen["resource"]["version"] == "v1alpha3"
    assert seen["requestResource"]["version"] == "v1beta1"
    assert seen["object"]["apiVersion"] == f"{SCHED}/v1alpha3"


def test_a_delete_is_admitted_and_may_be_denied_but_not_patched(hooks: WebhookServer) -> None:
    """A denied DELETE leaves the object; a mutating webhook patching a DELETE is the
    dispatcher's internal error ``admission webhook "x" attempted to modify the object, which
    is not supported for this operation``."""
    server = FakeAPIServer()
    deny = hooks.on("deny-delete", lambda _: {"allowed": False, "status": {"message": "keep"}})
    patch = hooks.on(
        "patch-delete", json_patch({"op": "add", "path": "/metadata/labels", "value": {}})
    )
    create_pod(server, "kept")
    deleting = webhook("deny.example.com", deny, hooks.ca_bundle)
    deleting["rules"][0]["operations"] = ["DELETE"]
    install(server, VALIDATING, "deny-delete", deleting)
    with pytest.raises(APIStatusError) as refused:
        server.delete_object("", "v1", "pods", "default", "kept")
    assert (refused.value.code, refused.value.status["message"]) == (
        400,
        'admission webhook "deny.example.com" denied the request: keep',
    )
    assert server.get_object("", "v1", "pods", "default", "kept") is not None
    server.delete_object(ADM, "v1", PLURALS[VALIDATING], None, "deny-delete")
    patching = webhook("patch.example.com", patch, hooks.ca_bundle)
    patching["rules"][0]["operations"] = ["DELETE"]
    install(server, MUTATING, "patch-delete", patching)
    with pytest.raises(APIStatusError) as refused:
        server.delete_object("", "v1", "pods", "default", "kept")
    assert refused.value.code == 500
    assert refused.value.status["message"] == (
        'Internal error occurred: admission webhook "patch.example.com" attempted to modify '
        "the object, which is not supported for this operation"
    )


@bounded()
async def test_the_review_names_the_authenticated_user(hooks: WebhookServer) -> None:
    """With ``authorization="RBAC"`` the ``userInfo`` is the requester as authenticated."""
    from kubernetes_asyncio.client import CoreV1Api

    url = hooks.on("who", allow)
    async with FakeAPIServer(authorization="RBAC") as server:
        install(server, VALIDATING, "who", webhook("who.example.com", url, hooks.ca_bundle))
        async with server.api_client() as api:
            await CoreV1Api(api).create_namespaced_pod("default", pod("w"))
    [seen] = hooks.requests("who")
    assert seen["userInfo"]["username"] == "kubernetes-admin"
    assert "system:masters" in seen["userInfo"]["groups"]
    assert "system:authenticated" in seen["userInfo"]["groups"]


def test_a_certificate_for_another_host_is_a_failed_call(hooks: WebhookServer) -> None:
    """A service the server maps to the webhook's address, whose certificate does not name
    ``<name>.<namespace>.svc``, is not called. (Go's ``x509.HostnameError`` lists the names
    the certificate is valid for; the server, which never sees the rejected certificate,
    names only the host it wanted: that part of the text is the server's own.)"""
    server = FakeAPIServer(webhook_services={"system/other": f"127.0.0.1:{hooks.port}"})
    hooks.on("other-host", allow)
    hook = webhook("other.example.com", "", hooks.ca_bundle)
    hook["clientConfig"] = {
        "service": {"namespace": "system", "name": "other", "path": "/other-host"},
        "caBundle": hooks.ca_bundle,
    }
    install(server, VALIDATING, "other", hook)
    with pytest.raises(APIStatusError) as refused:
        create_pod(server)
    assert refused.value.status["message"] == (
        'Internal error occurred: failed calling webhook "other.example.com": failed to call '
        'webhook: Post "https://other.system.svc:443/other-host?timeout=10s": tls: failed to '
        "verify certificate: x509: certificate is not valid for other.system.svc"
    )
    assert hooks.requests("other-host") == []


@pytest.mark.parametrize("side_effects", ["Unknown", "Some"])
def test_dry_run_refuses_a_webhook_with_side_effects(side_effects: str) -> None:
    """``NewDryRunUnsupportedErr``: a 400 ``admission webhook "x" does not support dry run``,
    whatever the failure policy. v1 validation refuses to store such a webhook, so the
    dispatcher is driven directly (nothing is called: the URL is never contacted)."""
    from workloadbuilder.testing.engine.admission import Attributes
    from workloadbuilder.testing.engine.admission.webhooks import Webhooks
    from workloadbuilder.testing.engine.admission.webhooks.matching import Invocation

    server = FakeAPIServer()
    rt = server._registry.require("", "v1", "pods")
    hooks = Webhooks(server._store, server._registry, {}, dict)
    hook = webhook("side.example.com", "https://192.0.2.1/x", sideEffects=side_effects)
    attrs = Attributes("CREATE", rt, "default", "p", pod("p"), None, dry_run=True)
    with pytest.raises(APIStatusError) as refused:
        hooks.call(Invocation("c", {**hook, "failurePolicy": "Ignore"}, rt), attrs, mutating=False)
    assert refused.value.status == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": 'admission webhook "side.example.com" does not support dry run',
        "reason": "BadRequest",
        "code": 400,
    }


def test_a_create_is_mutated_before_storage_names_and_stamps_it(hooks: WebhookServer) -> None:
    """Storage's ``BeforeCreate``, after the mutating admission and before the validating one,
    sets ``uid`` and ``creationTimestamp`` and makes the name of a ``generateName`` create:
    mutating webhooks see none of them and an empty ``request.name`` (``handlers/create.go``
    takes the name from the object as sent); validating webhooks see them all
    (``rest.AdmissionToValidateObjectFunc`` takes the generated name)."""
    server = FakeAPIServer()
    mutate, check = hooks.on("unnamed", allow), hooks.on("named", allow)
    install(server, MUTATING, "unnamed", webhook("unnamed.example.com", mutate, hooks.ca_bundle))
    install(server, VALIDATING, "named", webhook("named.example.com", check, hooks.ca_bundle))
    body = pod("")
    body["metadata"] = {"generateName": "web-", "namespace": "default"}
    created = server.create_object("", "v1", "pods", body)
    name = created["metadata"]["name"]
    assert name.startswith("web-") and created["metadata"]["uid"]
    [mutating] = hooks.requests("unnamed")
    assert "name" not in mutating
    assert mutating["object"]["metadata"]["generateName"] == "web-"
    assert not {"name", "uid", "creationTimestamp"} & set(mutating["object"]["metadata"])
    [validating] = hooks.requests("named")
    assert validating["name"] == validating["object"]["metadata"]["name"] == name
    assert validating["object"]["metadata"]["uid"] == created["metadata"]["uid"]


def test_a_namespace_is_cluster_scoped_and_names_itself(hooks: WebhookServer) -> None:
    """``rules.Matcher.scope``: a Namespace matches ``Cluster``, never ``Namespaced``; a
    request for an existing Namespace carries its name as ``namespace`` (``RequestInfo``)."""
    server = FakeAPIServer()
    url = hooks.on("ns-scope", allow)

    def for_namespaces(name: str, scope: str) -> dict[str, Any]:
        hook = webhook(name, url, hooks.ca_bundle)
        hook["rules"][0] |= {"operations": ["*"], "resources": ["namespaces"], "scope": scope}
        return hook

    install(
        server,
        VALIDATING,
        "scopes",
        for_namespaces("cluster.example.com", "Cluster"),
        for_namespaces("namespaced.example.com", "Namespaced"),
    )
    server.create_object("", "v1", "namespaces", {"metadata": {"name": "team"}})
    server.patch_object("", "v1", "namespaces", None, "team", {"metadata": {"labels": {"a": "b"}}})
    created, updated = hooks.requests("ns-scope")
    assert "namespace" not in created and created["name"] == "team"
    assert (updated["operation"], updated["namespace"], updated["name"]) == (
        "UPDATE",
        "team",
        "team",
    )
