"""pydantic ``ValidationError``s as field errors at a controller's own paths."""

from __future__ import annotations

import ast
import enum
import re
import types
import typing
from collections.abc import Mapping, Sequence
from typing import Any, Final

from ._gorender import sprint

__all__ = ["convert_pydantic_error", "loc_to_path"]


_CAMEL_RE = re.compile(r"_([a-z0-9])")


def _camel(name: str) -> str:
    return _CAMEL_RE.sub(lambda m: m.group(1).upper(), name)


def _unwrap(tp: Any) -> Any:
    """Strip ``Annotated`` and ``Optional``; a union of several types stays a union."""
    while True:
        origin = typing.get_origin(tp)
        if origin is typing.Annotated:
            tp = typing.get_args(tp)[0]
            continue
        if origin is typing.Union or origin is types.UnionType:
            members = [a for a in typing.get_args(tp) if a is not type(None)]
            if len(members) == 1:
                tp = members[0]
                continue
        return tp


def _is_union(tp: Any) -> bool:
    return typing.get_origin(tp) in (typing.Union, types.UnionType)


def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and hasattr(tp, "model_fields")


def _model_field(tp: Any, name: str, aliases: bool) -> tuple[str, Any] | None:
    fields: Mapping[str, Any] = tp.model_fields
    for fname, info in fields.items():
        alias = getattr(info, "alias", None)
        if name == fname or (isinstance(alias, str) and name == alias):
            if isinstance(alias, str):
                return alias, info.annotation
            return (fname if aliases else _camel(fname)), info.annotation
    return None


def _mapping_value_type(tp: Any) -> tuple[bool, Any]:
    origin = typing.get_origin(tp) or tp
    if isinstance(origin, type) and issubclass(origin, Mapping):
        args = typing.get_args(tp)
        return True, (args[1] if len(args) == 2 else None)
    return False, None


def _sequence_item_type(tp: Any) -> Any:
    origin = typing.get_origin(tp) or tp
    if isinstance(origin, type) and issubclass(origin, Sequence) and not issubclass(origin, str):
        args = typing.get_args(tp)
        if args:
            return args[0]
    return None


def _looks_like_schema_tag(s: str) -> bool:
    return "[" in s or "(" in s


PathElement = tuple[bool, str]
"""One element of a path: ``(True, name)`` for a field name, ``(False, key)`` for a subscript."""


def loc_to_path(
    loc: Sequence[int | str],
    aliases: bool,
    model: type[Any] | None,
) -> tuple[list[PathElement], Any]:
    """The path elements a pydantic ``loc`` names, and the type found at its end (if known)."""
    path: list[PathElement] = []
    tp: Any = model

    def add_name(name: str) -> None:
        path.append((True, name))

    def add_sub(sub: str) -> None:
        path.append((False, sub))

    for elem in loc:
        tp = _unwrap(tp) if tp is not None else None
        if isinstance(elem, str) and tp is not None and _is_union(tp):
            chosen = None
            for member in typing.get_args(tp):
                m = _unwrap(member)
                if getattr(m, "__name__", None) == elem:
                    chosen = m
                    break
            if chosen is not None:
                tp = chosen
                continue
            tp = None
        if isinstance(elem, int):
            add_sub(str(elem))
            tp = _sequence_item_type(tp) if tp is not None else None
            continue
        if elem == "[key]":
            continue
        is_map, value_type = _mapping_value_type(tp) if tp is not None else (False, None)
        if is_map:
            add_sub(elem)
            tp = value_type
            continue
        if tp is not None and _is_model(tp):
            found = _model_field(tp, elem, aliases)
            if found is not None:
                add_name(found[0])
                tp = found[1]
                continue
            add_name(elem if aliases else _camel(elem))
            tp = None
            continue
        if _looks_like_schema_tag(elem):
            continue
        add_name(elem if aliases else _camel(elem))
        tp = None
    leaf = _unwrap(tp) if tp is not None else None
    return path, leaf


_TYPE_DETAILS: Final[dict[str, str]] = {
    "int_type": "must be of type integer",
    "int_parsing": "must be of type integer",
    "int_from_float": "must be of type integer",
    "float_type": "must be of type number",
    "float_parsing": "must be of type number",
    "string_type": "must be of type string",
    "bool_type": "must be of type boolean",
    "bool_parsing": "must be of type boolean",
    "list_type": "must be of type array",
    "tuple_type": "must be of type array",
    "set_type": "must be of type array",
    "dict_type": "must be of type object",
    "model_type": "must be of type object",
    "model_attributes_type": "must be of type object",
    "dataclass_type": "must be of type object",
}

