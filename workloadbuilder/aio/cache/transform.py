"""What the cache does to each object before it stores it (client-go's ``SetTransform``).

By default ``metadata.managedFields`` is dropped, as kube-controller-manager's informers drop
it (the helpers never read it; a helper that needs it reads the live object), then a user's
``transform`` runs. The strings of the stored object are interned, so the keys, namespaces,
kinds, label keys and uids repeated between objects are held once. As with client-go's
``TransformFunc``, a transform may change the object in place and return it; it runs on every
object listed or watched, including the last state of a deleted one.

A transform that raises (or returns something that is not the same object's JSON) is handled
as client-go's reflector handles it: a watch event it fails on is not stored (logged at ERROR,
the watch goes on); a list it fails on is not stored at all, and is listed again after the
informer's backoff (``Cache.problems`` says why).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import Any

from .indexer import Key, key_of

__all__ = ["Transform", "TransformError", "strip_managed_fields", "transformer"]

Transform = Callable[[dict[str, Any]], Mapping[str, Any]]
"""Takes an object's JSON (its own copy: change it in place if you like) and returns what the
cache stores of it: the same object's JSON (same namespace and name)."""

_intern = sys.intern


class TransformError(Exception):
    """A transform failed on an object: ``key`` names it, the message says how."""

    def __init__(self, key: Key, message: str) -> None:
        super().__init__(message)
        self.key = key


def strip_managed_fields(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` without ``metadata.managedFields`` (kube-controller-manager's informers' trim)."""
    meta = doc.get("metadata")
    if isinstance(meta, dict):
        meta.pop("managedFields", None)
    return doc


def interned(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` rebuilt with every string in it (keys and values) interned (loops, not calls
    per value: this runs on every object the cache stores)."""
    out: dict[str, Any] = {}
    for key, value in doc.items():
        kind = type(value)
        if kind is str:
            value = _intern(value)
        elif kind is dict:
            value = interned(value)
        elif kind is list:
            value = _interned_list(value)
        out[_intern(key)] = value
    return out


def _interned_list(items: list[Any]) -> list[Any]:
    out: list[Any] = []
    for value in items:
        kind = type(value)
        if kind is str:
            value = _intern(value)
        elif kind is dict:
            value = interned(value)
        elif kind is list:
            value = _interned_list(value)
        out.append(value)
    return out


def transformer(
    user: Transform | None, *, keep_managed_fields: bool = False
) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The function a cache applies to each object: the default trim, then ``user``'s; it
    raises ``TransformError`` naming the object when ``user`` fails on it."""

    def apply(doc: dict[str, Any]) -> dict[str, Any]:
        key = key_of(doc)
        if not keep_managed_fields:
            strip_managed_fields(doc)
        if user is not None:
            try:
                out = user(doc)
            except Exception as exc:
                raise TransformError(key, f"the transform raised {exc!r}") from exc
            if not isinstance(out, Mapping):
                raise TransformError(
                    key, f"the transform returned {type(out).__name__}, not the object's JSON"
                )
            if key_of(out) != key:
                raise TransformError(
                    key, f"the transform changed the object's namespace/name to {key_of(out)}"
                )
            doc = dict(out)
        return interned(doc)

    return apply
