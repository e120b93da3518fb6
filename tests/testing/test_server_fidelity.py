"""The requests of ``real-apiserver-observed.md`` ("Core kinds, request by request" and "Wire
facts"), replayed one by one against the test server: each answer is what the real server gave.

Where kube-apiserver 1.37 differs from the observed 1.36.2, upstream's 1.37 source decides and
is named next to the assertion. No expected value is taken from this server's own output.
"""

from __future__ import annotations

import asyncio
import base64
import json
import re
from pathlib import Path
from typing import Any

import aiohttp
import kubernetes_validate
from server_helpers import APPLY, PG_PATH, bounded, call, pod_group

from workloadbuilder.testing import FakeAPIServer
from workloadbuilder.testing.server import DEFAULT_RESOURCES, ResourceType

PODS = "/api/v1/namespaces/default/pods"
JOBS = "/apis/batch/v1/namespaces/default/jobs"
EVENTS = "/api/v1/namespaces/default/events"
WORKLOADS = "/apis/scheduling.k8s.io/v1beta1/namespaces/default/workloads"
CLASSES = "/apis/scheduling.k8s.io/v1/priorityclasses"
MERGE = "application/merge-patch+json"
STRATEGIC = "application/strategic-merge-patch+json"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"
UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
_SCHEMAS = Path(kubernetes_validate.__file__).parent / "kubernetes-json-schema" / "v1.37.0-local"
_DEFS: dict[str, Any] = json.loads((_SCHEMAS / "_definitions.json").read_text())["$defs"]


def pod(name: str, **meta: Any) -> dict[str, Any]:
    spec = {"containers": [{"name": "c", "image": "busybox"}]}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, **meta}, "spec": spec}


def job(name: str, **template_spec: Any) -> dict[str, Any]:
    spec = {"containers": [{"name": "c", "image": "busybox"}], **template_spec}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name},
        "spec": {"template": {"spec": spec}},
    }


def event(name: str, involved_namespace: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": name},
        "involvedObject": {"kind": "Pod", "name": "p1", "namespace": involved_namespace},
        "reason": "Tested",
        "message": "a test event",
        "type": "Normal",
        "count": 1,
    }


def _doc(definition: str, field: str) -> str:
    return str(_DEFS[f"io.k8s.api.{definition}"]["properties"][field]["description"])


# -- lists and discovery ----------------------------------------------------------------------


@bounded()
async def test_list_items_carry_no_kind_but_watch_events_do(fake_apiserver: FakeAPIServer) -> None:
    await call(fake_apiserver, "POST", PODS, pod("p1"))
    for path in (PODS, "/api/v1/namespaces"):
        listing = (await call(fake_apiserver, "GET", path)).json()
        # Observed ("Lists"): the list has kind and apiVersion, its items neither.
        assert listing["kind"].endswith("List") and listing["apiVersion"] == "v1"
        assert listing["items"]
        assert all("kind" not in i and "apiVersion" not in i for i in listing["items"])
    params = {"watch": "true", "timeoutSeconds": "1"}
    timeout = aiohttp.ClientTimeout(total=10)
    async with (
        aiohttp.ClientSession(timeout=timeout) as session,
        session.get(fake_apiserver.url + PODS, params=params) as resp,
    ):
        first = json.loads(await resp.content.readline())
    # Watch events keep what the real server sends (apiserver-observed "Compaction and 410":
    # each event's object is a whole object with its kind and apiVersion).
    assert (first["type"], first["object"]["kind"], first["object"]["apiVersion"]) == (
        "ADDED",
        "Pod",
        "v1",
    )


@bounded()
async def test_custom_resource_list_items_keep_their_kind() -> None:
    # A custom resource is served unstructured: its stored objects, and so its list items,
    # keep apiVersion and kind (apiextensions-apiserver's UnstructuredList).
    runs = ResourceType("example.com", "v1", "TrainingRun", "trainingruns")
    async with FakeAPIServer(resources=(*DEFAULT_RESOURCES, runs)) as server:
        path = "/apis/example.com/v1/namespaces/default/trainingruns"
        body = {"apiVersion": "example.com/v1", "kind": "TrainingRun", "metadata": {"name": "r"}}
        assert (await call(server, "POST", path, body)).status == 201
        [item] = (await call(server, "GET", path)).json()["items"]
    assert (item["apiVersion"], item["kind"]) == ("example.com/v1", "TrainingRun")


