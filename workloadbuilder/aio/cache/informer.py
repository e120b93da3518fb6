"""One kind's informer: list, then watch from the list's resourceVersion, into an ``Indexer``.

As client-go's reflector and shared informer: watches ask for bookmarks and end after a few
minutes (then resume from the last resourceVersion seen); a dropped connection resumes the
same way; an expired resourceVersion (410 Gone), or a stream that cannot be followed, lists
again and hands the handlers only what changed (added, updated: another resourceVersion,
deleted). A kind the server does not serve (404) holds nothing, says so (``unserved``) and is
asked again now and then. Failures wait per the reflector's ``Backoff`` (800 ms doubling to
30 s, afresh after two minutes without one) and are kept as ``problem`` with the time they
began, so a reader can refuse data that has not been followed for too long. A refusal (an
answer ``retry.retryable_status`` would not retry: 403 with the rule to add, 401, ...) is
logged at ERROR once per distinct answer; a passing failure at WARNING when it begins.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from contextlib import aclosing, suppress
from dataclasses import dataclass
from typing import Any

from ..errors import APIError, error_from_status
from ..metrics import CACHE_WATCH_RESTARTS, track_informer
from ..wire.queries import read_listing
from ..wire.resources import Resource
from ..wire.retry import Backoff, retryable_status
from ..wire.transport import Transport
from ..wire.watch import RELIST, watch_events
from .indexer import Indexer, Key, key_of, resource_version
from .transform import TransformError, transformer

__all__ = ["Handler", "Informer"]

_log = logging.getLogger("workloadbuilder.aio")

_UNSERVED_RECHECK = 30.0  # seconds between asking again for a kind answered 404
_QUICK_ENDS = 3  # watches in a row ended at once with nothing: list again (and learn why)

Callback = Callable[..., Awaitable[None] | None]


@dataclass(frozen=True)
class Handler:
    """What user code runs on a change: ``on_add(obj)``, ``on_update(old, new)``,
    ``on_delete(obj)``; each optional, sync or async."""

    on_add: Callback | None = None
    on_update: Callback | None = None
    on_delete: Callback | None = None


class _Listener:
    """One handler's queue and the task that runs it, in order, apart from the others (a slow
    handler holds back no other)."""

    def __init__(self, kind: str, handler: Handler) -> None:
        self.kind = kind
        self.handler = handler
        self.queue: asyncio.Queue[tuple[Callback, tuple[Any, ...]]] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self.task is None:
            self.task = asyncio.get_running_loop().create_task(self._run())

    def notify(self, what: str, *args: Any) -> None:
        callback = getattr(self.handler, f"on_{what}")
        if callback is not None:
            self.queue.put_nowait((callback, args))

    async def _run(self) -> None:
        while True:
            callback, args = await self.queue.get()
            try:
                outcome = callback(*args)
                if inspect.isawaitable(outcome):
                    await outcome
            except Exception:
                _log.exception("a %s handler failed (%s)", self.kind, callback)
            finally:
                self.queue.task_done()


class Informer:
    """Keeps ``indexer`` equal to the server's objects of ``resource`` (in ``namespace``, or
    every namespace for ``None``, matching ``label_selector``)."""

    def __init__(
        self,
        transport: Transport,
        resource: Resource,
        namespace: str | None,
        label_selector: str,
        *,
        watch_timeout: float,
        observed: Callable[[str, Key, Mapping[str, Any] | None], None] | None = None,
        transform: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    ) -> None:
        self.transport = transport
        self.resource = resource
        self.namespace = namespace
        self.label_selector = label_selector
        self.watch_timeout = watch_timeout
        self.indexer = Indexer(resource)
        self.synced = asyncio.Event()
        self.unserved = False
        self.problem: str | None = None
        """Why the last list or watch failed (``None`` while following)."""
        self.problem_status = 0
        self.failing_since: float | None = None
        self.relists = 0
        self.listed_at = 0.0
        """When the kind was last listed in full (``time.time()``; 0: not yet)."""
        self._restarts = CACHE_WATCH_RESTARTS.labels(resource.kind)
        self.backoff = Backoff()
        """The wait after each failed list or watch (client-go's reflector backoff)."""
        self._watch_refused = False
        self._told: set[str] = set()
        self._observed = observed
        self._transform = transform if transform is not None else transformer(None)
        self._listeners: list[_Listener] = []
        self._waiters: list[asyncio.Future[None]] = []
        self._task: asyncio.Task[None] | None = None

    @property
    def kind(self) -> str:
        return self.resource.kind

    def __len__(self) -> int:
        """The objects held."""
        return len(self.indexer)

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run())
            track_informer(self, True)
            for listener in self._listeners:
                listener.start()

    async def stop(self) -> None:
        tasks = [t for t in (self._task, *(lst.task for lst in self._listeners)) if t]
        self._task = None
        track_informer(self, False)
        for listener in self._listeners:
            listener.task = None
        for task in tasks:
            task.cancel()
        for task in tasks:
            with suppress(asyncio.CancelledError):
                await task

    async def drained(self) -> None:
        """Return once every handler has run for what was delivered so far."""
        for listener in self._listeners:
            await listener.queue.join()

    async def changed(self) -> None:
        """Return at the next change of the store, or of the informer's health."""
        waiter = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        finally:
            with suppress(ValueError):
                self._waiters.remove(waiter)

    def _wake(self) -> None:
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    def add_handler(self, handler: Handler) -> None:
        """Run ``handler`` on every change from now on, after a synthetic add of each object
        already held (as client-go does for a handler added to a running informer)."""
        listener = _Listener(self.kind, handler)
        for doc in self.indexer:
            listener.notify("add", doc)
        self._listeners.append(listener)
        if self._task is not None:
            listener.start()

    async def remove_handler(self, handler: Handler) -> None:
        """Stop running ``handler``; what it has not handled yet is dropped."""
        for listener in [lst for lst in self._listeners if lst.handler is handler]:
            self._listeners.remove(listener)
            if listener.task is not None:
                listener.task.cancel()
                with suppress(asyncio.CancelledError):
                    await listener.task

    # -- the loop ------------------------------------------------------------------------------

    @property
    def refused(self) -> bool:
        """Whether the kind has not listed and the server refuses its list (an answer that
        is not retried: 403, 401, ...): a read waiting for it would wait in vain."""
        status = self.problem_status
        return not self.synced.is_set() and status != 0 and not retryable_status(status)

    async def _run(self) -> None:
        while True:
            try:
                listing = await read_listing(
                    self.transport,
                    self.resource,
                    self.namespace,
                    label_selector=self.label_selector,
                )
            except APIError as exc:
                if exc.status == 404:
                    self._serve_nothing()
                    await asyncio.sleep(_UNSERVED_RECHECK)
                    continue
                said = f"HTTP {exc.status} {exc.reason}".strip() if exc.status else "no answer"
                self._fail(f"listing {self.resource.plural} failed ({said}): {exc}", exc.status)
                await self.backoff.wait()
                continue
            self.unserved = False
            try:
                items = [self._stored(doc) for doc in listing.items]
            except TransformError as exc:  # client-go: "unable to sync list result"
                self._fail(f"listing {self.resource.plural}: {self._refused(exc)}", 0)
                await self.backoff.wait()
                continue
            version = listing.resource_version
            del listing  # the decoded answer: not held while following
            self.listed_at = time.time()
            self._replace(items)
            del items
            if not self._watch_refused:  # else followed only once a watch is
                self._ok()
            self.synced.set()
            self._wake()
            await self._follow(version)
            self._restarts.inc()  # the watch ended: a new list, then a new watch
            self.relists += 1

    async def _follow(self, version: str) -> None:
        """Watch from ``version``, resuming after each end, until a list is needed again."""
        quick_ends = 0
        loop = asyncio.get_running_loop()
        resumed = False
        while True:
            if resumed:  # the last watch ended: this one resumes from its resourceVersion
                self._restarts.inc()
            resumed = True
            started = loop.time()
            timeout = round(self.watch_timeout * (1 + random.random()))
            seen = False
            refused = 0
            events = watch_events(
                self.transport,
                self.resource,
                self.namespace,
                resource_version=version,
                timeout_seconds=max(1, timeout),
                label_selector=self.label_selector or None,
                opened=self._accepted,
            )
            async with aclosing(events) as stream:
                async for event in stream:
                    obj = event.object
                    if event.type == RELIST:
                        return
                    if event.type == "ERROR":
                        code = int(obj.get("code") or 0)
                        if code == 410:  # expired: list again, at once
                            return
                        error = error_from_status(code, obj, "", None)
                        self._fail(
                            f"watching {self.resource.plural} refused (HTTP {code}): {error}",
                            code,
                            watching=True,
                        )
                        refused = code
                        break
                    seen = True
                    version = resource_version(obj) or version
                    self._ok()
                    if event.type != "BOOKMARK":
                        self._watched(event.type, obj)
            if refused:
                await self.backoff.wait()
                if retryable_status(refused):
                    continue  # resume the watch
                return  # 403 and the like: list again, as the reflector does
            if seen:
                quick_ends = 0
                continue
            if loop.time() - started < 1.0:
                self._fail(f"the watch of {self.resource.plural} ended at once, empty", 0)
                quick_ends += 1
                if quick_ends >= _QUICK_ENDS:
                    return  # the watch cannot be opened: a list says why
            await self.backoff.wait()

    # -- changes -------------------------------------------------------------------------------

    def _stored(self, doc: dict[str, Any]) -> dict[str, Any]:
        """What the store keeps of ``doc`` (decoded for the informer alone: changed in place):
        the transform's result (``TransformError``)."""
        doc.setdefault("apiVersion", self.resource.api_version)
        doc.setdefault("kind", self.resource.kind)
        return self._transform(doc)

    def _refused(self, exc: TransformError) -> str:
        namespace, name = exc.key
        where = f"{namespace}/{name}" if namespace else name
        return f"{exc} on {self.kind} {where}: not stored"

    def _watched(self, type_: str, obj: dict[str, Any]) -> None:
        """Store what a watch event says; an object the transform fails on is not stored
        (as client-go's reflector: logged, and the watch goes on)."""
        try:
            doc = self._stored(obj)
        except TransformError as exc:
            version = resource_version(obj)
            _log.error(
                "%s informer: %s (%s event, resourceVersion %s)",
                self.kind,
                self._refused(exc),
                type_,
                version or "none",
            )
            return
        self._apply(type_, doc)

    def _apply(self, type_: str, doc: dict[str, Any]) -> None:
        if type_ == "DELETED":
            old = self.indexer.remove(key_of(doc))
            self._notify("delete", old if old is not None else doc)
            self._seen("DELETED", doc)
            return
        old = self.indexer.put(doc)
        if old is None:
            self._notify("add", doc)
        elif resource_version(old) != resource_version(doc):
            self._notify("update", old, doc)
        self._seen(type_, doc)

    def _replace(self, items: list[dict[str, Any]]) -> None:
        """Make the store what a list returned, telling the handlers only what changed."""
        listed = set()
        for doc in items:
            listed.add(key_of(doc))
            self._apply("MODIFIED", doc)
        for key in self.indexer.keys() - listed:
            old = self.indexer.remove(key)
            if old is not None:
                self._notify("delete", old)
                self._seen("DELETED", old)

    def _serve_nothing(self) -> None:
        if not self.unserved:
            _log.info("%s is not served by the cluster (404): cached as none", self.kind)
        self.unserved = True
        self._wake()
        self._replace([])
        self._ok()
        self.synced.set()

    def _notify(self, what: str, *args: Any) -> None:
        self._wake()
        for listener in self._listeners:
            listener.notify(what, *args)

    def _seen(self, type_: str, doc: Mapping[str, Any]) -> None:
        if self._observed is not None:
            self._observed(self.kind, key_of(doc), None if type_ == "DELETED" else doc)

    def _ok(self) -> None:
        if self.problem is not None:
            _log.info("%s informer is following the server again", self.kind)
            self._wake()
        self.problem, self.problem_status, self.failing_since = None, 0, None
        self._watch_refused = False
        self._told.clear()

    def _accepted(self) -> None:
        """The server accepted a watch: a refused one is followed again."""
        if self._watch_refused:
            self._ok()

    def _fail(self, problem: str, status: int, *, watching: bool = False) -> None:
        """Keep ``problem`` (the answer's ``status``; 0: none came) and say it: a refusal at
        ERROR once per distinct answer, a passing failure at WARNING when failing begins."""
        refusal = status != 0 and not retryable_status(status)
        if refusal and problem not in self._told:
            self._told.add(problem)
            _log.error("%s informer: %s", self.kind, problem)
        elif not refusal and self.failing_since is None:
            _log.warning("%s informer: %s", self.kind, problem)
        else:
            _log.debug("%s informer: %s", self.kind, problem)
        if self.failing_since is None:
            self.failing_since = asyncio.get_running_loop().time()
        self._watch_refused = watching and refusal
        self.problem, self.problem_status = problem, status
        self._wake()
