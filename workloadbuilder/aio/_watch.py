"""Watch streams through the :class:`Transport`: the events after a resourceVersion."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Any

import aiohttp

from ._resources import Resource
from ._transport import Transport

__all__ = ["WatchEvent", "watch_events"]

_SLACK = 30.0  # seconds the client waits beyond the server's timeoutSeconds


@dataclass(frozen=True)
class WatchEvent:
    """One watch event: ``ADDED``, ``MODIFIED``, ``DELETED``, ``BOOKMARK`` or ``ERROR``."""

    type: str
    object: dict[str, Any]


async def watch_events(
    transport: Transport,
    resource: Resource,
    namespace: str,
    *,
    resource_version: str,
    timeout_seconds: int,
    field_selector: str | None = None,
) -> AsyncGenerator[WatchEvent, None]:
    """Stream events after ``resource_version`` until the server ends the watch.

    An expired version (410) arrives as an ``ERROR`` event, as the API server sends it; an
    error answer to the request itself is turned into an ``ERROR`` event carrying its
    ``Status``. A dropped connection ends the stream early: the caller resumes or relists.
    """
    query = [
        ("watch", "true"),
        ("resourceVersion", resource_version),
        ("allowWatchBookmarks", "true"),
        ("timeoutSeconds", str(max(1, timeout_seconds))),
        *([("fieldSelector", field_selector)] if field_selector else []),
    ]
    path = resource.path(namespace)
    try:
        async with transport.stream(
            path, query=query, timeout=timeout_seconds + _SLACK
        ) as response:
            if response.status >= 400:
                try:
                    status = await response.json(content_type=None)
                except ValueError:
                    status = None
                if not isinstance(status, dict):
                    status = {"code": response.status, "message": (await response.text()).strip()}
                yield WatchEvent("ERROR", {"code": response.status, **status})
                return
            while line := await response.content.readline():
                if line.strip():
                    event = json.loads(line)
                    yield WatchEvent(str(event.get("type")), dict(event.get("object") or {}))
    except (TimeoutError, aiohttp.ClientConnectionError, aiohttp.ClientPayloadError):
        return
