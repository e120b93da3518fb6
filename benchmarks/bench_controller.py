"""Benchmark: a cold start of ``aio.Controller`` over a namespace of Jobs, next to a bare
aiohttp loop that POSTs the same objects.

Run: ``python -m benchmarks.bench_controller [--jobs 1000] [--repeats 7] [--smoke]``

Each sample takes a namespace holding ``jobs`` new gang Jobs (made before the clock starts, a
namespace per sample) on one test server running in the same event loop. Ours: an
``aio.Cache`` of the namespace starts (lists Jobs, Workloads, PodGroups and Pods, then
watches), an ``aio.Controller`` of kind ``"Job"`` with 8 workers queues every Job and calls
``aio.reconcile_job(api, job, cache=cache)`` on each, which POSTs the Job's Workload and its
PodGroup and, as the Job controller does, records a ``WorkloadCreated`` and a
``PodGroupCreated`` Event; the clock stops once every Job is reconciled and the controller
and the cache are stopped. The baseline: 8 aiohttp workers POST the same Workload and
PodGroup of each Job (their JSON made before the clock starts) and nothing else. Both go
through a client made before the clock starts (ours: ``aio.new_client()``'s). What the metrics
add: the same cold start with ``metrics=False`` (the controller and its queue record nothing;
the REST client's metrics, recorded for every request, are timed apart, per request).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Awaitable, Iterator
from contextlib import suppress
from typing import Any

import aiohttp
from prometheus_client import REGISTRY

import workloadbuilder as wb
from benchmarks._harness import AsyncCase, Row, arguments, measure_async, print_table
from workloadbuilder import aio
from workloadbuilder.testing import FakeAPIServer

WORKERS = 8
OURS = "aio.Controller, kind Job, reconcile_job through the cache, 8 workers"
NO_METRICS = "the same with metrics=False (no controller or work queue metrics)"
BASELINE = "bare aiohttp loop POSTing each Job's Workload and PodGroup, 8 workers"
WITH_EVENTS = "the same bare loop, also POSTing the two Events per Job"
SCHEDULING = "/apis/scheduling.k8s.io/v1beta1/namespaces"


def job(name: str, namespace: str) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "parallelism": 4,
            "scheduling": {"schedulingPolicy": {"gang": {}}},
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [{"name": "main", "image": "trainer"}],
                }
            },
        },
    }


def namespace_of_jobs(server: FakeAPIServer, name: str, count: int) -> list[dict[str, Any]]:
    server.create_object(
        "",
        "v1",
        "namespaces",
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}},
    )
    return [
        server.create_object("batch", "v1", "jobs", job(f"job-{i:05d}", name)) for i in range(count)
    ]


def event(obj: dict[str, Any], index: int, reason: str, message: str) -> dict[str, Any]:
    """The Event the Job controller records about Job ``obj`` (as ``reconcile_job`` sends)."""
    meta = obj["metadata"]
    now = "2026-01-01T00:00:00Z"
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": f"{meta['name']}.{index:016x}", "namespace": meta["namespace"]},
        "involvedObject": {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "name": meta["name"],
            "namespace": meta["namespace"],
            "uid": meta["uid"],
        },
        "reason": reason,
        "message": message,
        "type": "Normal",
        "source": {"component": "job-controller"},
        "reportingComponent": "job-controller",
        "firstTimestamp": now,
        "lastTimestamp": now,
        "count": 1,
    }


Post = tuple[str, dict[str, Any]]
"""A collection's path and the JSON to POST to it."""


