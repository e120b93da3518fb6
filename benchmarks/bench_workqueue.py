"""Benchmark: ``aio.WorkQueue`` handing keys to 8 workers, next to a bare ``asyncio.Queue``.

Run: ``python -m benchmarks.bench_workqueue [--keys N] [--repeats N]``

Each sample adds ``keys`` keys three times over (a key added while queued counts once) and 8
workers take them until the queue is drained, each key reconciled by a no-op. The baseline is
what a hand-written loop does with ``asyncio.Queue`` and a set of queued keys for the same
de-duplication (no guarantee that a key in flight goes to no second worker, no backoff). The
ratio is the queue's own cost per key: workers that do real work hide it. A named queue
records client-go's work queue metrics (``workqueue_adds_total``, the queue and work duration
histograms, ...); an unnamed one records none: the second row is what the metrics add.
"""

from __future__ import annotations

import asyncio

from prometheus_client import REGISTRY

from benchmarks._harness import AsyncCase, Row, arguments, measure_async, print_table
from workloadbuilder import aio

WORKERS = 8
OURS = "aio.WorkQueue, 8 workers"
WITH_METRICS = "aio.WorkQueue named (recording its metrics), 8 workers"
BASELINE = "asyncio.Queue + a set of queued keys"


async def ours(keys: list[str], name: str = "") -> set[str]:
    queue: aio.WorkQueue[str] = aio.WorkQueue(name=name)
    seen: set[str] = set()

    async def worker() -> None:
        async for key in queue:
            seen.add(key)
            queue.done(key)

    workers = [asyncio.create_task(worker()) for _ in range(WORKERS)]
    for _ in range(3):
        for key in keys:
            queue.add(key)
    queue.shut_down()  # the workers still take what is queued, then stop
    await asyncio.gather(*workers)
    return seen


async def baseline(keys: list[str]) -> set[str]:
    queue: asyncio.Queue[str | None] = asyncio.Queue()
    queued: set[str] = set()
    seen: set[str] = set()

    async def worker() -> None:
        while (key := await queue.get()) is not None:
            queued.discard(key)
            seen.add(key)
            queue.task_done()

    workers = [asyncio.create_task(worker()) for _ in range(WORKERS)]
    for _ in range(3):
        for key in keys:
            if key not in queued:
                queued.add(key)
                queue.put_nowait(key)
    await queue.join()
    for _ in workers:
        queue.put_nowait(None)
    await asyncio.gather(*workers)
    return seen


async def measure(count: int, repeats: int) -> dict[str, float]:
    keys = [f"ns/job-{i}" for i in range(count)]
    named = "bench-workqueue"
    assert await ours(keys) == await baseline(keys) == set(keys)  # the same keys, each seen
    adds = REGISTRY.get_sample_value("workqueue_adds_total", {"name": named, "controller": named})
    assert await ours(keys, named) == set(keys)
    counted = REGISTRY.get_sample_value(
        "workqueue_adds_total", {"name": named, "controller": named}
    )
    assert counted is not None and counted - (adds or 0) == count  # it did record: once a key
    cases = [
        AsyncCase(OURS, lambda: ours(keys)),
        AsyncCase(WITH_METRICS, lambda: ours(keys, named)),
        AsyncCase(BASELINE, lambda: baseline(keys)),
    ]
    return await measure_async(cases, repeats=repeats)


def main() -> None:
    args = arguments(__doc__.split("\n\n")[0] if __doc__ else "", keys=10000)
    medians = asyncio.run(measure(args.keys, args.repeats))
    rows = [
        Row(
            f"{OURS}: {args.keys} keys added 3 times",
            BASELINE,
            medians[BASELINE],
            medians[OURS],
            target=2.0,
        ),
        Row(
            f"{WITH_METRICS}: {args.keys} keys added 3 times",
            OURS,
            medians[OURS],
            medians[WITH_METRICS],
            target=1.10,
        ),
    ]
    per_key = medians[OURS] / args.keys * 1e6
    metrics = (medians[WITH_METRICS] - medians[OURS]) / args.keys * 1e6
    print_table(
        f"WorkQueue: {args.keys} keys through {WORKERS} workers",
        rows,
        note=(
            f"{per_key:.2f} µs a key through aio.WorkQueue (add x3, get, done); the metrics"
            f" add {metrics:.2f} µs a key."
        ),
    )


if __name__ == "__main__":
    main()
