"""Create, read, update, patch, delete, status, discovery and feature gates."""

from __future__ import annotations

from typing import Any

import pytest
from server_helpers import APPLY, PG_PATH, SCHED, apply, bounded, call, pod_group

from workloadbuilder.testing import APIStatusError, FakeAPIServer

MERGE = "application/merge-patch+json"
SMP = "application/strategic-merge-patch+json"
JSONPATCH = "application/json-patch+json"


def labelled(name: str, namespace: str = "default", **labels: str) -> dict[str, Any]:
    obj = pod_group(name, namespace=namespace)
    obj["metadata"]["labels"] = labels
    return obj


@bounded()
async def test_discovery(fake_apiserver: FakeAPIServer) -> None:
    api = (await call(fake_apiserver, "GET", "/api")).json()
    assert api["kind"] == "APIVersions" and api["versions"] == ["v1"]
    groups = (await call(fake_apiserver, "GET", "/apis")).json()
    sched = next(g for g in groups["groups"] if g["name"] == SCHED)
    # PriorityClass (scheduling.k8s.io/v1) is served beside the workload versions, and v1 is
    # the group's preferred version, as observed on a real server.
    assert [v["version"] for v in sched["versions"]] == ["v1", "v1beta1", "v1alpha3"]
    assert sched["preferredVersion"]["version"] == "v1"
    v1b1 = (await call(fake_apiserver, "GET", "/apis/scheduling.k8s.io/v1beta1")).json()
    assert [r["name"] for r in v1b1["resources"]] == ["workloads", "podgroups", "podgroups/status"]
    v1a3 = (await call(fake_apiserver, "GET", "/apis/scheduling.k8s.io/v1alpha3")).json()
    assert "compositepodgroups/status" in [r["name"] for r in v1a3["resources"]]
    core = (await call(fake_apiserver, "GET", "/api/v1")).json()
    assert {r["name"] for r in core["resources"]} >= {
        "pods",
        "pods/status",
        "namespaces",
        "events",
        "nodes",
    }
    batch = (await call(fake_apiserver, "GET", "/apis/batch/v1")).json()
    assert [r["name"] for r in batch["resources"]] == ["jobs", "jobs/status"]
    assert (await call(fake_apiserver, "GET", "/version")).json()["minor"] == "37"


@bounded()
async def test_generic_workload_off_serves_no_workload_versions() -> None:
    async with FakeAPIServer(feature_gates={"GenericWorkload": False}) as server:
        groups = (await call(server, "GET", "/apis")).json()["groups"]
        sched = next(g for g in groups if g["name"] == SCHED)
        assert [v["version"] for v in sched["versions"]] == ["v1"]  # PriorityClass only
        for path in ["/apis/scheduling.k8s.io/v1beta1", f"{PG_PATH}/pg", PG_PATH]:
            reply = await call(server, "GET", path)
            assert reply.status == 404
            assert reply.json()["message"] == "the server could not find the requested resource"
            assert reply.json()["details"] == {}
        assert (await apply(server, pod_group(), "ctl")).status == 404


@bounded()
async def test_composite_pod_group_gate() -> None:
    async with FakeAPIServer(feature_gates={"CompositePodGroup": False}) as server:
        v1a3 = (await call(server, "GET", "/apis/scheduling.k8s.io/v1alpha3")).json()
        assert [r["name"] for r in v1a3["resources"]] == [
            "workloads",
            "podgroups",
            "podgroups/status",
        ]
        path = "/apis/scheduling.k8s.io/v1alpha3/namespaces/default/compositepodgroups"
        assert (await call(server, "GET", path)).status == 404
    with pytest.raises(ValueError, match="unknown feature gate 'Nope'"):
        FakeAPIServer(feature_gates={"Nope": True})


@bounded()
async def test_group_versions_limit_what_is_served() -> None:
    async with FakeAPIServer(group_versions=["v1", "scheduling.k8s.io/v1beta1"]) as server:
        assert (await call(server, "GET", "/apis/batch/v1")).status == 404
        assert (await call(server, "GET", "/apis/scheduling.k8s.io/v1alpha3")).status == 404
        assert (await call(server, "GET", PG_PATH)).status == 200


