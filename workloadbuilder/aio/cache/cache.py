"""``Cache``: shared informers of the kinds the helpers read, indexed, with handlers.

``async with aio.Cache(api_client, namespace="ns") as cache:`` lists each kind, then watches it
from the list's resourceVersion (client-go's reflector and shared informer); ``await
cache.synced()`` waits until every kind has listed (``WaitForCacheSync``). The cache is an
``aio.Reader`` (as controller-runtime's cache is a ``client.Reader``): ``await cache.get``,
``list``, ``by_index`` are dictionary lookups, each checked once for freshness and answered
with this process's own writes the informers have not observed yet. Give the cache to the
helpers (``cache=cache``, or ``aio.Client(api, manager, cache=cache)``) and a steady
reconcile sends no read at all.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Literal, get_args

from ..errors import APIError
from ..wire.resources import (
    COMPOSITE_POD_GROUPS,
    EVENTS,
    JOBS,
    POD_GROUPS,
    PODS,
    WORKLOADS,
    Resource,
    parse,
)
from ..wire.transport import RetryPolicy, transport_for
from .expectations import Expectations
from .indexer import CacheIndex, IndexFunc, Key, key_of
from .informer import Handler, Informer
from .transform import Transform, transformer

__all__ = [
    "AddHandler",
    "Cache",
    "CacheIndex",
    "CacheKind",
    "CacheSyncError",
    "CustomResource",
    "DeleteHandler",
    "Handler",
    "IndexFunc",
    "Transform",
    "UpdateHandler",
]

_Docs = list[dict[str, Any]]
_Found = list[Any]

CacheKind = Literal["Workload", "PodGroup", "CompositePodGroup", "Pod", "Job", "Event"]
"""The kinds a ``Cache`` holds: what the helpers read."""


@dataclass(frozen=True)
class CustomResource:
    """A namespaced kind beyond ``CacheKind`` (a custom resource), named as its
    CustomResourceDefinition names it and in ``CustomObjectsApi``'s order:
    ``CustomResource("training.example.com", "v1", "trainingruns", "TrainingRun")``. Pass it
    wherever a cache method takes a kind; its objects are kept as JSON."""

    group: str
    version: str
    plural: str
    kind: str

    @property
    def name(self) -> str:
        """``<plural>.<group>``, the CRD's name: the key of ``problems`` and ``unserved``."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    @property
    def resource(self) -> Resource:
        return Resource(self.group, self.version, self.plural, self.kind)


AnyKind = CacheKind | CustomResource
"""A kind the cache can hold: one the helpers read, or a custom resource."""

Kind = str | CustomResource
"""A kind as a read names it: one of ``CacheKind`` or a ``CustomResource`` (checked when read:
``ValueError`` for any other)."""

SYNC_TIMEOUT = 60.0
"""Seconds a read waits for a kind started on first use to list."""

RESOURCES: Mapping[str, Resource] = {
    r.kind: r for r in (WORKLOADS, POD_GROUPS, COMPOSITE_POD_GROUPS, PODS, JOBS, EVENTS)
}

AddHandler = Callable[[dict[str, Any]], Awaitable[None] | None]
"""``on_add(obj)``: an object appeared (or was already cached when the handler was added)."""
UpdateHandler = Callable[[dict[str, Any], dict[str, Any]], Awaitable[None] | None]
"""``on_update(old, new)``: an object changed (another resourceVersion)."""
DeleteHandler = Callable[[dict[str, Any]], Awaitable[None] | None]
"""``on_delete(obj)``: an object is gone (its last state the cache held)."""


class CacheSyncError(Exception):
    """A kind the cache cannot serve: it did not list in time, or its watch has not been
    followed for too long. ``kind`` names it, ``reason`` says why (the server's answer),
    ``status`` is that answer's HTTP status (0: none came)."""

    def __init__(self, message: str, *, kind: str = "", reason: str = "", status: int = 0):
        super().__init__(message)
        self.kind = kind
        self.reason = reason
        self.status = status


