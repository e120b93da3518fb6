"""``aio.WebhookServer`` over real TLS: AdmissionReviews answered as controller-runtime answers.

Expected values come from controller-runtime's ``pkg/webhook/admission`` (``http.go``: the
7 MiB limit and the texts of a bad request; ``webhook.go``'s ``Response.Complete``: the uid
echoed, code 200 when none is set, ``patchType: JSONPatch``; ``response.go``:
``Errored(code, err)``), its ``pkg/webhook/internal/metrics`` (names and labels) and
``pkg/certwatcher`` (the pair read again when it changes); the 422 of ``metav1.Status`` as
apimachinery's ``NewInvalid`` writes it; RFC 6902 for the patch. The configurations are
checked against the 1.37 schemas and the official client's models.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import logging
import shutil
import ssl
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import jsonpatch
import pytest
from oracles import assert_schema_valid, official_model_for
from prometheus_client import CollectorRegistry

import workloadbuilder as wb
from workloadbuilder import aio
from workloadbuilder.testing.server.tls import make_certificate

UID = "705ab4f5-6393-11e8-b7cc-42010a800002"


def review(**request: Any) -> dict[str, Any]:
    """An AdmissionReview as kube-apiserver sends it (``k8s.io/api/admission/v1``)."""
    base: dict[str, Any] = {
        "uid": UID,
        "kind": {"group": "example.com", "version": "v1", "kind": "TrainingJob"},
        "resource": {"group": "example.com", "version": "v1", "resource": "trainingjobs"},
        "requestKind": {"group": "example.com", "version": "v1", "kind": "TrainingJob"},
        "requestResource": {"group": "example.com", "version": "v1", "resource": "trainingjobs"},
        "name": "bert",
        "namespace": "ml",
        "operation": "CREATE",
        "userInfo": {"username": "alice", "groups": ["system:authenticated"]},
        "object": {
            "apiVersion": "example.com/v1",
            "kind": "TrainingJob",
            "metadata": {"name": "bert", "namespace": "ml"},
            "spec": {"workers": 4, "minWorkers": 0},
        },
        "oldObject": None,
        "dryRun": False,
        "options": {"apiVersion": "meta.k8s.io/v1", "kind": "CreateOptions"},
    }
    base.update(request)
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": base}


def make_pair(directory: Path) -> Path:
    """``tls.crt`` / ``tls.key`` in ``directory`` (controller-runtime's CertDir names)."""
    directory.mkdir(parents=True, exist_ok=True)
    cert, key = make_certificate(directory)
    cert.replace(directory / "tls.crt")
    key.replace(directory / "tls.key")
    return directory


def validate_min_workers(request: aio.AdmissionRequest) -> wb.ErrorList | None:
    obj = request.object or {}
    errors = wb.ErrorList()
    if obj.get("spec", {}).get("minWorkers", 1) < 1:
        errors.append(
            wb.FieldError.invalid(
                wb.FieldPath("spec", "minWorkers"), 0, "must be greater than or equal to 1"
            )
        )
    request.warn("spec.workers is deprecated")
    return errors


def default_workers(request: aio.AdmissionRequest) -> dict[str, Any]:
    obj = json.loads(json.dumps(request.object))
    obj["spec"].setdefault("workers", 1)
    obj["spec"]["minWorkers"] = max(1, obj["spec"].get("minWorkers", 1))
    obj["metadata"].setdefault("labels", {})["example.com/defaulted"] = "true"
    return obj


def explode(request: aio.AdmissionRequest) -> None:
    raise RuntimeError("the model store is down")


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[tuple[aio.WebhookServer, CollectorRegistry]]:
    registry = CollectorRegistry()
    hooks = aio.WebhookServer(
        "127.0.0.1:0", make_pair(tmp_path / "certs"), registry=registry, cert_reload_interval=0.05
    )
    hooks.add_validating_webhook("/validate", validate_min_workers)
    hooks.add_mutating_webhook("/mutate", default_workers)
    hooks.add_validating_webhook("/explode", explode)
    await hooks.start()
    try:
        yield hooks, registry
    finally:
        await hooks.stop()


def client_context(cert_dir: Path) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=str(cert_dir / "tls.crt"))