def objects_of(jobs: list[dict[str, Any]], *, events: bool = False) -> list[list[Post]]:
    """Per Job: its Workload and PodGroup, as the Job controller names and fills them (and its
    two Events, with ``events``), in the order to POST them."""
    found = []
    for obj in jobs:
        posts: list[Post] = []
        found.append(posts)
        builder = wb.job_builder(obj)
        workload = builder.build_workload()
        (template,) = workload.spec.pod_group_templates or []
        name = wb.generate_pod_group_name(workload.metadata.name, template.name)
        group = builder.new_pod_group(name, template.name)
        namespace = obj["metadata"]["namespace"]
        posts.append((f"{SCHEDULING}/{namespace}/workloads", workload.to_dict()))
        posts.append((f"{SCHEDULING}/{namespace}/podgroups", group.to_dict()))
        if events:
            job_name = obj["metadata"]["name"]
            said = [
                (
                    "WorkloadCreated",
                    f"Created Workload {workload.metadata.name} for Job {job_name}",
                ),
                ("PodGroupCreated", f"Created PodGroup {name} for Job {job_name}"),
            ]
            for index, (reason, message) in enumerate(said):
                posts.append(
                    (f"/api/v1/namespaces/{namespace}/events", event(obj, index, reason, message))
                )
    return found


async def cold_start(api: Any, namespace: str, count: int, *, metrics: bool = True) -> None:
    """Start a cache and a controller on ``namespace``; return once each Job is reconciled."""
    kinds: tuple[aio.CacheKind, ...] = ("Job", "Workload", "PodGroup", "Pod")
    async with aio.Cache(api, namespace=namespace, kinds=kinds) as cache:
        created = 0
        all_done = asyncio.Event()

        async def reconcile(obj: dict[str, Any]) -> None:
            nonlocal created
            result = await aio.reconcile_job(api, obj, cache=cache)
            created += len(result.created)
            if created == 2 * count:
                all_done.set()

        controller = aio.Controller(
            api,
            "Job",
            reconcile,
            namespace=namespace,
            workers=WORKERS,
            cache=cache,
            name=f"bench-{'metrics' if metrics else 'none'}",
            metrics=metrics,
        )
        running = asyncio.create_task(controller.run())
        done = asyncio.create_task(all_done.wait())
        await asyncio.wait({running, done}, return_when=asyncio.FIRST_COMPLETED)
        done.cancel()
        if running.done():
            running.result()  # what stopped it
        running.cancel()
        with suppress(asyncio.CancelledError):
            await running


async def bare(session: aiohttp.ClientSession, objects: list[list[Post]]) -> None:
    """8 workers, each POSTing one Job's objects after the other; the PodGroup also names the
    Workload just made as an owner, as the Job controller's does."""
    pending = iter(objects)
    headers = {"Content-Type": "application/json", "Accept": "application/json"}

    async def worker() -> None:
        for posts in pending:
            owner: dict[str, Any] | None = None
            for path, body in posts:
                if owner is not None and body["kind"] == "PodGroup":
                    refs = body["metadata"]["ownerReferences"]
                    body = {
                        **body,
                        "metadata": {**body["metadata"], "ownerReferences": [*refs, owner]},
                    }
                async with session.post(path, data=json.dumps(body), headers=headers) as resp:
                    if resp.status != 201:
                        raise RuntimeError(f"bare loop got HTTP {resp.status}: {await resp.text()}")
                    made = await resp.json()
                if made["kind"] == "Workload":
                    meta = made["metadata"]
                    owner = {
                        "apiVersion": made["apiVersion"],
                        "kind": "Workload",
                        "name": meta["name"],
                        "uid": meta["uid"],
                    }

    await asyncio.gather(*(worker() for _ in range(WORKERS)))


def alike(obj: dict[str, Any]) -> str:
    """What two namespaces' objects of the same Job share: the spec but for the Workload's
    name, and the owners' kinds."""
    spec = dict(obj["spec"])
    if "workloadRef" in spec:
        spec["workloadRef"] = {**spec["workloadRef"], "workloadName": "-"}
    if "controllerRef" in spec:
        spec["controllerRef"] = {**spec["controllerRef"], "name": "-"}
    owners = [(r["kind"], r.get("controller", False)) for r in obj["metadata"]["ownerReferences"]]
    return json.dumps([spec, owners], sort_keys=True)