class Cache:
    """Informers for ``kinds`` (default: all of ``CacheKind``) in ``namespace`` (``None``:
    every namespace), of the objects matching ``label_selector``.

    Use it as ``async with Cache(api_client) as cache`` (or ``await cache.start()`` and
    ``await cache.stop()``). Objects are the server's JSON, decoded once per watch event and
    shared by every read: treat them as read-only (as client-go's listers). A kind started
    later, on first use by a helper, is listed before that helper reads it. ``watch_timeout``
    is the seconds a watch lasts at least (client-go: 5 minutes; each is 1-2 times that);
    ``max_staleness`` is how long a kind may go unfollowed (its list or watch failing) before
    its reads raise ``CacheSyncError`` rather than answer from old data.

    Each object is stored without ``metadata.managedFields`` (as kube-controller-manager's
    informers store it; ``keep_managed_fields=True`` keeps it), then passed to ``transform``
    when given (client-go's ``SetTransform``): it receives the object's JSON, may change it in
    place, and returns what to store. A transform that fails on a watched object leaves that
    event unstored (logged at ERROR); one that fails on a listed object fails the list, which
    is retried after a backoff (``problems`` says why), as client-go's reflector does.
    """

    def __init__(
        self,
        api_client: Any,
        *,
        namespace: str | None = None,
        label_selector: str | None = None,
        kinds: tuple[AnyKind, ...] | None = None,
        watch_timeout: float = 300.0,
        max_staleness: float = 30.0,
        retry: RetryPolicy | None = None,
        transform: Transform | None = None,
        keep_managed_fields: bool = False,
    ) -> None:
        self.api_client = api_client
        self.namespace = namespace
        self.label_selector = label_selector or ""
        self.watch_timeout = watch_timeout
        self.max_staleness = max_staleness
        self.expectations = Expectations()
        """What this process wrote that the informers have not observed yet."""
        self._transport = transport_for(api_client, retry)
        if transform is not None and not callable(transform):
            raise TypeError(f"transform must be a callable, not {type(transform).__name__}")
        self._transform = transformer(transform, keep_managed_fields=keep_managed_fields)
        self._kinds: tuple[AnyKind, ...] = (
            tuple(kinds) if kinds is not None else get_args(CacheKind)
        )
        for kind in self._kinds:
            resolve_kind(kind)
        self._informers: dict[str, Informer] = {}
        self._started = False

    def __repr__(self) -> str:
        where = self.namespace if self.namespace is not None else "every namespace"
        return f"Cache(namespace={where!r}, kinds={sorted(self._informers)!r})"

    async def __aenter__(self) -> Cache:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    async def start(self) -> None:
        """Start an informer for each of the cache's kinds, and for each kind a handler or an
        index was added for (each lists, then watches)."""
        self._started = True
        for kind in self._kinds:
            self.informer(kind)
        for informer in self._informers.values():
            informer.start()

    async def stop(self) -> None:
        """Stop every informer and handler (what they hold is dropped)."""
        informers, self._informers = list(self._informers.values()), {}
        self._started = False
        for informer in informers:
            await informer.stop()

    def informer(self, kind: str | CustomResource) -> Informer:
        """The informer of ``kind``, made if there is none, started if the cache is (a kind
        started on first use)."""
        key, resource = resolve_kind(kind)
        found = self._informers.get(key)
        if found is None:
            found = Informer(
                self._transport,
                resource,
                self.namespace,
                self.label_selector,
                watch_timeout=self.watch_timeout,
                observed=self.expectations.observed,
                transform=self._transform,
            )
            self._informers[key] = found
        if self._started:
            found.start()
        return found

    @property
    def started(self) -> bool:
        """Whether the cache is started (and not stopped)."""
        return self._started

    def check_started(self, kind: str) -> None:
        """``CacheSyncError`` when the cache is not started (``kind``: what was to be read)."""
        if not self._started:
            raise CacheSyncError(
                f"the cache is not started: use it as `async with aio.Cache(...)` (reading {kind})",
                kind=kind,
            )

    def check_covers(self, namespace: str) -> None:
        """``ValueError`` when the cache does not hold ``namespace``."""
        if self.namespace is not None and self.namespace != namespace:
            raise ValueError(
                f"the cache holds namespace {self.namespace!r}, not {namespace!r}:"
                " read that namespace live (no cache) or through a cache of it"
            )

    # -- sync and health ---------------------------------------------------------------------

    async def synced(self, *kinds: AnyKind, timeout: float | None = 60.0) -> None:
        """Wait until every started kind (or only ``kinds``) has listed once.

        Raises ``CacheSyncError`` after ``timeout`` seconds naming each kind that did not
        sync and why (the server's last answer: 403 Forbidden, a dropped connection, ...).
        A kind the server does not serve (404) is synced as holding nothing: see ``unserved``.
        """
        self.check_started(", ".join(resolve_kind(k)[1].kind for k in kinds) or "every kind")
        informers = [self.informer(k) for k in kinds] if kinds else list(self._informers.values())
        try:
            async with asyncio.timeout(timeout):
                for informer in informers:
                    await informer.synced.wait()
        except TimeoutError:
            late = [i for i in informers if not i.synced.is_set()]
            raise _not_synced(late, f"the cache did not sync within {timeout:g}s") from None

    @property
    def unsynced(self) -> frozenset[str]:
        """The started kinds that have not listed yet (a readiness probe's question)."""
        return frozenset(k for k, i in self._informers.items() if not i.synced.is_set())

    @property
    def healthy(self) -> bool:
        """Whether every kind has listed and is being followed (no list or watch failing)."""
        return all(i.synced.is_set() and i.problem is None for i in self._informers.values())

    @property
    def problems(self) -> dict[str, str]:
        """Why each kind not being followed is not (empty when ``healthy``)."""
        return {k: i.problem for k, i in self._informers.items() if i.problem is not None}

    @property
    def unserved(self) -> frozenset[str]:
        """The kinds the server answered 404 for (their feature gate is off): held as none."""
        return frozenset(k for k, i in self._informers.items() if i.unserved)

    def check_fresh(self, kind: Kind) -> Informer:
        """The informer of ``kind``, if its data can be believed; ``CacheSyncError`` when the
        cache is not started, the kind has not listed, or has not been followed for more than
        ``max_staleness`` seconds."""
        self.check_started(resolve_kind(kind)[1].kind)
        return self._fresh(self.informer(kind))

    def _fresh(self, informer: Informer) -> Informer:
        kind = informer.kind
        if not informer.synced.is_set():
            raise CacheSyncError(
                f"{kind} is not synced yet: await cache.synced() first"
                + (f" ({informer.problem})" if informer.problem else ""),
                kind=kind,
                reason=informer.problem or "",
                status=informer.problem_status,
            )
        since = informer.failing_since
        if since is not None:
            stale = asyncio.get_running_loop().time() - since
            if stale > self.max_staleness:
                raise CacheSyncError(
                    f"{kind} has not been followed for {stale:.0f}s ({informer.problem});"
                    " its cached objects may be stale",
                    kind=kind,
                    reason=informer.problem or "",
                    status=informer.problem_status,
                )
        return informer

    async def drained(self) -> None:
        """Return once every handler has run for every change delivered so far."""
        for informer in list(self._informers.values()):
            await informer.drained()

    # -- reads: an aio.Reader ------------------------------------------------------------------

    async def _readable(self, kind: Kind, namespace: str | None) -> Informer:
        """The informer of ``kind`` once its objects can be believed (one lookup): the cache is
        started and holds ``namespace``, the kind has listed (a kind started on first use is
        waited for, at most ``SYNC_TIMEOUT`` seconds, and at once refused when the server
        refuses its list) and has not gone unfollowed for over ``max_staleness`` seconds."""
        key, resource = resolve_kind(kind)
        self.check_started(resource.kind)
        if namespace is not None:
            self.check_covers(namespace)
        informer = self._informers.get(key) or self.informer(kind)
        if not informer.synced.is_set():
            await self._first_sync(informer)
        return self._fresh(informer)

    async def _first_sync(self, informer: Informer) -> None:
        try:
            async with asyncio.timeout(SYNC_TIMEOUT):
                while not informer.synced.is_set():
                    if informer.refused:
                        raise _not_synced([informer], f"{informer.kind} cannot be listed")
                    await informer.changed()
        except TimeoutError:
            raise _not_synced(
                [informer], f"{informer.kind} did not sync within {SYNC_TIMEOUT:g}s"
            ) from None

    def _answer(
        self, informer: Informer, keys: Iterable[Key], belongs: Callable[[Mapping[str, Any]], bool]
    ) -> _Docs:
        """The objects of ``keys``, with this process's writes the informer has not observed
        yet (those that ``belongs`` accepts added, deleted ones left out), by namespace and
        name."""
        indexer = informer.indexer
        found = {k: indexer.get(k) for k in keys}
        for key, doc in self.expectations.of_kind(informer.kind, indexer.get):
            if doc is not None and belongs(doc):
                found[key] = doc
            else:
                found.pop(key, None)
        return [doc for _, doc in sorted(found.items()) if doc is not None]

    async def get(self, kind: Kind, namespace: str, name: str) -> dict[str, Any] | None:
        """The ``kind`` ``name`` in ``namespace`` (its JSON), or ``None`` when there is none or
        the server does not serve the kind."""
        informer = await self._readable(kind, namespace)
        cached = informer.indexer.get((namespace, name))
        held, doc = self.expectations.lookup(informer.kind, (namespace, name), cached)
        return doc if held else cached

    async def get_model(self, kind: Kind, namespace: str, name: str) -> Any:
        """``get``'s object as its SDK model (``Workload``, ``PodGroup``,
        ``CompositePodGroup``; the JSON for other kinds), parsed on each call (the cache keeps
        only the JSON)."""
        doc = await self.get(kind, namespace, name)
        return None if doc is None else self.model_of(kind, doc)

    def model_of(self, kind: Kind, doc: Mapping[str, Any]) -> Any:
        """``doc`` as its SDK model, parsed now (the cache keeps only the JSON)."""
        return parse(resolve_kind(kind)[1], doc)

    async def list(
        self, kind: Kind, namespace: str | None = None, label_selector: str | None = None
    ) -> _Docs:
        """Every ``kind`` object (in ``namespace``), by namespace and name; the ``APIError``
        404 of a kind the server does not serve. A cache answers by index, not by label
        selector (``ValueError``): give the cache ``label_selector=``, or add an index."""
        if label_selector:
            raise ValueError(
                "a cached read takes an index, not a label selector: add one with"
                " cache.add_index, or give the cache label_selector="
            )
        informer = await self._readable(kind, namespace)
        self._check_served(informer, namespace)
        if namespace is None:
            return self._answer(informer, informer.indexer.keys(), lambda _: True)
        keys = informer.indexer.keys_by_index(CacheIndex.NAMESPACE, namespace)
        return self._answer(informer, keys, lambda d: key_of(d)[0] == namespace)

    def add_index(self, kind: Kind, name: str, func: IndexFunc) -> None:
        """File every ``kind`` object under ``func(obj)``'s values as index ``name`` (its
        values are strings; an object may have none or several)."""
        self.informer(kind).indexer.add_index(name, func)

    async def by_index(self, kind: Kind, index: str, value: str) -> _Docs:
        """The ``kind`` objects filed under ``value`` in ``index`` (a ``CacheIndex`` or one
        added with ``add_index``), by namespace and name; the ``APIError`` 404 of a kind the
        server does not serve."""
        informer = await self._readable(kind, None)
        self._check_served(informer, self.namespace)
        indexer = informer.indexer
        keys = indexer.keys_by_index(index, value)
        return self._answer(informer, keys, lambda d: value in indexer.values_of(index, d))

    def _check_served(self, informer: Informer, namespace: str | None) -> None:
        if informer.unserved:
            resource = informer.resource
            where = f"namespace {namespace}" if namespace is not None else "every namespace"
            raise APIError(
                f"listing {resource.plural}.{resource.api_version} in {where}: the server"
                " does not serve it (404)",
                status=404,
            )

    def wrote(self, kind: Kind, doc: Mapping[str, Any]) -> None:
        """This process wrote ``doc`` (the server's answer, or a live read of it): reads answer
        with it until the informer observes that version or a later one."""
        self.expectations.wrote(resolve_kind(kind)[1].kind, doc)

    def deleted(self, kind: Kind, namespace: str, name: str) -> None:
        """This process deleted the object: reads leave it out until the informer observes
        the deletion."""
        self.expectations.deleted(resolve_kind(kind)[1].kind, (namespace, name))

    async def changed(self, kind: Kind) -> None:
        """Return at the next change of ``kind``'s objects or of its informer's health."""
        await self.informer(kind).changed()

    def add_handler(
        self,
        kind: Kind,
        *,
        on_add: AddHandler | None = None,
        on_update: UpdateHandler | None = None,
        on_delete: DeleteHandler | None = None,
    ) -> Handler:
        """Run the callables (sync or async) on each change of ``kind``, in order, each
        handler apart from the others. Objects already cached are handed to ``on_add`` first,
        as client-go does for a handler added to a running informer. A handler that raises is
        logged and runs again on the next change. Returns the handler, for
        ``remove_handler``."""
        handler = Handler(on_add, on_update, on_delete)
        self.informer(kind).add_handler(handler)
        return handler

    async def remove_handler(self, kind: Kind, handler: Handler) -> None:
        """Stop running ``handler`` (what ``add_handler`` returned) on changes of ``kind``;
        changes it has not handled yet are dropped."""
        key, _ = resolve_kind(kind)
        informer = self._informers.get(key)
        if informer is not None:
            await informer.remove_handler(handler)


def _not_synced(late: list[Informer], what: str) -> CacheSyncError:
    """The error naming each kind of ``late`` and why it has not listed."""
    said = "; ".join(f"{i.kind}: {i.problem or 'no answer yet'}" for i in late)
    first = late[0]
    return CacheSyncError(
        f"{what}: {said}", kind=first.kind, reason=first.problem or "", status=first.problem_status
    )


def _resource(kind: str) -> Resource:
    resource = RESOURCES.get(kind)
    if resource is None:
        raise ValueError(
            f"a Cache holds no kind {kind!r}; expected one of: {', '.join(get_args(CacheKind))},"
            " or an aio.CustomResource(group, version, plural, kind)"
        )
    return resource


def resolve_kind(kind: str | CustomResource) -> tuple[str, Resource]:
    """The informer's key and the resource of ``kind``."""
    if isinstance(kind, CustomResource):
        return kind.name, kind.resource
    return kind, _resource(kind)
