"""Benchmark: a steady ``aio.reconcile_job`` per Job at 10, 100 and 1,000 Jobs, through an
``aio.Cache`` and without one, and the memory a cache holds per 1,000 PodGroups.

Each namespace of the test server holds its own Jobs, each reconciled once (its Workload and
PodGroup created) before the clock starts; a sample reconciles every Job of the namespace
again, with nothing to change, and the figure is the time per Job. Through the cache a steady
reconcile must send no request at all: the server's own log of received requests is checked
over every cached sample. Without the cache, each Job's Workload and PodGroup are read by
name and its pods by label (three GETs). The memory row holds ``count`` PodGroups in a cache
(``tracemalloc``, everything the cache allocated and still holds) next to the same list answer
decoded into dicts.

Run: ``python -m benchmarks.bench_cache [--small 10] [--medium 100] [--large 1000]
[--count 1000] [--repeats 5]``
"""

from __future__ import annotations

import asyncio
import gc
import json
import tracemalloc
from typing import Any

from benchmarks._harness import AsyncCase, Row, arguments, measure_async, print_table
from workloadbuilder import aio, generate_pod_group_name, generate_workload_name
from workloadbuilder.testing import FakeAPIServer

SCHEDULING = "scheduling.k8s.io"


def _job(name: str, namespace: str) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "parallelism": 2,
            "scheduling": {"schedulingPolicy": {"gang": {}}},
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [{"name": "main", "image": "trainer"}],
                }
            },
        },
    }


def _namespace(server: FakeAPIServer, name: str) -> None:
    server.create_object("", "v1", "namespaces", {"metadata": {"name": name}})


async def _first_pass(api: Any, cache: aio.Cache, jobs: list[dict[str, Any]]) -> None:
    gate = asyncio.Semaphore(16)

    async def one(job: dict[str, Any]) -> None:
        async with gate:
            result = await aio.reconcile_job(api, job, cache=cache)
        assert [r.kind for r in result.created] == ["Workload", "PodGroup"], result

    await asyncio.gather(*(one(j) for j in jobs))


async def _hand_decision(cache: aio.Cache, job: dict[str, Any]) -> bool:
    """What a hand-written sync of a steady gang Job checks: its Workload and PodGroup by the
    upstream names, owned by the Job, on its template, with gang ``minCount`` at
    ``parallelism``; ``True`` when nothing is to be done."""
    meta = job["metadata"]
    namespace, name, uid = meta["namespace"], meta["name"], meta["uid"]
    workload_name = generate_workload_name(name, uid)
    template = f"{name}-pgt-0"
    workload = await cache.get("Workload", namespace, workload_name)
    group = await cache.get("PodGroup", namespace, generate_pod_group_name(workload_name, template))
    if workload is None or group is None:
        return False
    want = job["spec"].get("parallelism", 1)
    [spec] = workload["spec"]["podGroupTemplates"]
    return bool(
        workload["metadata"]["ownerReferences"][0]["uid"] == uid
        and spec["name"] == template
        and spec["schedulingPolicy"]["gang"]["minCount"] == want
        and group["metadata"]["ownerReferences"][0]["uid"] == uid
        and group["spec"]["workloadRef"]
        == {"workloadName": workload_name, "templateName": template}
        and group["spec"]["schedulingPolicy"]["gang"]["minCount"] == want
    )


