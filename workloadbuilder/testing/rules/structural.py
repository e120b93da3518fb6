"""Structural schemas of custom resources: pruning, defaulting and validation.

What apiextensions-apiserver does with a CustomResourceDefinition version's
``schema.openAPIV3Schema`` on every write of a custom resource, in its order: unknown fields
are pruned (``x-kubernetes-preserve-unknown-fields`` keeps them, ``additionalProperties``
makes a map), ``null`` of a non-nullable field is dropped, ``default`` values fill missing
fields (top-down, a defaulted value is itself defaulted), then the value validations run.
Error texts are kube-openapi's (``<path> in body must be of type integer: "string"``),
turned into field errors as apiextensions' ``kubeOpenAPIResultToFieldErrors`` does. The root
``apiVersion``, ``kind`` and ``metadata`` are the API server's own and are left alone.
"""

from __future__ import annotations

import base64
import copy
import ipaddress
import json
import re
from collections.abc import Callable
from datetime import date, datetime
from typing import Any, Final

from .common import ratcheted
from .errors import (
    FieldErr,
    child,
    go_quote,
    index,
    invalid,
    not_supported,
    required,
    too_long,
    too_many,
    type_invalid,
)

Schema = dict[str, Any]
_ROOT_FIELDS: Final = ("apiVersion", "kind", "metadata")
_PRESERVE: Final = "x-kubernetes-preserve-unknown-fields"
_INT_OR_STRING: Final = "x-kubernetes-int-or-string"
_EMBEDDED: Final = "x-kubernetes-embedded-resource"


def _mapping(value: Any) -> Schema:
    return value if isinstance(value, dict) else {}


def _keeps_unknown(schema: Schema) -> bool:
    return bool(schema.get(_PRESERVE)) or isinstance(schema.get("additionalProperties"), dict)


# -- pruning --------------------------------------------------------------------------------


def unknown_fields(schema: Schema, obj: dict[str, Any]) -> list[str]:
    """The paths (``spec.foo``, ``spec.items[0].bar``) pruning removes from ``obj``."""
    found: list[str] = []
    _unknown(schema, obj, "", found, root=True)
    return found


def _unknown(schema: Schema, value: Any, path: str, found: list[str], *, root: bool) -> None:
    if isinstance(value, dict):
        properties = _mapping(schema.get("properties"))
        extra = schema.get("additionalProperties")
        for key, item in value.items():
            if root and key in _ROOT_FIELDS:
                continue
            here = child(path, key)
            if key in properties:
                _unknown(_mapping(properties[key]), item, here, found, root=False)
            elif isinstance(extra, dict):
                _unknown(extra, item, here, found, root=False)
            elif not _keeps_unknown(schema) and not (schema.get(_EMBEDDED) and key in _ROOT_FIELDS):
                found.append(here)
    elif isinstance(value, list):
        items = _mapping(schema.get("items"))
        for i, item in enumerate(value):
            _unknown(items, item, index(path, i), found, root=False)


# -- defaulting -----------------------------------------------------------------------------


def apply_defaults(schema: Schema, obj: dict[str, Any]) -> None:
    """Drop nulls of non-nullable fields, then fill ``default`` values, in place."""
    _default(schema, obj, root=True)


def _default(schema: Schema, value: Any, *, root: bool = False) -> None:
    if isinstance(value, dict):
        properties = _mapping(schema.get("properties"))
        extra = schema.get("additionalProperties")
        for key in list(value):
            if root and key in _ROOT_FIELDS:
                continue
            sub = _mapping(properties.get(key)) if key in properties else _mapping(extra)
            if value[key] is None and not sub.get("nullable"):
                if "default" in sub:
                    value[key] = copy.deepcopy(sub["default"])
                elif key in properties or isinstance(extra, dict):
                    del value[key]
        for key, sub in properties.items():
            sub = _mapping(sub)
            if key not in value and "default" in sub:
                value[key] = copy.deepcopy(sub["default"])
        for key, item in value.items():
            if root and key in _ROOT_FIELDS:
                continue
            if key in properties:
                _default(_mapping(properties[key]), item)
            elif isinstance(extra, dict):
                _default(extra, item)
    elif isinstance(value, list):
        items = _mapping(schema.get("items"))
        for item in value:
            _default(items, item)


# -- validation -----------------------------------------------------------------------------


def validate(
    schema: Schema, obj: dict[str, Any], old: dict[str, Any] | None = None
) -> list[FieldErr]:
    """The schema's value validations over ``obj`` (apiVersion, kind, metadata excepted).

    On an update (``old`` given), an error at a path whose value did not change is dropped,
    as CRD validation ratcheting does.
    """
    errs: list[FieldErr] = []
    body = {k: v for k, v in obj.items() if k not in _ROOT_FIELDS}
    root = dict(schema)
    root["properties"] = {
        k: v for k, v in _mapping(schema.get("properties")).items() if k not in _ROOT_FIELDS
    }
    root["required"] = [r for r in schema.get("required") or [] if r not in _ROOT_FIELDS]
    _validate(root, body, "", errs)
    return ratcheted(errs, obj, old)


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() and abs(value) < 2**63 else "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _type_ok(schema: Schema, value: Any) -> str | None:
    """``None`` when ``value`` has the schema's type, else the value's JSON type name."""
    actual = _json_type(value)
    if value is None and schema.get("nullable"):
        return None
    if schema.get(_INT_OR_STRING):
        return None if actual in ("integer", "string") else actual
    wanted = schema.get("type")
    if not wanted:
        return None
    if wanted == actual or (wanted == "number" and actual == "integer"):
        return None
    return actual


