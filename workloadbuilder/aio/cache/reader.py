"""The one seam every helper reads through: the live API, or a ``Cache``.

``reader_for(api_client, cache, transport)`` gives a ``LiveReader`` (requests, as always) or a
``CachedReader`` (dictionary lookups in the cache's informers; no request). Both answer the
same way: ``get`` is ``None`` for an object that does not exist or a kind that is not served;
``list`` raises the ``APIError`` 404 of a kind that is not served (the cache keeps that truth).
Writes go through ``wrote`` / ``deleted``, so a cache that has not observed this process's own
writes yet is read with them (the Job controller's expectations).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import APIError
from ..wire.queries import get_document, list_documents
from ..wire.resources import (
    COMPOSITE_POD_GROUPS,
    EVENTS,
    POD_GROUPS,
    PODS,
    WORKLOADS,
    Resource,
    parse,
)
from ..wire.transport import Transport
from .cache import Cache, CacheIndex
from .indexer import BUILTIN_INDEXES, Key
from .snapshot import Snapshot

__all__ = ["CachedReader", "LiveReader", "Reader", "cache_of", "reader_for"]

_Docs = list[dict[str, Any]]
_Found = list[Any]

_SYNC_TIMEOUT = 60.0  # seconds a read waits for a kind the cache started on first use


class LiveReader:
    """Reads as requests to the API server."""

    cached = False

    def __init__(self, transport: Transport) -> None:
        self.transport = transport

    async def get(self, resource: Resource, namespace: str, name: str) -> dict[str, Any] | None:
        return await get_document(self.transport, resource, namespace, name)

    async def list(self, resource: Resource, namespace: str, *, label_selector: str = "") -> _Docs:
        return await list_documents(
            self.transport, resource, namespace, label_selector=label_selector
        )

    async def indexed(
        self, resource: Resource, namespace: str, index: str, value: str, *, models: bool = False
    ) -> _Found:
        """Not answerable by one request: every object of the namespace, filtered here."""
        func = _builtin(index)
        docs = [d for d in await self.list(resource, namespace) if value in func(d)]
        return [parse(resource, d) for d in docs] if models else docs

    async def snapshot(self, namespace: str) -> Snapshot:
        return await Snapshot.read(self.transport, namespace)

    def model(self, resource: Resource, doc: Mapping[str, Any]) -> Any:
        """``doc`` as its SDK model."""
        return parse(resource, doc)

    def wrote(self, resource: Resource, doc: Mapping[str, Any]) -> None:
        """Nothing to remember: the next read asks the server."""

    def deleted(self, resource: Resource, key: Key) -> None:
        """Nothing to remember: the next read asks the server."""


class CachedReader:
    """Reads from a ``Cache``: no request; this process's writes not yet observed included."""

    cached = True

    def __init__(self, transport: Transport, cache: Cache) -> None:
        self.transport = transport
        self.cache = cache

    async def _fresh(self, resource: Resource, namespace: str) -> bool:
        """Check the kind can be believed (held, listed, followed); whether it is served."""
        covers(self.cache, namespace)
        self.cache.check_started(resource.kind)
        informer = self.cache.informer(resource.kind)
        if not informer.synced.is_set():
            await self.cache.synced(resource.kind, timeout=_SYNC_TIMEOUT)  # type: ignore[arg-type]
        self.cache.check_fresh(resource.kind)
        return not informer.unserved

    async def get(self, resource: Resource, namespace: str, name: str) -> dict[str, Any] | None:
        if not await self._fresh(resource, namespace):
            return None
        cached = self.cache.informer(resource.kind).indexer.get((namespace, name))
        held, doc = self.cache.expectations.lookup(resource.kind, (namespace, name), cached)
        return doc if held else cached

    async def list(self, resource: Resource, namespace: str, *, label_selector: str = "") -> _Docs:
        if label_selector:
            raise ValueError("a cached read takes an index, not a label selector")
        return await self.indexed(resource, namespace, CacheIndex.NAMESPACE, namespace)

    async def indexed(
        self, resource: Resource, namespace: str, index: str, value: str, *, models: bool = False
    ) -> _Found:
        """The objects of ``namespace`` filed under ``value`` in ``index``."""
        if not await self._fresh(resource, namespace):
            raise _unserved(resource, namespace)
        indexer = self.cache.informer(resource.kind).indexer
        keys = {k for k in indexer.keys_by_index(index, value) if k[0] == namespace}
        extra: dict[Key, dict[str, Any]] = {}
        for key, doc in self.cache.expectations.of_kind(resource.kind, indexer.get):
            if key[0] != namespace:
                continue
            keys.discard(key)
            if doc is not None and value in _builtin(index)(doc):
                extra[key] = doc
        found: _Found = []
        for key in sorted(keys | set(extra)):
            if key in extra:
                found.append(parse(resource, extra[key]) if models else extra[key])
            else:
                found.append(indexer.model(key) if models else indexer.get(key))
        return found

    async def snapshot(self, namespace: str) -> Snapshot:
        kinds = (PODS, POD_GROUPS, COMPOSITE_POD_GROUPS, WORKLOADS, EVENTS)
        lists: list[tuple[Any, ...] | None] = []
        for resource in kinds:
            try:
                lists.append(tuple(await self.list(resource, namespace)))
            except APIError as exc:
                if exc.status != 404:
                    raise
                lists.append(None)
        unserved = frozenset(k for k, items in zip(kinds, lists, strict=True) if items is None)
        pods, groups, composites, workloads, events = (items or () for items in lists)
        return Snapshot(namespace, pods, groups, composites, workloads, events, unserved)

    def model(self, resource: Resource, doc: Mapping[str, Any]) -> Any:
        """``doc`` as its SDK model (the cache keeps only the JSON: parsed on each read)."""
        indexer = self.cache.informer(resource.kind).indexer
        key = (str(doc["metadata"].get("namespace") or ""), str(doc["metadata"].get("name")))
        if indexer.get(key) is doc:
            return indexer.model(key)
        return parse(resource, doc)

    def wrote(self, resource: Resource, doc: Mapping[str, Any]) -> None:
        self.cache.expectations.wrote(resource.kind, doc)

    def deleted(self, resource: Resource, key: Key) -> None:
        self.cache.expectations.deleted(resource.kind, key)


Reader = LiveReader | CachedReader


def cache_of(api_client: Any, cache: Cache | None) -> Cache | None:
    """The cache a call reads through: its own ``cache=``, else its ``aio.Client``'s."""
    if cache is not None:
        if not isinstance(cache, Cache):
            raise TypeError(f"cache must be an aio.Cache, not {type(cache).__name__}")
        return cache
    found = getattr(api_client, "cache", None)
    return found if isinstance(found, Cache) else None


def reader_for(api_client: Any, cache: Cache | None, transport: Transport) -> Reader:
    """The reader of one call: through ``cache`` (or the client's), else live."""
    chosen = cache_of(api_client, cache)
    return LiveReader(transport) if chosen is None else CachedReader(transport, chosen)


def covers(cache: Cache, namespace: str) -> None:
    """``ValueError`` when ``cache`` does not hold ``namespace``."""
    if cache.namespace is not None and cache.namespace != namespace:
        raise ValueError(
            f"the cache holds namespace {cache.namespace!r}, not {namespace!r}:"
            " read that namespace live (no cache) or through a cache of it"
        )


def _builtin(index: str) -> Any:
    return BUILTIN_INDEXES[index]


def _unserved(resource: Resource, namespace: str) -> APIError:
    return APIError(
        f"listing {resource.plural}.{resource.api_version} in namespace {namespace}: the server"
        " does not serve it (404)",
        status=404,
    )
