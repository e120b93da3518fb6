"""Unknown-field detection from the SDK's own models of the upstream objects."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

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


def model_unknown_fields(group: str, version: str, kind: str, obj: dict[str, Any]) -> list[str]:
    """Unknown fields according to ``workloadbuilder.api``; none for kinds it does not model."""
    model = _model(group, version, kind)
    if model is None:
        return []
    try:
        model.model_validate(obj)
    except ValueError as exc:
        errors = getattr(exc, "errors", None)
        if callable(errors):
            return [
                _format(tuple(e["loc"])) for e in errors() if e.get("type") == "extra_forbidden"
            ]
    return []


def prune(obj: dict[str, Any], path: str) -> None:
    """Remove the field at a dotted path with ``[i]`` indexes (as :func:`_format` writes it)."""
    parts: list[str | int] = []
    for chunk in path.replace("[", ".[").split("."):
        if chunk.startswith("["):
            parts.append(int(chunk[1:-1]))
        elif chunk:
            parts.append(chunk)
    current: Any = obj
    for part in parts[:-1]:
        try:
            current = current[part]
        except (KeyError, IndexError, TypeError):
            return
    if isinstance(current, dict):
        current.pop(parts[-1], None)