async def measure(count: int, repeats: int) -> dict[str, float]:
    async with (
        FakeAPIServer() as server,
        await aio.new_client(config_file=server.kubeconfig_path) as api,
    ):
        names = itertools.count()
        samples = repeats + 1  # the harness warms each case up once

        def prepared() -> Iterator[str]:
            made = [f"cold-{next(names)}" for _ in range(samples)]
            for name in made:
                namespace_of_jobs(server, name, count)
            return iter(made)

        ours_namespaces = prepared()
        bare_namespaces = prepared()
        with_events = iter(
            [
                objects_of(namespace_of_jobs(server, f"events-{i}", count), events=True)
                for i in range(samples)
            ]
        )
        bare_objects = iter(
            [objects_of(namespace_of_jobs(server, f"bare-{i}", count)) for i in range(samples)]
        )
        async with aiohttp.ClientSession(server.url) as session:

            def ours() -> Awaitable[None]:
                return cold_start(api, next(ours_namespaces), count)

            def without_metrics() -> Awaitable[None]:
                return cold_start(api, next(bare_namespaces), count, metrics=False)

            def baseline() -> Awaitable[None]:
                return bare(session, next(bare_objects))

            def baseline_with_events() -> Awaitable[None]:
                return bare(session, next(with_events))

            cases: list[AsyncCase] = [
                AsyncCase(OURS, ours),
                AsyncCase(NO_METRICS, without_metrics),
                AsyncCase(BASELINE, baseline),
                AsyncCase(WITH_EVENTS, baseline_with_events),
            ]
            medians = await measure_async(cases, repeats=repeats)
        # both made the same objects: a Workload and a PodGroup per Job, alike but for the
        # names and uids that follow from each Job's uid
        for plural in ("workloads", "podgroups"):
            made = [
                sorted(
                    alike(o)
                    for o in server.list_objects("scheduling.k8s.io", "v1beta1", plural, ns)
                )
                for ns in ("cold-0", "bare-0")
            ]
            assert len(made[0]) == count and made[0] == made[1], plural
        reconciled = REGISTRY.get_sample_value(
            "controller_runtime_reconcile_total",
            {"controller": "bench-metrics", "result": "success"},
        )
        assert reconciled == count * (repeats + 1), reconciled  # it did record: each Job once
        medians["per request"] = per_request(api)
        return medians


def per_request(api: Any, calls: int = 20000) -> float:
    """Seconds the REST client's metrics add to one request (both series recorded)."""
    transport = aio.Client(api, "bench").transport  # what every request runs: _observe
    started = time.perf_counter()
    for _ in range(calls):
        transport._observe("POST", "201", started)
    return (time.perf_counter() - started) / calls


def main() -> None:
    args = arguments(__doc__.split("\n\n")[0] if __doc__ else "", jobs=1000)
    medians = asyncio.run(measure(args.jobs, args.repeats))
    rows = [
        Row(
            f"{OURS}: cold start of {args.jobs} Jobs",
            BASELINE,
            medians[BASELINE],
            medians[OURS],
            unit="s",
            scale=1.0,
            target=2.0,
        ),
        Row(
            f"{OURS}: cold start of {args.jobs} Jobs",
            NO_METRICS,
            medians[NO_METRICS],
            medians[OURS],
            unit="s",
            scale=1.0,
            target=1.10,
        ),
        Row(
            f"{OURS}: cold start of {args.jobs} Jobs",
            WITH_EVENTS,
            medians[WITH_EVENTS],
            medians[OURS],
            unit="s",
            scale=1.0,
        ),
    ]
    per_job = medians[OURS] / args.jobs * 1e3
    print_table(
        f"Controller: a cold start of {args.jobs} Jobs",
        rows,
        note=(
            f"{per_job:.2f} ms a Job through aio.Controller ({2 * args.jobs} objects and"
            f" {2 * args.jobs} Events POSTed); the bare loop POSTs the objects only. The REST"
            f" client's metrics: {medians['per request'] * 1e6:.2f} µs a request."
        ),
    )


if __name__ == "__main__":
    main()
