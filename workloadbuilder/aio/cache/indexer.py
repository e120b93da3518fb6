"""The store of one cached kind: its objects by namespace and name, and their indexes.

As client-go's ``cache.Indexer``: an index function maps an object to the values it is filed
under; ``keys_by_index(name, value)`` answers from a dict, never by walking the store. Each
built-in index is defined once, here: its name and doc in ``CacheIndex``, its function
registered under that member just below (client-go's ``tools/cache/index.go``). One
representation is kept per object: its JSON as the informer stored it (decoded once per event,
then transformed); a kind with an SDK model gives that model on each read, parsed then and not
kept (a model holds more than its JSON: keeping both would more than double the store).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator, Mapping
from enum import StrEnum
from typing import Any

from ..wire.resources import Resource, parse

__all__ = [
    "BUILTIN_INDEXES",
    "CacheIndex",
    "IndexFunc",
    "Indexer",
    "Key",
    "key_of",
    "resource_version",
]

_log = logging.getLogger("workloadbuilder.aio")

Key = tuple[str, str]
"""``(namespace, name)``; the namespace is ``""`` for a cluster-scoped object."""

IndexFunc = Callable[[Mapping[str, Any]], Iterable[str]]
"""An index function: the values an object (its JSON, read-only) is filed under (none, one or
several strings), as client-go's ``IndexFunc``."""


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


BUILTIN_INDEXES: dict[str, IndexFunc] = {}
"""The function of each ``CacheIndex``, registered with ``_files``."""


def _files(index: CacheIndex) -> Callable[[IndexFunc], IndexFunc]:
    """Register the decorated function as the one of ``index``."""

    def register(func: IndexFunc) -> IndexFunc:
        if index in BUILTIN_INDEXES:
            raise ValueError(f"index {index!r} is defined twice")
        BUILTIN_INDEXES[index] = func
        return func

    return register


def key_of(doc: Mapping[str, Any]) -> Key:
    meta = doc.get("metadata") or {}
    return str(meta.get("namespace") or ""), str(meta.get("name") or "")


def resource_version(doc: Mapping[str, Any]) -> str:
    return str((doc.get("metadata") or {}).get("resourceVersion") or "")


@_files(CacheIndex.NAMESPACE)
def _namespace(doc: Mapping[str, Any]) -> Iterable[str]:
    return [key_of(doc)[0]]


@_files(CacheIndex.CONTROLLER_UID)
def _controller_uid(doc: Mapping[str, Any]) -> Iterable[str]:
    for ref in (doc.get("metadata") or {}).get("ownerReferences") or ():
        if isinstance(ref, Mapping) and ref.get("controller") is True and ref.get("uid"):
            return [str(ref["uid"])]
    return []


@_files(CacheIndex.JOB_CONTROLLER_UID)
def _job_controller_uid(doc: Mapping[str, Any]) -> Iterable[str]:
    uid = ((doc.get("metadata") or {}).get("labels") or {}).get(
        "batch.kubernetes.io/controller-uid"
    )
    return [str(uid)] if uid else []


@_files(CacheIndex.POD_GROUP)
def _pod_group(doc: Mapping[str, Any]) -> Iterable[str]:
    group = ((doc.get("spec") or {}).get("schedulingGroup") or {}).get("podGroupName")
    return [f"{key_of(doc)[0]}/{group}"] if group else []


@_files(CacheIndex.WORKLOAD)
def _workload(doc: Mapping[str, Any]) -> Iterable[str]:
    name = ((doc.get("spec") or {}).get("workloadRef") or {}).get("workloadName")
    return [f"{key_of(doc)[0]}/{name}"] if name else []


@_files(CacheIndex.CONTROLLER_REF)
def _controller_ref(doc: Mapping[str, Any]) -> Iterable[str]:
    ref = (doc.get("spec") or {}).get("controllerRef")
    if not isinstance(ref, Mapping) or not ref.get("kind") or not ref.get("name"):
        return []
    return [f"{key_of(doc)[0]}/{ref.get('apiGroup') or ''}/{ref['kind']}/{ref['name']}"]