@bounded()
async def test_metadata_on_create(fake_apiserver: FakeAPIServer) -> None:
    reply = await call(fake_apiserver, "POST", PG_PATH, pod_group())
    assert reply.status == 201
    meta = reply.json()["metadata"]
    assert len(meta["uid"]) == 36
    assert "generation" not in meta  # no generation: the PodGroup registry strategy sets none
    assert meta["creationTimestamp"].endswith("Z") and len(meta["creationTimestamp"]) == 20
    assert int(meta["resourceVersion"]) > 0
    again = await call(fake_apiserver, "POST", PG_PATH, pod_group())
    assert again.status == 409
    assert again.json()["reason"] == "AlreadyExists"
    assert again.json()["message"] == 'podgroups.scheduling.k8s.io "pg" already exists'
    generated = {**pod_group(), "metadata": {"generateName": "pg-", "namespace": "default"}}
    named = (await call(fake_apiserver, "POST", PG_PATH, generated)).json()
    assert named["metadata"]["name"].startswith("pg-") and len(named["metadata"]["name"]) == 8


@bounded()
async def test_list_with_selectors(fake_apiserver: FakeAPIServer) -> None:
    fake_apiserver.create_object("", "v1", "namespaces", {"metadata": {"name": "other"}})
    for obj in [
        labelled("a", app="x", tier="web"),
        labelled("b", app="y"),
        labelled("c", app="x", tier="db"),
        labelled("d", "other", app="x"),
    ]:
        assert (
            await call(
                fake_apiserver,
                "POST",
                PG_PATH.replace("default", obj["metadata"]["namespace"]),
                obj,
            )
        ).status == 201

    async def names(path: str = PG_PATH, **params: str) -> list[str]:
        reply = await call(fake_apiserver, "GET", path, params=params)
        assert reply.status == 200, reply.text
        return [i["metadata"]["name"] for i in reply.json()["items"]]

    assert await names() == ["a", "b", "c"]
    assert await names(labelSelector="app=x") == ["a", "c"]
    assert await names(labelSelector="app==x,tier!=web") == ["c"]
    assert await names(labelSelector="tier in (web, db)") == ["a", "c"]
    assert await names(labelSelector="app notin (x)") == ["b"]
    assert await names(labelSelector="tier") == ["a", "c"]
    assert await names(labelSelector="!tier") == ["b"]
    assert await names(fieldSelector="metadata.name=b") == ["b"]
    assert await names(fieldSelector="metadata.name!=b") == ["a", "c"]
    all_ns = "/apis/scheduling.k8s.io/v1beta1/podgroups"
    assert await names(all_ns) == ["a", "b", "c", "d"]
    assert await names(all_ns, fieldSelector="metadata.namespace=other") == ["d"]
    bad = await call(fake_apiserver, "GET", PG_PATH, params={"labelSelector": "a in b"})
    assert bad.status == 400


@bounded()
async def test_replace_with_optimistic_concurrency(fake_apiserver: FakeAPIServer) -> None:
    created = (await call(fake_apiserver, "POST", PG_PATH, pod_group())).json()
    updated = {**created, "metadata": {**created["metadata"], "labels": {"a": "b"}}}
    first = await call(fake_apiserver, "PUT", f"{PG_PATH}/pg", updated)
    assert first.status == 200
    assert (
        "generation" not in first.json()["metadata"]
    )  # no generation: the PodGroup registry strategy sets none
    stale = await call(fake_apiserver, "PUT", f"{PG_PATH}/pg", updated)
    assert stale.status == 409
    assert stale.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": 'Operation cannot be fulfilled on podgroups.scheduling.k8s.io "pg": the object '
        "has been modified; please apply your changes to the latest version and try again",
        "reason": "Conflict",
        "details": {"name": "pg", "group": "scheduling.k8s.io", "kind": "podgroups"},
        "code": 409,
    }
    unconditional = {**updated, "metadata": {**updated["metadata"], "resourceVersion": ""}}
    assert (await call(fake_apiserver, "PUT", f"{PG_PATH}/pg", unconditional)).status == 200
    missing = await call(fake_apiserver, "PUT", f"{PG_PATH}/zz", {**pod_group("zz")})
    assert missing.status == 404
    renamed = await call(fake_apiserver, "PUT", f"{PG_PATH}/other", pod_group("pg"))
    assert renamed.status == 400


