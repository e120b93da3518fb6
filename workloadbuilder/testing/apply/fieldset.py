"""Field paths and field sets in the ``FieldsV1`` format of ``metadata.managedFields``.

A path is a tuple of elements: ``f:<field>`` for a struct or map field and ``k:<json>`` for an
entry of a list-map (a list merged by key, such as ``podGroupTemplates`` keyed by ``name``).
Every other list is atomic and owned as a whole.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

Path = tuple[str, ...]

# Lists merged by key, by field name (the same field name has the same keys wherever it sits).
LIST_MAP_KEYS: dict[str, tuple[str, ...]] = {
    "podGroupTemplates": ("name",),
    "compositePodGroupTemplates": ("name",),
    "resourceClaims": ("name",),
    "resourceClaimStatuses": ("name",),
    "conditions": ("type",),
    "containers": ("name",),
    "initContainers": ("name",),
    "ephemeralContainers": ("name",),
    "env": ("name",),
    "volumes": ("name",),
    "volumeMounts": ("mountPath",),
    "ownerReferences": ("uid",),
    "webhooks": ("name",),  # admissionregistration/v1 webhook configurations
}


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


def list_keys(field: str, value: Any) -> tuple[str, ...] | None:
    """The merge keys if ``value`` at ``field`` is a list-map whose items all carry them."""
    keys = LIST_MAP_KEYS.get(field)
    if keys is None or not isinstance(value, list):
        return None
    for item in value:
        if not isinstance(item, dict) or any(k not in item for k in keys):
            return None
    return keys


def key_element(item: dict[str, Any], keys: tuple[str, ...]) -> str:
    """The ``k:{...}`` element of a list-map entry."""
    return "k:" + json.dumps({k: item[k] for k in sorted(keys)}, separators=(",", ":"))


@lru_cache(maxsize=4096)
def _parse_key(element: str) -> tuple[tuple[str, Any], ...]:
    return tuple(json.loads(element[2:]).items())


def find_item(items: list[Any], element: str) -> int:
    """Index of the list-map entry named by ``element``, or -1."""
    pairs = _parse_key(element)
    for i, item in enumerate(items):
        if isinstance(item, dict) and all(item.get(k, MISSING) == v for k, v in pairs):
            return i
    return -1


def fieldset(obj: dict[str, Any], prefix: Path = ()) -> set[Path]:
    """Every owned path of ``obj``: leaves, empty maps, and list-map entries with their fields."""
    out: set[Path] = set()
    _collect(obj, prefix, out)
    return out


def _collect(obj: dict[str, Any], prefix: Path, out: set[Path]) -> None:
    for name, value in obj.items():
        path = (*prefix, "f:" + name)
        if isinstance(value, dict) and value:
            _collect(value, path, out)
            continue
        keys = list_keys(name, value) if value else None
        if keys is None:
            out.add(path)
            continue
        for item in value:
            item_path = (*path, key_element(item, keys))
            out.add(item_path)
            _collect(item, item_path, out)


def get_at(obj: Any, path: Path) -> Any:
    """The value at ``path``, or :data:`MISSING`."""
    current = obj
    for element in path:
        if element.startswith("f:"):
            if not isinstance(current, dict):
                return MISSING
            current = current.get(element[2:], MISSING)
        else:
            if not isinstance(current, list):
                return MISSING
            index = find_item(current, element)
            if index < 0:
                return MISSING
            current = current[index]
        if current is MISSING:
            return MISSING
    return current


def delete_at(obj: dict[str, Any], path: Path, keep: set[Path]) -> None:
    """Remove ``path``, then containers left empty by it unless ``keep`` holds them.

    Top-level fields (``spec``, ``status``) are never removed.
    """
    chain: list[Any] = [obj]
    for element in path[:-1]:
        nxt = get_at(chain[-1], (element,))
        if nxt is MISSING:
            return
        chain.append(nxt)
    for depth in range(len(path), 0, -1):
        parent, element = chain[depth - 1], path[depth - 1]
        if depth < len(path):
            child = get_at(parent, (element,))
            if child or depth == 1 or path[:depth] in keep:
                return
        if element.startswith("f:"):
            parent.pop(element[2:], None)
        else:
            index = find_item(parent, element)
            if index >= 0:
                del parent[index]


def encode(paths: Iterable[Path]) -> dict[str, Any]:
    """The ``fieldsV1`` tree of ``paths``."""
    root: dict[str, Any] = {}
    owned: set[Path] = set(paths)
    for path in owned:
        node = root
        for element in path:
            node = node.setdefault(element, {})
    for path in owned:
        node = root
        for element in path:
            node = node[element]
        if node and "." not in node:
            node["."] = {}
    return _sorted(root)


def _sorted(node: dict[str, Any]) -> dict[str, Any]:
    return {k: _sorted(node[k]) for k in sorted(node, key=lambda e: (e != ".", e))}


def decode(fields: Any, prefix: Path = ()) -> set[Path]:
    """The paths of a ``fieldsV1`` tree; ``ValueError`` if it is not a tree of objects."""
    if not isinstance(fields, dict):
        raise ValueError(f"fieldsV1 under {list(prefix)} is not an object")
    out: set[Path] = set()
    for element, child in fields.items():
        if element == ".":
            out.add(prefix)
            continue
        _check_element(element)
        path = (*prefix, element)
        if child:
            out |= decode(child, path)
        elif isinstance(child, dict):
            out.add(path)
        else:
            raise ValueError(f"fieldsV1 under {list(path)} is not an object")
    return out


def _check_element(element: str) -> None:
    """A path element as structured-merge-diff spells it: ``f:<name>``, ``k:<JSON object>``,
    ``v:<JSON value>`` or ``i:<index>``; ``ValueError`` otherwise."""
    kind, sep, text = element.partition(":")
    try:
        if kind == "f" and sep:
            return
        if kind == "k" and isinstance(json.loads(text), dict):
            return
        if kind == "v":
            json.loads(text)
            return
        if kind == "i" and text.isdigit():
            return
    except ValueError:
        pass
    raise ValueError(f"{element!r} is not a field path element")


def format_path(path: Path) -> str:
    """The path as the API server prints it in conflicts: ``.spec.items[name="a"].x``."""
    parts: list[str] = []
    for element in path:
        if element.startswith("f:"):
            parts.append("." + element[2:])
        else:
            pairs = ",".join(f"{k}={json.dumps(v)}" for k, v in _parse_key(element))
            parts.append(f"[{pairs}]")
    return "".join(parts)