def _count(schema: Schema, key: str) -> int | None:
    """An integer keyword (``maxItems``, ...), or ``None`` when absent or not an integer."""
    value = schema.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _bound(schema: Schema, key: str) -> float | None:
    """``minimum`` or ``maximum``, or ``None`` when absent or not a number."""
    value = schema.get(key)
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _number(bound: Any) -> str:
    """A bound as Go's ``%v`` prints it."""
    if isinstance(bound, float) and bound.is_integer():
        return str(int(bound))
    return str(bound)


def _message(path: str, text: str) -> str:
    return f"{path} in body {text}"


def _validate(schema: Schema, value: Any, path: str, errs: list[FieldErr]) -> None:
    actual = _type_ok(schema, value)
    if actual is not None:
        wanted = "integer,string" if schema.get(_INT_OR_STRING) else schema.get("type")
        errs.append(
            type_invalid(path, actual, _message(path, f'must be of type {wanted}: "{actual}"'))
        )
        return
    if value is None:
        return
    if isinstance(value, str):
        _string(schema, value, path, errs)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        _numeric(schema, value, path, errs)
    elif isinstance(value, list):
        items = _mapping(schema.get("items"))
        for i, item in enumerate(value):
            _validate(items, item, index(path, i), errs)
        if (least := _count(schema, "minItems")) is not None and len(value) < least:
            text = f"should have at least {least} items"
            errs.append(invalid(path, len(value), _message(path, text)))
        if (most := _count(schema, "maxItems")) is not None and len(value) > most:
            errs.append(too_many(path, len(value), most))
    enum = schema.get("enum")
    if isinstance(enum, list) and value not in enum:
        allowed = [v if isinstance(v, str) else json.dumps(v) for v in enum]
        errs.append(not_supported(path, value, allowed))
    if isinstance(value, dict):
        _object(schema, value, path, errs)


def _date_time(value: str) -> bool:
    if not _DATE_TIME.match(value):
        return False
    try:
        datetime.fromisoformat(value.upper().replace("Z", "+00:00").replace(" ", "T"))
    except ValueError:
        return False
    return True


def _date(value: str) -> bool:
    try:
        return bool(_DATE.match(value)) and bool(date.fromisoformat(value))
    except ValueError:
        return False


def _parses(parse: Callable[[str], object]) -> Callable[[str], bool]:
    def check(value: str) -> bool:
        try:
            parse(value)
        except ValueError:
            return False
        return True

    return check


_DATE_TIME: Final = re.compile(
    r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$"
)
_DATE: Final = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_UUID: Final = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)
_FORMATS: Final[dict[str, Callable[[str], bool]]] = {
    "date-time": _date_time,
    "datetime": _date_time,
    "date": _date,
    "uuid": lambda v: bool(_UUID.match(v)),
    "ipv4": _parses(ipaddress.IPv4Address),
    "ipv6": _parses(ipaddress.IPv6Address),
    "cidr": _parses(lambda v: ipaddress.ip_network(v, strict=False)),
    "byte": _parses(lambda v: base64.b64decode(v, validate=True)),
}
"""The string formats checked (kube-openapi's strfmt names); any other format is not."""


def _string(schema: Schema, value: str, path: str, errs: list[FieldErr]) -> None:
    size = len(value)
    if (most := _count(schema, "maxLength")) is not None and size > most:
        errs.append(too_long(path, most))
    if (least := _count(schema, "minLength")) is not None and size < least:
        text = f"should be at least {least} chars long"
        errs.append(invalid(path, value, _message(path, text)))
    pattern = schema.get("pattern")
    if isinstance(pattern, str):
        try:
            matched = re.search(pattern, value) is not None
        except re.error:
            matched = True  # the CRD's own validation refuses patterns that do not compile
        if not matched:
            errs.append(invalid(path, value, _message(path, f"should match '{pattern}'")))
    check = _FORMATS.get(str(schema.get("format", "")))
    if check is not None and not check(value):
        text = f"must be of type {schema['format']}: {go_quote(value)}"
        errs.append(type_invalid(path, value, _message(path, text)))


def _numeric(schema: Schema, value: float, path: str, errs: list[FieldErr]) -> None:
    factor = schema.get("multipleOf")
    if (
        isinstance(factor, (int, float))
        and not isinstance(factor, bool)
        and factor > 0
        and (value / factor) % 1 != 0
    ):
        errs.append(invalid(path, value, _message(path, f"should be a multiple of {factor}")))
    maximum = _bound(schema, "maximum")
    if maximum is not None:
        exclusive = bool(schema.get("exclusiveMaximum"))
        if value > maximum or (exclusive and value == maximum):
            text = "should be less than" + ("" if exclusive else " or equal to")
            errs.append(invalid(path, value, _message(path, f"{text} {_number(maximum)}")))
    minimum = _bound(schema, "minimum")
    if minimum is not None:
        exclusive = bool(schema.get("exclusiveMinimum"))
        if value < minimum or (exclusive and value == minimum):
            text = "should be greater than" + ("" if exclusive else " or equal to")
            errs.append(invalid(path, value, _message(path, f"{text} {_number(minimum)}")))


def _object(schema: Schema, value: dict[str, Any], path: str, errs: list[FieldErr]) -> None:
    if (most := _count(schema, "maxProperties")) is not None and len(value) > most:
        errs.append(too_many(path, len(value), most))
    if (least := _count(schema, "minProperties")) is not None and len(value) < least:
        text = f"should have at least {least} properties"
        errs.append(invalid(path, least, _message(path, text)))
    for name in schema.get("required") or []:
        if name not in value:
            errs.append(required(child(path, name)))
    properties = _mapping(schema.get("properties"))
    extra = schema.get("additionalProperties")
    for key, item in value.items():
        if key in properties:
            _validate(_mapping(properties[key]), item, child(path, key), errs)
        elif isinstance(extra, dict):
            _validate(extra, item, child(path, key), errs)
