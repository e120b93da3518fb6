"""The Go types of ``TypeMeta``, ``ObjectMeta`` and ``DeleteOptions``, checked on plain JSON.

The API server decodes a body into Go structs before anything else; a value of the wrong JSON
type is a 400 ``BadRequest`` whose message is Go's ``json: cannot unmarshal <value> into Go
struct field <Struct>.<path> of type <type>``. ``null`` is a Go zero value: dropped for a
field, ``""`` for a map value. Timestamps must parse as RFC 3339 and stay within years
1-9999 in UTC (a later one could not be written back as RFC 3339). A ``resource.Quantity``
is replaced by the canonical text the server writes back (:mod:`.quantity`).
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any, Final

from workloadbuilder.testing.rules import quantity

STRING: Final = "string"
INT64: Final = "int64"
INT32: Final = "int32"
BOOL: Final = "bool"
TIME: Final = "v1.Time"
MICRO_TIME: Final = "v1.MicroTime"
"""Parsed with the fixed layout ``2006-01-02T15:04:05.000000Z07:00``: six fraction digits."""
STRING_MAP: Final = "map[string]string"
STRING_LIST: Final = "[]string"
OBJECT: Final = "object"
RESOURCE_LIST: Final = "v1.ResourceList"
"""``map[ResourceName]resource.Quantity``: each value decoded as ``Quantity.UnmarshalJSON``
and written back in its canonical form."""
QUANTITY: Final = "resource.Quantity"
"""A ``resource.Quantity`` field: ``null`` decodes as zero (``"0"``)."""
OPTIONAL_QUANTITY: Final = "*resource.Quantity"
"""A ``*resource.Quantity`` field: ``null`` drops it."""

Fields = dict[str, Any]
"""A struct: JSON name to a Go type name, a nested ``(struct name, Fields)``, or a list of one."""

OWNER_REFERENCE: Final[Fields] = {
    "apiVersion": STRING,
    "kind": STRING,
    "name": STRING,
    "uid": STRING,
    "controller": BOOL,
    "blockOwnerDeletion": BOOL,
}
MANAGED_FIELDS_ENTRY: Final[Fields] = {
    "manager": STRING,
    "operation": STRING,
    "apiVersion": STRING,
    "time": TIME,
    "fieldsType": STRING,
    "fieldsV1": OBJECT,
    "subresource": STRING,
}
OBJECT_META: Final[Fields] = {
    "name": STRING,
    "generateName": STRING,
    "namespace": STRING,
    "selfLink": STRING,
    "uid": STRING,
    "resourceVersion": STRING,
    "generation": INT64,
    "creationTimestamp": TIME,
    "deletionTimestamp": TIME,
    "deletionGracePeriodSeconds": INT64,
    "labels": STRING_MAP,
    "annotations": STRING_MAP,
    "ownerReferences": [("OwnerReference", OWNER_REFERENCE)],
    "finalizers": STRING_LIST,
    "managedFields": [("ManagedFieldsEntry", MANAGED_FIELDS_ENTRY)],
}
DELETE_OPTIONS: Final[Fields] = {
    "kind": STRING,
    "apiVersion": STRING,
    "gracePeriodSeconds": INT64,
    "preconditions": ("Preconditions", {"uid": STRING, "resourceVersion": STRING}),
    "orphanDependents": BOOL,
    "propagationPolicy": STRING,
    "dryRun": STRING_LIST,
    "ignoreStoreReadErrorWithClusterBreakingPotential": BOOL,
}
_RFC3339: Final = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$"
)
_GO_LAYOUT: Final = "2006-01-02T15:04:05Z07:00"
_MICRO_LAYOUT: Final = "2006-01-02T15:04:05.000000Z07:00"


class TypeMismatch(ValueError):
    """A JSON value that does not decode into its Go field; ``str()`` is Go's message."""