@bounded()
async def test_core_v1_resource_list_has_kind_and_group_version_only(
    fake_apiserver: FakeAPIServer,
) -> None:
    document = (await call(fake_apiserver, "GET", "/api/v1")).json()
    # Observed: /api/v1 (APIResourceList) has kind and groupVersion but no apiVersion.
    assert list(document) == ["kind", "groupVersion", "resources"]
    assert (document["kind"], document["groupVersion"]) == ("APIResourceList", "v1")


@bounded()
async def test_json_is_compact_for_clients_and_pretty_for_curl(
    fake_apiserver: FakeAPIServer,
) -> None:
    path = f"{PODS}/nope"
    kubectl = {"User-Agent": "kubectl/v1.32.0 (linux/amd64) kubernetes/abcdef"}
    compact = await call(fake_apiserver, "GET", path, headers=kubectl)
    # Observed ("Pretty-printing"): compact, one line, ending in a newline for kubectl...
    assert compact.text == json.dumps(compact.json(), separators=(",", ":")) + "\n"
    pretty = await call(fake_apiserver, "GET", path, headers={"User-Agent": "curl/8.5.0"})
    # ... and for curl 2-space indent, errors included, with no trailing newline.
    assert pretty.text == json.dumps(pretty.json(), indent=2)
    assert pretty.json() == compact.json()
    asked = await call(fake_apiserver, "GET", path, params={"pretty": "true"}, headers=kubectl)
    assert asked.text == pretty.text  # the apiserver's isPrettyPrint also reads ?pretty=


@bounded()
async def test_paging_keeps_the_first_pages_resource_version(
    fake_apiserver: FakeAPIServer,
) -> None:
    for name in ("p1", "p2", "p3", "p4"):
        await call(fake_apiserver, "POST", PODS, pod(name))
    pages, params = [], {"limit": "1"}
    while True:
        listing = (await call(fake_apiserver, "GET", PODS, params=params)).json()
        pages.append(listing["metadata"])
        if "continue" not in listing["metadata"]:
            break
        params = {"limit": "1", "continue": listing["metadata"]["continue"]}
        await call(fake_apiserver, "POST", PODS, pod(f"later-{len(pages)}"))  # rv moves on
    # Observed ("Paging"): one RV on every page; remainingItemCount 3, 2, 1, then absent;
    # the token is base64url without padding of {"v", "rv", "start": "/<name>\u0000"}.
    assert len({m["resourceVersion"] for m in pages[:4]}) == 1
    assert [m.get("remainingItemCount") for m in pages[:3]] == [3, 2, 1]
    token = pages[0]["continue"]
    assert "=" not in token
    decoded = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    assert decoded == {
        "v": "meta.k8s.io/v1",
        "rv": int(pages[0]["resourceVersion"]),
        "start": "/p1\u0000",
    }


@bounded()
async def test_a_malformed_json_patch_is_worded_by_gos_decoder(
    fake_apiserver: FakeAPIServer,
) -> None:
    await call(fake_apiserver, "POST", PG_PATH, pod_group())
    patch = "[{n}]"
    reply = await call(
        fake_apiserver, "PATCH", f"{PG_PATH}/pg", patch, content_type="application/json-patch+json"
    )
    # Observed ("Patch errors"): 400, Go's scanner message, no details key.
    assert reply.status == 400
    body = reply.json()
    assert body["message"] == (
        "error decoding patch: invalid character 'n' looking for beginning of object key string"
    )
    assert (body["reason"], "details" in body) == ("BadRequest", False)


@bounded(seconds=30)
async def test_a_list_at_a_future_resource_version_times_out(
    fake_apiserver: FakeAPIServer,
) -> None:
    current = int((await call(fake_apiserver, "GET", PODS)).json()["metadata"]["resourceVersion"])
    loop = asyncio.get_running_loop()
    started = loop.time()
    reply = await call(fake_apiserver, "GET", PODS, params={"resourceVersion": "999999"})
    # Observed ("Compaction and 410"): 504 after about 3 s, cause ResourceVersionTooLarge.
    assert reply.status == 504
    assert loop.time() - started >= 2.5
    body = reply.json()
    assert body["message"] == f"Timeout: Too large resource version: 999999, current: {current}"
    assert body["reason"] == "Timeout"
    assert body["details"]["retryAfterSeconds"] == 1
    assert [c["reason"] for c in body["details"]["causes"]] == ["ResourceVersionTooLarge"]


