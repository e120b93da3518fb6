"""Smaller differences seen side by side with a real API server, over HTTP.

Each expected value is quoted from ``real-apiserver-observed.md`` or upstream's sources
(apimachinery, apiserver, the kube registry strategies), named at the assertion.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import kubernetes_validate
from server_helpers import PG_PATH, apply, bounded, call, pod_group

from workloadbuilder.testing import FakeAPIServer
from workloadbuilder.testing.engine import core_fields

_SCHEMAS = Path(kubernetes_validate.__file__).parent / "kubernetes-json-schema" / "v1.37.0-local"

PODS = "/api/v1/namespaces/default/pods"
JOBS = "/apis/batch/v1/namespaces/default/jobs"
JOB_WARNING = (
    "child pods are preserved by default when jobs are deleted; set propagationPolicy=Background "
    "to remove them or set propagationPolicy=Orphan to suppress this warning"
)  # pkg/registry/batch/job/storage/storage.go: deleteOptionWarnings


def pod(name: str, **meta: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, **meta},
        "spec": {"containers": [{"name": "c", "image": "busybox"}]},
    }


def job(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name},
        "spec": {
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [{"name": "c", "image": "busybox"}],
                }
            }
        },
    }


@bounded()
async def test_strict_and_warn_on_a_core_kind(fake_apiserver: FakeAPIServer) -> None:
    bad = pod("p")
    bad["bogus"] = 1
    bad["metadata"]["bogus"] = 2
    bad["spec"]["containers"][0]["bogus"] = 3
    strict = await call(fake_apiserver, "POST", PODS, bad, params={"fieldValidation": "Strict"})
    assert strict.status == 400
    # Reported in document order, as sigs.k8s.io/json's strict decoder does.
    # apiserver handlers/rest.go transformDecodeError wording, as observed for PodGroups.
    assert strict.json()["message"] == (
        'Pod in version "v1" cannot be handled as a Pod: strict decoding error: '
        'unknown field "metadata.bogus", unknown field "spec.containers[0].bogus", '
        'unknown field "bogus"'
    )
    warned = await call(fake_apiserver, "POST", PODS, bad)
    assert warned.status == 201
    assert '299 - "unknown field \\"spec.containers[0].bogus\\""' in warned.warnings
    assert "bogus" not in warned.json()
    assert "bogus" not in warned.json()["spec"]["containers"][0]


def test_core_field_tables_match_the_1_37_schemas() -> None:
    defs = json.loads((_SCHEMAS / "_definitions.json").read_text())["$defs"]
    for table, name in [
        (core_fields.POD_SPEC, "io.k8s.api.core.v1.PodSpec"),
        (core_fields.CONTAINER, "io.k8s.api.core.v1.Container"),
        (core_fields.JOB_SPEC, "io.k8s.api.batch.v1.JobSpec"),
        (core_fields.NODE_SPEC, "io.k8s.api.core.v1.NodeSpec"),
        (core_fields.SHAPES[("", "Event")], "io.k8s.api.core.v1.Event"),
        (
            core_fields.SHAPES[("scheduling.k8s.io", "PriorityClass")],
            "io.k8s.api.scheduling.v1.PriorityClass",
        ),
    ]:
        assert set(table) == set(defs[name]["properties"]), name


@bounded()
async def test_unsupported_field_selectors(fake_apiserver: FakeAPIServer) -> None:
    reply = await call(fake_apiserver, "GET", PODS, params={"fieldSelector": "spec.foo=1"})
    assert (reply.status, reply.json()["message"]) == (400, "field label not supported: spec.foo")
    fine = await call(fake_apiserver, "GET", PODS, params={"fieldSelector": "spec.nodeName="})
    assert fine.status == 200
    # apimachinery runtime/conversion.go: DefaultMetaV1FieldSelectorConversion
    reply = await call(fake_apiserver, "GET", PG_PATH, params={"fieldSelector": "spec.foo=x"})
    assert reply.status == 400
    assert reply.json()["message"] == (
        '"spec.foo" is not a known field selector: only "metadata.name", "metadata.namespace"'
    )
    watch = await call(
        fake_apiserver, "GET", PODS, params={"watch": "1", "fieldSelector": "status.nope=1"}
    )
    assert watch.status == 400


@bounded()
async def test_job_deleted_without_a_policy_is_orphaned(fake_apiserver: FakeAPIServer) -> None:
    created = (await call(fake_apiserver, "POST", JOBS, job("j"))).json()
    owner = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "name": "j",
        "uid": created["metadata"]["uid"],
        "controller": True,
    }
    await call(fake_apiserver, "POST", PODS, pod("j-0", ownerReferences=[owner]))
    reply = await call(fake_apiserver, "DELETE", f"{JOBS}/j")
    assert reply.status == 200
    body = reply.json()
    assert body["kind"] == "Job"
    assert "orphan" in body["metadata"]["finalizers"]
    assert body["metadata"]["deletionTimestamp"]
    assert reply.warnings == [f'299 - "{JOB_WARNING}"']
    left = (await call(fake_apiserver, "GET", f"{PODS}/j-0")).json()
    assert "ownerReferences" not in left["metadata"]
    await call(fake_apiserver, "POST", JOBS, job("k"))
    background = await call(
        fake_apiserver, "DELETE", f"{JOBS}/k", params={"propagationPolicy": "Background"}
    )
    assert background.status == 200 and background.warnings == []


@bounded()
async def test_admission_sets_the_pod_group_priority(fake_apiserver: FakeAPIServer) -> None:
    created = (await apply(fake_apiserver, pod_group("plain"), "ctl")).json()
    assert created["spec"]["priority"] == 0  # observed create default
    high = {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": "high"},
        "value": 1000,
    }
    pcs = "/apis/scheduling.k8s.io/v1/priorityclasses"
    assert (await call(fake_apiserver, "POST", pcs, high)).status == 201
    ranked = (
        await apply(fake_apiserver, pod_group("ranked", priorityClassName="high"), "ctl")
    ).json()
    # Observed: the API server resolves spec.priorityClassName into spec.priority.
    assert ranked["spec"]["priority"] == 1000
    missing = await apply(fake_apiserver, pod_group("lost", priorityClassName="nope"), "ctl")
    assert missing.status == 403
    assert missing.json()["reason"] == "Forbidden"


@bounded()
async def test_generation_only_where_the_api_server_sets_it(fake_apiserver: FakeAPIServer) -> None:
    created = (await call(fake_apiserver, "POST", PODS, pod("p"))).json()
    assert created["metadata"]["generation"] == 1  # observed: a Pod has generation 1
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}}
    ns = (await call(fake_apiserver, "POST", "/api/v1/namespaces", namespace)).json()
    assert "generation" not in ns["metadata"]  # the namespace strategy never sets it
    default = (await call(fake_apiserver, "GET", "/api/v1/namespaces/default")).json()
    assert "generation" not in default["metadata"]


@bounded()
async def test_no_remaining_item_count_with_a_selector(fake_apiserver: FakeAPIServer) -> None:
    for name in ("a", "b", "c", "d"):
        await apply(fake_apiserver, pod_group(name), "ctl")
    plain = (await call(fake_apiserver, "GET", PG_PATH, params={"limit": "1"})).json()
    assert plain["metadata"]["remainingItemCount"] == 3  # observed: 3, 2, 1, then absent
    selected = await call(
        fake_apiserver, "GET", PG_PATH, params={"limit": "1", "labelSelector": "x!=y"}
    )
    assert "continue" in selected.json()["metadata"]
    assert "remainingItemCount" not in selected.json()["metadata"]


@bounded()
async def test_failed_json_patch_test_is_the_generic_422(fake_apiserver: FakeAPIServer) -> None:
    await apply(fake_apiserver, pod_group("pg"), "ctl")
    ops = [{"op": "test", "path": "/spec/priority", "value": 5}]
    reply = await call(
        fake_apiserver, "PATCH", f"{PG_PATH}/pg", ops, content_type="application/json-patch+json"
    )
    body = reply.json()
    assert (reply.status, body["reason"], body["details"]) == (422, "Invalid", {})
    assert body["message"] == "the server rejected our request due to an error in our request"


@bounded()
async def test_version_has_the_1_37_fields(fake_apiserver: FakeAPIServer) -> None:
    info = (await call(fake_apiserver, "GET", "/version")).json()
    # apimachinery pkg/version/types.go: Info
    assert list(info) == [
        "major",
        "minor",
        "emulationMajor",
        "emulationMinor",
        "minCompatibilityMajor",
        "minCompatibilityMinor",
        "gitVersion",
        "gitCommit",
        "gitTreeState",
        "buildDate",
        "goVersion",
        "compiler",
        "platform",
    ]
    assert (info["major"], info["minor"], info["emulationMinor"]) == ("1", "37", "37")


@bounded()
async def test_dry_run_delete_answers_as_the_real_one(fake_apiserver: FakeAPIServer) -> None:
    await call(fake_apiserver, "POST", PODS, pod("p"))
    dry = await call(fake_apiserver, "DELETE", f"{PODS}/p", params={"dryRun": "All"})
    assert (await call(fake_apiserver, "GET", f"{PODS}/p")).status == 200
    real = await call(fake_apiserver, "DELETE", f"{PODS}/p")
    assert dry.status == real.status == 200
    strip = lambda b: {**b, "metadata": {**b["metadata"], "resourceVersion": ""}}  # noqa: E731
    assert strip(dry.json()) == strip(real.json())
    await apply(fake_apiserver, pod_group("pg"), "ctl")
    dry = await call(fake_apiserver, "DELETE", f"{PG_PATH}/pg", params={"dryRun": "All"})
    real = await call(fake_apiserver, "DELETE", f"{PG_PATH}/pg")
    # A PodGroup has the podgroup-protection finalizer: both answer with the marked object.
    unmarked = lambda b: {  # noqa: E731
        **b,
        "metadata": {**b["metadata"], "resourceVersion": "", "deletionTimestamp": ""},
    }
    assert unmarked(dry.json()) == unmarked(real.json())
    assert dry.json()["metadata"]["deletionTimestamp"]
