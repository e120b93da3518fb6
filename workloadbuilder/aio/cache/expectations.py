"""What this process wrote that the cache has not observed yet, per object.

As the Job controller's ``ControllerExpectations``: a sync that reads a cache must not act on
a view older than its own writes. Here the expectation carries the object itself (the create's
answer, or a live read after ``AlreadyExists``), so a read through the cache sees it at once;
an expected deletion hides the object. Each is dropped when the informer observes that version
(or a later one) of the object, or its deletion, and after ``ttl`` seconds in any case (the
Job controller's expectations time out after five minutes too).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from .indexer import Key, key_of, resource_version

__all__ = ["Expectations"]

EXPECTATIONS_TTL = 300.0


def _newer_or_same(seen: str, expected: str) -> bool:
    """Whether version ``seen`` is ``expected`` or later (numbers compared as numbers, as
    every kube-apiserver's are; anything else only when equal)."""
    if seen == expected:
        return True
    return seen.isdigit() and expected.isdigit() and int(seen) > int(expected)


@dataclass
class _Pending:
    doc: dict[str, Any] | None  # None: expected to be deleted
    version: str
    deadline: float


class Expectations:
    """Objects written (or read live) by this process, until the cache catches up."""

    def __init__(self, ttl: float = EXPECTATIONS_TTL) -> None:
        self.ttl = ttl
        self._pending: dict[tuple[str, Key], _Pending] = {}

    def __len__(self) -> int:
        return len(self._pending)

    def wrote(self, kind: str, doc: Mapping[str, Any]) -> None:
        """``doc`` is the object as the server holds it now (a create's answer, a live read)."""
        found = dict(doc)
        self._pending[(kind, key_of(found))] = _Pending(
            found, resource_version(found), time.monotonic() + self.ttl
        )

    def deleted(self, kind: str, key: Key) -> None:
        """This process deleted the object of ``key``."""
        self._pending[(kind, key)] = _Pending(None, "", time.monotonic() + self.ttl)

    def observed(self, kind: str, key: Key, doc: Mapping[str, Any] | None) -> None:
        """The informer saw ``doc`` (``None``: its deletion): drop what it satisfies."""
        if not self._pending:
            return
        pending = self._pending.get((kind, key))
        if pending is None:
            return
        if doc is None or (
            pending.doc is not None and _newer_or_same(resource_version(doc), pending.version)
        ):
            del self._pending[(kind, key)]

    def lookup(
        self, kind: str, key: Key, cached: Mapping[str, Any] | None = None
    ) -> tuple[bool, dict[str, Any] | None]:
        """``(True, doc or None)`` while an expectation about the object holds; ``(False,
        None)`` when the cache (holding ``cached`` for the key) is to be believed."""
        pending = self._pending.get((kind, key))
        if pending is None:
            return False, None
        caught_up = (
            pending.doc is not None
            and cached is not None
            and _newer_or_same(resource_version(cached), pending.version)
        )
        if caught_up or pending.deadline < time.monotonic():
            del self._pending[(kind, key)]
            return False, None
        return True, pending.doc

    def of_kind(
        self, kind: str, cached: Callable[[Key], Mapping[str, Any] | None]
    ) -> Iterator[tuple[Key, dict[str, Any] | None]]:
        """The live expectations about objects of ``kind`` (``cached(key)``: what the cache
        holds for a key)."""
        for (k, key), _ in list(self._pending.items()):
            if k == kind:
                held, doc = self.lookup(kind, key, cached(key))
                if held:
                    yield key, doc
