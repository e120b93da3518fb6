"""Bad values rendered as apimachinery renders them (Go's %v, %q and encoding/json)."""

from __future__ import annotations

import dataclasses
import datetime
import enum
import math
import re
import reprlib
from collections.abc import Mapping
from decimal import Decimal
from typing import Any, Final

__all__ = ["go_quote", "render_value", "sprint"]


def render_value(value: Any) -> str:
    """Render a bad value as apimachinery does: strings Go-quoted, ints/floats/bools bare,
    ``None`` as ``null``, anything else as compact JSON (models via ``to_dict()``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return go_quote(value)
    if isinstance(value, enum.Enum):
        return render_value(value.value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _go_float_v(value)
    if value is None:
        return "null"
    try:
        return _go_json(value)
    except _NotJSON:
        # A container nested deeper than any decoded document, or cyclic: a bounded repr.
        # Anything else that is not JSON prints as Go prints a Stringer.
        if isinstance(value, (Mapping, list, tuple, set, frozenset)):
            return reprlib.repr(value)
        return str(value)


def sprint(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, enum.Enum):
        return sprint(v.value)
    if isinstance(v, float):
        return _go_float_v(v)
    return str(v)


_SIMPLE_ESCAPES: Final = {
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


_REPLACEMENT: Final = "\ufffd"


def go_quote(s: str) -> str:
    """Go's ``strconv.Quote``: double-quoted, printable characters kept, others escaped.

    A lone surrogate is U+FFFD, which Go's JSON decoder puts in its place and Go prints as is.
    """
    if s.isascii() and s.isprintable() and '"' not in s and "\\" not in s:
        return '"' + s + '"'
    out = ['"']
    for c in s:
        esc = _SIMPLE_ESCAPES.get(c)
        if esc is not None:
            out.append(esc)
        elif c.isprintable():
            out.append(c)
        else:
            cp = ord(c)
            if cp < 0x20 or cp == 0x7F:
                out.append(f"\\x{cp:02x}")
            elif 0xD800 <= cp <= 0xDFFF:
                out.append(_REPLACEMENT)  # what Go's JSON decoder made of it; printable
            elif cp < 0x10000:
                out.append(f"\\u{cp:04x}")
            else:
                out.append(f"\\U{cp:08x}")
    out.append('"')
    return "".join(out)


def _shortest_digits(f: float) -> tuple[str, int]:
    """Shortest round-trip digits of ``abs(f)`` (no leading or trailing zeros) and the position
    of the decimal point relative to the first digit."""
    _, digits, exponent = Decimal(repr(abs(f))).as_tuple()
    assert isinstance(exponent, int)
    ds = "".join(map(str, digits))
    stripped = ds.lstrip("0")
    dp = len(stripped) + exponent
    return stripped.rstrip("0") or "0", dp


def _fmt_e(ds: str, dp: int) -> str:
    exp = dp - 1
    mant = ds[0] + ("." + ds[1:] if len(ds) > 1 else "")
    sign = "-" if exp < 0 else "+"
    return f"{mant}e{sign}{abs(exp):02d}"


def _fmt_f(ds: str, dp: int) -> str:
    if dp <= 0:
        return "0." + "0" * (-dp) + ds
    if dp >= len(ds):
        return ds + "0" * (dp - len(ds))
    return ds[:dp] + "." + ds[dp:]


def _go_float_v(f: float) -> str:
    """Go's ``%v`` for a float64 (``strconv.FormatFloat(f, 'g', -1, 64)``)."""
    return _go_float(f, for_json=False)


def _go_json_float(f: float) -> str:
    """A float as Go's ``encoding/json`` writes it."""
    return _go_float(f, for_json=True)


