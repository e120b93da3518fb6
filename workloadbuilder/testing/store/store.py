"""Object storage with a global resourceVersion, a bounded event history, watchers and
indexes (as client-go's indexers: a function of an object to the keys it is found under)."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from workloadbuilder.testing.apply.managed import Entries
from workloadbuilder.testing.common import errors

GroupResource = tuple[str, str]  # (group, plural): storage is shared by every version
Name = tuple[str, str]  # (namespace, name); namespace "" for cluster-scoped objects
Key = tuple[GroupResource, Name]
IndexFunc = Callable[[GroupResource, dict[str, Any]], Iterable[Hashable]]
"""The keys an object is found under in an index (none: not in it)."""


@dataclass(frozen=True)
class Stored:
    """A persisted object (never mutated; writes replace it) and its field ownership."""

    obj: dict[str, Any]
    entries: Entries


@dataclass(frozen=True)
class Event:
    """A watch event as recorded in the history; ``prev`` is the state a MODIFIED replaced."""

    rv: int
    type: str
    resource: GroupResource
    obj: dict[str, Any]
    prev: dict[str, Any] | None = None


@dataclass(eq=False)
class Watcher:
    """A subscriber to the events of one resource (optionally one namespace and selectors)."""

    resource: GroupResource
    namespace: str | None
    accepts: Callable[[dict[str, Any]], bool]
    queue: asyncio.Queue[Event | None] = field(default_factory=asyncio.Queue)

    def view(self, event: Event) -> Event | None:
        """``event`` as this watch sees it, or ``None``.

        As on a real server, an object that starts matching the selectors arrives as ADDED
        and one that stops matching as DELETED.
        """
        if event.resource != self.resource:
            return None
        if self.namespace is not None and event.obj["metadata"].get("namespace") != self.namespace:
            return None
        now = self.accepts(event.obj)
        before = event.prev is not None and self.accepts(event.prev)
        if event.type != "MODIFIED" or now == before:
            return event if now else None
        return replace(event, type="ADDED" if now else "DELETED")


class Store:
    """Objects by group/resource and namespace/name; every write gets the next resourceVersion."""

    def __init__(self, history: int) -> None:
        if history < 1:
            raise ValueError(f"event_history must be at least 1, got {history}")
        self.rv = 0
        # group/resource -> namespace -> name: a namespace's objects are found without a scan.
        self._objects: dict[GroupResource, dict[str, dict[str, Stored]]] = {}
        # The names of the objects being deleted, so that finishing deletions after every
        # write does not scan every object.
        self._terminating: dict[GroupResource, set[Name]] = {}
        self._index_funcs: dict[str, IndexFunc] = {}
        self._indexes: dict[str, dict[Hashable, set[Key]]] = {}
        self._events: deque[Event] = deque(maxlen=history)
        self._compacted = 0
        self._watchers: set[Watcher] = set()

    def next_rv(self) -> int:
        """Reserve the next resourceVersion."""
        self.rv += 1
        return self.rv

    def get(self, resource: GroupResource, name: Name) -> Stored | None:
        """The stored object, or ``None``."""
        return self._objects.get(resource, {}).get(name[0], {}).get(name[1])

    def select(self, resource: GroupResource, namespace: str | None) -> list[Stored]:
        """Objects of ``resource`` (in ``namespace`` unless ``None``), by namespace and name."""
        spaces = self._objects.get(resource, {})
        if namespace is not None:
            items = spaces.get(namespace, {})
            return [items[k] for k in sorted(items)]
        return [spaces[ns][k] for ns in sorted(spaces) for k in sorted(spaces[ns])]

    def has_objects(self, resource: GroupResource, namespace: str) -> bool:
        """Whether any object of ``resource`` is stored in ``namespace``."""
        return bool(self._objects.get(resource, {}).get(namespace))

    def terminating(self, resource: GroupResource) -> list[Stored]:
        """Objects of ``resource`` with a ``deletionTimestamp``, by namespace and name."""
        names = self._terminating.get(resource)
        if not names:
            return []
        spaces = self._objects[resource]
        return [spaces[ns][name] for ns, name in sorted(names)]

    def resources(self) -> list[GroupResource]:
        """Every group/resource with stored objects."""
        return [r for r, spaces in self._objects.items() if any(spaces.values())]

    def add_index(self, name: str, func: IndexFunc) -> None:
        """Keep index ``name``: every stored object under the keys ``func`` gives it."""
        self._index_funcs[name] = func
        index: dict[Hashable, set[Key]] = {}
        for resource, spaces in self._objects.items():
            for namespace, items in spaces.items():
                for item, stored in items.items():
                    for key in func(resource, stored.obj):
                        index.setdefault(key, set()).add((resource, (namespace, item)))
        self._indexes[name] = index

    def indexed(self, name: str, key: Hashable) -> list[tuple[GroupResource, Stored]]:
        """The objects index ``name`` holds under ``key``: by resource (in the order they were
        first stored), then namespace and name."""
        order = {r: i for i, r in enumerate(self._objects)}
        found = sorted(self._indexes[name].get(key, ()), key=lambda k: (order[k[0]], k[1]))
        return [(r, self._objects[r][n[0]][n[1]]) for r, n in found]

    def _reindex(self, key: Key, old: dict[str, Any] | None, new: dict[str, Any] | None) -> None:
        for name, func in self._index_funcs.items():
            index = self._indexes[name]
            before = set(func(key[0], old)) if old is not None else set()
            after = set(func(key[0], new)) if new is not None else set()
            for gone in before - after:
                keys = index.get(gone)
                if keys is not None:
                    keys.discard(key)
                    if not keys:
                        del index[gone]
            for added in after - before:
                index.setdefault(added, set()).add(key)

    def put(self, resource: GroupResource, name: Name, stored: Stored) -> None:
        """Persist ``stored`` and emit ADDED (a new object) or MODIFIED."""
        items = self._objects.setdefault(resource, {}).setdefault(name[0], {})
        prev = items.get(name[1])
        items[name[1]] = stored
        self._reindex((resource, name), prev.obj if prev else None, stored.obj)
        if stored.obj["metadata"].get("deletionTimestamp"):
            self._terminating.setdefault(resource, set()).add(name)
        elif prev is not None:
            self._terminating.get(resource, set()).discard(name)
        rv = int(stored.obj["metadata"]["resourceVersion"])
        if prev is None:
            self._emit(Event(rv, "ADDED", resource, stored.obj))
        else:
            self._emit(Event(rv, "MODIFIED", resource, stored.obj, prev.obj))

    def remove(self, resource: GroupResource, name: Name, final: dict[str, Any]) -> None:
        """Delete the object; ``final`` (carrying the deletion's resourceVersion) is the event."""
        spaces = self._objects.get(resource, {})
        items = spaces.get(name[0], {})
        prev = items.pop(name[1], None)
        if not items:
            spaces.pop(name[0], None)
        if prev is not None:
            self._reindex((resource, name), prev.obj, None)
        self._terminating.get(resource, set()).discard(name)
        self._emit(Event(int(final["metadata"]["resourceVersion"]), "DELETED", resource, final))

    def _emit(self, event: Event) -> None:
        if len(self._events) == self._events.maxlen:
            self._compacted = self._events[0].rv
        self._events.append(event)
        for watcher in self._watchers:
            seen = watcher.view(event)
            if seen is not None:
                watcher.queue.put_nowait(seen)

    def subscribe(self, watcher: Watcher, since: int | None) -> list[Event]:
        """Register ``watcher``; the retained events after ``since`` it must replay first.

        Raises a 410 ``Expired`` error when ``since`` is older than the retained history.
        """
        backlog: list[Event] = []
        if since is not None:
            if since < self._compacted:
                raise errors.expired(since, self._compacted + 1)
            views = (watcher.view(e) for e in self._events if e.rv > since)
            backlog = [e for e in views if e is not None]
        self._watchers.add(watcher)
        return backlog

    def unsubscribe(self, watcher: Watcher) -> None:
        """Stop delivering events to ``watcher``."""
        self._watchers.discard(watcher)

    @property
    def watcher_count(self) -> int:
        """How many watches are open."""
        return len(self._watchers)

    def close_watchers(self) -> None:
        """End every watch (each receives ``None``)."""
        for watcher in self._watchers:
            watcher.queue.put_nowait(None)
