"""Decoded JSON values written back as Go's ``encoding/json`` (``json.Marshal``) writes them."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any, Final

__all__ = ["decoded", "go_float", "marshal"]

# json.Marshal escapes these so its output is safe inside HTML (``HTMLEscape``).
_HTML_ESCAPES: Final = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}


def decoded(text: str) -> str:
    """``text`` as Go holds it after decoding JSON: a lone surrogate becomes U+FFFD."""
    if text.isascii():
        return text
    return "".join("\ufffd" if "\ud800" <= char <= "\udfff" else char for char in text)


def go_float(value: float, *, exponent_below: float, exponent_from: float) -> str:
    """A float64 from its shortest digits, in exponent form outside the given range (Go's
    ``%v`` uses 1e-4 and 1e6 with a two-digit exponent, ``encoding/json`` 1e-6 and 1e21)."""
    if value != value or value in (float("inf"), float("-inf")):
        return {"inf": "+Inf", "-inf": "-Inf"}.get(str(value), "NaN")
    if value == 0:
        return "-0" if str(value).startswith("-") else "0"
    shortest = Decimal(repr(value))
    if exponent_below <= abs(value) < exponent_from:
        return format(shortest.normalize(), "f")
    digits = shortest.normalize().as_tuple().digits
    exponent = shortest.adjusted()
    mantissa = str(digits[0]) + ("." + "".join(map(str, digits[1:])) if len(digits) > 1 else "")
    sign = "-" if exponent < 0 else "+"
    width = 2 if exponent_from < 1e21 else 1  # %v pads the exponent, encoding/json does not
    return ("-" if value < 0 else "") + f"{mantissa}e{sign}{abs(exponent):0{width}d}"


def _string(text: str) -> str:
    out = json.dumps(decoded(text), ensure_ascii=False)
    if any(char in out for char in _HTML_ESCAPES):
        out = "".join(_HTML_ESCAPES.get(char, char) for char in out)
    return out


def marshal(value: Any, *, sort_keys: bool = True) -> str:
    """Compact JSON of a decoded value: objects as Go maps (keys sorted) or, with
    ``sort_keys=False``, as the Go structs they decoded into (fields in the order given)."""
    if isinstance(value, dict):
        keys = sorted(value, key=str) if sort_keys else list(value)
        return (
            "{"
            + ",".join(f"{_string(str(k))}:{marshal(value[k], sort_keys=sort_keys)}" for k in keys)
            + "}"
        )
    if isinstance(value, list | tuple):
        return "[" + ",".join(marshal(v, sort_keys=sort_keys) for v in value) + "]"
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, float):
        return go_float(value, exponent_below=1e-6, exponent_from=1e21)
    if isinstance(value, int):
        return str(value)
    return _string(str(value))