def json_kind(value: Any) -> str:
    """How Go's decoder names the JSON type of ``value`` in its errors."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


_INT_RANGES: Final = {INT32: (-(2**31), 2**31 - 1), INT64: (-(2**63), 2**63 - 1)}

_GO_SPACE: Final = (
    "\t\n\v\f\r \x85\xa0\u1680"
    + "".join(map(chr, range(0x2000, 0x200B)))
    + "\u2028\u2029\u202f\u205f\u3000"
)
"""What Go's ``strings.TrimSpace`` (``unicode.IsSpace``) strips."""


def decode_quantity(value: Any) -> str:
    """A ``resource.Quantity`` as JSON (a string, or a number's text) decoded as its
    ``UnmarshalJSON`` does; the canonical text the API server writes back."""
    text = value if isinstance(value, str) else json_text(value)
    try:
        return quantity.parse(text.strip(_GO_SPACE)).canonical()
    except quantity.QuantityError as exc:
        raise TypeMismatch(str(exc)) from None


def json_text(value: Any) -> str:
    """The JSON text of a decoded value (what a Go unmarshaler of a non-string is given)."""
    return json.dumps(value, separators=(",", ":"))


def _mismatch(value: Any, struct: str, path: str, go_type: str) -> TypeMismatch:
    where = f"Go struct field {struct}.{path}" if struct else "Go value"
    shown = json_kind(value)
    if go_type in _INT_RANGES and shown == "number":  # a number that does not fit: its text
        shown = f"number {value!r}"
    return TypeMismatch(f"json: cannot unmarshal {shown} into {where} of type {go_type}")


def check_time(value: Any) -> None:
    """A ``metav1.Time`` as JSON: ``null`` or an RFC 3339 string within years 1-9999 in UTC."""
    if value is None:
        return
    if not isinstance(value, str):
        raise _mismatch(value, "", "", STRING)
    try:
        if _RFC3339.match(value) is None:
            raise ValueError(value)
        parsed = datetime.fromisoformat(value.upper().replace("Z", "+00:00"))
    except ValueError:
        raise TypeMismatch(f'parsing time "{value}" as "{_GO_LAYOUT}": cannot parse') from None
    try:
        parsed.astimezone(UTC)
    except OverflowError:
        raise TypeMismatch(
            f'parsing time "{value}": year outside of range [1,9999] in UTC'
        ) from None


def check_micro_time(value: Any) -> None:
    """A ``metav1.MicroTime`` as JSON: ``null`` or a time with exactly six fraction digits
    (Go's fixed-width layout refuses fewer or more, as the API server's decoder does)."""
    if value is None:
        return
    if not isinstance(value, str):
        raise _mismatch(value, "", "", STRING)
    check_time(value)  # the layout's other parts, and the year range
    rest = value[19:]
    digits = len(rest[1:]) - len(rest[1:].lstrip("0123456789")) if rest[:1] == "." else 0
    if digits == 6:
        return
    if digits > 6:
        said, expected = rest[7:], "Z07:00"
    else:
        said, expected = rest, ".000000"
    raise TypeMismatch(
        f'parsing time "{value}" as "{_MICRO_LAYOUT}": cannot parse "{said}" as "{expected}"'
    )


def _check_value(value: Any, go_type: Any, struct: str, path: str) -> Any:
    """``value`` decoded as ``go_type`` (``None`` to drop it), or :class:`TypeMismatch`."""
    if isinstance(go_type, tuple):
        name, fields = go_type
        if value is None:
            return None
        if not isinstance(value, dict):
            raise _mismatch(value, struct, path, f"v1.{name}")
        check_struct(value, fields, name, path)
        return value
    if isinstance(go_type, list):
        if value is None:
            return None
        (item_type,) = go_type
        if not isinstance(value, list):
            raise _mismatch(value, struct, path, f"[]v1.{item_type[0]}")
        for i, item in enumerate(value):
            if item is None:
                value[i] = {}
            elif not isinstance(item, dict):
                raise _mismatch(item, struct, path, f"v1.{item_type[0]}")
            else:
                check_struct(item, item_type[1], item_type[0], path)
        return value
    if go_type == QUANTITY:
        return "0" if value is None else decode_quantity(value)
    if value is None:
        return None
    if go_type == OPTIONAL_QUANTITY:
        return decode_quantity(value)
    if go_type == STRING and not isinstance(value, str):
        raise _mismatch(value, struct, path, STRING)
    if go_type == BOOL and not isinstance(value, bool):
        raise _mismatch(value, struct, path, BOOL)
    if go_type in _INT_RANGES:
        low, high = _INT_RANGES[go_type]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise _mismatch(value, struct, path, go_type)
    if go_type == TIME:
        check_time(value)
    if go_type == MICRO_TIME:
        check_micro_time(value)
    if go_type == OBJECT and not isinstance(value, dict):
        raise _mismatch(value, struct, path, "map[string]interface {}")
    if go_type in (STRING_MAP, STRING_LIST):
        _check_strings(value, go_type, struct, path)
    if go_type == RESOURCE_LIST:
        _check_resource_list(value, struct, path)
    return value


