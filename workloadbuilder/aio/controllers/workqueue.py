"""``WorkQueue``: keys to reconcile, with client-go's ``workqueue`` semantics, on asyncio.

A key added while it is queued is queued once. A key being processed (handed out by
``get()``, not yet ``done()``) is never handed to a second worker: adding it marks it dirty,
and ``done()`` queues it again. ``add_after`` queues a key later (a key already waiting keeps
the earlier time); ``add_rate_limited`` queues it after its rate limiter's delay (per-key
backoff, plus an overall limit), ``forget`` resets that backoff once the key succeeded.

``get()`` returns the next key, or raises :class:`WorkQueueShutDown` once the queue is shut
down and has nothing queued (as client-go's ``Get`` answers ``shutdown``); ``async for key in
queue`` does the same and ends there. Keys queued before ``shut_down()`` are still handed out;
keys added after it, and keys still waiting for their delay, are dropped.
``shut_down_with_drain()`` also waits until every key handed out is ``done()``.

A queue with a ``name`` records client-go's work queue metrics under it (``workqueue_depth``,
``workqueue_adds_total``, ..., labels ``name`` and ``controller``); an unnamed one records none,
as client-go's.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Hashable
from typing import Generic, Protocol, TypeVar

from ..metrics import (
    WORKQUEUE_ADDS,
    WORKQUEUE_DEPTH,
    WORKQUEUE_LONGEST_RUNNING,
    WORKQUEUE_QUEUE_DURATION,
    WORKQUEUE_RETRIES,
    WORKQUEUE_UNFINISHED_WORK,
    WORKQUEUE_WORK_DURATION,
    scrape_gauge,
)
from .ratelimit import RateLimiter, default_rate_limiter

__all__ = ["Clock", "LoopClock", "TimerHandle", "WorkQueue", "WorkQueueShutDown"]

K = TypeVar("K", bound=Hashable)
_now = time.monotonic


class WorkQueueShutDown(Exception):
    """``get()`` on a queue that is shut down and has nothing queued: the worker stops."""


class TimerHandle(Protocol):
    """A scheduled callback that can be cancelled."""

    def cancel(self) -> None: ...


class Clock(Protocol):
    """The time a queue's delays are measured on: ``now()`` in seconds (monotonic), and
    ``call_later(delay, callback)``. Tests pass one they move by hand."""

    def now(self) -> float: ...

    def call_later(self, delay: float, callback: Callable[[], None]) -> TimerHandle: ...


class LoopClock:
    """The running event loop's clock (monotonic) and timers."""

    def now(self) -> float:
        return asyncio.get_running_loop().time()

    def call_later(self, delay: float, callback: Callable[[], None]) -> TimerHandle:
        return asyncio.get_running_loop().call_later(delay, callback)


class _QueueMetrics(Generic[K]):
    """client-go's ``queueMetrics`` of one named queue: adds, retries and the time a key
    waits and is worked on are recorded as they happen (by the queue, inline); depth,
    unfinished work and the longest running processor are read at scrape time."""

    def __init__(self, name: str, dirty: set[K]) -> None:
        labels = (name, name)
        self.adds = WORKQUEUE_ADDS.labels(*labels)
        self.retries = WORKQUEUE_RETRIES.labels(*labels)
        self.queued_for = WORKQUEUE_QUEUE_DURATION.labels(*labels)
        self.worked_for = WORKQUEUE_WORK_DURATION.labels(*labels)
        self.added_at: dict[K, float] = {}
        self.started_at: dict[K, float] = {}
        scrape_gauge(WORKQUEUE_DEPTH, (name, name, ""), lambda: len(dirty))
        scrape_gauge(WORKQUEUE_UNFINISHED_WORK, labels, self.unfinished)
        scrape_gauge(WORKQUEUE_LONGEST_RUNNING, labels, self.longest)

    def unfinished(self) -> float:
        now = _now()
        return sum(now - started for started in list(self.started_at.values()))

    def longest(self) -> float:
        starts = list(self.started_at.values())
        return _now() - min(starts) if starts else 0.0