async def post(
    hooks: aio.WebhookServer,
    path: str,
    body: bytes | dict[str, Any],
    ctx: ssl.SSLContext | None,
    content_type: str = "application/json",
) -> tuple[int, Any]:
    data = json.dumps(body).encode() if isinstance(body, dict) else body
    async with (
        aiohttp.ClientSession() as session,
        session.post(
            f"{hooks.url}{path}", data=data, ssl=ctx, headers={"Content-Type": content_type}
        ) as resp,
    ):
        return resp.status, await resp.json(content_type=None)


async def test_a_refusal_is_the_422_with_every_cause_at_its_field(server: Any, tmp_path: Path):
    hooks, _ = server
    status, answer = await post(hooks, "/validate", review(), client_context(tmp_path / "certs"))
    assert status == 200
    assert answer["apiVersion"] == "admission.k8s.io/v1"
    assert answer["kind"] == "AdmissionReview"
    response = answer["response"]
    assert response["uid"] == UID
    assert response["allowed"] is False
    assert response["warnings"] == ["spec.workers is deprecated"]
    result = response["status"]
    # metav1.Status of apierrors.NewInvalid: 422, Invalid, a cause per error.
    assert result["code"] == 422
    assert result["reason"] == "Invalid"
    assert result["status"] == "Failure"
    # kube-apiserver writes: admission webhook "<name>" denied the request: <message>
    assert (
        result["message"] == "spec.minWorkers: Invalid value: 0: must be greater than or equal to 1"
    )
    assert result["details"] == {
        "name": "bert",
        "group": "example.com",
        "kind": "TrainingJob",
        "causes": [
            {
                "reason": "FieldValueInvalid",
                "message": "Invalid value: 0: must be greater than or equal to 1",
                "field": "spec.minWorkers",
            }
        ],
    }
    assert_schema_valid(result, "io.k8s.apimachinery.pkg.apis.meta.v1.Status")


async def test_an_allowed_object_is_code_200_with_the_uid(server: Any, tmp_path: Path):
    hooks, _ = server
    good = review()
    good["request"]["object"]["spec"]["minWorkers"] = 2
    _, answer = await post(hooks, "/validate", good, client_context(tmp_path / "certs"))
    assert answer["response"]["uid"] == UID
    assert answer["response"]["allowed"] is True
    assert answer["response"]["status"]["code"] == 200  # Response.Complete's default
    assert "patch" not in answer["response"]


async def test_a_mutation_is_answered_as_the_json_patch_to_the_object_wanted(
    server: Any, tmp_path: Path
):
    hooks, _ = server
    sent = review()
    _, answer = await post(hooks, "/mutate", sent, client_context(tmp_path / "certs"))
    response = answer["response"]
    assert response["allowed"] is True
    assert response["patchType"] == "JSONPatch"
    patch = json.loads(base64.b64decode(response["patch"]))
    assert {op["op"] for op in patch} <= {"add", "remove", "replace", "move", "copy", "test"}
    patched = jsonpatch.apply_patch(sent["request"]["object"], patch)
    assert patched["spec"] == {"workers": 4, "minWorkers": 1}
    assert patched["metadata"]["labels"] == {"example.com/defaulted": "true"}

    unchanged = review()
    wanted = aio.AdmissionRequest(
        uid=UID, operation="CREATE", kind={}, resource={}, object=sent["request"]["object"]
    )
    unchanged["request"]["object"] = default_workers(wanted)
    _, again = await post(hooks, "/mutate", unchanged, client_context(tmp_path / "certs"))
    assert again["response"]["allowed"] is True
    assert "patch" not in again["response"] and "patchType" not in again["response"]


async def test_a_callback_that_raises_is_refused_with_500_and_logged_once(
    server: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
):
    hooks, _ = server
    with caplog.at_level(logging.ERROR, logger="workloadbuilder.aio"):
        status, answer = await post(hooks, "/explode", review(), client_context(tmp_path / "certs"))
    assert status == 200
    assert answer["response"]["uid"] == UID
    assert answer["response"]["allowed"] is False
    assert answer["response"]["status"]["code"] == 500
    assert answer["response"]["status"]["message"] == "RuntimeError: the model store is down"
    failures = [r for r in caplog.records if "the model store is down" in r.getMessage()]
    assert len(failures) == 1