_BOUNDS: Final[dict[str, tuple[str, str]]] = {
    "greater_than_equal": ("ge", "must be greater than or equal to"),
    "greater_than": ("gt", "must be greater than"),
    "less_than_equal": ("le", "must be less than or equal to"),
    "less_than": ("lt", "must be less than"),
    "multiple_of": ("multiple_of", "must be a multiple of"),
}


def _allowed_values(leaf_type: Any, ctx: Mapping[str, Any]) -> list[Any]:
    if leaf_type is not None:
        if typing.get_origin(leaf_type) is typing.Literal:
            return [v.value if isinstance(v, enum.Enum) else v for v in typing.get_args(leaf_type)]
        if isinstance(leaf_type, type) and issubclass(leaf_type, enum.Enum):
            return [m.value for m in leaf_type]
    expected = ctx.get("expected")
    if not isinstance(expected, str):
        return []
    values: list[Any] = []
    for part in re.split(r",\s+|\s+or\s+", expected):
        part = part.strip()
        if not part:
            continue
        try:
            values.append(ast.literal_eval(part))
        except (ValueError, SyntaxError):
            values.append(part)
    return values


def _sort_key(v: Any) -> tuple[str, str]:
    return (type(v).__name__, sprint(v))


Conversion = tuple[str, tuple[Any, ...]]
"""The name of the ``FieldError`` constructor to call and its arguments after the path."""


def convert_pydantic_error(err: Mapping[str, Any], leaf: Any) -> Conversion:
    """The ``FieldError`` constructor (by name) and its arguments after the path, for one
    pydantic error; ``leaf`` is the type at the error's location, when known."""
    kind = str(err.get("type", ""))
    msg = str(err.get("msg", ""))
    ctx: Mapping[str, Any] = err.get("ctx") or {}
    value = err.get("input")
    if kind == "missing":
        return ("required", ())
    if kind == "extra_forbidden":
        return ("forbidden", ("unknown field",))
    if kind in _TYPE_DETAILS:
        return (
            "type_invalid",
            (
                value,
                _TYPE_DETAILS[kind],
            ),
        )
    if kind in _BOUNDS:
        key, text = _BOUNDS[kind]
        return (
            "invalid",
            (
                value,
                f"{text} {sprint(ctx.get(key))}",
            ),
        )
    if kind in ("literal_error", "enum", "union_tag_invalid"):
        allowed = sorted(_allowed_values(leaf, ctx), key=_sort_key)
        if kind == "union_tag_invalid":
            value = ctx.get("tag", value)
            raw = ctx.get("expected_tags")
            if isinstance(raw, str):
                allowed = sorted(_allowed_values(None, {"expected": raw}), key=_sort_key)
        return (
            "not_supported",
            (
                value,
                allowed,
            ),
        )
    if kind == "union_tag_not_found":
        return ("required", (str(ctx.get("discriminator", "")).strip("'"),))
    if kind == "too_long":
        if isinstance(value, (str, bytes)):
            return (
                "too_long",
                (
                    value,
                    int(ctx.get("max_length", -1)),
                ),
            )
        actual = ctx.get("actual_length")
        n = int(actual) if isinstance(actual, int) else _len_or(value, -1)
        return (
            "too_many",
            (
                n,
                int(ctx.get("max_length", -1)),
            ),
        )
    if kind == "too_short":
        actual = ctx.get("actual_length")
        n = int(actual) if isinstance(actual, int) else _len_or(value, 0)
        minimum = int(ctx.get("min_length", 0))
        if n == 0 and minimum == 1:
            return ("required", ())
        return (
            "too_few",
            (
                n,
                minimum,
            ),
        )
    if kind == "string_too_long":
        return (
            "too_long",
            (
                value,
                int(ctx.get("max_length", -1)),
            ),
        )
    if kind == "string_too_short":
        minimum = int(ctx.get("min_length", 0))
        if value == "" and minimum == 1:
            return ("required", ())
        return (
            "too_short",
            (
                value,
                minimum,
            ),
        )
    if kind in ("value_error", "assertion_error") and "error" in ctx:
        return (
            "invalid",
            (
                value,
                str(ctx["error"]),
            ),
        )
    return (
        "invalid",
        (
            value,
            msg,
        ),
    )


def _len_or(value: Any, default: int) -> int:
    try:
        return len(value)
    except TypeError:
        return default
