"""Other clients' models as Kubernetes JSON, and back: the official client's models of every
release (the pydantic ones of ``kubernetes>=37``, the OpenAPI-generated ones of ``kubernetes<37``
and of ``kubernetes_asyncio``) and lightkube's objects, alone or inside dicts.

An OpenAPI-generated model is read through its ``attribute_map`` (its camelCase JSON names), as
its ``ApiClient.sanitize_for_serialization`` sends it; its ``to_dict()`` gives Python names. It
is rebuilt with its own client's deserializer, as a response of the API server would be.
"""

from __future__ import annotations

import datetime
import importlib
import json
from collections.abc import Mapping
from typing import Any

__all__ = ["is_openapi_model", "plain_json", "rebuild_openapi_model"]

_SCALARS = (str, int, float, bool, type(None))


def is_openapi_model(obj: object) -> bool:
    """Whether ``obj`` is an OpenAPI-generated model (``openapi_types`` and ``attribute_map``
    name its fields), as ``kubernetes<37`` and ``kubernetes_asyncio`` have; not a pydantic
    model (``kubernetes>=37`` keeps those names on its pydantic models too)."""
    kind = type(obj)
    if callable(getattr(kind, "model_validate", None)):
        return False
    return isinstance(getattr(kind, "attribute_map", None), dict) and isinstance(
        getattr(kind, "openapi_types", None), dict
    )


def plain_json(value: Any) -> Any:
    """``value`` with every client model in it, at any depth, turned into its Kubernetes JSON
    (camelCase names, no ``None`` fields of a model). A value without any is returned as is
    (the same object); one with some is copied along the way down to them."""
    if isinstance(value, _SCALARS):
        return value
    if isinstance(value, Mapping):
        changed: dict[Any, Any] | None = None
        for key, item in value.items():
            plain = plain_json(item)
            if plain is not item:
                if changed is None:
                    changed = dict(value)
                changed[key] = plain
        if changed is None:
            return value
        return changed
    if isinstance(value, list | tuple):
        items = [plain_json(v) for v in value]
        if isinstance(value, list) and all(a is b for a, b in zip(items, value, strict=True)):
            return value
        return items
    if is_openapi_model(value):
        names = type(value).attribute_map
        return {
            names[attr]: _field_json(getattr(value, attr))
            for attr in type(value).openapi_types
            if getattr(value, attr, None) is not None
        }
    dump = getattr(value, "model_dump", None)  # pydantic models: kubernetes>=37, ours
    if callable(dump):
        return plain_json(dump(by_alias=True, exclude_none=True, mode="json"))
    to_dict = getattr(value, "to_dict", None)  # lightkube objects
    if callable(to_dict):
        result = to_dict()
        if isinstance(result, Mapping):
            return plain_json(result)
    return value


def _field_json(value: Any) -> Any:
    """A field of an OpenAPI-generated model: its timestamps as the client's
    ``sanitize_for_serialization`` writes them (``isoformat()``)."""
    if isinstance(value, datetime.datetime | datetime.date):
        return value.isoformat()
    return plain_json(value)


class _Response:
    """What a client's ``ApiClient.deserialize`` reads: the body of a response."""

    def __init__(self, data: str) -> None:
        self.data = data


def rebuild_openapi_model(like: object, doc: Mapping[str, Any]) -> Any:
    """A model of ``like``'s class holding ``doc`` (Kubernetes JSON), made by the deserializer
    of the client the class comes from (``kubernetes.client``, ``kubernetes_asyncio.client``):
    nested fields become that client's models, as in a response of the API server.

    The deserializer is used without opening the client's connection pool: a local rebuild
    sends nothing. ``TypeError`` when the class's client has no deserializer.
    """
    kind = type(like)
    package, _, _ = kind.__module__.rpartition(".models")
    api_client = getattr(importlib.import_module(package), "ApiClient", None) if package else None
    if api_client is None or not callable(getattr(api_client, "deserialize", None)):
        raise TypeError(
            f"cannot rebuild a {kind.__name__}: its module {kind.__module__!r} is not in a"
            " client package with an ApiClient"
        )
    deserializer = api_client.__new__(api_client)
    deserializer.configuration = getattr(like, "local_vars_configuration", None)
    return deserializer.deserialize(_Response(json.dumps(doc)), kind)
