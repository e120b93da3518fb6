"""Label selectors (equality and set-based) and field selectors."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Predicate = Callable[[dict[str, Any]], bool]

_SET_RE = re.compile(r"^\s*([^\s!=,()]+)\s+(in|notin)\s+\(([^)]*)\)\s*$")
_EQ_RE = re.compile(r"^\s*([^\s!=,()]+)\s*(==|=|!=)\s*([^\s!=,()]*)\s*$")
_EXISTS_RE = re.compile(r"^\s*(!?)\s*([^\s!=,()]+)\s*$")


def _split(selector: str) -> list[str]:
    """Split on commas that are not inside parentheses."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(selector):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(selector[start:i])
            start = i + 1
    parts.append(selector[start:])
    return [p for p in parts if p.strip()]


def _requirement(text: str) -> Callable[[dict[str, str]], bool]:
    if m := _SET_RE.match(text):
        key, op, values = m[1], m[2], {v.strip() for v in m[3].split(",") if v.strip()}
        if op == "in":
            return lambda labels: labels.get(key) in values
        return lambda labels: labels.get(key) not in values
    if m := _EQ_RE.match(text):
        key, op, value = m[1], m[2], m[3]
        if op == "!=":
            return lambda labels: labels.get(key) != value
        return lambda labels: labels.get(key) == value
    if m := _EXISTS_RE.match(text):
        negate, key = m[1] == "!", m[2]
        return lambda labels: (key in labels) != negate
    raise ValueError(
        f"unable to parse requirement {text.strip()!r}: use key=value, key!=value, "
        "key in (a,b), key notin (a,b), key or !key"
    )


def label_selector(selector: str | None) -> Predicate:
    """A predicate on objects for ``labelSelector``; raises ``ValueError`` if malformed."""
    if not selector:
        return lambda obj: True
    reqs = [_requirement(part) for part in _split(selector)]

    def match(obj: dict[str, Any]) -> bool:
        labels = (obj.get("metadata") or {}).get("labels") or {}
        return all(req(labels) for req in reqs)

    return match


def _lookup(obj: dict[str, Any], dotted: str) -> str:
    current: Any = obj
    for part in dotted.split("."):
        current = current.get(part) if isinstance(current, dict) else None
    if current is None:
        return ""
    if isinstance(current, bool):
        return "true" if current else "false"
    return str(current)


def field_selector(selector: str | None) -> Predicate:
    """A predicate for ``fieldSelector`` (``=``, ``==``, ``!=`` on dotted paths)."""
    if not selector:
        return lambda obj: True
    reqs: list[tuple[str, bool, str]] = []
    for part in _split(selector):
        m = _EQ_RE.match(part)
        if not m:
            raise ValueError(
                f"invalid field selector {part.strip()!r}: use field=value or field!=value"
            )
        reqs.append((m[1], m[2] == "!=", m[3]))

    def match(obj: dict[str, Any]) -> bool:
        return all((_lookup(obj, path) == value) != negate for path, negate, value in reqs)

    return match


def matches_label_selector(selector: Any, labels: dict[str, Any]) -> bool:
    """A label selector (``matchLabels`` and ``matchExpressions``) against ``labels``."""
    if not isinstance(selector, dict):
        return False
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != value:
            return False
    for req in selector.get("matchExpressions") or []:
        key, op = req.get("key"), req.get("operator")
        values = req.get("values") or []
        if op == "In" and labels.get(key) not in values:
            return False
        if op == "NotIn" and key in labels and labels[key] in values:
            return False
        if op == "Exists" and key not in labels:
            return False
        if op == "DoesNotExist" and key in labels:
            return False
    return True