async def _steady(args: Any) -> tuple[list[Row], str]:
    sizes = {"small": args.small, "medium": args.medium, "large": args.large}
    async with FakeAPIServer(event_history=100_000) as server, server.api_client() as api:
        caches: dict[str, aio.Cache] = {}
        jobs: dict[str, list[dict[str, Any]]] = {}
        for label, count in sizes.items():
            ns = f"jobs-{label}"
            _namespace(server, ns)
            jobs[label] = [
                server.create_object("batch", "v1", "jobs", _job(f"job-{i:04d}", ns))
                for i in range(count)
            ]
            cache = caches[label] = aio.Cache(api, namespace=ns)
            await cache.start()
            await cache.synced(timeout=60)
            await _first_pass(api, cache, jobs[label])
        for label, cache in caches.items():  # the cache has observed every create
            while len(await cache.list("PodGroup")) < sizes[label] or len(cache.expectations):
                await asyncio.sleep(0.05)

        def cached(label: str) -> AsyncCase:
            async def run() -> None:
                for job in jobs[label]:
                    result = await aio.reconcile_job(api, job, cache=caches[label])
                    assert not result.created and not result.resized

            # every sample reconciles about as many Jobs, whatever the namespace's size
            return AsyncCase(f"cached-{label}", run, number=max(1, args.large // sizes[label]))

        def live(label: str) -> AsyncCase:
            async def run() -> None:
                for job in jobs[label]:
                    result = await aio.reconcile_job(api, job)
                    assert not result.created and not result.resized

            return AsyncCase(
                f"live-{label}", run, number=max(1, args.large // sizes[label]) // 10 or 1
            )

        def by_hand(label: str) -> AsyncCase:
            cache = caches[label]

            async def run() -> None:
                for job in jobs[label]:
                    assert await _hand_decision(cache, job)

            return AsyncCase(f"hand-{label}", run, number=max(1, args.large // sizes[label]))

        for job in jobs["large"]:  # the baseline decides what reconcile_job decides
            assert await _hand_decision(caches["large"], job), job["metadata"]["name"]
        before = len(server.requests)
        timed = await measure_async(
            [cached(k) for k in sizes] + [by_hand("large")], repeats=args.repeats
        )
        reads = [r for r in server.requests[before:]]
        assert reads == [], f"a cached steady reconcile sent {len(reads)} request(s)"
        timed |= await measure_async(
            [live(k) for k in ("small", "large")], repeats=max(1, args.repeats // 2)
        )
        for cache in caches.values():
            await cache.stop()
    per_job = {k: v / sizes[k.split("-")[1]] for k, v in timed.items()}
    small, medium, large = (f"{sizes[k]:,} Jobs" for k in ("small", "medium", "large"))
    rows = [
        Row(
            f"steady reconcile_job per Job through aio.Cache, {large}",
            "a hand-written decision on the same cache (its two objects by name, compared)",
            per_job["hand-large"],
            per_job["cached-large"],
            target=2.0,
        ),
        Row(
            f"steady reconcile_job per Job through aio.Cache, {large}",
            f"the same, {small}",
            per_job["cached-small"],
            per_job["cached-large"],
            target=1.5,
        ),
        Row(
            f"steady reconcile_job per Job through aio.Cache, {medium}",
            f"the same, {small}",
            per_job["cached-small"],
            per_job["cached-medium"],
        ),
        Row(
            f"steady reconcile_job per Job without a cache (GETs by name), {large}",
            f"the same, {small}",
            per_job["live-small"],
            per_job["live-large"],
        ),
        Row(
            f"steady reconcile_job per Job through aio.Cache, {large}",
            f"without a cache, {large}",
            per_job["live-large"],
            per_job["cached-large"],
        ),
    ]
    note = (
        f"Requests the test server received during the {args.repeats} cached samples of each"
        f" size (GET, LIST, anything): {len(reads)}."
    )
    return rows, note


async def _memory(count: int) -> Row:
    async with FakeAPIServer() as server, server.api_client() as api:
        _namespace(server, "mem")
        for i in range(count):
            server.create_object(
                SCHEDULING,
                "v1beta1",
                "podgroups",
                {
                    "metadata": {"name": f"pg-{i:05d}", "namespace": "mem"},
                    "spec": {"schedulingPolicy": {"gang": {"minCount": 1 + i % 8}}},
                },
            )
        path = f"/apis/{SCHEDULING}/v1beta1/namespaces/mem/podgroups"
        async with api.rest_client.pool_manager.get(server.url + path) as response:
            text = await response.text()
        gc.collect()
        tracemalloc.start()
        start = tracemalloc.get_traced_memory()[0]
        docs = json.loads(text)["items"]
        gc.collect()
        plain = tracemalloc.get_traced_memory()[0] - start
        tracemalloc.stop()
        cache = aio.Cache(api, namespace="mem", kinds=("PodGroup",))
        gc.collect()
        tracemalloc.start()
        start = tracemalloc.get_traced_memory()[0]
        await cache.start()
        await cache.synced(timeout=60)
        await asyncio.sleep(0.2)  # the watch is open
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - start
        tracemalloc.stop()
        assert len(await cache.list("PodGroup")) == len(docs) == count
        await cache.stop()
    per = 1000 / count
    return Row(
        f"aio.Cache memory per 1,000 PodGroups ({count:,} cached)",
        "the list answer's items as dicts",
        plain * per,
        held * per,
        unit="KiB",
        target=1.5,
        scale=1 / 1024,
    )


def main() -> None:
    args = arguments(__doc__.split("\n\n")[0], small=10, medium=100, large=1000, count=1000)
    if args.repeats == 7:  # the harness's default: a pass over 1,000 Jobs is long enough
        args.repeats = 5
    rows, note = asyncio.run(_steady(args))
    rows.append(asyncio.run(_memory(args.count)))
    print_table("aio.Cache: steady reconcile_job and memory", rows, note=note)


if __name__ == "__main__":
    main()