@bounded()
async def test_generation_follows_spec_changes_only(fake_apiserver: FakeAPIServer) -> None:
    """The Job strategy sets generation 1 and counts spec changes; a PodGroup has none."""
    job: dict[str, Any] = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "j", "namespace": "default"},
        "spec": {
            "parallelism": 1,
            "template": {
                "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}
            },
        },
    }
    path, query = "/apis/batch/v1/namespaces/default/jobs/j", {"fieldManager": "ctl"}

    async def generation() -> Any:
        reply = await call(fake_apiserver, "PATCH", path, job, content_type=APPLY, params=query)
        return reply.json()["metadata"]["generation"]

    assert await generation() == 1
    job["metadata"]["labels"] = {"a": "b"}
    assert await generation() == 1
    job["spec"]["parallelism"] = 2
    assert await generation() == 2
    group = (await apply(fake_apiserver, pod_group(min_count=2), "ctl")).json()
    assert "generation" not in group["metadata"]


@bounded()
async def test_status_subresource(fake_apiserver: FakeAPIServer) -> None:
    created = (
        await call(fake_apiserver, "POST", PG_PATH, {**pod_group(), "status": {"x": 1}})
    ).json()
    assert "status" not in created or created["status"] == {}
    condition = {
        "type": "PodGroupInitiallyScheduled",
        "status": "False",
        "reason": "Unschedulable",
        "message": "waiting",
        "lastTransitionTime": "2026-01-01T00:00:00Z",
    }
    status_put = {**created, "status": {"conditions": [condition]}, "spec": {"changed": True}}
    put = await call(fake_apiserver, "PUT", f"{PG_PATH}/pg/status", status_put)
    assert put.status == 200, put.text
    body = put.json()
    assert body["status"]["conditions"] == [condition]
    assert body["spec"] == created["spec"]
    assert "generation" not in body["metadata"]
    entry = [m for m in body["metadata"]["managedFields"] if m.get("subresource") == "status"]
    assert len(entry) == 1 and entry[0]["operation"] == "Update"
    got = await call(fake_apiserver, "GET", f"{PG_PATH}/pg/status")
    assert got.json()["status"]["conditions"] == [condition]
    # main-resource writes ignore status
    main = {**body, "status": {"conditions": []}}
    assert (await call(fake_apiserver, "PUT", f"{PG_PATH}/pg", main)).json()["status"] == body[
        "status"
    ]
    # strategic merge on /status merges conditions by type
    other = {**condition, "type": "DisruptionTarget", "reason": "PreemptionByScheduler"}
    patched = await call(
        fake_apiserver,
        "PATCH",
        f"{PG_PATH}/pg/status",
        {"status": {"conditions": [other, {**condition, "message": "still"}]}},
        content_type=SMP,
    )
    assert [(c["type"], c["message"]) for c in patched.json()["status"]["conditions"]] == [
        ("PodGroupInitiallyScheduled", "still"),
        ("DisruptionTarget", "waiting"),
    ]
    merged = await call(
        fake_apiserver,
        "PATCH",
        f"{PG_PATH}/pg/status",
        {"status": {"conditions": [other]}},
        content_type=MERGE,
    )
    assert merged.json()["status"]["conditions"] == [other]
    nowhere = await call(
        fake_apiserver,
        "GET",
        "/apis/scheduling.k8s.io/v1beta1/namespaces/default/workloads/w/status",
    )
    assert nowhere.status == 404


