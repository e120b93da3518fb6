"""``metadata.managedFields`` bookkeeping: field ownership for updates and server-side apply."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from workloadbuilder.testing.apply.fieldset import (
    MISSING,
    Path,
    decode,
    delete_at,
    encode,
    fieldset,
    format_path,
    get_at,
)
from workloadbuilder.testing.apply.merge import strategic_merge
from workloadbuilder.testing.common import errors

# Metadata the server owns; never part of a field set.
SERVER_METADATA = frozenset(
    {
        "name",
        "namespace",
        "uid",
        "resourceVersion",
        "generation",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "managedFields",
        "selfLink",
    }
)

ManagerKey = tuple[str, str, str]  # (manager, operation, subresource)


@dataclass(frozen=True)
class Entry:
    """One ``managedFields`` entry."""

    manager: str
    operation: str
    subresource: str
    api_version: str
    time: str
    fields: frozenset[Path]

    @property
    def key(self) -> ManagerKey:
        """The identity of the entry: manager, operation and subresource."""
        return (self.manager, self.operation, self.subresource)

    def describe(self) -> str:
        """The owner as a conflict message names it."""
        text = f'"{self.manager}"'
        if self.subresource:
            text += f' with subresource "{self.subresource}"'
        if self.operation == "Update":
            text += f" using {self.api_version}"
        return text


Entries = dict[ManagerKey, Entry]


def tracked_view(obj: dict[str, Any], scope: str) -> dict[str, Any]:
    """The part of ``obj`` whose fields can be owned.

    ``scope`` is ``"all"`` (a kind without a status subresource), ``"main"`` (everything but
    ``status``) or ``"status"`` (only ``status``).
    """
    if scope == "status":
        return {"status": obj["status"]} if isinstance(obj.get("status"), dict) else {}
    view = {k: v for k, v in obj.items() if k not in ("apiVersion", "kind")}
    if scope == "main":
        view.pop("status", None)
    metadata = view.get("metadata")
    if isinstance(metadata, dict):
        tracked = {k: v for k, v in metadata.items() if k not in SERVER_METADATA}
        if tracked:
            view["metadata"] = tracked
        else:
            view.pop("metadata")
    return view


def parse(managed_fields: list[dict[str, Any]]) -> Entries:
    """Entries from ``metadata.managedFields`` as clients send or servers return them."""
    entries: Entries = {}
    for raw in managed_fields:
        entry = Entry(
            manager=str(raw.get("manager", "")),
            operation=str(raw.get("operation", "Update")),
            subresource=str(raw.get("subresource", "")),
            api_version=str(raw.get("apiVersion", "")),
            time=str(raw.get("time", "")),
            fields=frozenset(decode(raw.get("fieldsV1") or {})),
        )
        entries[entry.key] = entry
    return entries


@lru_cache(maxsize=4096)
def _encoded(fields: frozenset[Path]) -> dict[str, Any]:
    """``fieldsV1`` of ``fields``, shared between objects: never mutate the result."""
    return encode(fields)


def render(entries: Entries) -> list[dict[str, Any]]:
    """``metadata.managedFields`` of ``entries``, ordered as the API server orders them:
    Apply before Update, then by time, manager, apiVersion and subresource."""
    out: list[dict[str, Any]] = []
    order = sorted(
        entries.values(),
        key=lambda e: (e.operation, e.time, e.manager, e.api_version, e.subresource),
    )
    for entry in order:
        item: dict[str, Any] = {
            "manager": entry.manager,
            "operation": entry.operation,
            "apiVersion": entry.api_version,
            "time": entry.time,
            "fieldsType": "FieldsV1",
            "fieldsV1": _encoded(entry.fields),
        }
        if entry.subresource:
            item["subresource"] = entry.subresource
        out.append(item)
    return out


def _same(old: Any, new: Any, path: Path) -> bool:
    if path[-1].startswith("k:"):
        return (get_at(old, path) is MISSING) == (get_at(new, path) is MISSING)
    return bool(get_at(old, path) == get_at(new, path))


def _set_entry(
    entries: Entries, key: ManagerKey, fields: frozenset[Path], api_version: str, now: str
) -> Entries:
    """``entries`` with ``key`` holding ``fields`` (dropped when empty; time kept if unchanged)."""
    result = dict(entries)
    old = entries.get(key)
    if not fields:
        result.pop(key, None)
    elif old is None or old.fields != fields or old.api_version != api_version:
        manager, operation, subresource = key
        result[key] = Entry(manager, operation, subresource, api_version, now, fields)
    return result


def record_update(
    entries: Entries,
    key: ManagerKey,
    api_version: str,
    old_view: dict[str, Any],
    new_view: dict[str, Any],
    now: str,
) -> Entries:
    """Ownership after a non-apply write: the writer takes every field it changed."""
    old_paths, new_paths = fieldset(old_view), fieldset(new_view)
    changed = frozenset(p for p in new_paths if not _same(old_view, new_view, p))
    gone = old_paths - new_paths
    result: Entries = {}
    for k, entry in entries.items():
        kept = entry.fields - gone - (changed if k != key else frozenset())
        result[k] = replace(entry, fields=kept) if kept != entry.fields else entry
        if not kept:
            del result[k]
    mine = result.get(key)
    return _set_entry(
        result, key, (mine.fields if mine else frozenset()) | changed, api_version, now
    )


def apply(
    entries: Entries,
    key: ManagerKey,
    api_version: str,
    live: dict[str, Any],
    applied: dict[str, Any],
    force: bool,
    now: str,
) -> tuple[dict[str, Any], Entries]:
    """Merge the applied configuration into ``live``; the new object and its ownership.

    Raises a 409 ``Conflict`` when the configuration changes a value another manager owns
    and ``force`` is false.
    """
    merged: dict[str, Any] = strategic_merge(live, applied)
    applied_paths = frozenset(fieldset(applied))
    others = {k: e for k, e in entries.items() if k != key}
    # an owned path is affected when it is, or sits above or below, an applied path
    above = {p[:i] for p in applied_paths for i in range(1, len(p) + 1)}
    conflicts: list[tuple[Path, Entry]] = []
    for entry in others.values():
        for path in sorted(entry.fields):
            affected = path in above or any(path[:i] in applied_paths for i in range(len(path)))
            if affected and not _same(live, merged, path):
                conflicts.append((path, entry))
    conflicts.sort(key=lambda c: c[0])
    if conflicts and not force:
        raise _conflict_error(conflicts)
    taken = frozenset(p for p, _ in conflicts)
    result: Entries = {}
    for k, entry in others.items():
        if taken & entry.fields:
            entry = replace(entry, fields=entry.fields - taken)
        if entry.fields:
            result[k] = entry
    previous = entries[key].fields if key in entries else frozenset()
    owned_elsewhere: set[Path] = set()
    for entry in result.values():
        for path in entry.fields:
            owned_elsewhere.update(path[:i] for i in range(1, len(path) + 1))
    keep = owned_elsewhere | above
    for path in sorted(previous - applied_paths, key=len, reverse=True):
        if path not in keep:
            delete_at(merged, path, keep)
    if key in entries:
        result[key] = entries[key]
    return merged, _set_entry(result, key, applied_paths, api_version, now)


def _conflict_error(conflicts: list[tuple[Path, Entry]]) -> errors.APIStatusError:
    causes = [
        {
            "reason": "FieldManagerConflict",
            "message": f"conflict with {owner.describe()}",
            "field": format_path(path),
        }
        for path, owner in conflicts
    ]
    if len(conflicts) == 1:
        path, owner = conflicts[0]
        message = (
            f"Apply failed with 1 conflict: conflict with {owner.describe()}: {format_path(path)}"
        )
    else:
        lines: list[str] = []
        by_owner: dict[str, list[str]] = {}
        for path, owner in conflicts:
            by_owner.setdefault(owner.describe(), []).append(format_path(path))
        for owner_text in sorted(by_owner):
            lines.append(f"conflicts with {owner_text}:")
            lines += [f"- {p}" for p in by_owner[owner_text]]
        message = f"Apply failed with {len(conflicts)} conflicts: " + "\n".join(lines)
    return errors.conflict(message, causes)
