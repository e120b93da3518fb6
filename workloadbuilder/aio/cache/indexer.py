"""The store of one cached kind: its objects by namespace and name, and their indexes.

As client-go's ``cache.Indexer``: an index function maps an object to the values it is filed
under; ``by_index(name, value)`` answers from a dict, never by walking the store. One
representation is kept per object: its JSON as the informer stored it (decoded once per event,
then transformed); a kind with an SDK model gives that model on each read, parsed then and not
kept (a model holds more than its JSON: keeping both would more than double the store).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from ..wire.resources import Resource, parse

__all__ = ["BUILTIN_INDEXES", "IndexFunc", "Indexer", "Key", "key_of", "resource_version"]

_log = logging.getLogger("workloadbuilder.aio")

Key = tuple[str, str]
"""``(namespace, name)``; the namespace is ``""`` for a cluster-scoped object."""

IndexFunc = Callable[[Mapping[str, Any]], Iterable[str]]
"""Maps an object (its JSON, read-only) to the values it is filed under (none, one or more)."""


def key_of(doc: Mapping[str, Any]) -> Key:
    meta = doc.get("metadata") or {}
    return str(meta.get("namespace") or ""), str(meta.get("name") or "")


def resource_version(doc: Mapping[str, Any]) -> str:
    return str((doc.get("metadata") or {}).get("resourceVersion") or "")


def _namespace(doc: Mapping[str, Any]) -> Iterable[str]:
    return [key_of(doc)[0]]


def _controller_uid(doc: Mapping[str, Any]) -> Iterable[str]:
    for ref in (doc.get("metadata") or {}).get("ownerReferences") or ():
        if isinstance(ref, Mapping) and ref.get("controller") is True and ref.get("uid"):
            return [str(ref["uid"])]
    return []


def _job_controller_uid(doc: Mapping[str, Any]) -> Iterable[str]:
    uid = ((doc.get("metadata") or {}).get("labels") or {}).get(
        "batch.kubernetes.io/controller-uid"
    )
    return [str(uid)] if uid else []


def _pod_group(doc: Mapping[str, Any]) -> Iterable[str]:
    group = ((doc.get("spec") or {}).get("schedulingGroup") or {}).get("podGroupName")
    return [f"{key_of(doc)[0]}/{group}"] if group else []


def _workload(doc: Mapping[str, Any]) -> Iterable[str]:
    name = ((doc.get("spec") or {}).get("workloadRef") or {}).get("workloadName")
    return [f"{key_of(doc)[0]}/{name}"] if name else []


def _controller_ref(doc: Mapping[str, Any]) -> Iterable[str]:
    ref = (doc.get("spec") or {}).get("controllerRef")
    if not isinstance(ref, Mapping) or not ref.get("kind") or not ref.get("name"):
        return []
    return [f"{key_of(doc)[0]}/{ref.get('apiGroup') or ''}/{ref['kind']}/{ref['name']}"]


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


BUILTIN_INDEXES: Mapping[str, IndexFunc] = {
    "namespace": _namespace,
    "controller-uid": _controller_uid,
    "job-controller-uid": _job_controller_uid,
    "pod-group": _pod_group,
    "workload": _workload,
    "controller-ref": _controller_ref,
    "regarding": _regarding,
}
"""The indexes every kind has (``CacheIndex`` documents their values)."""


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

    def by_index(self, name: str, value: str) -> list[dict[str, Any]]:
        """The objects filed under ``value`` in index ``name``, by namespace and name."""
        index = self._indices.get(name)
        if index is None:
            raise ValueError(
                f"{self.resource.kind} has no index called {name!r}; known:"
                f" {', '.join(sorted(self._funcs))} (add one with cache.add_index)"
            )
        return [self._items[k] for k in sorted(index.get(value, ()))]

    def keys_by_index(self, name: str, value: str) -> set[Key]:
        return set(self._indices[name].get(value, ()))

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
