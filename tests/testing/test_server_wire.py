"""Wire details real clients depend on: status codes, Status bodies, content types, options."""

from __future__ import annotations

import pytest
from server_helpers import APPLY, PG_PATH, apply, bounded, call, pod_group

from workloadbuilder.testing import FakeAPIServer


def strict_checker(group: str, version: str, kind: str, obj: dict[str, object]) -> list[str]:
    spec = obj.get("spec")
    return ["spec.bogus"] if isinstance(spec, dict) and "bogus" in spec else []


@bounded()
async def test_apply_creates_with_201_then_200(fake_apiserver: FakeAPIServer) -> None:
    assert (await apply(fake_apiserver, pod_group(), "ctl")).status == 201
    assert (await apply(fake_apiserver, pod_group(), "ctl")).status == 200


@bounded()
async def test_apply_without_field_manager(fake_apiserver: FakeAPIServer) -> None:
    reply = await call(fake_apiserver, "PATCH", f"{PG_PATH}/pg", pod_group(), content_type=APPLY)
    assert reply.status == 422
    assert reply.headers["Content-Type"] == "application/json"
    assert reply.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": 'PatchOptions.meta.k8s.io "" is invalid: '
        "fieldManager: Required value: is required for apply patch",
        "reason": "Invalid",
        # Observed: details has group, kind and causes but no name key (StatusDetails omits "")
        "details": {
            "group": "meta.k8s.io",
            "kind": "PatchOptions",
            "causes": [
                {
                    "reason": "FieldValueRequired",
                    "message": "Required value: is required for apply patch",
                    "field": "fieldManager",
                }
            ],
        },
        "code": 422,
    }


@bounded()
async def test_apply_with_managed_fields_is_rejected(fake_apiserver: FakeAPIServer) -> None:
    obj = pod_group()
    obj["metadata"]["managedFields"] = [{"manager": "x"}]
    reply = await apply(fake_apiserver, obj, "ctl")
    assert reply.status == 400
    assert reply.json()["message"] == "metadata.managedFields must be nil"
    assert reply.json()["reason"] == "BadRequest"


@bounded()
async def test_apply_with_wrong_api_version_or_kind(fake_apiserver: FakeAPIServer) -> None:
    reply = await apply(
        fake_apiserver, {**pod_group(), "apiVersion": "scheduling.k8s.io/v1alpha3"}, "ctl"
    )
    assert reply.status == 400
    assert reply.json()["message"] == (
        "Incorrect version specified in apply patch. Specified patch version: "
        "scheduling.k8s.io/v1alpha3, expected: scheduling.k8s.io/v1beta1"
    )
    reply = await apply(fake_apiserver, {**pod_group(), "kind": "Workload"}, "ctl")
    assert reply.status == 400
    assert "Incorrect kind specified in apply patch" in reply.json()["message"]


@bounded()
async def test_apply_accepts_yaml(fake_apiserver: FakeAPIServer) -> None:
    body = """
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: pg, namespace: default}
spec:
  schedulingPolicy: {gang: {minCount: 3}}
"""
    reply = await call(
        fake_apiserver,
        "PATCH",
        f"{PG_PATH}/pg",
        body,
        content_type=APPLY,
        params={"fieldManager": "ctl"},
    )
    assert reply.status == 201
    assert reply.json()["spec"]["schedulingPolicy"]["gang"]["minCount"] == 3


@pytest.mark.parametrize("value", ["true", "True"])
@bounded()
async def test_force_on_a_non_apply_patch(fake_apiserver: FakeAPIServer, value: str) -> None:
    await apply(fake_apiserver, pod_group(), "ctl")
    reply = await call(
        fake_apiserver,
        "PATCH",
        f"{PG_PATH}/pg",
        {"metadata": {"labels": {"a": "b"}}},
        content_type="application/merge-patch+json",
        params={"force": value},
    )
    assert reply.status == 422
    assert reply.json()["details"]["causes"][0]["field"] == "force"


@bounded()
async def test_unknown_fields_strict_warn_ignore() -> None:
    async with FakeAPIServer(field_checker=strict_checker) as server:
        bad = pod_group(bogus=1)
        strict = await apply(server, bad, "ctl", fieldValidation="Strict")
        assert strict.status == 400
        assert strict.json()["message"].startswith("error strict decoding YAML")
        assert "spec.bogus" in strict.json()["message"]
        created = await call(server, "POST", PG_PATH, bad, params={"fieldValidation": "Strict"})
        assert created.status == 400
        # Observed: `PodGroup in version "v1alpha2" cannot be handled as a PodGroup: ...`
        assert created.json()["message"] == (
            'PodGroup in version "v1beta1" cannot be handled as a PodGroup: '
            'strict decoding error: unknown field "spec.bogus"'
        )
        warned = await apply(server, bad, "ctl")
        assert warned.status == 201
        assert warned.warnings == ['299 - "unknown field \\"spec.bogus\\""']
        assert "bogus" not in warned.json()["spec"]
        ignored = await apply(server, bad, "ctl", fieldValidation="Ignore")
        assert ignored.status == 200
        assert ignored.warnings == []


@bounded()
async def test_unknown_fields_from_the_sdk_models(fake_apiserver: FakeAPIServer) -> None:
    reply = await apply(fake_apiserver, pod_group(bogus=1), "ctl", fieldValidation="Strict")
    assert reply.status == 400
    assert 'unknown field "spec.bogus"' in reply.json()["message"]


