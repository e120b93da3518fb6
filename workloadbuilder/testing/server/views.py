"""The representation of a read: the object itself, a ``Table``, or ``PartialObjectMetadata``;
in JSON or YAML, as the request's ``Accept`` asks."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import yaml
from aiohttp import web
from multidict import CIMultiDict, MultiMapping

from workloadbuilder.testing.common import errors
from workloadbuilder.testing.common.resources import ResourceType
from workloadbuilder.testing.server import negotiation, tables

_INCLUDE = ("None", "Metadata", "Object")


def chosen(accept: str) -> negotiation.MediaType:
    """The media type a resource read answers with."""
    return negotiation.output(negotiation.parse_accept(accept), negotiation.OBJECT_SHAPES)


def _include_object(query: MultiMapping[str]) -> str:
    value = query.get("includeObject") or "Metadata"
    if value not in _INCLUDE:
        raise errors.bad_request(
            f'includeObject: Unsupported value: "{value}": supported values: '
            '"Metadata", "None", "Object"'
        )
    return value


def shape(
    media: negotiation.MediaType, query: MultiMapping[str], rt: ResourceType, body: dict[str, Any]
) -> dict[str, Any]:
    """``body`` (an object or a ``<Kind>List``) in the shape ``media`` asks for."""
    version = media.params.get("v", "v1")
    is_list = "items" in body and body.get("kind", "").endswith("List")
    if media.shape == "Table":
        include = _include_object(query)
        if is_list:
            return tables.table(
                rt, body["items"], body["metadata"], include_object=include, version=version
            )
        meta = {"resourceVersion": body.get("metadata", {}).get("resourceVersion", "")}
        return tables.table(rt, [body], meta, include_object=include, version=version)
    if media.shape == "PartialObjectMetadataList" and is_list:
        return tables.partial_list(body, version)
    if media.shape == "PartialObjectMetadata" and not is_list:
        return tables.partial(body, version)
    if media.shape:
        raise errors.APIStatusError(
            errors.status_body(
                406,
                "NotAcceptable",
                f"only the following media types are accepted: {', '.join(negotiation.PRODUCES)}",
            )
        )
    return bare_items(rt, body) if is_list else body


def bare_items(rt: ResourceType, listing: dict[str, Any]) -> dict[str, Any]:
    """A ``<Kind>List`` as the API server writes it: the list has ``kind`` and ``apiVersion``,
    the items of a built-in kind do not (observed; watch events keep them, and so do the
    unstructured items of a custom resource)."""
    if not rt.built_in:
        return listing
    items = [
        {k: v for k, v in item.items() if k not in ("kind", "apiVersion")}
        for item in listing["items"]
    ]
    return {**listing, "items": items}


def content_type(media: negotiation.MediaType) -> str:
    """The ``Content-Type`` of an answer in ``media``: the serializer's media type alone, so a
    ``Table`` or ``PartialObjectMetadata`` answer is ``application/json`` (observed)."""
    return negotiation.YAML if media.mime == negotiation.YAML else negotiation.JSON


def encode(media: negotiation.MediaType, body: Any) -> bytes:
    """The bytes of ``body`` in ``media``'s encoding."""
    if media.mime == negotiation.YAML:
        return yaml.safe_dump(body, sort_keys=False, default_flow_style=False).encode()
    return negotiation.encode_json(body)


def respond(
    media: negotiation.MediaType, code: int, body: Any, warnings: list[str] | None = None
) -> web.Response:
    """An answer in ``media``, with ``Warning`` headers."""
    headers = CIMultiDict({"Content-Type": content_type(media)})
    for text in warnings or ():
        headers.add("Warning", f"299 - {json.dumps(text)}")
    return web.Response(status=code, body=encode(media, body), headers=headers)


def watch_shaper(
    media: negotiation.MediaType, query: MultiMapping[str], rt: ResourceType
) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """What each watch event's object becomes: a one-row ``Table`` when one was asked for
    (column definitions on the first event only), otherwise the object."""
    if media.shape != "Table":
        return lambda obj: obj
    include, version = _include_object(query), media.params.get("v", "v1")
    sent = [False]

    def one(obj: dict[str, Any]) -> dict[str, Any]:
        if obj.get("kind") == "Status":
            return obj
        meta = {"resourceVersion": obj.get("metadata", {}).get("resourceVersion", "")}
        out = tables.table(
            rt, [obj], meta, include_object=include, version=version, with_columns=not sent[0]
        )
        sent[0] = True
        return out

    return one
