"""What kubectl relies on, over HTTP: OpenAPI, Table, discovery, health, media types, protobuf.

Expected values come from the observations of a real API server
(``real-apiserver-observed.md``), the 1.37 JSON schemas of ``kubernetes-validate`` and
upstream's sources (apimachinery, apiserver, kube-openapi), never from this server.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any

import aiohttp
import kubernetes_validate
import pytest
from multidict import CIMultiDict
from server_helpers import PG_PATH, apply, bounded, call, pod_group

from workloadbuilder.testing import FakeAPIServer
from workloadbuilder.testing.server.columns import human_duration
from workloadbuilder.testing.server.discovery import storage_version_hash

_SCHEMAS = Path(kubernetes_validate.__file__).parent / "kubernetes-json-schema" / "v1.37.0-local"
_DEFS: dict[str, Any] = json.loads((_SCHEMAS / "_definitions.json").read_text())["$defs"]
_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"
KUBECTL_TABLE = f"{TABLE},application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
KUBECTL_DISCOVERY = (
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
    "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"
)
# kubectl 1.32's `create namespace foo` body, captured with -v=9 (protobuf, magic "k8s\0").
KUBECTL_NAMESPACE_FOO = bytes.fromhex(
    "6b387300 0a0f0a02 76311209 4e616d65 73706163 65121b0a 130a0366 6f6f1200"
    "1a002200 2a003200 38004200 12001a02 0a001a00 2200".replace(" ", "")
)


async def raw(
    server: FakeAPIServer, path: str, headers: dict[str, str] | None = None
) -> tuple[int, CIMultiDict[str], bytes]:
    """A GET that does not follow redirects."""
    async with (
        aiohttp.ClientSession() as session,
        session.get(server.url + path, headers=headers or {}, allow_redirects=False) as resp,
    ):
        return resp.status, resp.headers.copy(), await resp.read()


# -- OpenAPI ------------------------------------------------------------------------------


@bounded()
async def test_openapi_v3_index_is_text_plain_without_etag(fake_apiserver: FakeAPIServer) -> None:
    status, headers, body = await raw(fake_apiserver, "/openapi/v3", {"Accept": "application/json"})
    assert status == 200
    assert headers["Content-Type"] == "text/plain; charset=utf-8"
    assert headers["Cache-Control"] == "no-cache, private"
    assert "ETag" not in headers
    url = json.loads(body)["paths"]["apis/scheduling.k8s.io/v1beta1"]["serverRelativeURL"]
    assert re.fullmatch(r"/openapi/v3/apis/scheduling\.k8s\.io/v1beta1\?hash=[0-9A-F]{128}", url)


@bounded()
async def test_openapi_v3_document_caching(fake_apiserver: FakeAPIServer) -> None:
    path = "/openapi/v3/apis/scheduling.k8s.io/v1beta1"
    status, headers, body = await raw(fake_apiserver, path)
    assert (status, headers["Content-Type"]) == (200, "application/json")
    assert re.fullmatch(r'"[0-9A-F]{128}"', headers["ETag"])
    current = headers["ETag"].strip('"')
    status, headers, body = await raw(fake_apiserver, f"{path}?hash={current}")
    assert status == 200 and headers["Cache-Control"] == "public, immutable"
    expires = parsedate_to_datetime(headers["Expires"])
    assert 364 <= (expires - datetime.now(UTC)).days <= 365
    status, headers, body = await raw(fake_apiserver, f"{path}?hash=0123")
    assert (status, headers["Location"], body) == (301, f"{path}?hash={current}", b"")
    assert (await raw(fake_apiserver, path, {"Accept": "application/xml"}))[::2] == (406, b"")
    assert (await raw(fake_apiserver, "/openapi/v3/apis/scheduling.k8s.io/v9"))[::2] == (404, b"")


@bounded()
async def test_openapi_v3_podgroup_schema_matches_the_1_37_schema(
    fake_apiserver: FakeAPIServer,
) -> None:
    doc = json.loads((await raw(fake_apiserver, "/openapi/v3/apis/scheduling.k8s.io/v1beta1"))[2])
    schemas = doc["components"]["schemas"]
    ours = schemas["io.k8s.api.scheduling.v1beta1.PodGroup"]
    oracle = _DEFS["io.k8s.api.scheduling.v1beta1.PodGroup"]
    assert set(ours["properties"]) == set(oracle["properties"])
    assert ours["x-kubernetes-group-version-kind"] == oracle["x-kubernetes-group-version-kind"]
    spec = schemas["io.k8s.api.scheduling.v1beta1.PodGroupSpec"]
    oracle_spec = _DEFS["io.k8s.api.scheduling.v1beta1.PodGroupSpec"]
    assert set(spec["properties"]) == set(oracle_spec["properties"])
    # Observed: schedulingPolicy is the only required spec field.
    assert spec["required"] == oracle_spec["required"] == ["schedulingPolicy"]
    conditions = schemas["io.k8s.api.scheduling.v1beta1.PodGroupStatus"]["properties"]["conditions"]
    oracle_conditions = _DEFS["io.k8s.api.scheduling.v1beta1.PodGroupStatus"]["properties"][
        "conditions"
    ]
    for ext in ("x-kubernetes-list-type", "x-kubernetes-list-map-keys"):
        assert conditions[ext] == oracle_conditions[ext]


@bounded()
async def test_openapi_v3_patch_operations_declare_field_validation(
    fake_apiserver: FakeAPIServer,
) -> None:
    # kubectl's query-parameter verifier looks for a PATCH tagged with the kind's GVK that has
    # a `fieldValidation` query parameter, and only then leaves validation to the server.
    for gv_key, kind in [("api/v1", "Pod"), ("apis/scheduling.k8s.io/v1beta1", "PodGroup")]:
        doc = json.loads((await raw(fake_apiserver, f"/openapi/v3/{gv_key}"))[2])
        patches = [
            p["patch"]
            for p in doc["paths"].values()
            if "patch" in p and p["patch"]["x-kubernetes-group-version-kind"]["kind"] == kind
        ]
        assert patches
        for op in patches:
            assert {"name": "fieldValidation", "in": "query"}.items() <= op["parameters"][2].items()


@bounded()
async def test_openapi_v2_is_swagger_json(fake_apiserver: FakeAPIServer) -> None:
    status, headers, body = await raw(fake_apiserver, "/openapi/v2")
    assert status == 200 and headers["Content-Type"] == "application/json"
    doc = json.loads(body)
    assert doc["swagger"] == "2.0"
    assert "io.k8s.api.scheduling.v1beta1.PodGroup" in doc["definitions"]


# -- Table ---------------------------------------------------------------------------------


def test_human_duration_matches_apimachinery() -> None:
    # Cases from apimachinery's pkg/util/duration/duration_test.go.
    hour, day, year = 3600, 86400, 365 * 86400
    cases = {
        1: "1s",
        70: "70s",
        190: "3m10s",
        70 * 60: "70m",
        47 * hour: "47h",
        49 * hour: "2d1h",
        (8 * 24 + 2) * hour: "8d",
        367 * day: "367d",
        2 * year + 25 * hour: "2y1d",
        8 * year + 2 * hour: "8y",
        -2: "<invalid>",
        -1.999999999: "0s",
        0: "0s",
        119.999: "119s",
        120: "2m",
        121: "2m1s",
        3 * hour + 60: "3h1m",
        8 * hour + 59 * 60: "8h",
        8 * day - 0.001: "7d23h",
        2 * year - 0.001: "729d",
    }
    assert {s: human_duration(s) for s in cases} == cases


@bounded()
async def test_podgroup_table_as_observed(fake_apiserver: FakeAPIServer) -> None:
    await apply(fake_apiserver, pod_group("pg"), "ctl")
    basic = pod_group("b")
    basic["spec"]["schedulingPolicy"] = {"basic": {}}
    await apply(fake_apiserver, basic, "ctl")
    reply = await call(
        fake_apiserver, "GET", PG_PATH, params={"limit": "500"}, headers={"Accept": KUBECTL_TABLE}
    )
    table = reply.json()
    assert (table["kind"], table["apiVersion"]) == ("Table", "meta.k8s.io/v1")
    assert reply.headers["Content-Type"].startswith("application/json")
    columns = table["columnDefinitions"]
    assert [(c["name"], c["priority"]) for c in columns] == [
        ("Name", 0),
        ("Policy", 0),
        ("Workload", 0),
        ("Status", 0),
        ("Age", 0),
    ]
    meta = _DEFS[_META]["properties"]
    assert columns[0]["description"] == meta["name"]["description"]
    assert columns[0]["format"] == "name"
    assert columns[-1]["description"] == meta["creationTimestamp"]["description"]
    rows = {r["cells"][0]: r for r in table["rows"]}
    assert rows["pg"]["cells"][:4] == ["pg", "Gang", "<none>", "Pending"]
    assert rows["b"]["cells"][1] == "Basic"
    assert re.fullmatch(r"\d+s", rows["pg"]["cells"][4])
    assert rows["pg"]["object"]["kind"] == "PartialObjectMetadata"
    assert rows["pg"]["object"]["metadata"]["name"] == "pg"
    bare = await call(
        fake_apiserver, "GET", PG_PATH, params={"includeObject": "None"}, headers={"Accept": TABLE}
    )
    assert all(r["object"] is None for r in bare.json()["rows"])


@bounded()
async def test_podgroup_status_column_follows_the_scheduled_condition(
    fake_apiserver: FakeAPIServer,
) -> None:
    await apply(fake_apiserver, pod_group("pg"), "ctl")
    statuses = []
    for value in ("False", "True"):
        fake_apiserver.patch_status(
            "scheduling.k8s.io",
            "v1beta1",
            "podgroups",
            "default",
            "pg",
            {
                "conditions": [
                    {
                        "type": "PodGroupInitiallyScheduled",
                        "status": value,
                        "reason": "Scheduled" if value == "True" else "Unschedulable",
                        "message": "",
                        "lastTransitionTime": "2026-01-01T00:00:00Z",
                    }
                ]
            },
        )
        one = await call(fake_apiserver, "GET", f"{PG_PATH}/pg", headers={"Accept": TABLE})
        statuses.append(one.json()["rows"][0]["cells"][3])
    assert statuses == ["Unschedulable", "Scheduled"]


@bounded()
async def test_pod_table_columns_as_observed(fake_apiserver: FakeAPIServer) -> None:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "image": "busybox"}]},
    }
    assert (
        await call(fake_apiserver, "POST", "/api/v1/namespaces/default/pods", pod)
    ).status == 201
    table = (
        await call(
            fake_apiserver, "GET", "/api/v1/namespaces/default/pods", headers={"Accept": TABLE}
        )
    ).json()
    assert [(c["name"], c["priority"]) for c in table["columnDefinitions"]] == [
        ("Name", 0),
        ("Ready", 0),
        ("Status", 0),
        ("Restarts", 0),
        ("Age", 0),
        ("IP", 1),
        ("Node", 1),
        ("Nominated Node", 1),
        ("Readiness Gates", 1),
    ]
    cells = table["rows"][0]["cells"]
    assert cells[:2] == ["p", "0/1"] and cells[5:] == ["<none>"] * 4


@bounded()
async def test_table_watch_sends_rows(fake_apiserver: FakeAPIServer) -> None:
    await apply(fake_apiserver, pod_group("pg"), "ctl")
    params = {"watch": "1", "timeoutSeconds": "1"}
    reply = await call(fake_apiserver, "GET", PG_PATH, params=params, headers={"Accept": TABLE})
    event = json.loads(reply.text.splitlines()[0])
    assert event["type"] == "ADDED"
    assert event["object"]["kind"] == "Table"
    assert event["object"]["rows"][0]["cells"][0] == "pg"


# -- discovery -----------------------------------------------------------------------------


def test_storage_version_hash_matches_the_observed_one() -> None:
    # Observed on a 1.36 server for podgroups stored at v1alpha2.
    assert storage_version_hash("scheduling.k8s.io", "v1alpha2", "PodGroup") == "YYgX3v5V204="


@bounded()
async def test_discovery_verbs_short_names_and_hashes(fake_apiserver: FakeAPIServer) -> None:
    sched = (await call(fake_apiserver, "GET", "/apis/scheduling.k8s.io/v1beta1")).json()
    by_name = {r["name"]: r for r in sched["resources"]}
    assert by_name["podgroups"]["verbs"] == [
        "create",
        "delete",
        "deletecollection",
        "get",
        "list",
        "patch",
        "update",
        "watch",
    ]
    assert by_name["podgroups/status"]["verbs"] == ["get", "patch", "update"]
    assert "workloads/status" not in by_name
    assert re.fullmatch(r"[A-Za-z0-9+/]{11}=", by_name["podgroups"]["storageVersionHash"])
    core = (await call(fake_apiserver, "GET", "/api/v1")).json()
    pods = next(r for r in core["resources"] if r["name"] == "pods")
    # pkg/registry/core/pod/storage: ShortNames "po", Categories "all"
    assert (pods["shortNames"], pods["categories"]) == (["po"], ["all"])
    namespaces = next(r for r in core["resources"] if r["name"] == "namespaces")
    assert "deletecollection" not in namespaces["verbs"]
    v1 = (await call(fake_apiserver, "GET", "/apis/scheduling.k8s.io/v1")).json()
    assert [(r["name"], r["kind"], r["namespaced"]) for r in v1["resources"]] == [
        ("priorityclasses", "PriorityClass", False)
    ]


@bounded()
async def test_aggregated_discovery_when_asked(fake_apiserver: FakeAPIServer) -> None:
    reply = await call(fake_apiserver, "GET", "/apis", headers={"Accept": KUBECTL_DISCOVERY})
    assert reply.headers["Content-Type"] == (
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
    )
    doc = reply.json()
    assert (doc["kind"], doc["apiVersion"]) == ("APIGroupDiscoveryList", "apidiscovery.k8s.io/v2")
    sched = next(g for g in doc["items"] if g["metadata"]["name"] == "scheduling.k8s.io")
    assert [v["version"] for v in sched["versions"]] == ["v1", "v1beta1", "v1alpha3"]
    core = (await call(fake_apiserver, "GET", "/api", headers={"Accept": KUBECTL_DISCOVERY})).json()
    resources = {r["resource"]: r for r in core["items"][0]["versions"][0]["resources"]}
    assert resources["pods"]["scope"] == "Namespaced"
    assert resources["pods"]["subresources"][0]["subresource"] == "status"
    plain = await call(fake_apiserver, "GET", "/apis")
    assert plain.json()["kind"] == "APIGroupList"


# -- health, version, refusals -----------------------------------------------------------


@bounded()
@pytest.mark.parametrize("path", ["/healthz", "/livez", "/readyz"])
async def test_health_checks(fake_apiserver: FakeAPIServer, path: str) -> None:
    reply = await call(fake_apiserver, "GET", path)
    assert (reply.status, reply.text) == (200, "ok")
    assert reply.headers["Content-Type"] == "text/plain; charset=utf-8"
    verbose = await call(fake_apiserver, "GET", path, params={"verbose": "1"})
    assert verbose.text.startswith("[+]ping ok\n")
    assert verbose.text.endswith(f"{path[1:]} check passed\n")
    assert (await call(fake_apiserver, "GET", f"{path}/nope")).status == 404


@bounded()
async def test_unknown_group_is_a_plain_text_404(fake_apiserver: FakeAPIServer) -> None:
    for path in ["/apis/example.com/v1/widgets", "/apis/example.com", "/nope"]:
        reply = await call(fake_apiserver, "GET", path)
        assert (reply.status, reply.text.strip()) == (404, "404 page not found")
        assert reply.headers["Content-Type"] == "text/plain; charset=utf-8"


@bounded()
async def test_cbor_accept_is_not_acceptable(fake_apiserver: FakeAPIServer) -> None:
    reply = await call(fake_apiserver, "GET", PG_PATH, headers={"Accept": "application/cbor"})
    # Observed (real-apiserver-observed.md, "CBOR" and "Content types and encodings"): 406,
    # application/json, a Status with reason NotAcceptable and go-restful's text as message.
    assert reply.status == 406
    assert reply.headers["Content-Type"] == "application/json"
    assert reply.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": "406: Not Acceptable\n\nAvailable representations: "
        "application/json, application/yaml, application/vnd.kubernetes.protobuf",
        "reason": "NotAcceptable",
        "details": {},
        "code": 406,
    }


@bounded()
async def test_post_in_an_unknown_format(fake_apiserver: FakeAPIServer) -> None:
    # apiserver pkg/endpoints/handlers/negotiation/errors.go: errUnsupportedMediaType
    reply = await call(fake_apiserver, "POST", PG_PATH, "x", content_type="text/plain")
    assert reply.status == 415
    assert reply.json()["reason"] == "UnsupportedMediaType"
    assert reply.json()["message"] == (
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json, application/yaml, application/vnd.kubernetes.protobuf"
    )


@bounded()
async def test_yaml_is_served_when_asked(fake_apiserver: FakeAPIServer) -> None:
    await apply(fake_apiserver, pod_group("pg"), "ctl")
    reply = await call(
        fake_apiserver, "GET", f"{PG_PATH}/pg", headers={"Accept": "application/yaml"}
    )
    assert reply.headers["Content-Type"] == "application/yaml"
    assert "kind: PodGroup\n" in reply.text


# -- protobuf ------------------------------------------------------------------------------


@bounded()
async def test_kubectl_protobuf_namespace_body_is_decoded(fake_apiserver: FakeAPIServer) -> None:
    proto = "application/vnd.kubernetes.protobuf"
    reply = await call(
        fake_apiserver,
        "POST",
        "/api/v1/namespaces",
        KUBECTL_NAMESPACE_FOO,
        content_type=proto,
        params={"fieldManager": "kubectl-create", "fieldValidation": "Strict"},
        headers={"Accept": f"{proto},application/json"},
    )
    assert reply.status == 201
    assert reply.json()["metadata"]["name"] == "foo"
    assert fake_apiserver.get_object("", "v1", "namespaces", None, "foo") is not None


@bounded()
async def test_protobuf_for_other_kinds_is_refused(fake_apiserver: FakeAPIServer) -> None:
    proto = "application/vnd.kubernetes.protobuf"
    reply = await call(fake_apiserver, "POST", PG_PATH, b"k8s\x00\x0a\x00", content_type=proto)
    assert reply.status == 415
    assert reply.json()["message"].startswith("the body of the request was in an unknown format")
    garbage = await call(
        fake_apiserver, "POST", "/api/v1/namespaces", b"k8s\x00\xff", content_type=proto
    )
    assert garbage.status == 400
    unprefixed = await call(fake_apiserver, "POST", "/api/v1/namespaces", b"{}", content_type=proto)
    assert unprefixed.status == 400
