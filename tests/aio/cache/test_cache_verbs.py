"""The helpers through a cache: the same answers as live, and no request in a steady state.

Request counts come from the test server's own log of what it received (``server.requests``);
objects and events from its store. A steady reconcile must send no GET or LIST and write
nothing (the Job controller reading its informers' indexes)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from cache_support import NS, SCHEDULING, count, eventually, job, pod_group, server

import workloadbuilder as wb
from workloadbuilder import aio
from workloadbuilder.testing import FakeAPIServer

SCHEDULED = {
    "conditions": [
        {
            "type": "PodGroupInitiallyScheduled",
            "status": "True",
            "reason": "Scheduled",
            "message": "",
            "lastTransitionTime": "2026-01-01T00:00:00Z",
        }
    ]
}


def _jobs(srv: FakeAPIServer, count: int) -> list[dict[str, Any]]:
    return [srv.create_object("batch", "v1", "jobs", job(f"job-{i:02d}")) for i in range(count)]


def _collections(srv: FakeAPIServer, since: int) -> list[str]:
    """Paths of whole-collection GETs (lists and watches) received after ``since`` requests."""
    return [
        r.path
        for r in srv.requests[since:]
        if r.method == "GET" and r.path.rstrip("/").rsplit("/", 1)[-1] in {"workloads", "podgroups"}
    ]


async def test_a_steady_reconcile_job_sends_no_request_and_writes_nothing() -> None:
    async with server() as srv, srv.api_client() as api, aio.Cache(api, namespace=NS) as cache:
        jobs = _jobs(srv, 6)
        await cache.synced(timeout=10)
        client = aio.Client(api, "job-controller", cache=cache)
        first = [await client.reconcile_job(j) for j in jobs]
        assert [len(r.created) for r in first] == [2] * 6
        await eventually(lambda: count(cache, "PodGroup", 6))
        sent, written = len(srv.requests), srv.resource_version
        sent_by_client = client.requests
        again = [await client.reconcile_job(j) for j in jobs]
        assert len(srv.requests) == sent  # not one GET or LIST, nor anything else
        assert client.requests == sent_by_client
        assert srv.resource_version == written
        assert all(r.created == () and r.resized == () and r.events == () for r in again)
        stored = {
            g["metadata"]["name"] for g in srv.list_objects(SCHEDULING, "v1beta1", "podgroups", NS)
        }
        assert {r.objects[0].metadata.name for r in again} == stored


async def test_a_resize_through_the_cache_is_read_back_from_the_cache() -> None:
    async with server() as srv, srv.api_client() as api, aio.Cache(api, namespace=NS) as cache:
        [created] = _jobs(srv, 1)
        await cache.synced(timeout=10)
        await aio.reconcile_job(api, created, cache=cache)
        scaled = {**created, "spec": {**created["spec"], "parallelism": 3}}
        pods = [{"metadata": {"name": "p"}}]
        resized = await aio.reconcile_job(api, scaled, pods=pods, cache=cache)
        assert [r.kind for r in resized.resized] == ["Workload", "PodGroup"]
        settled = await aio.reconcile_job(api, scaled, pods=pods, cache=cache)
        assert settled.resized == ()  # its own patch is seen even before the watch brings it
        [group] = srv.list_objects(SCHEDULING, "v1beta1", "podgroups", NS)
        assert group["spec"]["schedulingPolicy"] == {"gang": {"minCount": 3}}


async def test_without_a_cache_a_steady_reconcile_job_reads_by_name_not_the_namespace() -> None:
    async with server() as srv, srv.api_client() as api:
        jobs = _jobs(srv, 4)
        for j in jobs:
            await aio.reconcile_job(api, j)
        since = len(srv.requests)
        for j in jobs:
            assert (await aio.reconcile_job(api, j)).created == ()
        received = srv.requests[since:]
        assert _collections(srv, since) == []
        # per Job: its Workload and its PodGroup by name, its pods by the controller-uid label
        assert len(received) == 3 * len(jobs)
        pods = [r for r in received if r.path.endswith("/pods")]
        assert [r.query["labelSelector"] for r in pods] == [
            f"batch.kubernetes.io/controller-uid={j['metadata']['uid']}" for j in jobs
        ]


def _builder(owner: dict[str, Any]) -> wb.Builder:
    meta = owner["metadata"]
    return wb.Builder(
        wb.leaf("workers", policy=wb.gang(2)),
        wb.BuildOptions(
            name=wb.generate_workload_name(meta["name"], meta["uid"]),
            namespace=NS,
            owner=wb.controller_ref(owner),
            allowed_policies=frozenset(wb.SchedulingPolicyOption),
            allowed_disruption_modes=frozenset(wb.DisruptionModeOption),
        ),
    )


async def test_a_steady_reconcile_sends_no_request() -> None:
    async with server() as srv, srv.api_client() as api, aio.Cache(api, namespace=NS) as cache:
        owners = _jobs(srv, 3)
        await cache.synced(timeout=10)
        for owner in owners:
            first = await aio.reconcile(api, _builder(owner), field_manager="ctl", cache=cache)
            assert [r.kind for r in first.created] == ["Workload", "PodGroup"]
        sent = len(srv.requests)
        for owner in owners:
            again = await aio.reconcile(api, _builder(owner), field_manager="ctl", cache=cache)
            assert again.created == () and again.workload is not None and len(again.objects) == 1
            # the cache's objects, parsed from the JSON it keeps (no model is kept with it)
            name = again.workload.metadata.name or ""
            assert again.workload == await cache.get_model("Workload", NS, name)
            group = again.objects[0].metadata.name or ""
            assert again.objects[0] == await cache.get_model("PodGroup", NS, group)
        assert len(srv.requests) == sent
        since = len(srv.requests)
        for owner in owners:  # live: a GET by name each, no list of the namespace
            await aio.reconcile(api, _builder(owner), field_manager="ctl")
        assert _collections(srv, since) == []


async def test_diagnose_audit_and_delete_through_the_cache_agree_with_live_reads() -> None:
    async with server() as srv, srv.api_client() as api:
        srv.create_object(SCHEDULING, "v1beta1", "workloads", _workload("train"))
        group = pod_group("train-workers", workloadRef=None)
        group["spec"]["workloadRef"] = {"workloadName": "train", "templateName": "workers"}
        srv.create_object(SCHEDULING, "v1beta1", "podgroups", group)
        srv.create_object(SCHEDULING, "v1beta1", "podgroups", pod_group("stray"))
        pod = {
            "metadata": {"name": "p0", "namespace": NS},
            "spec": {
                "schedulingGroup": {"podGroupName": "missing-group"},
                "containers": [{"name": "c", "image": "x"}],
            },
        }
        srv.create_object("", "v1", "pods", pod)
        async with aio.Cache(api, namespace=NS) as cache:
            await cache.synced(timeout=10)
            for ref in (
                aio.ObjectRef("PodGroup", NS, "train-workers"),
                aio.ObjectRef("PodGroup", NS, "missing-group"),
                aio.ObjectRef("Workload", NS, "train"),
            ):
                assert await aio.diagnose(api, ref, cache=cache) == await aio.diagnose(api, ref)
            sent = len(srv.requests)
            findings = await aio.audit(api, NS, cache=cache)
            assert len(srv.requests) == sent
            assert findings == await aio.audit(api, NS)
            assert any(f.kind is aio.FindingKind.MISSING_POD_GROUP for f in findings)
            deleted = await aio.delete(api, "train", namespace=NS, cache=cache)
            assert [(r.kind, r.name) for r in deleted] == [
                ("PodGroup", "train-workers"),
                ("Workload", "train"),
            ]
            remaining = [
                g["metadata"]["name"]
                for g in srv.list_objects(SCHEDULING, "v1beta1", "podgroups", NS)
            ]
            assert remaining == ["stray"]


def _workload(name: str) -> dict[str, Any]:
    return {
        "apiVersion": f"{SCHEDULING}/v1beta1",
        "kind": "Workload",
        "metadata": {"name": name, "namespace": NS},
        "spec": {
            "podGroupTemplates": [
                {"name": "workers", "schedulingPolicy": {"gang": {"minCount": 2}}}
            ]
        },
    }


async def test_wait_scheduled_follows_the_cache() -> None:
    async with server() as srv, srv.api_client() as api, aio.Cache(api, namespace=NS) as cache:
        srv.create_object(SCHEDULING, "v1beta1", "podgroups", pod_group("g"))
        await cache.synced(timeout=10)
        ref = aio.ObjectRef("PodGroup", NS, "g")
        with pytest.raises(aio.NotScheduledError) as late:
            await aio.wait_scheduled(api, ref, timeout=0.3, cache=cache)
        assert late.value.verdict is not None
        sent = len(srv.requests)

        waiting = asyncio.create_task(aio.wait_scheduled(api, ref, timeout=10, cache=cache))
        await asyncio.sleep(0.2)
        assert not waiting.done()
        srv.patch_status(SCHEDULING, "v1beta1", "podgroups", NS, "g", SCHEDULED)
        found = await waiting
        assert found.metadata.name == "g"
        assert len(srv.requests) == sent  # followed in the cache: no request of its own


async def test_a_kind_left_out_is_started_and_listed_on_first_use() -> None:
    async with server() as srv, srv.api_client() as api:
        [created] = _jobs(srv, 1)
        async with aio.Cache(api, namespace=NS, kinds=("Job",)) as cache:
            await cache.synced(timeout=10)
            assert "Workload" not in repr(cache)  # not started: the reconcile starts it
            result = await aio.reconcile_job(api, created, cache=cache)
            assert [r.kind for r in result.created] == ["Workload", "PodGroup"]
            await cache.synced(timeout=10)  # now also the kinds started on first use
            assert {"Workload", "PodGroup", "Pod"} <= set(repr(cache).split("'"))
            await eventually(lambda: count(cache, "PodGroup", 1))
            sent = len(srv.requests)
            assert (await aio.reconcile_job(api, created, cache=cache)).created == ()
            assert len(srv.requests) == sent


async def test_the_cli_status_and_diagnose_read_through_a_cache() -> None:
    from workloadbuilder.cli._observe import diagnose_group, workload_status

    async with server() as srv, srv.api_client() as api:
        [created] = _jobs(srv, 1)
        await aio.reconcile_job(api, created)
        [workload] = srv.list_objects(SCHEDULING, "v1beta1", "workloads", NS)
        name = workload["metadata"]["name"]
        live_rows = await workload_status(api, NS, name)
        live_verdict = await diagnose_group(api, NS, name, None)
        async with aio.Cache(api, namespace=NS) as cache:
            await cache.synced(timeout=10)
            sent = len(srv.requests)
            assert await workload_status(api, NS, name, cache=cache) == live_rows
            assert await diagnose_group(api, NS, name, None, cache=cache) == live_verdict
            # no read was sent (the informers' watches may open meanwhile)
            assert [r for r in srv.requests[sent:] if r.query.get("watch") != "true"] == []
        assert [row.name for row in live_rows] == [
            g["metadata"]["name"] for g in srv.list_objects(SCHEDULING, "v1beta1", "podgroups", NS)
        ]


async def test_the_live_api_and_the_cache_are_readers_that_answer_alike() -> None:
    """controller-runtime's cache is a client.Reader: reading through it or the API server
    gives the same objects (by name and resourceVersion), the same ``None`` for what does not
    exist, and the same 404 for a kind the server does not serve."""
    from workloadbuilder.aio.cache.reader import LiveReader
    from workloadbuilder.aio.wire.transport import transport_for

    async with server(feature_gates={"CompositePodGroup": False}) as srv, srv.api_client() as api:
        [created] = _jobs(srv, 1)
        await aio.reconcile_job(api, created)
        live = LiveReader(transport_for(api), NS)
        async with aio.Cache(api, namespace=NS) as cache:
            await cache.synced(timeout=10)
            assert isinstance(live, aio.Reader) and isinstance(cache, aio.Reader)
            seen = lambda docs: [  # noqa: E731
                (d["metadata"]["name"], d["metadata"]["resourceVersion"]) for d in docs
            ]
            for kind in ("Workload", "PodGroup", "Job"):
                assert seen(await live.list(kind, NS)) == seen(await cache.list(kind, NS))
            [workload] = await live.list("Workload", NS)
            name, uid = workload["metadata"]["name"], created["metadata"]["uid"]
            got = [await r.get("Workload", NS, name) for r in (live, cache)]
            assert seen(d for d in got if d is not None) == seen([workload, workload])
            index = aio.CacheIndex.CONTROLLER_UID
            by_uid = [await r.by_index("PodGroup", index, uid) for r in (live, cache)]
            assert seen(by_uid[0]) == seen(by_uid[1]) and len(by_uid[0]) == 1
            for reader in (live, cache):
                assert await reader.get("Workload", NS, "none") is None
                assert await reader.get("CompositePodGroup", NS, "root") is None
                with pytest.raises(aio.APIError) as unserved:
                    await reader.list("CompositePodGroup", NS)
                assert unserved.value.status == 404
