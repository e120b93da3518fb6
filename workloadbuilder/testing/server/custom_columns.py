"""The ``Table`` columns of a custom resource: its version's ``additionalPrinterColumns``.

As apiextensions' table convertor: a ``Name`` column first, then each printer column (or,
when the version declares none, ``Age`` from ``.metadata.creationTimestamp``). A cell is the
column's JSONPath evaluated on the object: ``null`` when it finds nothing; for ``string``
columns the value as JSONPath prints it (JSON for objects and lists); for ``integer``,
``number`` and ``boolean`` the JSON value when it has that type (else ``null``); for ``date``
the age of the timestamp (``<invalid>`` when it is not one).

The JSONPath subset is what printer columns use: ``.a.b``, ``[0]``, ``['a.b']``, ``[*]`` and
``[?(@.type=="Ready")]``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import datetime
from typing import Any, Final

from workloadbuilder.testing.common.custom_types import CustomResourceType
from workloadbuilder.testing.server.columns import AGE, NAME, Column, human_duration

_TOKEN: Final = re.compile(
    r"""\.\.?(?P<name>[^.\[\]]+)"""
    r"""|\[(?P<index>-?\d+)\]"""
    r"""|\[\*\]"""
    r"""|\[['"](?P<quoted>[^'"]*)['"]\]"""
    r"""|\[\?\(@\.(?P<field>[^=!<>\s]+)\s*==\s*['"]?(?P<value>[^'")]*)['"]?\)\]"""
)
_DEFAULT: Final = {
    "name": "Age",
    "type": "date",
    "description": AGE[4],
    "jsonPath": ".metadata.creationTimestamp",
}


def _definitions(rt: CustomResourceType) -> list[dict[str, Any]]:
    return [dict(c) for c in rt.columns] or [dict(_DEFAULT)]


def columns(rt: CustomResourceType) -> list[Column]:
    """The column definitions: Name, then the printer columns."""
    return [NAME] + [
        (
            str(c.get("name", "")),
            str(c.get("type", "")),
            str(c.get("format", "")),
            int(c.get("priority", 0) or 0),
            str(c.get("description", "")),
        )
        for c in _definitions(rt)
    ]


def find(obj: Any, path: str) -> list[Any]:
    """The values JSONPath ``path`` (``{...}`` braces optional) selects in ``obj``."""
    path = path.strip()
    if path.startswith("{") and path.endswith("}"):
        path = path[1:-1]
    current = [obj]
    position = 0
    while position < len(path):
        match = _TOKEN.match(path, position)
        if match is None:
            return []
        position = match.end()
        current = [found for value in current for found in _step(value, match)]
    return current


def _step(value: Any, match: re.Match[str]) -> list[Any]:
    name = match.group("name") or match.group("quoted")
    if name is not None:
        return [value[name]] if isinstance(value, dict) and name in value else []
    if match.group("index") is not None:
        i = int(match.group("index"))
        return [value[i]] if isinstance(value, list) and -len(value) <= i < len(value) else []
    if not isinstance(value, list):
        return []
    field = match.group("field")
    if field is None:
        return list(value)
    return [
        item
        for item in value
        if isinstance(item, dict) and _text(item.get(field)) == match.group("value")
    ]


def _text(value: Any) -> str:
    """A value as JSONPath prints it."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value, separators=(",", ":"))
    return "" if value is None else str(value)


def _cell(kind: str, value: Any, now: datetime) -> Any:
    if kind == "string":
        return _text(value)
    if value is None:
        return None
    if kind == "integer" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return int(value)
    if kind == "number" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if kind == "boolean" and isinstance(value, bool):
        return value
    if kind == "date" and isinstance(value, str):
        try:
            then = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return "<invalid>"
        return human_duration((now - then).total_seconds())
    return None


def printer(rt: CustomResourceType) -> Callable[[dict[str, Any], datetime], list[Any]]:
    """The cells of one object's row."""
    definitions = _definitions(rt)

    def cells(obj: dict[str, Any], now: datetime) -> list[Any]:
        row: list[Any] = [obj.get("metadata", {}).get("name", "")]
        for column in definitions:
            found = find(obj, str(column.get("jsonPath", "")))
            row.append(_cell(str(column.get("type", "")), found[0], now) if found else None)
        return row

    return cells
