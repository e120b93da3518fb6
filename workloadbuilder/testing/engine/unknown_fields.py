"""Unknown fields and wrong JSON types, found with the SDK's own models of the upstream objects."""

from __future__ import annotations

import importlib
import json
import re
import types
import typing
from collections.abc import Callable
from typing import Any

from workloadbuilder.api.meta_v1 import ObjectMeta
from workloadbuilder.testing.engine.core_fields import SHAPES, unknown_paths
from workloadbuilder.testing.engine.object_types import json_kind

FieldChecker = Callable[[str, str, str, dict[str, Any]], list[str]]
"""``(group, version, kind, obj) -> paths of unknown fields`` such as ``spec.foo``."""

_MODULE_PREFIX = {"": "core", "scheduling.k8s.io": "scheduling"}


def _model(group: str, version: str, kind: str) -> Any:
    prefix = _MODULE_PREFIX.get(group, group.split(".")[0])
    try:
        module = importlib.import_module(f"workloadbuilder.api.{prefix}_{version}")
    except ImportError:
        return None
    model = getattr(module, kind, None)
    return model if hasattr(model, "model_validate") else None


def _format(loc: tuple[Any, ...]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else ("." if text else "") + str(part)
    return text


def _extra(model: Any, obj: Any, prefix: str = "") -> list[str]:
    try:
        model.model_validate(obj)
    except ValueError as exc:
        errors = getattr(exc, "errors", None)
        if callable(errors):
            return [
                prefix + _format(tuple(e["loc"]))
                for e in errors()
                if e.get("type") == "extra_forbidden"
            ]
    return []


def model_unknown_fields(group: str, version: str, kind: str, obj: dict[str, Any]) -> list[str]:
    """Unknown fields according to ``workloadbuilder.api``, or for the kinds it does not model
    according to :data:`~workloadbuilder.testing.engine.core_fields.SHAPES`."""
    model = _model(group, version, kind)
    if model is not None:
        return _extra(model, obj)
    shape = SHAPES.get((group, kind))
    if shape is None:
        return []
    return unknown_paths(shape, obj, _metadata_fields)


def metadata_unknown_fields(obj: dict[str, Any]) -> list[str]:
    """The unknown fields of ``obj``'s ``metadata`` (ObjectMeta's)."""
    return _metadata_fields(obj.get("metadata"), "metadata")


def _metadata_fields(value: Any, path: str) -> list[str]:
    return _extra(ObjectMeta, value, path + ".") if isinstance(value, dict) else []


_INDEXES = re.compile(r"((?:\[[0-9]+\])*)$")


def _path_parts(path: str) -> list[str | int]:
    """The keys and indexes of a path as :func:`_format` writes it; an empty segment is an
    empty key (``metadata.`` names the key ``""`` inside ``metadata``)."""
    parts: list[str | int] = []
    for segment in path.split("."):
        indexes = _INDEXES.search(segment)
        assert indexes is not None  # the pattern matches the empty suffix at least
        name = segment[: indexes.start()]
        if name or not indexes.group(1):
            parts.append(name)
        parts.extend(int(i) for i in re.findall(r"[0-9]+", indexes.group(1)))
    return parts


def prune(obj: dict[str, Any], path: str) -> None:
    """Remove the field at a dotted path with ``[i]`` indexes (as :func:`_format` writes it);
    a path that leads nowhere removes nothing."""
    parts = _path_parts(path)
    current: Any = obj
    for part in parts[:-1]:
        try:
            current = current[part]
        except (KeyError, IndexError, TypeError):
            return
    if isinstance(current, dict) and isinstance(parts[-1], str):
        current.pop(parts[-1], None)


# -- wrong JSON types ---------------------------------------------------------------------

_TYPE_ERRORS = frozenset(
    {
        "string_type",
        "int_type",
        "int_from_float",
        "bool_type",
        "float_type",
        "list_type",
        "dict_type",
        "model_type",
        "model_attributes_type",
    }
)
_INT32_BOUNDS = frozenset({2**31 - 1, -(2**31)})


def _unwrap(annotation: Any) -> Any:
    """The annotation without ``Annotated``, ``Optional`` and ``None``."""
    while True:
        origin = typing.get_origin(annotation)
        if origin is typing.Annotated:
            annotation = typing.get_args(annotation)[0]
        elif origin in (typing.Union, types.UnionType):
            args = [a for a in typing.get_args(annotation) if a is not type(None)]
            annotation = args[0] if len(args) == 1 else annotation
            if len(args) != 1:
                return annotation
        else:
            return annotation


def _is_int32(annotation: Any) -> bool:
    if typing.get_origin(annotation) is typing.Annotated:
        for extra in typing.get_args(annotation)[1:]:
            for item in [extra, *getattr(extra, "metadata", [])]:
                if getattr(item, "le", None) in _INT32_BOUNDS or getattr(item, "ge", None) in (
                    _INT32_BOUNDS
                ):
                    return True
        return _is_int32(typing.get_args(annotation)[0])
    return any(_is_int32(a) for a in typing.get_args(annotation))


def _go_type(annotation: Any) -> str:
    """Go's name of the type a field of ``annotation`` has (``int32``, ``[]v1beta1.X``...)."""
    if _is_int32(annotation):
        return "int32"
    bare = _unwrap(annotation)
    origin = typing.get_origin(bare)
    if origin is list:
        return "[]" + _go_type(typing.get_args(bare)[0])
    if origin is dict:
        return "map[string]" + _go_type(typing.get_args(bare)[1])
    if isinstance(bare, type) and hasattr(bare, "model_fields"):
        package = bare.__module__.rpartition("_")[2]
        return f"{package}.{bare.__name__}"
    names = {str: "string", int: "int64", bool: "bool", float: "float64"}
    return names.get(bare, "string") if isinstance(bare, type) else "string"


def _field(model: Any, name: str) -> Any:
    for info in model.model_fields.values():
        if (info.alias or "") == name:
            return info
    return None


def _located(model: Any, loc: tuple[Any, ...]) -> tuple[str, str, str] | None:
    """``(struct, dotted path, Go type)`` of the field at a pydantic ``loc``."""
    struct, annotation, names = model.__name__, None, []
    current: Any = model
    for part in loc:
        if isinstance(part, int):
            bare = _unwrap(annotation)
            if typing.get_origin(bare) is not list:
                return None
            annotation = typing.get_args(bare)[0]
            current = _unwrap(annotation)
            continue
        if not (isinstance(current, type) and hasattr(current, "model_fields")):
            bare = _unwrap(annotation)
            if typing.get_origin(bare) is dict:  # a map value
                annotation = typing.get_args(bare)[1]
                current = _unwrap(annotation)
                continue
            return None
        info = _field(current, str(part))
        if info is None:
            return None
        struct = current.__name__
        names.append(str(part))
        annotation = (
            info.annotation
            if not info.metadata
            else typing.Annotated[info.annotation, *info.metadata]
        )
        current = _unwrap(annotation)
    if annotation is None:
        return None
    return struct, ".".join(names), _go_type(annotation)


def model_type_errors(group: str, version: str, kind: str, obj: dict[str, Any]) -> list[str]:
    """Go's ``json: cannot unmarshal ...`` texts for values of the wrong JSON type in ``obj``.

    Only for the kinds ``workloadbuilder.api`` models; ``metadata`` is checked elsewhere.
    """
    model = _model(group, version, kind)
    if model is None:
        return []
    try:
        model.model_validate({k: v for k, v in obj.items() if k != "metadata"})
    except ValueError as exc:
        found = getattr(exc, "errors", None)
        if not callable(found):
            return []
        texts = []
        for error in found():
            loc = tuple(error["loc"])
            ctx = error.get("ctx") or {}
            wrong_type = error["type"] in _TYPE_ERRORS
            out_of_int32 = error["type"].endswith("_equal") and (
                ctx.get("le") in _INT32_BOUNDS or ctx.get("ge") in _INT32_BOUNDS
            )
            if not (wrong_type or out_of_int32) or not loc or loc[0] == "metadata":
                continue
            if error.get("input") is None:  # JSON null is Go's zero value
                continue
            located = _located(model, loc)
            if located is None:
                continue
            struct, path, go_type = located
            value = error.get("input")
            shown = json_kind(value)
            if out_of_int32 or (isinstance(value, float) and go_type.startswith("int")):
                shown = f"number {json.dumps(value)}"
            texts.append(
                f"json: cannot unmarshal {shown} into Go struct field {struct}.{path} "
                f"of type {go_type}"
            )
        return texts
    return []
