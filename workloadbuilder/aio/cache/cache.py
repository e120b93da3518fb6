"""``Cache``: shared informers of the kinds the helpers read, indexed, with handlers.

``async with aio.Cache(api_client, namespace="ns") as cache:`` lists each kind, then watches it
from the list's resourceVersion (client-go's reflector and shared informer); ``await
cache.synced()`` waits until every kind has listed (``WaitForCacheSync``). Reads are
dictionary lookups: ``get``, ``list``, ``by_index``. Give the cache to the helpers
(``cache=cache``, or ``aio.Client(api, manager, cache=cache)``) and a steady reconcile sends no
read at all.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import TracebackType
from typing import Any, Literal, get_args

from ..wire.resources import (
    COMPOSITE_POD_GROUPS,
    EVENTS,
    JOBS,
    POD_GROUPS,
    PODS,
    WORKLOADS,
    Resource,
)
from ..wire.transport import RetryPolicy, transport_for
from .expectations import Expectations
from .indexer import Indexer
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

RESOURCES: Mapping[str, Resource] = {
    r.kind: r for r in (WORKLOADS, POD_GROUPS, COMPOSITE_POD_GROUPS, PODS, JOBS, EVENTS)
}

IndexFunc = Callable[[Mapping[str, Any]], Iterable[str]]
"""An index function: the values an object (its JSON, read-only) is filed under (none, one or
several strings), as client-go's ``IndexFunc``."""

AddHandler = Callable[[dict[str, Any]], Awaitable[None] | None]
"""``on_add(obj)``: an object appeared (or was already cached when the handler was added)."""
UpdateHandler = Callable[[dict[str, Any], dict[str, Any]], Awaitable[None] | None]
"""``on_update(old, new)``: an object changed (another resourceVersion)."""
DeleteHandler = Callable[[dict[str, Any]], Awaitable[None] | None]
"""``on_delete(obj)``: an object is gone (its last state the cache held)."""


class CacheIndex(StrEnum):
    """The indexes every cached kind has, and the values objects are filed under."""

    NAMESPACE = "namespace"
    """``metadata.namespace``."""
    CONTROLLER_UID = "controller-uid"
    """The uid of the owner reference with ``controller: true``."""
    JOB_CONTROLLER_UID = "job-controller-uid"
    """The ``batch.kubernetes.io/controller-uid`` label (a Job's pods)."""
    POD_GROUP = "pod-group"
    """``<namespace>/<spec.schedulingGroup.podGroupName>`` (a pod's group)."""
    WORKLOAD = "workload"
    """``<namespace>/<spec.workloadRef.workloadName>`` (a group's Workload)."""
    CONTROLLER_REF = "controller-ref"
    """``<namespace>/<apiGroup>/<kind>/<name>`` of a Workload's ``spec.controllerRef``."""
    REGARDING = "regarding"
    """``<namespace>/<kind>/<name>`` of the object an Event is about."""


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
    reads through the helpers raise ``CacheSyncError`` rather than answer from old data.

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
            said = "; ".join(f"{i.kind}: {i.problem or 'no answer yet'}" for i in late)
            first = late[0]
            raise CacheSyncError(
                f"the cache did not sync within {timeout:g}s: {said}",
                kind=first.kind,
                reason=first.problem or "",
                status=first.problem_status,
            ) from None

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

    def check_fresh(self, kind: str) -> Informer:
        """The informer of ``kind``, if its data can be believed; ``CacheSyncError`` when the
        cache is not started, the kind has not listed, or has not been followed for more than
        ``max_staleness`` seconds."""
        self.check_started(kind)
        informer = self.informer(kind)
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

    # -- reads ---------------------------------------------------------------------------------

    def _indexer(self, kind: str | CustomResource) -> Indexer:
        key, resource = resolve_kind(kind)
        informer = self._informers.get(key)
        if informer is None:
            raise ValueError(
                f"the cache holds no {resource.kind}: pass it in kinds=, or start it first"
            )
        return informer.indexer

    def get(self, kind: AnyKind, namespace: str, name: str) -> dict[str, Any] | None:
        """The cached ``kind`` ``name`` in ``namespace`` (its JSON), or ``None``."""
        return self._indexer(kind).get((namespace, name))

    def get_model(self, kind: AnyKind, namespace: str, name: str) -> Any:
        """The cached object as its SDK model (``Workload``, ``PodGroup``,
        ``CompositePodGroup``; the JSON for other kinds), parsed on each call (the cache keeps
        only the JSON)."""
        return self._indexer(kind).model((namespace, name))

    def list(self, kind: AnyKind, namespace: str | None = None) -> _Docs:
        """Every cached ``kind`` (in ``namespace``), by namespace and name."""
        indexer = self._indexer(kind)
        if namespace is None:
            return sorted(indexer, key=lambda d: (d["metadata"].get("namespace") or "", _name(d)))
        return indexer.by_index(CacheIndex.NAMESPACE, namespace)

    def add_index(self, kind: AnyKind, name: str, func: IndexFunc) -> None:
        """File every ``kind`` object under ``func(obj)``'s values as index ``name`` (its
        values are strings; an object may have none or several)."""
        self.informer(kind).indexer.add_index(name, func)

    def by_index(self, kind: AnyKind, name: str, value: str) -> _Docs:
        """The ``kind`` objects filed under ``value`` in index ``name`` (a ``CacheIndex`` or
        one added with ``add_index``), by namespace and name."""
        return self._indexer(kind).by_index(name, value)

    def add_handler(
        self,
        kind: AnyKind,
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

    async def remove_handler(self, kind: AnyKind, handler: Handler) -> None:
        """Stop running ``handler`` (what ``add_handler`` returned) on changes of ``kind``;
        changes it has not handled yet are dropped."""
        key, _ = resolve_kind(kind)
        informer = self._informers.get(key)
        if informer is not None:
            await informer.remove_handler(handler)


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


def _name(doc: Mapping[str, Any]) -> str:
    return str((doc.get("metadata") or {}).get("name") or "")