@bounded()
async def test_patch_formats(fake_apiserver: FakeAPIServer) -> None:
    await call(fake_apiserver, "POST", PG_PATH, labelled("pg", a="1", b="2"))
    merge = await call(
        fake_apiserver,
        "PATCH",
        f"{PG_PATH}/pg",
        {"metadata": {"labels": {"a": None, "c": "3"}}},
        content_type=MERGE,
    )
    assert merge.json()["metadata"]["labels"] == {"b": "2", "c": "3"}
    ops = [
        {"op": "test", "path": "/metadata/labels/b", "value": "2"},
        {"op": "replace", "path": "/spec/schedulingPolicy/gang/minCount", "value": 5},
        {"op": "add", "path": "/metadata/annotations", "value": {"x/y": "z"}},
        {"op": "remove", "path": "/metadata/labels/c"},
    ]
    patched = (
        await call(fake_apiserver, "PATCH", f"{PG_PATH}/pg", ops, content_type=JSONPATCH)
    ).json()
    assert patched["spec"]["schedulingPolicy"]["gang"]["minCount"] == 5
    assert patched["metadata"]["annotations"] == {"x/y": "z"}
    assert patched["metadata"]["labels"] == {"b": "2"}
    failed = await call(
        fake_apiserver,
        "PATCH",
        f"{PG_PATH}/pg",
        [{"op": "test", "path": "/kind", "value": "Pod"}],
        content_type=JSONPATCH,
    )
    assert failed.status == 422
    stale = await call(
        fake_apiserver,
        "PATCH",
        f"{PG_PATH}/pg",
        {"metadata": {"resourceVersion": "1"}},
        content_type=MERGE,
    )
    assert stale.status == 409


@bounded()
async def test_strategic_merge_of_list_maps(fake_apiserver: FakeAPIServer) -> None:
    workload = {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "Workload",
        "metadata": {"name": "wl", "namespace": "default"},
        "spec": {
            "podGroupTemplates": [
                {"name": "a", "schedulingPolicy": {"gang": {"minCount": 1}}},
                {"name": "b", "schedulingPolicy": {"gang": {"minCount": 2}}},
            ]
        },
    }
    fake_apiserver.create_object(SCHED, "v1beta1", "workloads", workload)
    patch = {
        "spec": {
            "podGroupTemplates": [{"name": "b", "schedulingPolicy": {"gang": {"minCount": 5}}}]
        }
    }
    result = fake_apiserver.patch_object(
        SCHED, "v1beta1", "workloads", "default", "wl", patch, patch_type="strategic"
    )
    assert [
        (t["name"], t["schedulingPolicy"]["gang"]["minCount"])
        for t in result["spec"]["podGroupTemplates"]
    ] == [
        ("a", 1),
        ("b", 5),
    ]


def owned(name: str, owner: dict[str, Any], namespace: str = "default") -> dict[str, Any]:
    obj = pod_group(name, namespace=namespace)
    obj["metadata"]["ownerReferences"] = [
        {
            "apiVersion": owner["apiVersion"],
            "kind": owner["kind"],
            "name": owner["metadata"]["name"],
            "uid": owner["metadata"]["uid"],
        }
    ]
    return obj


@pytest.mark.parametrize("policy", ["Background", "Foreground", None])
@bounded()
async def test_delete_cascades_to_dependents(
    fake_apiserver: FakeAPIServer, policy: str | None
) -> None:
    owner = fake_apiserver.create_object(SCHED, "v1beta1", "podgroups", pod_group("owner"))
    child = fake_apiserver.create_object(SCHED, "v1beta1", "podgroups", owned("child", owner))
    fake_apiserver.create_object(SCHED, "v1beta1", "podgroups", owned("grandchild", child))
    fake_apiserver.create_object(SCHED, "v1beta1", "podgroups", pod_group("unrelated"))
    params = {"propagationPolicy": policy} if policy else None
    reply = await call(fake_apiserver, "DELETE", f"{PG_PATH}/owner", params=params)
    assert reply.status == 200
    # A PodGroup carries the podgroup-protection finalizer: DELETE answers with the object,
    # marked; the protection controller then releases it (no pod names it) and it goes.
    marked = reply.json()
    assert (marked["kind"], marked["metadata"]["uid"]) == ("PodGroup", owner["metadata"]["uid"])
    assert marked["metadata"]["deletionTimestamp"].endswith("Z")
    names = [
        o["metadata"]["name"] for o in fake_apiserver.list_objects(SCHED, "v1beta1", "podgroups")
    ]
    assert names == ["unrelated"]