@bounded()
async def test_a_watch_from_zero_ends_its_initial_events_with_a_bookmark(
    fake_apiserver: FakeAPIServer,
) -> None:
    await call(fake_apiserver, "POST", PODS, pod("p1"))
    params = {"watch": "1", "resourceVersion": "0", "allowWatchBookmarks": "true"}
    timeout = aiohttp.ClientTimeout(total=10)
    async with (
        aiohttp.ClientSession(timeout=timeout) as session,
        session.get(fake_apiserver.url + PODS, params=params) as resp,
    ):
        first = json.loads(await resp.content.readline())
        second = json.loads(await resp.content.readline())
    # Observed: ADDED events, then a BOOKMARK annotated k8s.io/initial-events-end, even
    # without sendInitialEvents.
    assert first["type"] == "ADDED"
    assert second["type"] == "BOOKMARK"
    assert second["object"]["metadata"]["annotations"] == {"k8s.io/initial-events-end": "true"}


# -- update rules of core kinds ---------------------------------------------------------------


@bounded()
async def test_a_pod_update_may_not_add_a_container(fake_apiserver: FakeAPIServer) -> None:
    await call(fake_apiserver, "POST", PODS, pod("p1"))
    added = {"spec": {"containers": [{"name": "d", "image": "busybox"}]}}
    reply = await call(fake_apiserver, "PATCH", f"{PODS}/p1", added, content_type=STRATEGIC)
    assert reply.status == 422
    body = reply.json()
    assert body["message"] == (
        'Pod "p1" is invalid: spec.containers: Forbidden: pod updates may not add or remove '
        "containers"
    )
    assert [(c["reason"], c["field"]) for c in body["details"]["causes"]] == [
        ("FieldValueForbidden", "spec.containers")
    ]


