"""``Controller``: reconcile every object of one kind, driven by the cache's watch.

As a client-go controller: the cache's handlers queue each changed object's
``namespace/name`` key on a ``WorkQueue``, and ``workers`` tasks take keys off it and call
``reconcile(obj)`` with the object as the cache holds it at that moment. A key is queued once
however often it changes meanwhile, and handed to one worker at a time. A reconcile that raises
is queued again after its key's backoff (the queue's rate limiter) while other keys proceed;
one that returns resets that backoff, unless it returns a ``Result`` asking to be queued
again (controller-runtime's ``Result{Requeue, RequeueAfter}``). Every ``resync_period`` every
cached key is queued again (client-go's resync). Cancelling ``run()`` shuts the queue down
and lets in-flight reconciles finish (at most ``drain_timeout`` seconds). Each reconcile is
counted in controller-runtime's metrics (``controller_runtime_reconcile_total{controller,
result}`` and the rest, label ``controller``: the controller's name), its queue in client-go's
(label ``name``: the same).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from contextlib import suppress
from dataclasses import dataclass
from typing import Any

from ..cache.cache import AnyKind, Cache, CacheSyncError, CustomResource, resolve_kind
from ..metrics import (
    ACTIVE_WORKERS,
    MAX_CONCURRENT_RECONCILES,
    RECONCILE_ERRORS,
    RECONCILE_TIME,
    RECONCILE_TOTAL,
    scrape_gauge,
)
from .leader import LeaderElection, LostLeadershipError
from .ratelimit import RateLimiter
from .workqueue import WorkQueue, WorkQueueShutDown

__all__ = ["Controller", "Reconcile", "Result"]

_log = logging.getLogger("workloadbuilder.aio")


@dataclass(frozen=True)
class Result:
    """What a reconcile may return to be queued again, as controller-runtime's ``Result``.

    ``Result(requeue_after=30)``: reconcile the object again in 30 seconds (its backoff is
    reset; a change meanwhile reconciles it sooner), counted as ``requeue_after``.
    ``Result(requeue=True)``: again after the key's backoff, as a failure would be but without
    an error, counted as ``requeue``. ``requeue_after`` wins when both are set. Returning
    ``None`` (or ``Result()``) is a success; raising is an ``error``, retried with backoff.
    """

    requeue: bool = False
    requeue_after: float = 0.0

    def __post_init__(self) -> None:
        if self.requeue_after < 0:
            raise ValueError(f"Result.requeue_after must not be negative, got {self.requeue_after}")


Reconcile = Callable[[dict[str, Any]], Awaitable[Result | None]]
"""``await reconcile(obj)``: bring the world in line with ``obj`` (its JSON, read-only, as
the cache holds it); raise to be retried with backoff, return a ``Result`` to be queued
again; anything else it returns counts as success."""

DEFAULT_RESYNC_PERIOD = 10 * 3600.0
"""controller-runtime's default ``SyncPeriod``: every cached object reconciled again."""