@bounded()
async def test_orphan_releases_dependents(fake_apiserver: FakeAPIServer) -> None:
    owner = fake_apiserver.create_object(SCHED, "v1beta1", "podgroups", pod_group("owner"))
    fake_apiserver.create_object(SCHED, "v1beta1", "podgroups", owned("child", owner))
    body = {"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Orphan"}
    assert (await call(fake_apiserver, "DELETE", f"{PG_PATH}/owner", body)).status == 200
    child = fake_apiserver.get_object(SCHED, "v1beta1", "podgroups", "default", "child")
    assert child is not None
    assert "ownerReferences" not in child["metadata"]


@bounded()
async def test_a_dependent_with_another_live_owner_survives(fake_apiserver: FakeAPIServer) -> None:
    a = fake_apiserver.create_object(SCHED, "v1beta1", "podgroups", pod_group("a"))
    b = fake_apiserver.create_object(SCHED, "v1beta1", "podgroups", pod_group("b"))
    child = owned("child", a)
    child["metadata"]["ownerReferences"] += owned("x", b)["metadata"]["ownerReferences"]
    fake_apiserver.create_object(SCHED, "v1beta1", "podgroups", child)
    fake_apiserver.delete_object(SCHED, "v1beta1", "podgroups", "default", "a")
    survivor = fake_apiserver.get_object(SCHED, "v1beta1", "podgroups", "default", "child")
    assert survivor is not None
    assert [r["name"] for r in survivor["metadata"]["ownerReferences"]] == ["b"]


@bounded()
async def test_finalizers_delay_deletion(fake_apiserver: FakeAPIServer) -> None:
    obj = pod_group()
    obj["metadata"]["finalizers"] = ["example.com/cleanup"]
    fake_apiserver.create_object(SCHED, "v1beta1", "podgroups", obj)
    reply = await call(fake_apiserver, "DELETE", f"{PG_PATH}/pg")
    assert reply.status == 200
    pending = reply.json()
    assert pending["metadata"]["deletionTimestamp"].endswith("Z")
    assert "generation" not in pending["metadata"]
    assert fake_apiserver.get_object(SCHED, "v1beta1", "podgroups", "default", "pg") is not None
    gone = await call(
        fake_apiserver,
        "PATCH",
        f"{PG_PATH}/pg",
        {"metadata": {"finalizers": None}},
        content_type=MERGE,
    )
    assert gone.status == 200
    assert fake_apiserver.get_object(SCHED, "v1beta1", "podgroups", "default", "pg") is None


@bounded()
async def test_namespaces(fake_apiserver: FakeAPIServer) -> None:
    listed = (await call(fake_apiserver, "GET", "/api/v1/namespaces")).json()
    assert [n["metadata"]["name"] for n in listed["items"]] == ["default"]
    ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}}
    assert (await call(fake_apiserver, "POST", "/api/v1/namespaces", ns)).status == 201
    ns_path = PG_PATH.replace("default", "team-a")
    assert (
        await call(fake_apiserver, "POST", ns_path, pod_group(namespace="team-a"))
    ).status == 201
    deleted = await call(fake_apiserver, "DELETE", "/api/v1/namespaces/team-a")
    assert deleted.status == 200 and deleted.json()["kind"] == "Namespace"
    assert fake_apiserver.list_objects(SCHED, "v1beta1", "podgroups", "team-a") == []
    wrong = await call(fake_apiserver, "POST", PG_PATH, pod_group(namespace="elsewhere"))
    assert wrong.status == 400


@bounded()
async def test_versions_share_storage(fake_apiserver: FakeAPIServer) -> None:
    await apply(fake_apiserver, pod_group(), "ctl")
    path = "/apis/scheduling.k8s.io/v1alpha3/namespaces/default/podgroups/pg"
    got = (await call(fake_apiserver, "GET", path)).json()
    assert got["apiVersion"] == "scheduling.k8s.io/v1alpha3"
    assert got["spec"]["schedulingPolicy"] == {"gang": {"minCount": 2}}
    listed = fake_apiserver.list_objects(SCHED, "v1alpha3", "podgroups")
    assert listed[0]["apiVersion"] == "scheduling.k8s.io/v1alpha3"


