"""Reading objects: one by name, or a whole namespace in chunks."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ._resources import Resource
from ._transport import Transport
from .errors import APIError, ObjectRef

__all__ = ["Listing", "get_document", "list_documents", "read_listing"]

PAGE = 500


async def get_document(
    transport: Transport, resource: Resource, namespace: str, name: str
) -> dict[str, Any] | None:
    """The object's JSON, or ``None`` when it does not exist."""
    target = ObjectRef(resource.kind, namespace, name, resource.api_version)
    try:
        response = await transport.request("GET", resource.path(namespace, name), target=target)
    except APIError as exc:
        if exc.status == 404:
            return None
        raise
    return dict(response.body) if isinstance(response.body, Mapping) else None


@dataclass(frozen=True)
class Listing:
    """Every item of a list, and the list's ``resourceVersion`` (to watch from)."""

    items: tuple[dict[str, Any], ...]
    resource_version: str


async def list_documents(
    transport: Transport, resource: Resource, namespace: str, *, label_selector: str = ""
) -> list[dict[str, Any]]:
    """Every object of ``resource`` in ``namespace`` (read with ``limit``/``continue``)."""
    listing = await read_listing(transport, resource, namespace, label_selector=label_selector)
    return list(listing.items)


async def read_listing(
    transport: Transport,
    resource: Resource,
    namespace: str,
    *,
    label_selector: str = "",
    field_selector: str | None = None,
) -> Listing:
    """Every matching object (read with ``limit``/``continue``) and the list's version."""
    items: list[dict[str, Any]] = []
    token = ""
    selector = [("labelSelector", label_selector)] if label_selector else []
    if field_selector:
        selector.append(("fieldSelector", field_selector))
    while True:
        query = [("limit", str(PAGE)), *selector] + ([("continue", token)] if token else [])
        response = await transport.request("GET", resource.path(namespace), query=query)
        body = response.body if isinstance(response.body, Mapping) else {}
        for item in body.get("items") or ():
            if isinstance(item, Mapping):
                doc = dict(item)
                doc.setdefault("apiVersion", resource.api_version)
                doc.setdefault("kind", resource.kind)
                items.append(doc)
        meta = body.get("metadata") or {}
        token = str(meta.get("continue") or "")
        if not token:
            return Listing(tuple(items), str(meta.get("resourceVersion") or ""))
