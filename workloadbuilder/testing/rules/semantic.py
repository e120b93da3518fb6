"""apimachinery's ``Semantic.DeepEqual`` on v1 JSON, and what differs where it does not hold.

Update validation compares the *internal* Go structs (``pkg/apis/core``) with
``apiequality.Semantic.DeepEqual``: a field left out equals its zero value, a nil slice or map
equals an empty one (a nil pointer to a struct does not equal an empty struct) and quantities
are compared by value (``1`` equals ``1000m``). :func:`normal` writes v1 JSON in that form,
through the layouts of :mod:`.internal_core`, so that ``==`` decides as the API server does;
:func:`differences` names the fields that differ, as v1 paths.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Final

from . import quantity
from .internal_core import HOST_FIELDS, converted, is_tagged, layout

__all__ = ["MapKey", "Path", "differences", "normal", "v1_path"]

# The ``*`` fields (maps, pointers) that hold ``resource.Quantity`` values.
_QUANTITIES: Final = frozenset(
    {
        ("ResourceRequirements", "Limits"),
        ("ResourceRequirements", "Requests"),
        ("VolumeResourceRequirements", "Limits"),
        ("VolumeResourceRequirements", "Requests"),
        ("PodSpec", "Overhead"),
        ("EmptyDirVolumeSource", "SizeLimit"),
    }
)


class _Map(dict[str, Any]):
    """A Go map (its keys are data), as opposed to a struct."""


class MapKey(str):
    """A path segment that is a map's key (written ``[key]``), not a field name."""

    __slots__ = ()


def _quantity(value: Any) -> Any:
    """A quantity's exact value (as ``ParseQuantity`` reads it); what does not parse, or whose
    exponent is beyond any stored value's, stays as it is."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return Fraction(value)
    if not isinstance(value, str):
        return value
    try:
        parsed = quantity.parse(value.strip())
    except quantity.QuantityError:
        return value
    return parsed.value if abs(parsed.exponent) <= _MAX_EXPONENT else value


_MAX_EXPONENT: Final = 1000


def _scalars(type_name: str, name: str, item: Any) -> Any:
    """A ``*`` field: a pointer, slice or map of scalars (nil, empty: the same)."""
    if item is None or (isinstance(item, list | dict) and not item):
        return None
    if (type_name, name) not in _QUANTITIES:
        return _Map(item) if isinstance(item, dict) else item
    if isinstance(item, dict):
        return _Map({k: _quantity(v) for k, v in item.items()})
    return _quantity(item)


def _tagged(item: Any) -> Any:
    """A ``metav1`` field: its zero value and ``null`` the same."""
    if item is None or item is False or (isinstance(item, str | list | dict) and not item):
        return None
    if type(item) is int and item == 0:
        return None
    return _Map(item) if isinstance(item, dict) else item


def normal(type_name: str, value: Any) -> dict[str, Any]:
    """``value``, the v1 JSON of ``type_name``, as its internal struct compares: every field
    (by its v1 key) with its zero value when unset, empty slices and maps as nil."""
    value = converted(type_name, value if isinstance(value, dict) else {})
    tagged = is_tagged(type_name)
    out: dict[str, Any] = {}
    for field in layout(type_name):
        if field.embedded:
            inner = value.get(field.key) if field.key else value
            if field.key:
                out[field.key] = normal(field.kind, inner)
            else:
                out.update(normal(field.kind, inner))
            continue
        item, kind = value.get(field.key), field.kind
        if tagged and kind in ("", "*"):
            out[field.key] = _tagged(item)
        elif kind in ("", "i", "b", "q"):
            zero: Any = {"": "", "i": 0, "b": False, "q": 0}[kind]
            out[field.key] = zero if item is None else item
            if kind == "q":
                out[field.key] = _quantity(out[field.key])
        elif kind == "*":
            out[field.key] = _scalars(type_name, field.name, item)
        elif kind.startswith("["):
            inner_type = kind.strip("[]")
            if isinstance(item, list):
                out[field.key] = [normal(inner_type, x) for x in item] or None
            else:
                out[field.key] = item
        elif kind.startswith("*"):
            out[field.key] = normal(kind[1:], item) if isinstance(item, dict) else item
        elif kind == "raw":
            out[field.key] = item
        else:
            out[field.key] = normal(kind, item)
    return out


Path = tuple[str | int, ...]


def differences(old: Any, new: Any, at: Path = ()) -> list[Path]:
    """The paths (keys and indexes, v1 names) where two :func:`normal` trees differ, in field
    order: into structs, maps (keys sorted) and equally long lists; elsewhere the whole value."""
    if old == new:
        return []
    if isinstance(old, dict) and isinstance(new, dict) and type(old) is type(new):
        if isinstance(old, _Map):
            keys: list[str] = [MapKey(k) for k in sorted(set(old) | set(new))]
        else:
            keys = list(old)
        return [p for k in keys for p in differences(old.get(k), new.get(k), (*at, k))]
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        pairs = enumerate(zip(old, new, strict=True))
        return [p for i, (a, b) in pairs for p in differences(a, b, (*at, i))]
    return [at]


def v1_path(type_name: str, at: Path) -> Path:
    """Where a :func:`differences` path of ``type_name`` lives in its v1 JSON (a PodSpec's
    host namespace fields sit on the spec, not in its security context)."""
    host = type_name == "PodSpec" and len(at) == 2 and at[0] == "securityContext"
    if host and at[1] in HOST_FIELDS:
        return (at[1],)
    return at