class WorkQueue(Generic[K]):
    """Keys to process, each handed to one worker at a time.

    ``rate_limiter`` decides ``add_rate_limited``'s delays (default: client-go's, see
    :func:`~workloadbuilder.aio.ratelimit.default_rate_limiter`); ``clock`` measures delays
    (default: the event loop's). ``name`` shows in ``repr`` and labels the queue's metrics
    (none without one). A worker::

        while True:
            try:
                key = await queue.get()
            except WorkQueueShutDown:
                return
            try:
                await reconcile(key)
            except Exception:
                queue.add_rate_limited(key)  # again later, backing off
            else:
                queue.forget(key)  # its next failure starts a fresh backoff
            finally:
                queue.done(key)
    """

    def __init__(
        self,
        *,
        rate_limiter: RateLimiter | None = None,
        clock: Clock | None = None,
        name: str = "",
    ) -> None:
        self.name = name
        self._clock: Clock = clock or LoopClock()
        self._limiter: RateLimiter = rate_limiter or default_rate_limiter(now=self._clock.now)
        self._queue: deque[K] = deque()
        self._dirty: set[K] = set()
        self._processing: set[K] = set()
        self._waiting: list[tuple[float, int, K]] = []  # heap of (ready at, order, key)
        self._ready_at: dict[K, float] = {}
        self._order = itertools.count()
        self._timer: TimerHandle | None = None
        self._timer_at = 0.0
        self._getters: deque[asyncio.Future[None]] = deque()
        self._idle: asyncio.Event | None = None
        self._shutting_down = False
        self._metrics: _QueueMetrics[K] | None = _QueueMetrics(name, self._dirty) if name else None

    def __repr__(self) -> str:
        return (
            f"WorkQueue({self.name!r}, queued={len(self._queue)},"
            f" processing={len(self._processing)}, waiting={len(self._ready_at)},"
            f" shutting_down={self._shutting_down})"
        )

    def __len__(self) -> int:
        """Keys queued now (not those being processed, nor those waiting for a delay)."""
        return len(self._queue)

    @property
    def shutting_down(self) -> bool:
        """Whether ``shut_down()`` was called."""
        return self._shutting_down

    @property
    def processing(self) -> frozenset[K]:
        """The keys handed out and not yet ``done()``."""
        return frozenset(self._processing)

    # -- adding -------------------------------------------------------------------------

    def add(self, key: K) -> None:
        """Queue ``key`` unless it is queued already (or being processed: then once it is
        ``done()``). Ignored once the queue is shut down."""
        if self._shutting_down or key in self._dirty:
            return
        metrics = self._metrics
        if metrics is not None:  # client-go's queueMetrics.add (inline: every add pays it)
            metrics.adds.value += 1
            metrics.added_at[key] = _now()  # not queued, so not timed yet
        self._dirty.add(key)
        if key in self._processing:
            return
        self._queue.append(key)
        self._wake_one()

    def add_after(self, key: K, delay: float) -> None:
        """Queue ``key`` in ``delay`` seconds (at once if ``delay <= 0``). A key already
        waiting keeps whichever time is earlier."""
        if self._shutting_down:
            return
        if delay <= 0:
            self.add(key)
            return
        if self._metrics is not None:
            self._metrics.retries.inc()
        ready = self._clock.now() + delay
        known = self._ready_at.get(key)
        if known is not None and known <= ready:
            return
        self._ready_at[key] = ready
        heapq.heappush(self._waiting, (ready, next(self._order), key))
        self._arm()

    def add_rate_limited(self, key: K) -> None:
        """Queue ``key`` after the rate limiter's delay (counts one re-queue of it)."""
        self.add_after(key, self._limiter.when(key))

    def forget(self, key: K) -> None:
        """``key`` succeeded: the rate limiter stops tracking it (its backoff starts over).
        It is not taken out of the queue."""
        self._limiter.forget(key)

    def num_requeues(self, key: K) -> int:
        """How many times ``key`` was re-queued by ``add_rate_limited`` since ``forget``."""
        return self._limiter.num_requeues(key)

    # -- taking -------------------------------------------------------------------------

    async def get(self) -> K:
        """The next key, marked as being processed until ``done(key)``; waits for one.

        Raises :class:`WorkQueueShutDown` once the queue is shut down and nothing is queued.
        """
        while not self._queue:
            if self._shutting_down:
                raise WorkQueueShutDown(f"work queue {self.name!r} is shut down")
            waiter = asyncio.get_running_loop().create_future()
            self._getters.append(waiter)
            try:
                await waiter
            except BaseException:
                waiter.cancel()
                if waiter in self._getters:
                    self._getters.remove(waiter)
                elif not waiter.cancelled():
                    self._wake_one()  # woken, then cancelled: pass the wake-up on
                raise
        key = self._queue.popleft()
        self._dirty.discard(key)
        self._processing.add(key)
        metrics = self._metrics
        if metrics is not None:  # queueMetrics.get: how long it waited, and work starts
            now = metrics.started_at[key] = _now()
            metrics.queued_for.observe(now - metrics.added_at.pop(key, now))
        return key

    def done(self, key: K) -> None:
        """``key`` is processed: if it was added meanwhile, it is queued again now."""
        self._processing.discard(key)
        metrics = self._metrics
        if metrics is not None:  # queueMetrics.done: how long the work took
            started = metrics.started_at.pop(key, None)
            if started is not None:
                metrics.worked_for.observe(_now() - started)
        if key in self._dirty:
            self._queue.append(key)
            self._wake_one()
        elif not self._processing and self._idle is not None:
            self._idle.set()

    def __aiter__(self) -> AsyncIterator[K]:
        return self._keys()

    async def _keys(self) -> AsyncIterator[K]:
        """Each key from ``get()`` until the queue is shut down; call ``done(key)`` for each."""
        while True:
            try:
                key = await self.get()
            except WorkQueueShutDown:
                return
            yield key

    # -- shutting down --------------------------------------------------------------------

    def shut_down(self) -> None:
        """Take no more keys and drop those waiting for a delay; workers get what is still
        queued, then :class:`WorkQueueShutDown`. Keys being processed are not waited for."""
        self._shutting_down = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._waiting.clear()
        self._ready_at.clear()
        while self._getters:
            waiter = self._getters.popleft()
            if not waiter.done():
                waiter.set_result(None)

    async def shut_down_with_drain(self) -> None:
        """``shut_down()``, then wait until every key handed out is ``done()``, as client-go's
        ``ShutDownWithDrain`` (bound it with ``asyncio.timeout`` if a worker may hang)."""
        self.shut_down()
        while self._processing:
            self._idle = asyncio.Event()
            await self._idle.wait()

    # -- internals ------------------------------------------------------------------------

    def _wake_one(self) -> None:
        while self._getters:
            waiter = self._getters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return

    def _arm(self) -> None:
        """Set the timer for the earliest waiting key (once, and earlier when needed)."""
        if not self._waiting:
            return
        ready = self._waiting[0][0]
        if self._timer is not None and self._timer_at <= ready:
            return
        if self._timer is not None:
            self._timer.cancel()
        self._timer_at = ready
        self._timer = self._clock.call_later(max(0.0, ready - self._clock.now()), self._fire)

    def _fire(self) -> None:
        """Queue every key whose time has come; set the timer for the next."""
        self._timer = None
        now = self._clock.now()
        while self._waiting and self._waiting[0][0] <= now:
            ready, _, key = heapq.heappop(self._waiting)
            if self._ready_at.get(key) == ready:  # else superseded by an earlier time
                del self._ready_at[key]
                self.add(key)
        self._arm()