@_files(CacheIndex.REGARDING)
def _regarding(doc: Mapping[str, Any]) -> Iterable[str]:
    target = doc.get("involvedObject") or doc.get("regarding") or {}
    if not isinstance(target, Mapping) or not target.get("kind") or not target.get("name"):
        return []
    return [f"{key_of(doc)[0]}/{target['kind']}/{target['name']}"]


def _values(name: str, func: IndexFunc, doc: Mapping[str, Any]) -> Iterable[str]:
    """``func``'s values for ``doc``; none (logged) when the function fails on it."""
    try:
        return [str(v) for v in func(doc)]
    except Exception as exc:
        _log.warning("index %r failed on %s/%s: %r", name, *key_of(doc), exc)
        return []


if set(BUILTIN_INDEXES) != set(CacheIndex):  # pragma: no cover - a definition left out
    raise AssertionError(f"CacheIndex without a function: {set(CacheIndex) - set(BUILTIN_INDEXES)}")


class Indexer:
    """The objects of one kind by key, with their indexes."""

    def __init__(self, resource: Resource) -> None:
        self.resource = resource
        self._items: dict[Key, dict[str, Any]] = {}
        self._funcs: dict[str, IndexFunc] = dict(BUILTIN_INDEXES)
        self._indices: dict[str, dict[str, set[Key]]] = {name: {} for name in self._funcs}

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(list(self._items.values()))

    def keys(self) -> set[Key]:
        return set(self._items)

    def get(self, key: Key) -> dict[str, Any] | None:
        return self._items.get(key)

    def model(self, key: Key) -> Any:
        """The object as its SDK model (the dict for a kind without one), parsed now (not
        kept); ``None`` when absent."""
        doc = self._items.get(key)
        return None if doc is None else parse(self.resource, doc)

    def add_index(self, name: str, func: IndexFunc) -> None:
        """File every object (present and future) under ``func``'s values as index ``name``."""
        if name in self._funcs:
            raise ValueError(f"{self.resource.kind} already has an index called {name!r}")
        index: dict[str, set[Key]] = {}
        for key, doc in self._items.items():
            for value in _values(name, func, doc):
                index.setdefault(value, set()).add(key)
        self._funcs[name] = func
        self._indices[name] = index

    def has_index(self, name: str) -> bool:
        return name in self._funcs

    def keys_by_index(self, name: str, value: str) -> set[Key]:
        """The keys of the objects filed under ``value`` in index ``name``."""
        return set(self._index(name).get(value, ()))

    def values_of(self, name: str, doc: Mapping[str, Any]) -> list[str]:
        """The values index ``name`` files ``doc`` under."""
        self._index(name)
        return [str(v) for v in _values(name, self._funcs[name], doc)]

    def _index(self, name: str) -> dict[str, set[Key]]:
        index = self._indices.get(name)
        if index is None:
            raise ValueError(
                f"{self.resource.kind} has no index called {name!r}; known:"
                f" {', '.join(sorted(self._funcs))} (add one with cache.add_index)"
            )
        return index

    def put(self, doc: dict[str, Any]) -> dict[str, Any] | None:
        """Store ``doc`` (replacing the object of its key); the object it replaced."""
        key = key_of(doc)
        old = self._items.get(key)
        if old is not None:
            self._unfile(key, old)
        self._items[key] = doc
        for name, func in self._funcs.items():
            for value in _values(name, func, doc):
                self._indices[name].setdefault(value, set()).add(key)
        return old

    def remove(self, key: Key) -> dict[str, Any] | None:
        """Forget the object of ``key``; the object it held."""
        old = self._items.pop(key, None)
        if old is not None:
            self._unfile(key, old)
        return old

    def _unfile(self, key: Key, doc: Mapping[str, Any]) -> None:
        for name, func in self._funcs.items():
            index = self._indices[name]
            for value in _values(name, func, doc):
                keys = index.get(value)
                if keys is not None:
                    keys.discard(key)
                    if not keys:
                        del index[value]
