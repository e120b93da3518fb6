"""Checking a 2xx answer before it is believed: the object asked for, or a list.

A proxy, a broken API server or an attacker can answer 200 with anything. Each check raises
an ``APIError`` (with the answer's HTTP status) naming the object asked for and what came
back, so nothing else is ever taken as that object, and no pydantic error escapes. The fields
the helpers read must have their JSON types (``_shapes``): an object whose ``metadata`` is a
string is refused here, with the field, not met later as an ``AttributeError``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NoReturn

from ..errors import APIError, ObjectRef, excerpt
from .resources import Resource, ref_of
from .shapes import json_type, misshapen
from .transport import Response

__all__ = ["checked_list", "checked_object", "describe"]


def describe(response: Response) -> str:
    """What a body that is not the expected JSON object is, in a few words."""
    if response.body is None:
        if not response.text.strip():
            return "an empty body"
        return f"a body that is not JSON ({excerpt(response.text, 80)!r})"
    if isinstance(response.body, Mapping):
        kind = response.body.get("kind")
        return f"a {str(kind)[:60]}" if kind else "a JSON object without a kind"
    return f"a JSON {_json_type(response.body)}"


def checked_object(
    response: Response, resource: Resource, target: ObjectRef, action: str
) -> dict[str, Any]:
    """The answer's object, if it is ``target`` (same kind, apiVersion, namespace and name)."""
    body = response.body
    if not isinstance(body, Mapping):
        _refuse(response, target, action, describe(response))
    if not isinstance(body.get("metadata") or {}, Mapping):
        _misshapen(response, target, action, f"an object whose {misshapen(body, resource.kind)}")
    got = ref_of(body)
    if (got.kind, got.api_version) != (resource.kind, resource.api_version):
        other = f"{got.kind or 'an object without a kind'} ({got.api_version or 'no apiVersion'})"
        _refuse(response, target, action, f"a {other}"[:160])
    if (got.namespace, got.name) != (target.namespace, target.name):
        _refuse(response, target, action, f"{got}"[:160])
    problem = misshapen(body, resource.kind)
    if problem is not None:
        _misshapen(response, target, action, f"{got} whose {problem}"[:240])
    return dict(body)


def checked_list(
    response: Response, resource: Resource, namespace: str | None
) -> tuple[list[dict[str, Any]], Mapping[str, Any]]:
    """The items and the list metadata of a list answer, if it is a list of ``resource``."""
    body = response.body
    where = "every namespace" if namespace is None else f"namespace {namespace}"
    what = f"listing {resource.plural}.{resource.api_version} in {where}"
    if not isinstance(body, Mapping):
        raise _list_error(response, what, describe(response))
    kind = body.get("kind")
    if kind is not None and kind != f"{resource.kind}List":
        raise _list_error(response, what, f"a {str(kind)[:60]}")
    items = body.get("items")
    if not isinstance(items, list):
        said = "no items" if items is None else f"items that are a JSON {_json_type(items)}"
        raise _list_error(response, what, f"a list with {said}")
    for i, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise _list_error(response, what, f"items[{i}], a JSON {_json_type(item)}")
        problem = misshapen(item, resource.kind)
        if problem is None and not (item.get("metadata") or {}).get("name"):
            problem = "metadata.name is missing or empty"  # the API server always names it
        if problem is not None:
            got = f"items[{i}] whose {problem}"[:240]
            raise _list_error(response, what, got, not_a="")
    meta = body.get("metadata")
    if meta is not None and not isinstance(meta, Mapping):
        raise _list_error(response, what, f"metadata that is a JSON {_json_type(meta)}")
    return [dict(i) for i in items], meta or {}


def _refuse(response: Response, target: ObjectRef, action: str, got: str) -> NoReturn:
    raise APIError(
        f"{action} {target}: the server answered HTTP {response.status} with {got},"
        f" not the {target.kind} asked for; nothing of it was used",
        status=response.status,
        target=target,
    )


def _misshapen(response: Response, target: ObjectRef, action: str, got: str) -> NoReturn:
    raise APIError(
        f"{action} {target}: the server answered HTTP {response.status} with {got};"
        " nothing of it was used",
        status=response.status,
        target=target,
    )


def _list_error(response: Response, what: str, got: str, not_a: str = ", not a list") -> APIError:
    return APIError(
        f"{what}: the server answered HTTP {response.status} with {got}{not_a};"
        " nothing of it was used",
        status=response.status,
    )


def _json_type(value: Any) -> str:
    found = json_type(value)
    return "number" if found == "integer" else found