@pytest.mark.parametrize(
    "content_type",
    [
        "application/merge-patch+json",
        "application/strategic-merge-patch+json",
        "application/json-patch+json",
    ],
)
@bounded()
async def test_non_apply_patch_on_a_missing_object(
    fake_apiserver: FakeAPIServer, content_type: str
) -> None:
    body = [] if content_type.startswith("application/json-patch") else {}
    reply = await call(fake_apiserver, "PATCH", f"{PG_PATH}/pg", body, content_type=content_type)
    assert reply.status == 404
    assert reply.headers["Content-Type"] == "application/json"
    assert reply.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": 'podgroups.scheduling.k8s.io "pg" not found',
        "reason": "NotFound",
        "details": {"name": "pg", "group": "scheduling.k8s.io", "kind": "podgroups"},
        "code": 404,
    }


@bounded()
async def test_unsupported_patch_content_type(fake_apiserver: FakeAPIServer) -> None:
    await apply(fake_apiserver, pod_group(), "ctl")
    reply = await call(fake_apiserver, "PATCH", f"{PG_PATH}/pg", {}, content_type="text/plain")
    # Observed: the PATCH route refuses the type before any handler runs, "415: Unsupported
    # Media Type"; the API server's serviceErrorHandler (apiserver pkg/server/handler.go) sends
    # go-restful's error as a Status made by NewGenericServerResponse, with empty details.
    assert reply.status == 415
    assert reply.headers["Content-Type"] == "application/json"
    assert reply.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": "415: Unsupported Media Type",
        "reason": "UnsupportedMediaType",
        "details": {},
        "code": 415,
    }


@bounded()
async def test_unserved_path(fake_apiserver: FakeAPIServer) -> None:
    # Observed: a known group with an unserved version is a JSON Status 404 ...
    reply = await call(fake_apiserver, "GET", "/apis/scheduling.k8s.io/v9/podgroups")
    assert reply.status == 404
    assert reply.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": "the server could not find the requested resource",
        "reason": "NotFound",
        "details": {},
        "code": 404,
    }


@bounded()
async def test_dry_run_persists_nothing(fake_apiserver: FakeAPIServer) -> None:
    dry = {"dryRun": "All"}
    created = await call(fake_apiserver, "POST", PG_PATH, pod_group(), params=dry)
    assert created.status == 201
    assert created.json()["metadata"]["managedFields"]
    assert created.json()["spec"]["disruptionMode"] == {"single": {}}
    assert (
        fake_apiserver.get_object("scheduling.k8s.io", "v1beta1", "podgroups", "default", "pg")
        is None
    )
    applied = await apply(fake_apiserver, pod_group(), "ctl", **dry)
    assert applied.status == 201
    assert fake_apiserver.list_objects("scheduling.k8s.io", "v1beta1", "podgroups") == []
    real = (await apply(fake_apiserver, pod_group(), "ctl")).json()
    rv = real["metadata"]["resourceVersion"]
    patched = await apply(fake_apiserver, pod_group(min_count=9), "ctl", **dry)
    assert patched.json()["spec"]["schedulingPolicy"]["gang"]["minCount"] == 9
    assert patched.json()["metadata"]["resourceVersion"] == rv
    put = {**real, "metadata": {**real["metadata"], "labels": {"a": "b"}}}
    replaced = await call(fake_apiserver, "PUT", f"{PG_PATH}/pg", put, params=dry)
    assert replaced.json()["metadata"]["labels"] == {"a": "b"}
    deleted = await call(fake_apiserver, "DELETE", f"{PG_PATH}/pg", params=dry)
    assert deleted.status == 200
    stored = fake_apiserver.get_object("scheduling.k8s.io", "v1beta1", "podgroups", "default", "pg")
    assert stored == real
    bad = await call(fake_apiserver, "POST", PG_PATH, pod_group("x"), params={"dryRun": "Yes"})
    assert bad.status == 400


@bounded()
async def test_default_field_manager_comes_from_the_user_agent(
    fake_apiserver: FakeAPIServer,
) -> None:
    reply = await call(
        fake_apiserver, "POST", PG_PATH, pod_group(), headers={"User-Agent": "my-ctl/1.2 (linux)"}
    )
    entry = reply.json()["metadata"]["managedFields"][0]
    assert (entry["manager"], entry["operation"]) == ("my-ctl", "Update")
    named = await call(
        fake_apiserver,
        "PATCH",
        f"{PG_PATH}/pg",
        {"metadata": {"labels": {"a": "b"}}},
        content_type="application/merge-patch+json",
        params={"fieldManager": "labeler"},
    )
    assert {m["manager"] for m in named.json()["metadata"]["managedFields"]} == {
        "my-ctl",
        "labeler",
    }


@bounded()
async def test_error_bodies_are_exactly_application_json(fake_apiserver: FakeAPIServer) -> None:
    paths = [("GET", f"{PG_PATH}/nope"), ("GET", "/apis/scheduling.k8s.io/v9"), ("PUT", PG_PATH)]
    for method, path in paths:
        reply = await call(fake_apiserver, method, path, {})
        assert reply.status >= 400
        assert reply.headers["Content-Type"] == "application/json"


@bounded()
async def test_apply_with_a_uid_precondition(fake_apiserver: FakeAPIServer) -> None:
    obj = pod_group()
    obj["metadata"]["uid"] = "0b9c5f1e-0000-4000-8000-000000000000"
    missing = await apply(fake_apiserver, obj, "ctl")
    assert missing.status == 409
    assert missing.json()["message"].startswith("Precondition failed: UID in precondition: 0b9c")
    created = (await apply(fake_apiserver, pod_group(), "ctl")).json()
    obj["metadata"]["uid"] = created["metadata"]["uid"]
    assert (await apply(fake_apiserver, obj, "ctl")).status == 200
