"""``aio.WorkQueue`` and its rate limiters, against client-go's ``util/workqueue`` semantics.

Expected values come from client-go's own tests (``default_rate_limiters_test.go``: the
exponential limiter's 1, 2, 4, 8, 16 ms and its overflow cases; ``queue_test.go``: a key
added while processing comes back once after ``Done``; ``delaying_queue_test.go``: a key
waiting keeps its earliest time) and from ``golang.org/x/time/rate``'s token bucket (full at
the start, ``burst`` at once, then one token per ``1/qps`` seconds). Delays run on a clock
the test moves by hand, so nothing here sleeps.
"""

from __future__ import annotations

import asyncio

import pytest
from manual_clock import ManualClock

from workloadbuilder.aio import (
    BucketRateLimiter,
    ItemExponentialFailureRateLimiter,
    MaxOfRateLimiter,
    WorkQueue,
    WorkQueueShutDown,
    default_rate_limiter,
)

MS = 0.001


async def settle() -> None:
    """Let every ready task run."""
    for _ in range(5):
        await asyncio.sleep(0)


def test_exponential_limiter_as_client_go() -> None:
    limiter = ItemExponentialFailureRateLimiter(1 * MS, 1.0)
    assert [limiter.when("one") for _ in range(5)] == pytest.approx(
        [1 * MS, 2 * MS, 4 * MS, 8 * MS, 16 * MS]
    )
    assert limiter.num_requeues("one") == 5
    assert [limiter.when("two") for _ in range(2)] == pytest.approx([1 * MS, 2 * MS])
    assert limiter.num_requeues("two") == 2
    limiter.forget("one")
    assert limiter.num_requeues("one") == 0
    assert limiter.when("one") == pytest.approx(1 * MS)


def test_exponential_limiter_overflow_as_client_go() -> None:
    limiter = ItemExponentialFailureRateLimiter(1 * MS, 1000.0)
    for _ in range(5):
        limiter.when("one")
    assert limiter.when("one") == pytest.approx(32 * MS)
    for _ in range(1000):
        limiter.when("overflow1")
    assert limiter.when("overflow1") == 1000.0
    limiter = ItemExponentialFailureRateLimiter(60.0, 1000 * 3600.0)
    for _ in range(2):
        limiter.when("two")
    assert limiter.when("two") == pytest.approx(4 * 60.0)
    for _ in range(1100):
        limiter.when("overflow2")
    assert limiter.when("overflow2") == 1000 * 3600.0


def test_bucket_limiter_is_a_token_bucket() -> None:
    clock = ManualClock()
    bucket = BucketRateLimiter(10.0, 100, now=clock.now)
    assert [bucket.when(i) for i in range(100)] == [0.0] * 100  # full at the start
    assert bucket.when("a") == pytest.approx(0.1)
    assert bucket.when("b") == pytest.approx(0.2)  # each reservation is kept
    clock.advance(0.2)
    assert bucket.when("c") == pytest.approx(0.1)
    clock.advance(100)
    assert bucket.when("d") == 0.0  # refilled, at most to burst
    assert bucket.num_requeues("a") == 0


def test_max_of_and_the_default_limiter() -> None:
    clock = ManualClock()
    limiter = default_rate_limiter(now=clock.now)
    assert [type(x) for x in limiter.limiters] == [
        ItemExponentialFailureRateLimiter,
        BucketRateLimiter,
    ]
    exponential, bucket = limiter.limiters
    assert isinstance(exponential, ItemExponentialFailureRateLimiter)
    assert (exponential.base_delay, exponential.max_delay) == (0.005, 1000.0)
    assert isinstance(bucket, BucketRateLimiter)
    assert (bucket.qps, bucket.burst) == (10.0, 100)
    assert [limiter.when("k") for _ in range(3)] == pytest.approx([0.005, 0.010, 0.020])
    assert limiter.num_requeues("k") == 3
    for i in range(97):
        limiter.when(i)  # the bucket is empty now
    assert limiter.when("fresh") == pytest.approx(0.1)  # the bucket's wait beats 5 ms
    limiter.forget("k")
    assert limiter.num_requeues("k") == 0
    with pytest.raises(ValueError, match="at least one"):
        MaxOfRateLimiter()


async def test_a_key_added_twice_is_queued_once() -> None:
    queue: WorkQueue[str] = WorkQueue(clock=ManualClock())
    for key in ("a", "b", "a", "a"):
        queue.add(key)
    assert len(queue) == 2
    assert [await queue.get(), await queue.get()] == ["a", "b"]
    assert len(queue) == 0


async def test_a_key_being_processed_goes_to_no_second_worker() -> None:
    queue: WorkQueue[str] = WorkQueue(clock=ManualClock())
    queue.add("a")
    first = await queue.get()
    queue.add("a")  # changed while a worker holds it
    queue.add("a")
    assert len(queue) == 0
    second = asyncio.create_task(queue.get())
    await settle()
    assert not second.done()  # not handed out while processing
    queue.done(first)
    assert await asyncio.wait_for(second, 1) == "a"  # once, after done()
    queue.done("a")
    assert len(queue) == 0
    assert queue.processing == frozenset()


