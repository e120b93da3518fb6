"""Field errors as the API server renders them into ``Status.details.causes``.

The SDK renders Go strings with its own escaper (``workloadbuilder._gorender``); the test
server keeps ``go_quote`` here on purpose: it stands in for the API server the SDK is tested
against, so it shares none of the SDK's code (an import contract in
``pyproject.toml`` keeps ``testing.rbac`` and ``testing.rules`` from importing
``workloadbuilder.aio`` and ``workloadbuilder._gorender``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final

from .gojson import decoded, go_float, marshal

REQUIRED: Final = "FieldValueRequired"
INVALID: Final = "FieldValueInvalid"
TYPE_INVALID: Final = "FieldValueTypeInvalid"
NOT_SUPPORTED: Final = "FieldValueNotSupported"
FORBIDDEN: Final = "FieldValueForbidden"
TOO_MANY: Final = "FieldValueTooMany"
TOO_LONG: Final = "FieldValueTooLong"
DUPLICATE: Final = "FieldValueDuplicate"
INTERNAL: Final = "InternalError"

_LABELS: Final = {
    REQUIRED: "Required value",
    INVALID: "Invalid value",
    TYPE_INVALID: "Invalid value",
    NOT_SUPPORTED: "Unsupported value",
    FORBIDDEN: "Forbidden",
    TOO_MANY: "Too many",
    TOO_LONG: "Too long",
    DUPLICATE: "Duplicate value",
    INTERNAL: "Internal error",
}
# Error types whose rendering never shows the offending value.
_VALUELESS: Final = frozenset({REQUIRED, FORBIDDEN, TOO_LONG, INTERNAL})


class Marshalled(str):
    """A bad value already written as ``json.Marshal`` writes its Go type (e.g. an internal
    struct, see :mod:`.internal_core`); rendered as is."""

    __slots__ = ()


def render_value(value: Any) -> str:
    """Render a bad value as apimachinery 1.37 does (``field.Error.ErrorBody``): nil as bare
    ``null``, strings Go-quoted, numbers and booleans bare, anything else as its JSON.
    """
    if isinstance(value, Marshalled):
        return str(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return go_float(value, exponent_below=1e-4, exponent_from=1e6)  # fmt's %v
    if isinstance(value, str):
        return go_quote(value)
    return marshal(value, sort_keys=False)  # decoded objects keep their fields' order


_GO_ESCAPES: Final = {
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
    "\\": "\\\\",
    '"': '\\"',
}


def go_quote(text: str) -> str:
    """Quote ``text`` as Go's ``%q`` does (printable runes kept, others escaped)."""
    out = []
    for char in decoded(text):
        if char in _GO_ESCAPES:
            out.append(_GO_ESCAPES[char])
        elif char.isprintable() or char == " ":
            out.append(char)
        elif ord(char) < 0x80:
            out.append(f"\\x{ord(char):02x}")
        elif ord(char) <= 0xFFFF:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(f"\\U{ord(char):08x}")
    return '"' + "".join(out) + '"'


@dataclass(frozen=True)
class FieldErr:
    """One validation failure; ``ratchet`` marks errors dropped on update when unchanged."""

    type: str
    field: str
    value: Any = None
    detail: str = ""
    ratchet: bool = True

    def message(self) -> str:
        """The cause message: the error body without the field path."""
        text = _LABELS[self.type]
        if self.type not in _VALUELESS:
            text += ": " + render_value(self.value)
        if self.detail:
            text += ": " + self.detail
        return text

    def to_cause(self) -> dict[str, str]:
        """The ``StatusCause`` dict the API server returns for this error."""
        return {"reason": self.type, "message": self.message(), "field": self.field}


def required(path: str, detail: str = "") -> FieldErr:
    """A missing required value."""
    return FieldErr(REQUIRED, path, None, detail)


def invalid(path: str, value: Any, detail: str, *, ratchet: bool = True) -> FieldErr:
    """A value that breaks a rule."""
    return FieldErr(INVALID, path, value, detail, ratchet)


def type_invalid(path: str, value: Any, detail: str) -> FieldErr:
    """A value of the wrong JSON type (a schema's ``type``)."""
    return FieldErr(TYPE_INVALID, path, value, detail)


def forbidden(path: str, detail: str = "", *, ratchet: bool = True) -> FieldErr:
    """A value that may not be set."""
    return FieldErr(FORBIDDEN, path, None, detail, ratchet)


def not_supported(path: str, value: Any, supported: list[str]) -> FieldErr:
    """A value outside an enum; ``supported`` is rendered quoted, in the given order."""
    detail = "supported values: " + ", ".join(json.dumps(s) for s in supported)
    return FieldErr(NOT_SUPPORTED, path, value, detail)


def too_many(path: str, actual: int, maximum: int) -> FieldErr:
    """A list longer than allowed."""
    noun = "item" if maximum == 1 else "items"
    return FieldErr(TOO_MANY, path, actual, f"must have at most {maximum} {noun}")


def too_long(path: str, maximum: int, *, ratchet: bool = True) -> FieldErr:
    """A string longer than allowed."""
    unit = "byte" if maximum == 1 else "bytes"
    return FieldErr(TOO_LONG, path, None, f"may not be more than {maximum} {unit}", ratchet)


def duplicate(path: str, value: Any, *, ratchet: bool = True) -> FieldErr:
    """A key seen twice."""
    return FieldErr(DUPLICATE, path, value, "", ratchet)


def child(path: str, name: str) -> str:
    """``path.name`` (or ``name`` at the root)."""
    return f"{path}.{name}" if path else name


def index(path: str, i: int) -> str:
    """``path[i]``."""
    return f"{path}[{i}]"
