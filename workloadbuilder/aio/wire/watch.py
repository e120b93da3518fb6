"""Watch streams through the :class:`Transport`: the events after a resourceVersion.

The stream is not trusted: a line that is not JSON, an event that is not an object, one larger
than the client reads as a line, one of an unknown type, or one whose object has a field the
helpers read of the wrong JSON type (``"metadata": "pg-a"``) ends the stream with a ``RELIST``
event (an event may have been lost, so the caller reads the state again); an event about
another object than the one watched is skipped. Each is logged at WARNING.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncGenerator, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

import aiohttp
from aiohttp.http_exceptions import LineTooLong

from ..errors import ObjectRef, excerpt
from .resources import Resource
from .shapes import misshapen
from .transport import Transport, read_body

__all__ = ["RELIST", "WatchEvent", "about", "watch_events"]

_log = logging.getLogger("workloadbuilder.aio")

_SLACK = 30.0  # seconds the client waits beyond the server's timeoutSeconds
RELIST: Final = "RELIST"
"""Not a server event: the stream could not be followed; list again, then watch."""
_TYPES = frozenset(("ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"))


@dataclass(frozen=True)
class WatchEvent:
    """One watch event: ``ADDED``, ``MODIFIED``, ``DELETED``, ``BOOKMARK`` or ``ERROR``, or
    ``RELIST`` when the stream could not be followed."""

    type: str
    object: dict[str, Any]


async def watch_events(
    transport: Transport,
    resource: Resource,
    namespace: str | None,
    *,
    resource_version: str,
    timeout_seconds: int,
    field_selector: str | None = None,
    label_selector: str | None = None,
    name: str | None = None,
    opened: Callable[[], None] | None = None,
) -> AsyncGenerator[WatchEvent, None]:
    """Stream events after ``resource_version`` until the server ends the watch.

    An expired version (410) arrives as an ``ERROR`` event, as the API server sends it; an
    error answer to the request itself is turned into an ``ERROR`` event carrying its
    ``Status``. A dropped connection ends the stream early: the caller resumes or relists.
    With ``name``, events about other objects (another name, namespace or kind) are skipped:
    a field selector is not trusted. ``opened()`` is called once the server accepts the watch.
    """
    query = [
        ("watch", "true"),
        ("resourceVersion", resource_version),
        ("allowWatchBookmarks", "true"),
        ("timeoutSeconds", str(max(1, timeout_seconds))),
        *([("fieldSelector", field_selector)] if field_selector else []),
        *([("labelSelector", label_selector)] if label_selector else []),
    ]
    path = resource.path(namespace)
    try:
        async with transport.stream(
            path, query=query, timeout=timeout_seconds + _SLACK
        ) as response:
            if response.status != 200:
                yield await _refused(response, path)
                return
            if opened is not None:
                opened()
            while True:
                try:
                    line = await response.content.readline()
                except (ValueError, LineTooLong):  # longer than the client's line limit
                    yield _relist(path, "an event larger than the client's line limit")
                    return
                if not line:
                    return
                if not line.strip():
                    continue
                event = _decode(line)
                if event is None:
                    text = excerpt(line.decode("utf-8", "replace"), 80)
                    yield _relist(path, f"a line that is not a watch event: {text!r}")
                    return
                problem = _misshapen(event, resource)
                if problem is not None:
                    yield _relist(path, f"a {event.type} event whose {problem}")
                    return
                if name is not None and not _about(event, resource, name, namespace or ""):
                    _log.warning(
                        "watch %s: skipped a %s event about another object (%s)",
                        path,
                        event.type,
                        excerpt(str((event.object.get("metadata") or {}).get("name")), 80),
                    )
                    continue
                yield event
    except (TimeoutError, aiohttp.ClientConnectionError, aiohttp.ClientPayloadError):
        return


async def _refused(response: aiohttp.ClientResponse, path: str) -> WatchEvent:
    """An answer other than a stream, as an ``ERROR`` event with its ``Status`` (the body read
    up to the limit on a response body)."""
    text = (await read_body(response, "GET", path)).decode("utf-8", "replace")
    try:
        status = json.loads(text)
    except ValueError:
        status = None
    if not isinstance(status, dict):
        status = {"message": excerpt(text) or f"HTTP {response.status}"}
    return WatchEvent("ERROR", {**status, "code": response.status})


def _decode(line: bytes) -> WatchEvent | None:
    """The event of one line; ``None`` when it is not one (not JSON, not an object, an
    unknown type, an object that is not an object)."""
    try:
        event = json.loads(line)
    except ValueError:
        return None
    if not isinstance(event, Mapping):
        return None
    kind, obj = event.get("type"), event.get("object")
    if kind not in _TYPES or not isinstance(obj, Mapping):
        return None
    found = dict(obj)
    if kind == "ERROR":  # a Status; its code is read as a number
        code = found.get("code")
        found["code"] = code if isinstance(code, int) and not isinstance(code, bool) else 0
    return WatchEvent(str(kind), found)


def _misshapen(event: WatchEvent, resource: Resource) -> str | None:
    """Where the event's object has a field of the wrong JSON type (an ``ERROR``'s ``Status``
    is read as numbers and strings already)."""
    if event.type == "ERROR":
        return None
    problem = misshapen(event.object, resource.kind)
    return None if problem is None else f"object.{problem}"


def _about(event: WatchEvent, resource: Resource, name: str, namespace: str) -> bool:
    """Whether ``event`` is about object ``name`` of ``resource`` (a bookmark or an error is
    about the watch)."""
    if event.type in ("BOOKMARK", "ERROR"):
        return True
    kind = event.object.get("kind")
    return kind in (None, resource.kind) and about(event.object, ObjectRef("", namespace, name))


def about(obj: Mapping[str, Any], ref: ObjectRef) -> bool:
    """Whether ``obj`` is the object ``ref`` names (its namespace and name)."""
    meta = obj.get("metadata")
    if not isinstance(meta, Mapping):
        return False
    return meta.get("name") == ref.name and meta.get("namespace", ref.namespace) == ref.namespace


def _relist(path: str, what: str) -> WatchEvent:
    _log.warning("watch %s: the server sent %s; reading the state again", path, what)
    return WatchEvent(RELIST, {"message": what})