def _check_resource_list(value: Any, struct: str, path: str) -> None:
    if not isinstance(value, dict):
        raise _mismatch(value, struct, path, RESOURCE_LIST)
    for key, item in value.items():
        # a null Quantity decodes as zero
        value[key] = "0" if item is None else decode_quantity(item)


def _check_strings(value: Any, go_type: str, struct: str, path: str) -> None:
    if go_type == STRING_MAP:
        if not isinstance(value, dict):
            raise _mismatch(value, struct, path, STRING_MAP)
        for key, item in value.items():
            if item is None:
                value[key] = ""
            elif not isinstance(item, str):
                raise _mismatch(item, struct, path, STRING)
        return
    if not isinstance(value, list):
        raise _mismatch(value, struct, path, STRING_LIST)
    for i, item in enumerate(value):
        if item is None:
            value[i] = ""
        elif not isinstance(item, str):
            raise _mismatch(item, struct, path, STRING)


def check_struct(obj: dict[str, Any], fields: Fields, struct: str, prefix: str) -> None:
    """Check the known fields of ``obj`` and write them back in place as the API server
    decodes them (``null``s normalised, quantities canonical)."""
    for key in list(obj):
        go_type = fields.get(key)
        if go_type is None:
            continue
        path = f"{prefix}.{key}" if prefix else key
        decoded = _check_value(obj[key], go_type, struct, path)
        if decoded is None:
            del obj[key]
        else:
            obj[key] = decoded
    for key, go_type in fields.items():
        if go_type == QUANTITY and key not in obj:  # a Quantity (not a pointer) is never omitted
            obj[key] = "0"


_TIME_KEY: Final = re.compile(r"(Time|Timestamp)$")


def check_times(value: Any) -> None:
    """Every ``...Time``/``...Timestamp`` string anywhere in ``value`` is a valid ``metav1.Time``.

    Conditions' ``lastTransitionTime``, a pod's ``startTime`` and the like: a timestamp the
    server could not write back as RFC 3339 is refused, whatever the kind.
    """
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, child in item.items():
                if _TIME_KEY.search(key) and (child is None or isinstance(child, str)):
                    check_time(child)
                else:
                    stack.append(child)
        elif isinstance(item, list):
            stack.extend(item)


def check_type_meta(obj: dict[str, Any]) -> None:
    """``apiVersion`` and ``kind`` are strings (else the server cannot tell the type)."""
    for key in ("apiVersion", "kind"):
        value = obj.get(key)
        if value is None or value == "":
            obj.pop(key, None)  # Go's zero value: the URL decides
        elif not isinstance(value, str):
            raise TypeMismatch(
                "couldn't get version/kind; json parse error: "
                f"json: cannot unmarshal {json_kind(value)} into Go struct field "
                f".{key} of type string"
            )


def check_object_meta(obj: dict[str, Any], kind: str) -> None:
    """``metadata`` decodes into ``ObjectMeta`` (``kind`` names the outer struct)."""
    meta = obj.get("metadata")
    if meta is None:
        obj["metadata"] = {}
        return
    if not isinstance(meta, dict):
        raise _mismatch(meta, kind, "metadata", "v1.ObjectMeta")
    check_struct(meta, OBJECT_META, "ObjectMeta", "metadata")
