"""Patch formats: JSON merge patch, strategic merge patch (list-maps by key) and JSON patch."""

from __future__ import annotations

from typing import Any

from workloadbuilder.testing.apply.fieldset import LIST_MAP_KEYS


def copy_json(value: Any) -> Any:
    """A deep copy of a JSON value (faster than ``copy.deepcopy``)."""
    if isinstance(value, dict):
        return {k: copy_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_json(v) for v in value]
    return value


def strip_nulls(value: Any) -> Any:
    """``value`` without ``null`` map entries (an applied configuration does not own them)."""
    if isinstance(value, dict):
        return {k: strip_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [strip_nulls(v) for v in value]
    return value


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386 JSON merge patch: maps merge, ``null`` deletes, everything else replaces."""
    if not isinstance(patch, dict):
        return copy_json(patch)
    base = target if isinstance(target, dict) else {}
    result = {k: copy_json(v) for k, v in base.items() if k not in patch}
    for key, value in patch.items():
        if value is not None:
            result[key] = merge_patch(base.get(key), value)
    return result


def strategic_merge(target: Any, patch: Any) -> Any:
    """Strategic merge patch: like a merge patch, but list-maps merge entry by entry by key.

    ``$patch: delete`` on a list-map entry removes it and ``$patch: replace`` on a map replaces
    it; other ``$`` directives (``$setElementOrder``, ``$retainKeys``) are accepted and ignored.
    """
    if not isinstance(patch, dict):
        return copy_json(patch)
    if patch.get("$patch") == "replace":
        return {k: copy_json(v) for k, v in patch.items() if not k.startswith("$")}
    base = target if isinstance(target, dict) else {}
    result = {k: copy_json(v) for k, v in base.items() if k not in patch}
    for key, value in patch.items():
        if key.startswith("$") or value is None:
            continue
        keys = LIST_MAP_KEYS.get(key)
        current = base.get(key)
        if keys and isinstance(value, list) and isinstance(current, list):
            result[key] = _merge_list_map(current, value, keys)
        else:
            result[key] = strategic_merge(current, value)
    return result


def _merge_list_map(current: list[Any], patch: list[Any], keys: tuple[str, ...]) -> list[Any]:
    def ident(item: Any) -> tuple[Any, ...] | None:
        if isinstance(item, dict) and all(k in item for k in keys):
            return tuple(item[k] for k in keys)
        return None

    if any(ident(item) is None for item in (*current, *patch)):
        return [copy_json(item) for item in patch]
    merged: list[Any] = list(current)
    touched: set[int] = set()
    for item in patch:
        index = next((i for i, old in enumerate(merged) if ident(old) == ident(item)), -1)
        if item.get("$patch") == "delete":
            if index >= 0:
                del merged[index]
                touched = {t - (t > index) for t in touched if t != index}
        elif index >= 0:
            merged[index] = strategic_merge(merged[index], item)
            touched.add(index)
        else:
            merged.append(strategic_merge({}, item))
            touched.add(len(merged) - 1)
    return [item if i in touched else copy_json(item) for i, item in enumerate(merged)]


class JSONPatchError(ValueError):
    """A JSON patch operation that cannot be applied."""


def json_patch(document: Any, operations: Any) -> Any:
    """RFC 6902 JSON patch: ``add``, ``remove``, ``replace``, ``move``, ``copy``, ``test``."""
    if not isinstance(operations, list):
        raise JSONPatchError("a JSON patch must be a list of operations")
    doc = copy_json(document)
    for op in operations:
        if not isinstance(op, dict) or "op" not in op or "path" not in op:
            raise JSONPatchError(f"invalid JSON patch operation {op!r}: needs 'op' and 'path'")
        kind, path = op["op"], _pointer(op["path"])
        if kind == "add":
            doc = _add(doc, path, copy_json(_arg(op, "value")))
        elif kind == "remove":
            doc, _ = _remove(doc, path)
        elif kind == "replace":
            doc, _ = _remove(doc, path)
            doc = _add(doc, path, copy_json(_arg(op, "value")))
        elif kind in ("move", "copy"):
            source = _pointer(_arg(op, "from"))
            if kind == "move":
                doc, value = _remove(doc, source)
            else:
                value = copy_json(_get(doc, source))
            doc = _add(doc, path, value)
        elif kind == "test":
            if _get(doc, path) != _arg(op, "value"):
                raise JSONPatchError(f"testing value {op['path']} failed")
        else:
            raise JSONPatchError(f"unexpected kind of JSON patch operation: {kind!r}")
    return doc


def _arg(op: dict[str, Any], name: str) -> Any:
    if name not in op:
        raise JSONPatchError(f"JSON patch operation {op['op']!r} needs {name!r}")
    return op[name]


def _pointer(text: Any) -> list[str]:
    if not isinstance(text, str) or (text and not text.startswith("/")):
        raise JSONPatchError(f"invalid JSON pointer {text!r}: must be empty or start with '/'")
    if not text:
        return []
    return [p.replace("~1", "/").replace("~0", "~") for p in text[1:].split("/")]


def _index(container: list[Any], token: str, *, append: bool) -> int:
    if append and token == "-":
        return len(container)
    if not (token.isascii() and token.isdigit()):
        raise JSONPatchError(f"invalid array index {token!r}")
    index = int(token)
    if index > len(container) or (not append and index == len(container)):
        raise JSONPatchError(f"array index {index} out of bounds")
    return index


def _get(doc: Any, path: list[str]) -> Any:
    current = doc
    for token in path:
        if isinstance(current, dict) and token in current:
            current = current[token]
        elif isinstance(current, list):
            current = current[_index(current, token, append=False)]
        else:
            raise JSONPatchError(f"missing value at /{'/'.join(path)}")
    return current


def _add(doc: Any, path: list[str], value: Any) -> Any:
    if not path:
        return value
    parent = _get(doc, path[:-1])
    if isinstance(parent, dict):
        parent[path[-1]] = value
    elif isinstance(parent, list):
        parent.insert(_index(parent, path[-1], append=True), value)
    else:
        raise JSONPatchError(f"cannot add at /{'/'.join(path)}: parent is not a container")
    return doc


def _remove(doc: Any, path: list[str]) -> tuple[Any, Any]:
    if not path:
        return None, doc
    parent = _get(doc, path[:-1])
    if isinstance(parent, dict):
        if path[-1] not in parent:
            raise JSONPatchError(f"missing value at /{'/'.join(path)}")
        return doc, parent.pop(path[-1])
    if isinstance(parent, list):
        return doc, parent.pop(_index(parent, path[-1], append=False))
    raise JSONPatchError(f"missing value at /{'/'.join(path)}")