async def test_workers_share_the_keys() -> None:
    queue: WorkQueue[int] = WorkQueue(clock=ManualClock())
    seen: list[int] = []
    holding: set[int] = set()

    async def worker() -> None:
        async for key in queue:
            assert key not in holding
            holding.add(key)
            await asyncio.sleep(0)
            seen.append(key)
            holding.discard(key)
            queue.done(key)

    workers = [asyncio.create_task(worker()) for _ in range(4)]
    for _ in range(3):  # each round re-adds keys queued, in flight and done
        for key in range(50):
            queue.add(key)
        await settle()
    await asyncio.wait_for(queue.shut_down_with_drain(), 1)
    await asyncio.wait_for(asyncio.gather(*workers), 1)
    assert sorted(set(seen)) == list(range(50))
    assert 50 <= len(seen) <= 150  # at most once per round that added it


async def test_add_after_keeps_the_earliest_time() -> None:
    clock = ManualClock()
    queue: WorkQueue[str] = WorkQueue(clock=clock)
    queue.add_after("a", 0.05)
    queue.add_after("a", 0.07)  # later: ignored
    assert len(queue) == 0
    clock.advance(0.049)
    assert len(queue) == 0
    clock.advance(0.001)
    assert len(queue) == 1
    assert await queue.get() == "a"
    queue.done("a")
    queue.add_after("b", 0.07)
    queue.add_after("b", 0.05)  # earlier: wins
    clock.advance(0.05)
    assert len(queue) == 1
    clock.advance(1)
    assert len(queue) == 1  # the superseded time adds nothing more
    queue.add_after("c", 0)
    assert len(queue) == 2


async def test_add_after_wakes_a_waiting_worker() -> None:
    clock = ManualClock()
    queue: WorkQueue[str] = WorkQueue(clock=clock)
    getter = asyncio.create_task(queue.get())
    queue.add_after("a", 2.0)
    queue.add_after("b", 1.0)
    await settle()
    assert not getter.done()
    clock.advance(1.0)
    assert await asyncio.wait_for(getter, 1) == "b"
    clock.advance(1.0)
    assert await asyncio.wait_for(queue.get(), 1) == "a"


async def test_add_rate_limited_backs_off_per_key_and_forget_resets() -> None:
    clock = ManualClock()
    limiter = ItemExponentialFailureRateLimiter(1 * MS, 1.0)
    queue: WorkQueue[str] = WorkQueue(rate_limiter=limiter, clock=clock)
    queue.add_rate_limited("one")
    clock.advance(0.9 * MS)
    assert len(queue) == 0
    clock.advance(0.1 * MS)
    assert len(queue) == 1
    queue.done(await queue.get())
    queue.add_rate_limited("one")  # 2 ms now
    clock.advance(1 * MS)
    assert len(queue) == 0
    clock.advance(1 * MS)
    assert len(queue) == 1
    assert queue.num_requeues("one") == 2
    queue.forget("one")
    assert queue.num_requeues("one") == 0
    assert len(queue) == 1  # forget does not take it out


async def test_shut_down_hands_out_what_is_queued_then_stops() -> None:
    clock = ManualClock()
    queue: WorkQueue[str] = WorkQueue(clock=clock)
    idle = asyncio.create_task(queue.get())
    await settle()
    queue.add("a")
    assert await asyncio.wait_for(idle, 1) == "a"
    queue.add("b")
    queue.add_after("later", 1.0)
    queue.shut_down()
    assert queue.shutting_down
    queue.add("c")  # ignored
    clock.advance(5)  # the waiting key was dropped
    assert clock.pending == 0
    assert await queue.get() == "b"
    with pytest.raises(WorkQueueShutDown):
        await queue.get()
    assert [key async for key in queue] == []


async def test_shut_down_releases_every_waiting_worker() -> None:
    queue: WorkQueue[str] = WorkQueue(clock=ManualClock())
    getters = [asyncio.create_task(queue.get()) for _ in range(3)]
    await settle()
    queue.shut_down()
    results = await asyncio.gather(*getters, return_exceptions=True)
    assert all(isinstance(r, WorkQueueShutDown) for r in results)


async def test_shut_down_with_drain_waits_for_keys_in_flight() -> None:
    queue: WorkQueue[str] = WorkQueue(clock=ManualClock())
    queue.add("a")
    key = await queue.get()
    drain = asyncio.create_task(queue.shut_down_with_drain())
    await settle()
    assert not drain.done()
    queue.done(key)
    await asyncio.wait_for(drain, 1)


async def test_a_cancelled_worker_passes_its_wake_up_on() -> None:
    queue: WorkQueue[str] = WorkQueue(clock=ManualClock())
    first = asyncio.create_task(queue.get())
    second = asyncio.create_task(queue.get())
    await settle()
    queue.add("a")  # wakes the first ...
    first.cancel()  # ... which is cancelled before it runs
    assert await asyncio.wait_for(second, 1) == "a"
    with pytest.raises(asyncio.CancelledError):
        await first


async def test_loop_clock_delays_for_real() -> None:
    queue: WorkQueue[str] = WorkQueue()
    queue.add_after("a", 0.01)
    assert len(queue) == 0
    assert await asyncio.wait_for(queue.get(), 2) == "a"
    assert "WorkQueue(" in repr(queue)