def _go_float(f: float, *, for_json: bool) -> str:
    """Shortest digits, in exponent form where Go's ``%v`` (exponent below -4 or from 6 on) or
    ``encoding/json`` (magnitude below 1e-6 or from 1e21 on, ``e-7`` not ``e-07``) uses it."""
    if math.isnan(f):
        return "NaN"
    if math.isinf(f):
        return "+Inf" if f > 0 else "-Inf"
    neg = "-" if math.copysign(1.0, f) < 0 else ""
    if f == 0:
        return neg + "0"
    ds, dp = _shortest_digits(f)
    if for_json:
        a = abs(f)
        if a < 1e-6 or a >= 1e21:
            return neg + re.sub(r"e-0(\d)$", r"e-\1", _fmt_e(ds, dp))
    elif dp - 1 < -4 or dp - 1 >= 6:
        return neg + _fmt_e(ds, dp)
    return neg + _fmt_f(ds, dp)


class _NotJSON(Exception):
    pass


def _without_surrogates(s: str) -> str:
    """``s`` with each lone surrogate replaced by U+FFFD, as Go's JSON decoder replaces it."""
    if s.isascii():
        return s
    return "".join(_REPLACEMENT if 0xD800 <= ord(c) <= 0xDFFF else c for c in s)


def _json_str(s: str) -> str:
    import json  # error rendering only: not loaded with the package

    out = json.dumps(_without_surrogates(s), ensure_ascii=False)
    if any(c in out for c in "<>&\u2028\u2029"):
        out = (
            out.replace("<", "\\u003c")
            .replace(">", "\\u003e")
            .replace("&", "\\u0026")
            .replace("\u2028", "\\u2028")
            .replace("\u2029", "\\u2029")
        )
    return out


_MAX_DEPTH: Final = 200


def _go_json(value: Any, *, sort_keys: bool = True, depth: int = 0) -> str:
    """Compact JSON as Go's ``json.Marshal`` writes it: plain mappings with sorted keys (Go
    maps); struct-like objects (``to_dict()``, pydantic models, dataclasses) and everything
    inside them in their own order (Go structs); ``<``, ``>``, ``&`` escaped."""
    if depth > _MAX_DEPTH:
        raise _NotJSON
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return _json_str(value)
    if isinstance(value, enum.Enum):
        return _go_json(value.value, depth=depth + 1)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _go_json_float(value)
    if isinstance(value, datetime.datetime):
        text = value.isoformat()
        if value.tzinfo is None or value.utcoffset() == datetime.timedelta(0):
            text = text.removesuffix("+00:00") + "Z"
        return _json_str(text)
    if isinstance(value, datetime.date):
        return _json_str(value.isoformat())
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict) and not isinstance(value, type):
        return _go_json(to_dict(), sort_keys=False, depth=depth + 1)
    model_dump = getattr(value, "model_dump", None)
    if callable(model_dump) and not isinstance(value, type):
        dumped = model_dump(mode="json", by_alias=True, exclude_none=True)
        return _go_json(dumped, sort_keys=False, depth=depth + 1)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _go_json(
            {f.name: getattr(value, f.name) for f in dataclasses.fields(value)},
            sort_keys=False,
            depth=depth + 1,
        )
    if isinstance(value, Mapping):
        items = [(str(k), v) for k, v in value.items()]
        if sort_keys:
            items.sort(key=lambda kv: kv[0])
        return (
            "{"
            + ",".join(
                _json_str(k) + ":" + _go_json(v, sort_keys=sort_keys, depth=depth + 1)
                for k, v in items
            )
            + "}"
        )
    if isinstance(value, (set, frozenset)):
        return "[" + ",".join(sorted(_go_json(v, depth=depth + 1) for v in value)) + "]"
    if isinstance(value, (list, tuple)):
        return (
            "[" + ",".join(_go_json(v, sort_keys=sort_keys, depth=depth + 1) for v in value) + "]"
        )
    if isinstance(value, (bytes, bytearray)):
        import base64

        return '"' + base64.b64encode(bytes(value)).decode("ascii") + '"'
    raise _NotJSON
