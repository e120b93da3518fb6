"""coordination.k8s.io/v1 Leases on FakeAPIServer: CRUD, validation, decoding, optimistic
concurrency, watch, server-side apply, the Table, discovery and kubectl.

Expected values come from upstream: ``pkg/apis/coordination/validation`` (messages, paths),
``metav1.MicroTime``'s fixed six-digit layout (the decoding message quoted in public bug
reports against real API servers), kube-apiserver's Lease printer (``Name, Holder, Age``) with
the column text from the official client's ``V1LeaseSpec`` docs, and the 1.37 JSON schema.
"""

from __future__ import annotations

import functools
import json
import shutil
from pathlib import Path
from typing import Any

import aiohttp
import kubernetes_validate
import pytest
from kubernetes.client import V1LeaseSpec
from server_helpers import bounded, call
from test_server_kubectl import kubectl

from workloadbuilder.testing import FakeAPIServer

LEASES = "/apis/coordination.k8s.io/v1/namespaces/default/leases"
MICRO = "2026-01-02T03:04:05.123456Z"


def lease(name: str = "lock", **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": {"name": name},
        "spec": {
            "holderIdentity": "pod-a",
            "leaseDurationSeconds": 15,
            "acquireTime": MICRO,
            "renewTime": MICRO,
            "leaseTransitions": 0,
            **spec,
        },
    }


@bounded()
async def test_create_get_update_delete(fake_apiserver: FakeAPIServer) -> None:
    created = await call(fake_apiserver, "POST", LEASES, lease())
    assert created.status == 201, created.text
    body = created.json()
    kubernetes_validate.validate(body, "1.37.0", strict=True)
    assert body["spec"]["renewTime"] == MICRO  # kept as written: six fraction digits
    assert "generation" not in body["metadata"]  # the Lease strategy never sets one
    got = (await call(fake_apiserver, "GET", f"{LEASES}/lock")).json()
    assert got["spec"] == body["spec"]
    got["spec"]["holderIdentity"] = "pod-b"
    got["spec"]["leaseTransitions"] = 1
    put = await call(fake_apiserver, "PUT", f"{LEASES}/lock", got)
    assert put.status == 200, put.text
    assert put.json()["spec"]["holderIdentity"] == "pod-b"
    assert put.json()["metadata"]["resourceVersion"] != body["metadata"]["resourceVersion"]
    listed = (await call(fake_apiserver, "GET", LEASES)).json()
    assert listed["kind"] == "LeaseList"
    assert [i["metadata"]["name"] for i in listed["items"]] == ["lock"]
    deleted = await call(fake_apiserver, "DELETE", f"{LEASES}/lock")
    assert deleted.status == 200
    assert (await call(fake_apiserver, "GET", f"{LEASES}/lock")).status == 404


@bounded()
async def test_update_with_a_stale_resource_version_is_a_conflict(
    fake_apiserver: FakeAPIServer,
) -> None:
    first = (await call(fake_apiserver, "POST", LEASES, lease())).json()
    mine, theirs = json.loads(json.dumps(first)), json.loads(json.dumps(first))
    theirs["spec"]["holderIdentity"] = "pod-b"
    assert (await call(fake_apiserver, "PUT", f"{LEASES}/lock", theirs)).status == 200
    mine["spec"]["holderIdentity"] = "pod-c"
    stale = await call(fake_apiserver, "PUT", f"{LEASES}/lock", mine)
    assert stale.status == 409
    assert stale.json()["reason"] == "Conflict"
    assert "the object has been modified" in stale.json()["message"]


@pytest.mark.parametrize(
    ("spec", "causes"),
    [
        (
            {"leaseDurationSeconds": 0},
            [("spec.leaseDurationSeconds", "Invalid value: 0: must be greater than 0")],
        ),
        (
            {"leaseTransitions": -1},
            [("spec.leaseTransitions", "Invalid value: -1: must be greater than or equal to 0")],
        ),
        (
            {"preferredHolder": "pod-b"},
            [("spec.preferredHolder", "Forbidden: may only be specified if `strategy` is defined")],
        ),
        (
            {"strategy": "Newest"},
            [
                (
                    "spec.strategy.strategy",
                    'Unsupported value: "Newest": supported values: "OldestEmulationVersion"',
                )
            ],
        ),
        ({"strategy": "OldestEmulationVersion", "preferredHolder": "pod-b"}, []),
        ({"strategy": "example.com/mine"}, []),
    ],
)
@bounded()
async def test_validation_as_upstream(
    fake_apiserver: FakeAPIServer, spec: dict[str, Any], causes: list[tuple[str, str]]
) -> None:
    reply = await call(fake_apiserver, "POST", LEASES, lease(**spec))
    if not causes:
        assert reply.status == 201, reply.text
        return
    assert reply.status == 422, reply.text
    got = [(c["field"], c["message"]) for c in reply.json()["details"]["causes"]]
    assert got == causes
    assert reply.json()["details"]["kind"] == "Lease"
    assert reply.json()["details"]["group"] == "coordination.k8s.io"


