"""Benchmark: an ``aio.Cache`` of ``jobs`` gang Jobs with their Workloads and PodGroups: the
cold sync, the steady pass per Job against the same at ``small`` Jobs, and the memory per gang
Job.

Run: ``python -m benchmarks.bench_cache_scale [--jobs 10000] [--small 10] [--repeats 3]``

The test server runs in a process of its own (``python -m workloadbuilder.testing``), so the
memory measured here is the cache's alone. Two namespaces hold ``jobs`` and ``small`` gang Jobs
(one container each), each with the Workload and PodGroup the Job controller makes (POSTed by a
bare aiohttp loop before anything is timed). Rows:

* cold sync: an ``aio.Cache`` of Jobs, Workloads and PodGroups started on the namespace until
  ``synced()``, against the same three lists read by a bare aiohttp session and decoded
  (``json.loads``), interleaved;
* steady pass: ``aio.reconcile_job`` through a synced cache over every cached Job (nothing to
  change; the benchmark asserts nothing is created), per Job, at ``jobs`` against ``small``;
* memory: ``tracemalloc``, everything a cache allocated and still holds after it synced and
  made a steady pass over every Job, per gang Job, next to the three list answers' items decoded
  into dicts (the objects as the server sends them).
"""

from __future__ import annotations

import asyncio
import gc
import json
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import aiohttp
import yaml

from benchmarks._harness import AsyncCase, Row, arguments, measure_async, print_table
from benchmarks.bench_controller import bare, job, objects_of
from workloadbuilder import aio

KINDS: tuple[aio.CacheKind, ...] = ("Job", "Workload", "PodGroup")
LISTS = (
    "/apis/batch/v1/namespaces/{ns}/jobs",
    "/apis/scheduling.k8s.io/v1beta1/namespaces/{ns}/workloads",
    "/apis/scheduling.k8s.io/v1beta1/namespaces/{ns}/podgroups",
)
TARGET_KIB = 12.0  # memory per gang Job (issue 35): 100,000 Jobs in 1.2 GiB


