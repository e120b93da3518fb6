"""Reading objects: one by name, or a whole namespace in chunks; the pace of repeated reads."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Final

from ..errors import APIError, ObjectRef
from .answers import checked_list, checked_object
from .resources import Resource
from .transport import Transport

__all__ = [
    "PACE_CEILING",
    "PACE_FLOOR",
    "Listing",
    "Pacer",
    "get_document",
    "list_documents",
    "read_listing",
]

PAGE = 500
PACE_FLOOR: Final = 0.05
"""Seconds at least between the starts of two watches of one wait, and of two pages of one
list: a server that ends every watch at once, or pages without end, is not spun on."""
PACE_CEILING: Final = 2.0
"""The longest pause, reached by doubling while rounds bring nothing."""


class Pacer:
    """Spaces out the rounds of a loop: at least ``PACE_FLOOR`` seconds from one start to the
    next, doubling up to ``PACE_CEILING`` while rounds bring nothing new."""

    def __init__(self) -> None:
        self._pause = PACE_FLOOR
        self._started: float | None = None

    async def next_round(self, progressed: bool) -> None:
        """Wait before the next round; ``progressed`` says whether the last one brought news."""
        loop = asyncio.get_running_loop()
        if self._started is not None:
            self._pause = PACE_FLOOR if progressed else min(self._pause * 2, PACE_CEILING)
            await asyncio.sleep(max(0.0, self._started + self._pause - loop.time()))
        self._started = loop.time()


async def get_document(
    transport: Transport, resource: Resource, namespace: str, name: str
) -> dict[str, Any] | None:
    """The object's JSON, or ``None`` when it does not exist; ``APIError`` when the answer is
    not that object."""
    target = ObjectRef(resource.kind, namespace, name, resource.api_version)
    try:
        response = await transport.request("GET", resource.path(namespace, name), target=target)
    except APIError as exc:
        if exc.status == 404:
            return None
        raise
    return checked_object(response, resource, target, "reading")


@dataclass(frozen=True)
class Listing:
    """Every item of a list, and the list's ``resourceVersion`` (to watch from)."""

    items: tuple[dict[str, Any], ...]
    resource_version: str


async def list_documents(
    transport: Transport, resource: Resource, namespace: str | None, *, label_selector: str = ""
) -> list[dict[str, Any]]:
    """Every object of ``resource`` in ``namespace`` (``None``: every namespace), read with
    ``limit``/``continue``."""
    listing = await read_listing(transport, resource, namespace, label_selector=label_selector)
    return list(listing.items)


async def read_listing(
    transport: Transport,
    resource: Resource,
    namespace: str | None,
    *,
    label_selector: str = "",
    field_selector: str | None = None,
) -> Listing:
    """Every matching object (read with ``limit``/``continue``) and the list's version;
    ``namespace`` ``None``: across every namespace.

    An answer that is not a list is an ``APIError``; so is a ``continue`` token the server
    gives twice (it would never end). Pages are paced (``Pacer``): at least ``PACE_FLOOR``
    apart, further while they bring no items.
    """
    items: list[dict[str, Any]] = []
    token = ""
    seen: set[str] = set()
    pacer = Pacer()
    selector = [("labelSelector", label_selector)] if label_selector else []
    if field_selector:
        selector.append(("fieldSelector", field_selector))
    while True:
        query = [("limit", str(PAGE)), *selector] + ([("continue", token)] if token else [])
        response = await transport.request("GET", resource.path(namespace), query=query)
        page, meta = checked_list(response, resource, namespace)
        for doc in page:
            doc.setdefault("apiVersion", resource.api_version)
            doc.setdefault("kind", resource.kind)
        items += page
        token = str(meta.get("continue") or "")
        if not token:
            return Listing(tuple(items), str(meta.get("resourceVersion") or ""))
        if token in seen:
            raise APIError(
                f"listing {resource.plural} in {_where(namespace)}: the server gave the same"
                f" continue token twice after {len(seen)} page(s); stopped (it would never end)",
                status=response.status,
            )
        seen.add(token)
        await pacer.next_round(progressed=bool(page))


def _where(namespace: str | None) -> str:
    return "every namespace" if namespace is None else f"namespace {namespace}"