@bounded()
async def test_in_process_api(fake_apiserver: FakeAPIServer) -> None:
    created = fake_apiserver.create_object(SCHED, "v1beta1", "podgroups", pod_group())
    assert created["metadata"]["managedFields"][0]["manager"] == "workloadbuilder-testing"
    created["spec"]["schedulingPolicy"]["gang"]["minCount"] = 3
    updated = fake_apiserver.update_object(SCHED, "v1beta1", "podgroups", created)
    assert "generation" not in updated["metadata"]
    with pytest.raises(APIStatusError) as err:
        fake_apiserver.update_object(SCHED, "v1beta1", "podgroups", created)
    assert err.value.code == 409 and err.value.reason == "Conflict"
    status = fake_apiserver.patch_status(
        SCHED, "v1beta1", "podgroups", "default", "pg", {"conditions": []}, field_manager="sim"
    )
    assert status["status"] == {"conditions": []}
    with pytest.raises(LookupError, match="not served"):
        fake_apiserver.list_objects(SCHED, "v1", "podgroups")
    with pytest.raises(ValueError, match="patch_type"):
        fake_apiserver.patch_object(
            SCHED, "v1beta1", "podgroups", "default", "pg", {}, patch_type="x"
        )
    fake_apiserver.delete_object(SCHED, "v1beta1", "podgroups", "default", "pg")
    assert fake_apiserver.get_object(SCHED, "v1beta1", "podgroups", "default", "pg") is None


@bounded()
async def test_a_namespaced_object_needs_a_namespace(fake_apiserver: FakeAPIServer) -> None:
    obj = pod_group()
    del obj["metadata"]["namespace"]
    with pytest.raises(APIStatusError, match=r"set metadata\.namespace"):
        fake_apiserver.create_object(SCHED, "v1beta1", "podgroups", obj)
    reply = await call(fake_apiserver, "POST", "/apis/scheduling.k8s.io/v1beta1/podgroups", obj)
    assert reply.status == 400


@bounded()
async def test_extra_resources_can_be_served() -> None:
    from workloadbuilder.testing.server import DEFAULT_RESOURCES, ResourceType

    widget = ResourceType("example.com", "v1", "Widget", "widgets", status=True)
    async with FakeAPIServer(resources=(*DEFAULT_RESOURCES, widget)) as server:
        path = "/apis/example.com/v1/namespaces/default/widgets"
        body = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}
        assert (await call(server, "POST", path, {**body, "spec": {"size": 1}})).status == 201
        assert (await call(server, "GET", f"{path}/w/status")).json()["spec"] == {"size": 1}
        discovery = (await call(server, "GET", "/apis/example.com/v1")).json()
        assert [r["name"] for r in discovery["resources"]] == ["widgets", "widgets/status"]


@bounded()
async def test_delete_collection(fake_apiserver: FakeAPIServer) -> None:
    for name, tier in [("a", "web"), ("b", "db"), ("c", "web")]:
        fake_apiserver.create_object(SCHED, "v1beta1", "podgroups", labelled(name, tier=tier))
    reply = await call(fake_apiserver, "DELETE", PG_PATH, params={"labelSelector": "tier=web"})
    assert reply.status == 200
    assert [i["metadata"]["name"] for i in reply.json()["items"]] == ["a", "c"]
    left = fake_apiserver.list_objects(SCHED, "v1beta1", "podgroups")
    assert [o["metadata"]["name"] for o in left] == ["b"]


@bounded()
async def test_list_in_chunks(fake_apiserver: FakeAPIServer) -> None:
    for name in "abcde":
        fake_apiserver.create_object(SCHED, "v1beta1", "podgroups", pod_group(name))
    seen: list[str] = []
    params = {"limit": "2"}
    while True:
        page = (await call(fake_apiserver, "GET", PG_PATH, params=params)).json()
        seen += [i["metadata"]["name"] for i in page["items"]]
        if "continue" not in page["metadata"]:
            break
        assert page["metadata"]["remainingItemCount"] == 5 - len(seen)
        params = {"limit": "2", "continue": page["metadata"]["continue"]}
    assert seen == list("abcde")
    bad = await call(fake_apiserver, "GET", PG_PATH, params={"limit": "2", "continue": "zz"})
    assert bad.status == 400