@pytest.mark.parametrize(
    ("body", "content_type", "code", "message"),
    [
        (b"", "application/json", 400, "request body is empty"),
        (b"{}", "text/plain", 400, "contentType=text/plain, expected application/json"),
        (b"not json", "application/json", 400, "the body is not JSON"),
        (b"[]", "application/json", 400, "the body is not a JSON object"),
        (
            json.dumps({**review(), "apiVersion": "admission.k8s.io/v1beta1"}).encode(),
            "application/json",
            400,
            'apiVersion="admission.k8s.io/v1beta1"',
        ),
        (
            json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"}).encode(),
            "application/json",
            400,
            "the AdmissionReview has no request",
        ),
        (json.dumps(review(uid="")).encode(), "application/json", 400, "request.uid is required"),
        (
            json.dumps(review(operation="PATCH")).encode(),
            "application/json",
            400,
            'request.operation "PATCH" is not one of',
        ),
        (
            json.dumps(review(object="a string")).encode(),
            "application/json",
            400,
            "request.object must be a JSON object, not str",
        ),
        (
            b" " * (7 * 1024 * 1024 + 1),
            "application/json",
            413,
            "request entity is too large; limit is 7340032 bytes",
        ),
    ],
)
async def test_a_malformed_review_is_a_client_error_never_a_crash(
    server: Any, tmp_path: Path, body: bytes, content_type: str, code: int, message: str
):
    hooks, registry = server
    counted = Counted(registry)
    status, answer = await post(
        hooks, "/validate", body, client_context(tmp_path / "certs"), content_type
    )
    assert status == code
    assert answer["response"]["allowed"] is False
    assert answer["response"]["status"]["code"] == code
    assert message in answer["response"]["status"]["message"]
    assert counted.since("controller_runtime_webhook_requests_total", "/validate", str(code)) == 1


async def test_tls_only(server: Any):
    hooks, _ = server
    plain = hooks.url.replace("https://", "http://")
    async with aiohttp.ClientSession() as session:
        with pytest.raises(aiohttp.ClientError):
            async with session.post(f"{plain}/validate", json=review()) as resp:
                await resp.read()


async def test_metrics_count_what_was_answered(server: Any, tmp_path: Path):
    hooks, registry = server
    counted = Counted(registry)  # the series are the process's: what this test adds to them
    ctx = client_context(tmp_path / "certs")
    for _ in range(2):
        await post(hooks, "/validate", review(), ctx)
    await post(hooks, "/validate", b"nope", ctx)
    await post(hooks, "/explode", review(), ctx)

    requests = "controller_runtime_webhook_requests_total"
    assert counted.since(requests, "/validate", "200") == 2
    assert counted.since(requests, "/validate", "400") == 1
    assert counted.since(requests, "/explode", "200") == 1
    # 200 and 500 exist before any request (InstrumentedHook's WithLabelValues).
    assert registry.get_sample_value(requests, {"webhook": "/mutate", "code": "500"}) is not None
    assert counted.since(requests, "/mutate", "500") == 0
    assert counted.since("controller_runtime_webhook_latency_seconds_count", "/validate") == 3
    in_flight = {"webhook": "/validate"}
    assert (
        registry.get_sample_value("controller_runtime_webhook_requests_in_flight", in_flight) == 0
    )


