"""A stale cache never lies or duplicates: the Job controller's expectations.

While the cache's watches are held back (the test server's delay fault on the watch
requests), many reconciles of the same Jobs run at once through one cache. Each object must
exist once on the server (read from its store) and be reported created once across all the
results, with one ``WorkloadCreated`` and one ``PodGroupCreated`` event per Job, as the Job
controller records them."""

from __future__ import annotations

import asyncio
from collections import Counter

from cache_support import NS, SCHEDULING, count, eventually, held, job, server

from workloadbuilder import aio
from workloadbuilder.testing import FakeAPIServer

JOBS = 8
CONCURRENT = 4  # reconciles of each Job at the same time


async def _blind(srv: FakeAPIServer, seconds: float) -> None:
    """Hold the cache's next Workload and PodGroup watches for ``seconds``: until then it
    sees none of the changes (its watches end after about a second, ``watch_timeout=1``)."""
    for plural in ("workloads", "podgroups"):
        srv.faults.delay(seconds, method="GET", path=f"*/{plural}")
    await eventually(lambda: not srv.faults.pending)


async def test_concurrent_reconciles_through_a_lagging_cache_create_each_object_once() -> None:
    async with server() as srv, srv.api_client() as api:
        jobs = [srv.create_object("batch", "v1", "jobs", job(f"job-{i}")) for i in range(JOBS)]
        async with aio.Cache(api, namespace=NS, watch_timeout=1.0) as cache:
            await cache.synced(timeout=10)
            await _blind(srv, 3.0)
            results = await asyncio.gather(
                *(aio.reconcile_job(api, j, cache=cache) for _ in range(CONCURRENT) for j in jobs)
            )
            assert cache.expectations  # the informers lag (blind for 3 s)
            assert len(await cache.list("Workload")) == JOBS  # its reads hold our writes
            workloads = srv.list_objects(SCHEDULING, "v1beta1", "workloads", NS)
            groups = srv.list_objects(SCHEDULING, "v1beta1", "podgroups", NS)
            assert len(workloads) == JOBS and len(groups) == JOBS
            created = Counter((r.kind, r.name) for result in results for r in result.created)
            assert set(created.values()) == {1}
            assert len(created) == 2 * JOBS
            assert all(r.workload is not None and len(r.objects) == 1 for r in results)
            assert all(r.foreign == () and r.skipped is None for r in results)
            events = Counter(
                (e["reason"], e["involvedObject"]["name"])
                for e in srv.list_objects("", "v1", "events", NS)
            )
            assert events == Counter(
                {
                    **{("WorkloadCreated", j["metadata"]["name"]): 1 for j in jobs},
                    **{("PodGroupCreated", j["metadata"]["name"]): 1 for j in jobs},
                }
            )
            # once the cache has caught up, the expectations are gone and nothing is sent
            await eventually(lambda: count(cache, "PodGroup", JOBS), seconds=15)
            await eventually(lambda: len(cache.expectations) == 0, seconds=5)
            sent = len(srv.requests)
            again = await asyncio.gather(*(aio.reconcile_job(api, j, cache=cache) for j in jobs))
            assert all(r.created == () for r in again)
            assert len(srv.requests) == sent


async def test_its_own_creates_are_seen_before_the_cache_observes_them() -> None:
    async with server() as srv, srv.api_client() as api:
        created_job = srv.create_object("batch", "v1", "jobs", job("solo"))
        async with aio.Cache(api, namespace=NS, watch_timeout=1.0) as cache:
            await cache.synced(timeout=10)
            await _blind(srv, 3.0)
            first = await aio.reconcile_job(api, created_job, cache=cache)
            sent = len(srv.requests)
            second = await aio.reconcile_job(api, created_job, cache=cache)
            assert len(cache.expectations) == 2  # not observed yet, but read as written:
            workload = await cache.get("Workload", NS, first.created[0].name)
            assert workload is not None and second.workload is not None
            assert workload["metadata"]["uid"] == second.workload.metadata.uid
            assert [r.kind for r in first.created] == ["Workload", "PodGroup"]
            assert second.created == () and second.objects[0].metadata.name == first.created[1].name
            assert len(srv.requests) == sent  # not even an AlreadyExists


async def test_an_object_deleted_by_this_process_is_not_read_from_a_lagging_cache() -> None:
    async with server() as srv, srv.api_client() as api:
        created_job = srv.create_object("batch", "v1", "jobs", job("gone"))
        async with aio.Cache(api, namespace=NS, watch_timeout=1.0) as cache:
            await cache.synced(timeout=10)
            result = await aio.reconcile_job(api, created_job, cache=cache)
            workload = result.created[0].name
            await eventually(lambda: held(cache, "Workload", NS, workload))
            await _blind(srv, 3.0)
            await aio.delete(api, workload, namespace=NS, cache=cache)
            assert len(cache.expectations) >= 1  # the informer lags; reads through it do not
            assert await cache.get("Workload", NS, workload) is None
            assert all(w["metadata"]["name"] != workload for w in await cache.list("Workload"))
            verdict = await aio.diagnose(api, aio.ObjectRef("Workload", NS, workload), cache=cache)
            assert verdict.state is aio.GroupState.MISSING  # but a read through it does not
