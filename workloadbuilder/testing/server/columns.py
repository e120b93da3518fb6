"""The parts every server-side ``Table`` shares: the column tuple, the ``Name`` and ``Age``
columns (described with ObjectMeta's field documentation) and apimachinery's
``duration.HumanDuration``. ``tables`` (the built-in kinds' printers) and ``custom_columns``
(a custom resource's printer columns) both build on them.
"""

from __future__ import annotations

Column = tuple[str, str, str, int, str]
"""``(name, type, format, priority, description)``."""

_NAME_DOC = (
    "Name must be unique within a namespace. Is required when creating resources, although "
    "some resources may allow a client to request the generation of an appropriate name "
    "automatically. Name is primarily intended for creation idempotence and configuration "
    "definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"
)
AGE_DOC = (
    "CreationTimestamp is a timestamp representing the server time when this object was "
    "created. It is not guaranteed to be set in happens-before order across separate "
    "operations. Clients may not set this value. It is represented in RFC3339 form and is in "
    "UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
)
NAME: Column = ("Name", "string", "name", 0, _NAME_DOC)
AGE: Column = ("Age", "string", "", 0, AGE_DOC)


def human_duration(seconds: float) -> str:
    """apimachinery's ``duration.HumanDuration``: ``106s``, ``5m2s``, ``3h``, ``2d4h``, ..."""
    whole = int(seconds)
    if whole < -1:
        return "<invalid>"
    if whole < 0:
        return "0s"
    if whole < 120:
        return f"{whole}s"
    minutes = whole // 60
    if minutes < 10:
        return f"{minutes}m{whole % 60}s" if whole % 60 else f"{minutes}m"
    if minutes < 180:
        return f"{minutes}m"
    hours = whole // 3600
    if hours < 8:
        return f"{hours}h{minutes % 60}m" if minutes % 60 else f"{hours}h"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        return f"{hours // 24}d{hours % 24}h" if hours % 24 else f"{hours // 24}d"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        years, days = hours // 24 // 365, (hours // 24) % 365
        return f"{years}y{days}d" if days else f"{years}y"
    return f"{hours // 24 // 365}y"