@pytest.mark.parametrize(
    ("stamp", "said", "layout_part"),
    [
        ("2026-01-02T03:04:05.103Z", ".103Z", ".000000"),
        ("2026-01-02T03:04:05Z", "Z", ".000000"),
        ("2020-02-28T20:11:41.636526400Z", "400Z", "Z07:00"),
    ],
)
@bounded()
async def test_micro_time_needs_six_fraction_digits(
    fake_apiserver: FakeAPIServer, stamp: str, said: str, layout_part: str
) -> None:
    reply = await call(fake_apiserver, "POST", LEASES, lease(renewTime=stamp))
    assert reply.status == 400
    assert reply.json()["message"] == (
        'Lease in version "v1" cannot be handled as a Lease: parsing time '
        f'"{stamp}" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "{said}" as'
        f' "{layout_part}"'
    )


@bounded()
async def test_unknown_spec_field_is_refused_strictly(fake_apiserver: FakeAPIServer) -> None:
    reply = await call(
        fake_apiserver,
        "POST",
        LEASES,
        lease(holder="x"),
        params={"fieldValidation": "Strict"},
    )
    assert reply.status == 400
    assert 'unknown field "spec.holder"' in reply.json()["message"]


@bounded()
async def test_server_side_apply_and_watch(fake_apiserver: FakeAPIServer) -> None:
    start = fake_apiserver.resource_version
    applied = await call(
        fake_apiserver,
        "PATCH",
        f"{LEASES}/lock",
        lease(),
        content_type="application/apply-patch+yaml",
        params={"fieldManager": "elector"},
    )
    assert applied.status == 201, applied.text
    managers = [m["manager"] for m in applied.json()["metadata"]["managedFields"]]
    assert managers == ["elector"]
    timeout = aiohttp.ClientTimeout(total=10)
    params = {"watch": "true", "resourceVersion": str(start), "timeoutSeconds": "2"}
    async with (
        aiohttp.ClientSession(timeout=timeout) as session,
        session.get(fake_apiserver.url + LEASES, params=params) as resp,
    ):
        line = await resp.content.readline()
    event = json.loads(line)
    assert (event["type"], event["object"]["kind"]) == ("ADDED", "Lease")
    assert event["object"]["spec"]["holderIdentity"] == "pod-a"


@bounded()
async def test_table_discovery_and_openapi(fake_apiserver: FakeAPIServer) -> None:
    await call(fake_apiserver, "POST", LEASES, lease())
    table = (
        await call(
            fake_apiserver,
            "GET",
            LEASES,
            headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"},
        )
    ).json()
    columns = [(c["name"], c["type"], c["format"]) for c in table["columnDefinitions"]]
    assert columns == [("Name", "string", "name"), ("Holder", "string", ""), ("Age", "string", "")]
    holder_doc = V1LeaseSpec.model_fields["holder_identity"].description
    assert table["columnDefinitions"][1]["description"] == holder_doc
    assert table["rows"][0]["cells"][:2] == ["lock", "pod-a"]
    resources = (await call(fake_apiserver, "GET", "/apis/coordination.k8s.io/v1")).json()
    (entry,) = resources["resources"]
    assert (entry["name"], entry["kind"], entry["namespaced"]) == ("leases", "Lease", True)
    assert sorted(entry["verbs"]) == sorted(
        ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]
    )
    openapi = await call(fake_apiserver, "GET", "/openapi/v3/apis/coordination.k8s.io/v1")
    assert openapi.status == 200
    assert any(p.endswith("/leases") for p in openapi.json()["paths"])


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed")
@bounded(60)
async def test_kubectl_get_leases(fake_apiserver: FakeAPIServer, tmp_path: Path) -> None:
    run = functools.partial(kubectl, fake_apiserver, tmp_path)
    manifest = json.dumps(lease("my-lock"))
    assert await run("create", "-f", "-", stdin=manifest) == (
        0,
        "lease.coordination.k8s.io/my-lock created\n",
    )
    code, out = await run("get", "leases")
    assert code == 0
    header, row = (line.split() for line in out.strip().splitlines())
    assert header == ["NAME", "HOLDER", "AGE"]
    assert row[:2] == ["my-lock", "pod-a"]
    code, out = await run("get", "lease", "my-lock", "-o", "yaml")
    assert code == 0
    assert "holderIdentity: pod-a" in out
    assert f'renewTime: "{MICRO}"' in out
    assert await run("delete", "lease", "my-lock") == (
        0,
        'lease.coordination.k8s.io "my-lock" deleted\n',
    )