class Controller:
    """Reconcile every ``kind`` object (in ``namespace``, or every namespace the cache holds).

    ``kind`` is one the cache knows (``"Job"``, ``"PodGroup"``, ...) or an
    ``aio.CustomResource(group, version, plural, kind)``. ``cache``: a started ``aio.Cache`` to
    share with the helpers (``reconcile_job(..., cache=cache)``); without one the controller
    runs its own, of ``kind`` only, for the length of ``run()``. ``reconcile`` is not called
    for an object that is gone when its key comes up: what it owned goes with it (owner
    references), and work that must happen first belongs in a finalizer, which keeps the
    object, with ``deletionTimestamp`` set, until ``reconcile`` removes it.

    A failure is logged once per key and error (at ERROR, with its traceback); the same error
    again on a retry is logged at DEBUG, a different one at ERROR again, and the first success
    after failures at INFO. With ``leader_election``, every replica keeps its cache warm but
    only the leader reconciles; a replica that loses the lead stops its workers and stands
    again. ``rate_limiter``: the queue's (default: client-go's controller rate limiter).
    ``resync_period``: seconds between resyncs (``None``: none); ``sync_timeout``: how long
    ``run()`` waits for the kind to list; ``drain_timeout``: how long a stop waits for the
    reconciles in flight; ``name``: in logs and the metrics' labels (default: the kind's);
    ``metrics=False`` records none (nor its queue's).
    """

    def __init__(
        self,
        api_client: Any,
        kind: AnyKind,
        reconcile: Reconcile,
        *,
        namespace: str | None = None,
        workers: int = 4,
        cache: Cache | None = None,
        resync_period: float | None = DEFAULT_RESYNC_PERIOD,
        leader_election: LeaderElection | None = None,
        rate_limiter: RateLimiter | None = None,
        sync_timeout: float = 120.0,
        drain_timeout: float = 30.0,
        name: str = "",
        metrics: bool = True,
    ) -> None:
        resolve_kind(kind)  # a kind no cache can hold fails here, not in run()
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        if resync_period is not None and resync_period <= 0:
            raise ValueError(
                f"resync_period must be greater than zero (or None), got {resync_period}"
            )
        self.api_client = api_client
        self.kind = kind
        self.namespace = namespace
        self.workers = workers
        self.resync_period = resync_period
        self.leader_election = leader_election
        self.sync_timeout = sync_timeout
        self.drain_timeout = drain_timeout
        self.name = name or (kind.name if isinstance(kind, CustomResource) else kind.lower())
        self._reconcile = reconcile
        self._given_cache = cache
        self._cache: Cache | None = cache
        self._rate_limiter = rate_limiter
        self._queue: WorkQueue[str] | None = None
        self._failing: dict[str, str] = {}  # key -> the error last logged for it
        self._running = False
        self._active = 0  # reconciles running now
        self.metrics = metrics
        if metrics:
            self._outcomes = {
                result: RECONCILE_TOTAL.labels(self.name, result)
                for result in ("success", "error", "requeue", "requeue_after")
            }
            self._errors = RECONCILE_ERRORS.labels(self.name)
            self._took = RECONCILE_TIME.labels(self.name)
            MAX_CONCURRENT_RECONCILES.labels(self.name).set(workers)
            scrape_gauge(ACTIVE_WORKERS, (self.name,), lambda: self._active)

    def __repr__(self) -> str:
        where = self.namespace if self.namespace is not None else "every namespace"
        return (
            f"Controller({self.name!r}, namespace={where!r}, workers={self.workers},"
            f" running={self._running})"
        )

    @property
    def cache(self) -> Cache | None:
        """The cache the controller reads (its own only while ``run()`` runs)."""
        return self._cache

    @property
    def queue(self) -> WorkQueue[str] | None:
        """The work queue while the controller reconciles (leads), else ``None``."""
        return self._queue

    async def run(self) -> None:
        """Watch and reconcile until cancelled.

        Waits until the cache has listed the kind (``CacheSyncError`` after
        ``sync_timeout`` seconds, naming the kind and the server's answer), then queues every
        cached object and reconciles. ``LeaseUnavailableError`` when ``leader_election`` cannot
        use its Lease. One ``run()`` at a time.
        """
        if self._running:
            raise RuntimeError(f"{self!r} is already running: one run() at a time")
        self._running = True
        cache = self._given_cache
        try:
            if cache is None:
                cache = Cache(self.api_client, namespace=self.namespace, kinds=(self.kind,))
                await cache.start()
            self._cache = cache
            try:
                await self._watch(cache)
            finally:
                if self._given_cache is None:
                    await cache.stop()
        finally:
            self._cache = self._given_cache
            self._running = False

    async def _watch(self, cache: Cache) -> None:
        handler = cache.add_handler(
            self.kind, on_add=self._changed, on_update=self._updated, on_delete=self._changed
        )
        try:
            await cache.synced(self.kind, timeout=self.sync_timeout)
            if self.leader_election is None:
                await self._lead()
                return
            while True:
                try:
                    await self.leader_election.run(self._lead)
                except LostLeadershipError:
                    _log.warning("controller %s lost the lead: standing again", self.name)
        finally:
            await cache.remove_handler(self.kind, handler)

    # -- the queue's sources --------------------------------------------------------------------

    def _changed(self, obj: Mapping[str, Any]) -> None:
        self._enqueue(obj)

    def _updated(self, old: Mapping[str, Any], new: Mapping[str, Any]) -> None:
        self._enqueue(new)

    def _enqueue(self, obj: Mapping[str, Any]) -> None:
        queue = self._queue
        if queue is None:  # not leading: every key is queued when the lead is taken
            return
        meta = obj.get("metadata") or {}
        namespace = str(meta.get("namespace") or "")
        if self.namespace is not None and namespace != self.namespace:
            return
        queue.add(f"{namespace}/{meta.get('name') or ''}")

    async def _enqueue_all(self) -> None:
        assert self._cache is not None
        try:
            found = await self._cache.list(self.kind, self.namespace)
        except CacheSyncError as exc:  # not followed now: the handlers queue what changes
            _log.warning("controller %s: could not queue every object: %s", self.name, exc)
            return
        for obj in found:
            self._enqueue(obj)

    async def _resync(self) -> None:
        assert self.resync_period is not None
        while True:
            await asyncio.sleep(self.resync_period)
            await self._enqueue_all()

    # -- the workers ----------------------------------------------------------------------------

    async def _lead(self) -> None:
        """Reconcile until cancelled: a queue of every cached key, fed by the handlers."""
        queue: WorkQueue[str] = WorkQueue(
            rate_limiter=self._rate_limiter, name=self.name if self.metrics else ""
        )
        self._queue = queue
        await self._enqueue_all()
        loop = asyncio.get_running_loop()
        workers = [loop.create_task(self._work(queue)) for _ in range(self.workers)]
        resync = loop.create_task(self._resync()) if self.resync_period is not None else None
        try:
            await asyncio.wait(workers)  # they end only once the queue is shut down
        finally:
            self._queue = None
            if resync is not None:
                resync.cancel()
                with suppress(asyncio.CancelledError):
                    await resync
            queue.shut_down()
            await self._drain(workers)

    async def _drain(self, workers: list[asyncio.Task[None]]) -> None:
        """Let in-flight reconciles finish, at most ``drain_timeout`` seconds; cancel the rest
        (at once if the drain itself is cancelled)."""
        try:
            _, late = await asyncio.wait(workers, timeout=self.drain_timeout)
        except asyncio.CancelledError:
            for task in workers:
                task.cancel()
            raise
        for task in late:
            task.cancel()
        if late:
            _log.warning(
                "controller %s: %d reconcile(s) still running after %gs were cancelled",
                self.name,
                len(late),
                self.drain_timeout,
            )
            await asyncio.wait(late)

    async def _work(self, queue: WorkQueue[str]) -> None:
        while True:
            try:
                key = await queue.get()
            except WorkQueueShutDown:
                return
            try:
                if not queue.shutting_down:  # stopping: queued keys wait for the next run
                    await self._process(queue, key)
            finally:
                queue.done(key)

    async def _process(self, queue: WorkQueue[str], key: str) -> None:
        assert self._cache is not None
        namespace, _, name = key.partition("/")
        try:
            obj = await self._cache.get(self.kind, namespace, name)
        except CacheSyncError as exc:  # the kind is not followed: retried with backoff
            queue.add_rate_limited(key)
            self._failed(key, exc, queue.num_requeues(key))
            return
        if obj is None:  # gone: nothing to reconcile, and nothing to retry
            queue.forget(key)
            self._failing.pop(key, None)
            return
        self._active += 1
        started = time.perf_counter()
        try:
            outcome = await self._reconcile(obj)
        except Exception as exc:  # retried with the key's backoff; other keys go on
            self._count("error", started)
            queue.add_rate_limited(key)
            self._failed(key, exc, queue.num_requeues(key))
            return
        finally:
            self._active -= 1
        retries = queue.num_requeues(key)
        if isinstance(outcome, Result) and outcome.requeue_after > 0:
            self._count("requeue_after", started)
            queue.forget(key)
            queue.add_after(key, outcome.requeue_after)
        elif isinstance(outcome, Result) and outcome.requeue:
            self._count("requeue", started)
            queue.add_rate_limited(key)
        else:
            self._count("success", started)
            queue.forget(key)
        if self._failing.pop(key, None) is not None:
            _log.info(
                "controller %s: %s reconciled after %d retr%s",
                self.name,
                key,
                retries,
                "y" if retries == 1 else "ies",
            )

    def _count(self, result: str, started: float) -> None:
        """controller-runtime's metrics of one reconcile that ended with ``result``."""
        if self.metrics:
            self._took.observe(time.perf_counter() - started)
            self._outcomes[result].inc()
            if result == "error":
                self._errors.inc()

    def _failed(self, key: str, exc: Exception, retries: int) -> None:
        said = f"{type(exc).__name__}: {exc}"
        if self._failing.get(key) == said:
            _log.debug(
                "controller %s: %s failed again (retry %d): %s", self.name, key, retries, said
            )
            return
        self._failing[key] = said
        _log.error(
            "controller %s: reconciling %s failed, retrying with backoff: %s",
            self.name,
            key,
            said,
            exc_info=exc,
        )