class Counted:
    """The webhook series of a registry as they were made, to tell what a test added."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.registry = registry
        self.before = {(s.name, *s.labels.values()): s.value for s in self._samples()}

    def _samples(self) -> list[Any]:
        return [
            s
            for family in self.registry.collect()
            if family.name.startswith("controller_runtime_webhook")
            for s in family.samples
        ]

    def since(self, name: str, webhook: str, code: str | None = None) -> float:
        labels = {"webhook": webhook, **({"code": code} if code is not None else {})}
        now = self.registry.get_sample_value(name, labels) or 0.0
        key = (name, *labels.values())
        return now - self.before.get(key, 0.0)


def served_fingerprint(url: str) -> str:
    host, port = url.removeprefix("https://").rsplit(":", 1)
    pem = ssl.get_server_certificate((host, int(port)))
    return hashlib.sha256(ssl.PEM_cert_to_DER_cert(pem)).hexdigest()


def file_fingerprint(path: Path) -> str:
    return hashlib.sha256(ssl.PEM_cert_to_DER_cert(path.read_text())).hexdigest()


async def wait_for(condition: Any, what: str) -> None:
    for _ in range(200):
        if await asyncio.to_thread(condition):
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"not within 4 s: {what}")


async def test_a_rotated_pair_serves_and_garbage_keeps_the_old_one(
    server: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
):
    hooks, _ = server
    certs = tmp_path / "certs"
    first = file_fingerprint(certs / "tls.crt")
    assert await asyncio.to_thread(served_fingerprint, hooks.url) == first

    rotated = make_pair(tmp_path / "rotated")
    shutil.copy(rotated / "tls.key", certs / "tls.key")
    shutil.copy(rotated / "tls.crt", certs / "tls.crt")
    second = file_fingerprint(certs / "tls.crt")
    assert second != first
    await wait_for(lambda: served_fingerprint(hooks.url) == second, "the rotated certificate")

    with caplog.at_level(logging.ERROR, logger="workloadbuilder.aio"):
        (certs / "tls.crt").write_text("-----BEGIN GARBAGE-----\n")
        await wait_for(
            lambda: any("does not load" in r.getMessage() for r in caplog.records),
            "the failed reload logged",
        )
    assert await asyncio.to_thread(served_fingerprint, hooks.url) == second
    # The garbage is said once, not on every look at the files.
    await asyncio.sleep(0.2)
    assert sum("does not load" in r.getMessage() for r in caplog.records) == 1
    _, answer = await post(hooks, "/validate", review(), client_context(tmp_path / "rotated"))
    assert answer["response"]["uid"] == UID


@pytest.mark.parametrize("kind", ["validating", "mutating"])
def test_the_configuration_is_what_the_api_accepts(kind: str):
    config = aio.webhook_configuration(
        kind,  # type: ignore[arg-type]
        name="trainingjob-operator",
        webhook_name=f"{kind[0]}.trainingjobs.example.com",
        path=f"/{kind}",
        rules=[aio.WebhookRule(("example.com",), ("v1",), ("trainingjobs",))],
        service=("ml-system", "trainingjob-operator-webhook"),
        cert_manager_certificate="ml-system/trainingjob-operator-serving",
    )
    assert_schema_valid(config)
    model = official_model_for(config["kind"], config["apiVersion"])
    assert model is not None
    model.model_validate(config)
    hook = config["webhooks"][0]
    assert hook["clientConfig"]["service"] == {
        "namespace": "ml-system",
        "name": "trainingjob-operator-webhook",
        "path": f"/{kind}",
        "port": 443,
    }
    assert hook["admissionReviewVersions"] == ["v1"]
    assert hook["sideEffects"] == "None"
    assert config["metadata"]["annotations"] == {
        "cert-manager.io/inject-ca-from": "ml-system/trainingjob-operator-serving"
    }
    assert ("reinvocationPolicy" in hook) == (kind == "mutating")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"webhook_name": "trainingjobs"}, "at least three segments"),
        ({"url": "http://127.0.0.1:9443", "service": None}, "'https' is the only allowed"),
        ({"url": "https://127.0.0.1:9443"}, "exactly one of url or service"),
        ({"timeout_seconds": 31}, "between 1 and 30 seconds"),
    ],
)
def test_a_configuration_the_api_would_refuse_is_refused_here(change: dict[str, Any], message: str):
    arguments: dict[str, Any] = {
        "name": "x",
        "webhook_name": "v.trainingjobs.example.com",
        "path": "/validate",
        "rules": [aio.WebhookRule(("example.com",), ("v1",), ("trainingjobs",))],
        "service": ("ml", "hooks"),
        **change,
    }
    with pytest.raises(ValueError, match=message):
        aio.webhook_configuration("validating", **arguments)
