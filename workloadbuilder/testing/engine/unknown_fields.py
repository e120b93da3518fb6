"""Unknown-field detection from the SDK's own models of the upstream objects."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from workloadbuilder.api.meta_v1 import ObjectMeta

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


_OBJECT = ("apiVersion", "kind", "metadata")
_EVENT = (
    "involvedObject",
    "reason",
    "message",
    "source",
    "firstTimestamp",
    "lastTimestamp",
    "count",
    "type",
    "eventTime",
    "series",
    "action",
    "related",
    "reportingComponent",
    "reportingInstance",
)
TOP_LEVEL: dict[tuple[str, str], tuple[str, ...]] = {
    ("", "Pod"): (*_OBJECT, "spec", "status"),
    ("", "Namespace"): (*_OBJECT, "spec", "status"),
    ("", "Node"): (*_OBJECT, "spec", "status"),
    ("", "Event"): (*_OBJECT, *_EVENT),
    ("batch", "Job"): (*_OBJECT, "spec", "status"),
    ("scheduling.k8s.io", "PriorityClass"): (
        *_OBJECT,
        "value",
        "globalDefault",
        "description",
        "preemptionPolicy",
    ),
}
"""The top-level fields of the kinds the SDK does not model (their metadata is checked too)."""


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
    """Unknown fields according to ``workloadbuilder.api``; for the kinds it does not model,
    the unknown top-level and ``metadata`` fields."""
    model = _model(group, version, kind)
    if model is not None:
        return _extra(model, obj)
    known = TOP_LEVEL.get((group, kind))
    if known is None:
        return []
    unknown = [key for key in obj if key not in known]
    if isinstance(obj.get("metadata"), dict):
        unknown += _extra(ObjectMeta, obj["metadata"], "metadata.")
    return unknown


def prune(obj: dict[str, Any], path: str) -> None:
    """Remove the field at a dotted path with ``[i]`` indexes (as :func:`_format` writes it)."""
    parts: list[str | int] = []
    for chunk in path.replace("[", ".[").split("."):
        if chunk.startswith("[") and chunk[1:-1].isascii() and chunk[1:-1].isdigit():
            parts.append(int(chunk[1:-1]))
        elif chunk:
            parts.append(chunk)
    if not parts:
        return
    current: Any = obj
    for part in parts[:-1]:
        try:
            current = current[part]
        except (KeyError, IndexError, TypeError):
            return
    if isinstance(current, dict):
        current.pop(parts[-1], None)
