"""Object storage with a global resourceVersion, a bounded event history and watchers."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from workloadbuilder.testing.apply.managed import Entries
from workloadbuilder.testing.common import errors

GroupResource = tuple[str, str]  # (group, plural): storage is shared by every version
Name = tuple[str, str]  # (namespace, name); namespace "" for cluster-scoped objects


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
        self._objects: dict[GroupResource, dict[Name, Stored]] = {}
        # The names of the objects being deleted, so that finishing deletions after every
        # write does not scan every object.
        self._terminating: dict[GroupResource, set[Name]] = {}
        self._events: deque[Event] = deque(maxlen=history)
        self._compacted = 0
        self._watchers: set[Watcher] = set()

    def next_rv(self) -> int:
        """Reserve the next resourceVersion."""
        self.rv += 1
        return self.rv

    def get(self, resource: GroupResource, name: Name) -> Stored | None:
        """The stored object, or ``None``."""
        return self._objects.get(resource, {}).get(name)

    def select(self, resource: GroupResource, namespace: str | None) -> list[Stored]:
        """Objects of ``resource`` (in ``namespace`` unless ``None``), by namespace and name."""
        items = self._objects.get(resource, {})
        return [items[k] for k in sorted(items) if namespace is None or k[0] == namespace]

    def terminating(self, resource: GroupResource) -> list[Stored]:
        """Objects of ``resource`` with a ``deletionTimestamp``, by namespace and name."""
        names = self._terminating.get(resource)
        if not names:
            return []
        items = self._objects[resource]
        return [items[k] for k in sorted(names)]

    def resources(self) -> list[GroupResource]:
        """Every group/resource with stored objects."""
        return list(self._objects)

    def put(self, resource: GroupResource, name: Name, stored: Stored) -> None:
        """Persist ``stored`` and emit ADDED (a new object) or MODIFIED."""
        objects = self._objects.setdefault(resource, {})
        prev = objects.get(name)
        objects[name] = stored
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
        self._objects.get(resource, {}).pop(name, None)
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