@bounded()
async def test_a_jobs_pod_template_is_immutable(fake_apiserver: FakeAPIServer) -> None:
    await call(fake_apiserver, "POST", JOBS, job("j1", restartPolicy="Never"))
    image = {"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}
    reply = await call(fake_apiserver, "PATCH", f"{JOBS}/j1", image, content_type=STRATEGIC)
    assert reply.status == 422
    body = reply.json()
    # Observed: 'Job.batch "j1" is invalid: spec.template: Invalid value: {...}: field is
    # immutable' (the rendered struct itself is checked in test_internal_template.py).
    assert body["message"].startswith('Job.batch "j1" is invalid: spec.template: Invalid value: {')
    assert body["message"].endswith("}: field is immutable")
    assert [(c["reason"], c["field"]) for c in body["details"]["causes"]] == [
        ("FieldValueInvalid", "spec.template")
    ]


@bounded()
async def test_an_event_about_an_object_of_another_namespace_is_invalid(
    fake_apiserver: FakeAPIServer,
) -> None:
    reply = await call(fake_apiserver, "POST", EVENTS, event("ev-bad", "other"))
    assert reply.status == 422
    # Observed ("Events (core/v1)").
    assert reply.json()["message"] == (
        'Event "ev-bad" is invalid: involvedObject.namespace: Invalid value: "other": '
        "does not match event.namespace"
    )


# -- generations ------------------------------------------------------------------------------


@bounded()
async def test_a_pods_generation_counts_spec_writes_only(fake_apiserver: FakeAPIServer) -> None:
    created = (await call(fake_apiserver, "POST", PODS, pod("p1"))).json()
    # Observed ("Generations"): created at 1, a spec PUT makes 2, a pods/status patch and a
    # label-only patch (its status part ignored) leave it at 2.
    assert created["metadata"]["generation"] == 1
    created["spec"]["activeDeadlineSeconds"] = 600
    put = (await call(fake_apiserver, "PUT", f"{PODS}/p1", created)).json()
    assert put["metadata"]["generation"] == 2
    status = {"status": {"phase": "Running"}}
    patched = await call(fake_apiserver, "PATCH", f"{PODS}/p1/status", status, content_type=MERGE)
    assert patched.json()["metadata"]["generation"] == 2
    labels = {"metadata": {"labels": {"a": "b"}}, "status": {"phase": "Failed"}}
    labelled = (
        await call(fake_apiserver, "PATCH", f"{PODS}/p1", labels, content_type=MERGE)
    ).json()
    assert labelled["metadata"]["generation"] == 2
    assert labelled["status"]["phase"] == "Running"


@bounded()
async def test_a_jobs_generation_counts_each_spec_write_once(fake_apiserver: FakeAPIServer) -> None:
    await call(fake_apiserver, "POST", JOBS, job("j1", restartPolicy="Never"))
    status = {"status": {"active": 1}}
    await call(fake_apiserver, "PATCH", f"{JOBS}/j1/status", status, content_type=MERGE)
    labels = {"metadata": {"labels": {"team": "ml"}}}
    await call(fake_apiserver, "PATCH", f"{JOBS}/j1", labels, content_type=MERGE)
    # pkg/registry/batch/job/strategy.go: PrepareForUpdate adds 1 when the spec changed;
    # the status strategy resets metadata.
    assert (await call(fake_apiserver, "GET", f"{JOBS}/j1")).json()["metadata"]["generation"] == 1
    spec = {"spec": {"parallelism": 3, "activeDeadlineSeconds": 60}}
    patched = await call(fake_apiserver, "PATCH", f"{JOBS}/j1", spec, content_type=MERGE)
    assert patched.json()["metadata"]["generation"] == 2


@bounded()
async def test_groups_and_workloads_have_no_generation_priority_classes_stay_at_one(
    fake_apiserver: FakeAPIServer,
) -> None:
    group = (await call(fake_apiserver, "POST", PG_PATH, pod_group())).json()
    # Observed (1.36) and 1.37's pkg/registry/scheduling/podgroup/strategy.go: none set.
    assert "generation" not in group["metadata"]
    workload = {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "Workload",
        "metadata": {"name": "wl"},
        "spec": {"podGroupTemplates": [{"name": "t", "schedulingPolicy": {"basic": {}}}]},
    }
    created = (await call(fake_apiserver, "POST", WORKLOADS, workload)).json()
    # 1.37's pkg/registry/scheduling/workload/strategy.go: PrepareForCreate and
    # PrepareForUpdate only drop disabled fields; no generation is ever set.
    assert "generation" not in created["metadata"]
    klass = {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": "high"},
        "value": 1000,
        "description": "first",
    }
    assert (await call(fake_apiserver, "POST", CLASSES, klass)).json()["metadata"][
        "generation"
    ] == 1
    described = {"description": "second"}
    changed = await call(fake_apiserver, "PATCH", f"{CLASSES}/high", described, content_type=MERGE)
    # pkg/registry/scheduling/priorityclass/strategy.go: Generation = 1 on create,
    # PrepareForUpdate does nothing.
    assert (changed.json()["description"], changed.json()["metadata"]["generation"]) == (
        "second",
        1,
    )


# -- deletion preconditions -------------------------------------------------------------------


@bounded()
async def test_delete_preconditions_answer_with_the_kind(fake_apiserver: FakeAPIServer) -> None:
    created = (await call(fake_apiserver, "POST", PODS, pod("p2"))).json()
    uid, rv = created["metadata"]["uid"], created["metadata"]["resourceVersion"]
    other = "00000000-0000-0000-0000-000000000000"
    wrong_uid = {"apiVersion": "v1", "kind": "DeleteOptions", "preconditions": {"uid": other}}
    reply = await call(fake_apiserver, "DELETE", f"{PODS}/p2", wrong_uid)
    # Observed ("Delete preconditions"): 409, the kind in the message and in details.
    assert reply.status == 409
    body = reply.json()
    assert body["message"] == (
        f'Operation cannot be fulfilled on Pod "p2": the UID in the precondition ({other}) '
        f"does not match the UID in record ({uid}). The object might have been deleted and "
        "then recreated"
    )
    assert (body["reason"], body["details"]) == ("Conflict", {"name": "p2", "kind": "Pod"})
    wrong_rv = {"preconditions": {"resourceVersion": "1"}}
    body = (await call(fake_apiserver, "DELETE", f"{PODS}/p2", wrong_rv)).json()
    assert body["message"] == (
        'Operation cannot be fulfilled on Pod "p2": the ResourceVersion in the precondition (1) '
        f"does not match the ResourceVersion in record ({rv}). The object might have been "
        "modified"
    )
    assert body["details"] == {"name": "p2", "kind": "Pod"}
    matching = {"preconditions": {"uid": uid, "resourceVersion": rv}}
    deleted = await call(fake_apiserver, "DELETE", f"{PODS}/p2", matching)
    assert deleted.status == 200
    assert (deleted.json()["kind"], deleted.json()["metadata"]["uid"]) == ("Pod", uid)


# -- error shapes -----------------------------------------------------------------------------


@bounded()
async def test_an_owner_reference_without_uid_is_reported_as_1_37_does(
    fake_apiserver: FakeAPIServer,
) -> None:
    ref = {"apiVersion": "v1", "kind": "ConfigMap", "name": "cm"}
    reply = await call(fake_apiserver, "POST", PODS, pod("bad-owner", ownerReferences=[ref]))
    assert reply.status == 422
    # 1.36.2 answered 'metadata.ownerReferences.uid: Invalid value: "": must not be empty'.
    # apimachinery 1.37 (pkg/api/validation/objectmeta.go at eed236ce, commits 35f307f3 and
    # d8186ee8 of July 2026) validates each reference at fldPath.Index(i) and reports a
    # missing uid as Required "must not be empty": 1.37's answer is kept.
    assert reply.json()["message"] == (
        'Pod "bad-owner" is invalid: metadata.ownerReferences[0].uid: Required value: '
        "must not be empty"
    )


@bounded()
async def test_finalizer_errors_aggregate_in_one_answer(fake_apiserver: FakeAPIServer) -> None:
    reply = await call(fake_apiserver, "POST", PODS, pod("bad-fin", finalizers=["bad finalizer!"]))
    assert reply.status == 422
    body = reply.json()
    # Observed ("Finalizers"), the double space before "or" included.
    assert body["message"] == (
        'Pod "bad-fin" is invalid: [metadata.finalizers: Invalid value: "bad finalizer!": name '
        "part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
        "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
        "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), "
        'metadata.finalizers[0]: Invalid value: "bad finalizer!": name is neither a standard '
        "finalizer name nor is it fully qualified]"
    )
    assert [(c["reason"], c["field"]) for c in body["details"]["causes"]] == [
        ("FieldValueInvalid", "metadata.finalizers"),
        ("FieldValueInvalid", "metadata.finalizers[0]"),
    ]
    # pkg/apis/core/validation validateKubeFinalizerName: the standard names pass.
    fine = pod("fine", finalizers=["kubernetes", "orphan", "example.com/x"])
    assert (await call(fake_apiserver, "POST", PODS, fine)).status == 201


@bounded()
async def test_apply_without_a_field_manager_has_no_name_in_details(
    fake_apiserver: FakeAPIServer,
) -> None:
    body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p1"}}
    reply = await call(fake_apiserver, "PATCH", f"{PODS}/p1", body, content_type=APPLY)
    assert reply.status == 422
    # Observed ("Apply without a field manager").
    assert reply.json()["details"] == {
        "group": "meta.k8s.io",
        "kind": "PatchOptions",
        "causes": [
            {
                "reason": "FieldValueRequired",
                "message": "Required value: is required for apply patch",
                "field": "fieldManager",
            }
        ],
    }


# -- tables -----------------------------------------------------------------------------------


@bounded()
async def test_a_pod_table_is_json_with_the_api_field_docs(fake_apiserver: FakeAPIServer) -> None:
    await call(fake_apiserver, "POST", PODS, pod("p1"))
    reply = await call(fake_apiserver, "GET", PODS, headers={"Accept": TABLE})
    # Observed ("Tables"): Content-Type application/json; pkg/printers/internalversion
    # describes the priority-1 pod columns with the API fields' documentation.
    assert reply.headers["Content-Type"] == "application/json"
    described = {c["name"]: c["description"] for c in reply.json()["columnDefinitions"]}
    assert described["IP"] == (
        "podIP address allocated to the pod. Routable at least within the cluster. "
        "Empty if not yet allocated."
    )
    assert described["IP"] == _doc("core.v1.PodStatus", "podIP")
    assert described["Node"] == _doc("core.v1.PodSpec", "nodeName")
    assert described["Nominated Node"] == _doc("core.v1.PodStatus", "nominatedNodeName")
    assert described["Readiness Gates"] == _doc("core.v1.PodSpec", "readinessGates")
    one = await call(fake_apiserver, "GET", f"{PODS}/p1", headers={"Accept": TABLE})
    assert one.headers["Content-Type"] == "application/json"


_DESCRIBED_BY_FIELDS = {
    "/apis/batch/v1/jobs": {
        "Completions": ("batch.v1.JobStatus", "succeeded"),
        "Selector": ("batch.v1.JobSpec", "selector"),
    },
    "/api/v1/nodes": {
        "Version": ("core.v1.NodeSystemInfo", "kubeletVersion"),
        "Internal-IP": ("core.v1.NodeStatus", "addresses"),
        "External-IP": ("core.v1.NodeStatus", "addresses"),
        "OS-Image": ("core.v1.NodeSystemInfo", "osImage"),
        "Kernel-Version": ("core.v1.NodeSystemInfo", "kernelVersion"),
        "Container-Runtime": ("core.v1.NodeSystemInfo", "containerRuntimeVersion"),
    },
    "/api/v1/events": {
        "Last Seen": ("core.v1.Event", "lastTimestamp"),
        "Type": ("core.v1.Event", "type"),
        "Reason": ("core.v1.Event", "reason"),
        "Object": ("core.v1.Event", "involvedObject"),
        "Subobject": ("core.v1.ObjectReference", "fieldPath"),
        "Source": ("core.v1.Event", "source"),
        "Message": ("core.v1.Event", "message"),
        "First Seen": ("core.v1.Event", "firstTimestamp"),
        "Count": ("core.v1.Event", "count"),
    },
    CLASSES: {
        "Value": ("scheduling.v1.PriorityClass", "value"),
        "Global-Default": ("scheduling.v1.PriorityClass", "globalDefault"),
        "PreemptionPolicy": ("scheduling.v1.PriorityClass", "preemptionPolicy"),
    },
}


@bounded()
async def test_other_printers_describe_columns_by_their_fields(
    fake_apiserver: FakeAPIServer,
) -> None:
    # pkg/printers/internalversion/printers.go: these columns' descriptions are SwaggerDoc()
    # of the field shown (the Event printer's Count column is typed "string").
    for path, columns in _DESCRIBED_BY_FIELDS.items():
        reply = await call(fake_apiserver, "GET", path, headers={"Accept": TABLE})
        assert reply.headers["Content-Type"] == "application/json"
        defined = {c["name"]: c for c in reply.json()["columnDefinitions"]}
        for name, (definition, field) in columns.items():
            assert defined[name]["description"] == _doc(definition, field), (path, name)
    events = await call(fake_apiserver, "GET", "/api/v1/events", headers={"Accept": TABLE})
    count = next(c for c in events.json()["columnDefinitions"] if c["name"] == "Count")
    assert count["type"] == "string"


# -- defaults of created Events and Jobs -------------------------------------------------------


@bounded()
async def test_a_created_event_has_the_serialized_defaults(fake_apiserver: FakeAPIServer) -> None:
    reply = await call(fake_apiserver, "POST", EVENTS, event("ev1", "default"))
    assert reply.status == 201
    created = reply.json()
    # Observed ("Events (core/v1)").
    assert {k: created[k] for k in ("eventTime", "firstTimestamp", "lastTimestamp")} == {
        "eventTime": None,
        "firstTimestamp": None,
        "lastTimestamp": None,
    }
    assert (created["reportingComponent"], created["reportingInstance"]) == ("", "")
    assert created["count"] == 1
    listed = (await call(fake_apiserver, "GET", EVENTS)).json()["items"]
    assert [e["eventTime"] for e in listed] == [None]


@bounded()
async def test_a_created_job_has_the_real_defaults(fake_apiserver: FakeAPIServer) -> None:
    reply = await call(fake_apiserver, "POST", JOBS, job("j1", restartPolicy="Never"))
    assert reply.status == 201
    created = reply.json()
    spec, uid = created["spec"], created["metadata"]["uid"]
    # Observed ("Jobs").
    assert (spec["parallelism"], spec["completions"], spec["backoffLimit"]) == (1, 1, 6)
    assert spec["manualSelector"] is False
    assert spec["selector"] == {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}}
    assert spec["template"]["metadata"]["labels"] == {
        "batch.kubernetes.io/controller-uid": uid,
        "batch.kubernetes.io/job-name": "j1",
        "controller-uid": uid,
        "job-name": "j1",
    }
    assert created["status"] == {}
    assert re.fullmatch(UUID, uid)


@bounded()
async def test_a_job_must_not_restart_always(fake_apiserver: FakeAPIServer) -> None:
    for name, template in (("j2", {}), ("j3", {"restartPolicy": "Always"})):
        reply = await call(fake_apiserver, "POST", JOBS, job(name, **template))
        assert reply.status == 422
        body = reply.json()
        # Observed ("Jobs"): missing (defaulted to Always) or Always is Required.
        assert body["message"] == (
            f'Job.batch "{name}" is invalid: spec.template.spec.restartPolicy: Required value: '
            'valid values: "OnFailure", "Never"'
        )
        assert body["details"]["causes"][0]["reason"] == "FieldValueRequired"
