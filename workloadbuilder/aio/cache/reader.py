"""``Reader``: the one way objects are read, from the live API or from a ``Cache``.

As controller-runtime's ``client.Reader``, which its cache implements: ``get`` is ``None`` for
an object that does not exist or a kind the server does not serve; ``list`` and ``by_index``
raise the ``APIError`` 404 of a kind that is not served (the cache keeps that truth).
``LiveReader`` asks the server; ``aio.Cache`` answers from its informers. The verbs read
through ``Reads`` (``reader_for``): a ``Reader`` plus what a verb needs around its reads (SDK
models, a namespace's snapshot, telling the cache of its own writes).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

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
from .cache import Cache, Kind, resolve_kind
from .indexer import BUILTIN_INDEXES, Key, key_of
from .snapshot import Snapshot

__all__ = ["LiveReader", "Reader", "Reads", "cache_of", "reader_for"]

_Docs = list[dict[str, Any]]
_Found = list[Any]


@runtime_checkable
class Reader(Protocol):
    """Reads objects by kind (one of ``CacheKind``, or a ``CustomResource``), as their JSON.

    ``aio.Cache`` is one (``isinstance(cache, aio.Reader)``), and so is the live API; every
    helper reads through one.
    """

    async def get(self, kind: Kind, namespace: str, name: str) -> dict[str, Any] | None:
        """The object, or ``None`` when there is none (or the kind is not served)."""
        ...

    async def list(
        self, kind: Kind, namespace: str | None = None, label_selector: str | None = None
    ) -> _Docs:
        """Every object of ``kind`` (in ``namespace``; ``None``: every namespace), matching
        ``label_selector`` (a cache takes none: it answers by index)."""
        ...

    async def by_index(self, kind: Kind, index: str, value: str) -> _Docs:
        """The objects filed under ``value`` in ``index`` (a ``CacheIndex``)."""
        ...


_CACHE_IS_A_READER: type[Reader] = Cache  # checked by mypy, as controller-runtime checks its own


class LiveReader:
    """A ``Reader`` that asks the API server (each read one request, or a list in chunks)."""

    def __init__(self, transport: Transport, namespace: str | None = None) -> None:
        self.transport = transport
        self.namespace = namespace
        """Where ``by_index`` lists (``None``: every namespace)."""

    async def get(self, kind: Kind, namespace: str, name: str) -> dict[str, Any] | None:
        return await get_document(self.transport, resolve_kind(kind)[1], namespace, name)

    async def list(
        self, kind: Kind, namespace: str | None = None, label_selector: str | None = None
    ) -> _Docs:
        resource = resolve_kind(kind)[1]
        return await list_documents(
            self.transport, resource, namespace, label_selector=label_selector or ""
        )

    async def by_index(self, kind: Kind, index: str, value: str) -> _Docs:
        """Not answerable by one request: the namespace's objects (``namespace``), filtered
        here by the index's function."""
        func = BUILTIN_INDEXES.get(index)
        if func is None:
            raise ValueError(f"no index called {index!r}; known: {', '.join(BUILTIN_INDEXES)}")
        return [d for d in await self.list(kind, self.namespace) if value in func(d)]


class Reads:
    """What a verb reads, through ``reader``: the live API, or ``cache`` (then no request)."""

    def __init__(self, transport: Transport, cache: Cache | None = None) -> None:
        self.transport = transport
        self.cache = cache
        self.reader: Reader = cache if cache is not None else LiveReader(transport)

    @property
    def cached(self) -> bool:
        """Whether the reads are answered by a cache."""
        return self.cache is not None

    async def get(self, resource: Resource, namespace: str, name: str) -> dict[str, Any] | None:
        return await self.reader.get(resource.kind, namespace, name)

    async def list(self, resource: Resource, namespace: str, *, label_selector: str = "") -> _Docs:
        return await self.reader.list(resource.kind, namespace, label_selector or None)

    async def indexed(
        self, resource: Resource, namespace: str, index: str, value: str, *, models: bool = False
    ) -> _Found:
        """The objects of ``namespace`` filed under ``value`` in ``index``."""
        if self.cache is None:
            docs = await LiveReader(self.transport, namespace).by_index(resource.kind, index, value)
        else:
            self.cache.check_covers(namespace)
            docs = [
                d
                for d in await self.cache.by_index(resource.kind, index, value)
                if key_of(d)[0] == namespace
            ]
        return [self.model(resource, d) for d in docs] if models else docs

    async def snapshot(self, namespace: str) -> Snapshot:
        """The namespace's scheduling objects, each kind listed once (at the same time when
        live); a kind the server does not serve reads as empty and is named ``unserved``."""
        kinds = (PODS, POD_GROUPS, COMPOSITE_POD_GROUPS, WORKLOADS, EVENTS)
        lists = await asyncio.gather(*(self._served(k, namespace) for k in kinds))
        unserved = frozenset(k for k, items in zip(kinds, lists, strict=True) if items is None)
        pods, groups, composites, workloads, events = (items or () for items in lists)
        return Snapshot(namespace, pods, groups, composites, workloads, events, unserved)

    async def _served(self, resource: Resource, namespace: str) -> tuple[Any, ...] | None:
        try:
            return tuple(await self.reader.list(resource.kind, namespace))
        except APIError as exc:
            if exc.status == 404:
                return None
            raise

    def model(self, resource: Resource, doc: Mapping[str, Any]) -> Any:
        """``doc`` as its SDK model (parsed now: the cache keeps only the JSON)."""
        if self.cache is None:
            return parse(resource, doc)
        return self.cache.model_of(resource.kind, doc)

    def wrote(self, resource: Resource, doc: Mapping[str, Any]) -> None:
        """This verb wrote ``doc``: a cache answers with it until it observes it."""
        if self.cache is not None:
            self.cache.wrote(resource.kind, doc)

    def deleted(self, resource: Resource, key: Key) -> None:
        """This verb deleted the object of ``key``: a cache leaves it out until it observes it."""
        if self.cache is not None:
            self.cache.deleted(resource.kind, *key)


def cache_of(api_client: Any, cache: Cache | None) -> Cache | None:
    """The cache a call reads through: its own ``cache=``, else its ``aio.Client``'s."""
    if cache is not None:
        if not isinstance(cache, Cache):
            raise TypeError(f"cache must be an aio.Cache, not {type(cache).__name__}")
        return cache
    found = getattr(api_client, "cache", None)
    return found if isinstance(found, Cache) else None


def reader_for(api_client: Any, cache: Cache | None, transport: Transport) -> Reads:
    """The reads of one call: through ``cache`` (or the client's), else live."""
    return Reads(transport, cache_of(api_client, cache))