@contextmanager
def server_process(*namespaces: str) -> Iterator[Path]:
    """The kubeconfig of a test server running in its own process, holding ``namespaces``."""
    args = [a for ns in namespaces for a in ("--namespace", ns)]
    process = subprocess.Popen(
        [sys.executable, "-m", "workloadbuilder.testing", *args],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline().strip()
        assert first, "the test server printed no kubeconfig"
        yield Path(first)
    finally:
        process.terminate()
        process.wait(timeout=30)


def server_url(kubeconfig: Path) -> str:
    config = yaml.safe_load(kubeconfig.read_text())
    return str(config["clusters"][0]["cluster"]["server"])


async def fill(session: aiohttp.ClientSession, namespace: str, count: int) -> None:
    """``count`` gang Jobs in ``namespace``, each with its Workload and PodGroup."""
    made: list[dict[str, Any]] = []
    gate = asyncio.Semaphore(8)
    headers = {"Content-Type": "application/json"}

    async def one(index: int) -> None:
        body = json.dumps(job(f"job-{index:06d}", namespace))
        async with (
            gate,
            session.post(LISTS[0].format(ns=namespace), data=body, headers=headers) as r,
        ):
            assert r.status == 201, await r.text()
            made.append(await r.json())

    await asyncio.gather(*(one(i) for i in range(count)))
    await bare(session, objects_of(made))


async def read_lists(session: aiohttp.ClientSession, namespace: str) -> list[list[Any]]:
    """The three lists as the server sends them, decoded: the baseline of the cold sync."""
    found = []
    for path in LISTS:
        async with session.get(path.format(ns=namespace)) as response:
            found.append(json.loads(await response.read())["items"])
    return found


async def list_texts(session: aiohttp.ClientSession, namespace: str) -> list[bytes]:
    found = []
    for path in LISTS:
        async with session.get(path.format(ns=namespace)) as response:
            found.append(await response.read())
    return found


async def steady_pass(api: Any, cache: aio.Cache) -> int:
    """``reconcile_job`` on every cached Job; the number reconciled (nothing may be created)."""
    jobs = await cache.list("Job")
    for obj in jobs:
        result = await aio.reconcile_job(api, obj, cache=cache)
        assert not result.created and not result.resized, result
    return len(jobs)


async def cold_sync(api: Any, namespace: str) -> None:
    async with aio.Cache(api, namespace=namespace, kinds=KINDS) as cache:
        await cache.synced(timeout=600)


def traced(before: int) -> int:
    gc.collect()
    return tracemalloc.get_traced_memory()[0] - before


async def memory(api: Any, session: aiohttp.ClientSession, namespace: str) -> tuple[int, int]:
    """Bytes held by the three lists' items decoded, and by a synced cache after a pass."""
    texts = await list_texts(session, namespace)
    gc.collect()
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        plain = [json.loads(text)["items"] for text in texts]
        plain_bytes = traced(start)
        del plain
        gc.collect()
        start = tracemalloc.get_traced_memory()[0]
        cache = aio.Cache(api, namespace=namespace, kinds=KINDS)
        await cache.start()
        await cache.synced(timeout=600)
        await steady_pass(api, cache)
        await asyncio.sleep(0.2)  # the watches are open
        held = traced(start)
        await cache.stop()
    finally:
        tracemalloc.stop()
    return plain_bytes, held


async def run(args: Any) -> tuple[list[Row], str]:
    big, small = "many-jobs", "few-jobs"
    with server_process(big, small) as kubeconfig:
        url = server_url(kubeconfig)
        async with (
            aiohttp.ClientSession(url) as session,
            await aio.new_client(config_file=str(kubeconfig)) as api,
        ):
            started = time.perf_counter()
            await fill(session, big, args.jobs)
            await fill(session, small, args.small)
            setup = time.perf_counter() - started

            async def ours() -> None:
                await cold_sync(api, big)

            async def baseline() -> None:
                lists = await read_lists(session, big)
                assert [len(items) for items in lists] == [args.jobs] * 3

            synced = await measure_async(
                [AsyncCase("cache", ours), AsyncCase("lists", baseline)], repeats=args.repeats
            )
            caches = {
                n: aio.Cache(api, namespace=ns, kinds=KINDS)
                for n, ns in (("big", big), ("small", small))
            }
            for cache in caches.values():
                await cache.start()
                await cache.synced(timeout=600)
            # every object is cached as the server sent it, but for managedFields (a list's
            # items carry the list's apiVersion and kind)
            versions = ("batch/v1", "scheduling.k8s.io/v1beta1", "scheduling.k8s.io/v1beta1")
            answers = await read_lists(session, big)
            for kind, version, items in zip(KINDS, versions, answers, strict=True):
                for item in items:
                    item.setdefault("apiVersion", version)
                    item.setdefault("kind", kind)
                    item["metadata"].pop("managedFields", None)
                    meta = item["metadata"]
                    assert await caches["big"].get(kind, meta["namespace"], meta["name"]) == item
            per = max(1, args.jobs // args.small)

            async def pass_big() -> None:
                assert await steady_pass(api, caches["big"]) == args.jobs

            async def pass_small() -> None:
                assert await steady_pass(api, caches["small"]) == args.small

            steady = await measure_async(
                [AsyncCase("big", pass_big), AsyncCase("small", pass_small, number=per)],
                repeats=args.repeats,
            )
            for cache in caches.values():
                await cache.stop()
            plain, held = await memory(api, session, big)
    per_job = {"big": steady["big"] / args.jobs, "small": steady["small"] / args.small}
    kib = held / args.jobs / 1024
    rows = [
        Row(
            f"aio.Cache cold sync of {args.jobs:,} gang Jobs (Jobs, Workloads, PodGroups listed)",
            "the three lists read and decoded by a bare aiohttp session",
            synced["lists"],
            synced["cache"],
            unit="s",
            scale=1.0,
        ),
        Row(
            f"steady reconcile_job per Job through aio.Cache, {args.jobs:,} gang Jobs",
            f"the same, {args.small:,} gang Jobs",
            per_job["small"],
            per_job["big"],
            target=1.2,
        ),
        Row(
            f"aio.Cache memory per gang Job (Job + Workload + PodGroup), {args.jobs:,} cached,"
            " after a steady pass",
            "the list answers' items decoded as dicts (managedFields included)",
            plain / args.jobs,
            held / args.jobs,
            unit="KiB",
            scale=1 / 1024,
        ),
    ]
    verdict = "met" if kib <= TARGET_KIB else "MISSED"
    note = (
        f"Memory per gang Job: {kib:.2f} KiB (target <= {TARGET_KIB:g} KiB: {verdict}); at that"
        f" rate 100,000 gang Jobs hold {kib * 100_000 / 1024**2:.2f} GiB. The test server runs"
        f" in its own process; making the {args.jobs + args.small:,} Jobs and their objects took"
        f" {setup:.1f} s before anything was measured."
    )
    return rows, note


def main() -> None:
    args = arguments(__doc__.split("\n\n")[0], jobs=10_000, small=10)
    if args.repeats == 7:  # the harness's default: a pass over 10,000 Jobs is long enough
        args.repeats = 3
    rows, note = asyncio.run(run(args))
    print_table(f"aio.Cache at {args.jobs:,} gang Jobs", rows, note=note)


if __name__ == "__main__":
    main()
