"""Rules of ``Workload``: template trees on create, and what an update may change."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .common import (
    MAX_DEPTH,
    MAX_TEMPLATES,
    Errs,
    Obj,
    gated,
    group_fields,
    group_fields_update,
    immutable,
    is_set,
    items,
    list_map,
    long_name,
    mapping,
    segment_name,
    short_name,
    union,
)
from .errors import child, duplicate, forbidden, index, invalid

_PGTS = "podGroupTemplates"
_CPGTS = "compositePodGroupTemplates"


def _pod_group_template(gates: frozenset[str]) -> Callable[[str, Obj], Errs]:
    def check(path: str, tpl: Obj) -> Errs:
        errs = short_name(child(path, "name"), tpl.get("name"))
        return errs + group_fields(path, tpl, gates, composite=False)

    return check


def _composite_template(gates: frozenset[str]) -> Callable[[str, Obj], Errs]:
    def check(path: str, tpl: Obj) -> Errs:
        errs = short_name(child(path, "name"), tpl.get("name"))
        errs += group_fields(path, tpl, gates, composite=True)
        errs += list_map(
            child(path, _PGTS), tpl.get(_PGTS), MAX_TEMPLATES, _pod_group_template(gates)
        )
        errs += list_map(child(path, _CPGTS), tpl.get(_CPGTS), MAX_TEMPLATES, check)
        return errs

    return check


def _controller_ref(path: str, ref: Any) -> Errs:
    ref = mapping(ref)
    errs = long_name(child(path, "apiGroup"), ref.get("apiGroup"), is_required=False)
    errs += segment_name(child(path, "kind"), ref.get("kind"))
    return errs + segment_name(child(path, "name"), ref.get("name"))


def _composites(spec: Obj, gates: frozenset[str]) -> list[Obj]:
    value = spec.get(_CPGTS)
    return [mapping(c) for c in items(value)] if gated(value, "CompositePodGroup", gates) else []


def _unique_names(path: str, spec: Obj, composites: list[Obj]) -> Errs:
    """Template names are unique across the whole tree (duplicates within one list aside)."""
    seen = {mapping(t).get("name") for t in items(spec.get(_PGTS))}
    errs: Errs = []

    def visit_list(list_path: str, templates: list[Any]) -> list[str]:
        names = [mapping(t).get("name") for t in templates]
        for i, name in enumerate(names):
            if name in seen:
                errs.append(duplicate(child(index(list_path, i), "name"), name, ratchet=False))
        return [n for n in names if isinstance(n, str)]

    def visit_composites(list_path: str, templates: list[Any]) -> None:
        seen.update(visit_list(list_path, templates))
        for i, tpl in enumerate(templates):
            tpath = index(list_path, i)
            seen.update(visit_list(child(tpath, _PGTS), items(mapping(tpl).get(_PGTS))))
            visit_composites(child(tpath, _CPGTS), items(mapping(tpl).get(_CPGTS)))

    visit_composites(child("spec", _CPGTS), composites)
    return errs


def _too_deep(tpl: Obj, depth: int) -> bool:
    if depth == MAX_DEPTH:
        return True
    return any(_too_deep(mapping(c), depth + 1) for c in items(tpl.get(_CPGTS)))


def _depth(composites: list[Obj]) -> Errs:
    """Composite templates nest at most ``MAX_DEPTH - 1`` levels (pod group templates below)."""
    return [
        invalid(
            index(child("spec", _CPGTS), i),
            tpl.get(_CPGTS),
            f"maximum template hierarchy depth is {MAX_DEPTH}",
            ratchet=False,
        )
        for i, tpl in enumerate(composites)
        if _too_deep(tpl, 1)
    ]


def _priority_key(tpl: Any) -> tuple[Any, Any]:
    tpl = mapping(tpl)
    return (tpl.get("priorityClassName") or "", tpl.get("priority"))


def _tree_priorities(tpl: Obj) -> list[tuple[Any, Any]]:
    keys = [_priority_key(tpl)]
    for sub in items(tpl.get(_CPGTS)):
        keys += _tree_priorities(mapping(sub))
    return keys + [_priority_key(t) for t in items(tpl.get(_PGTS))]


def _priority(spec: Obj, composites: list[Obj]) -> Errs:
    """Every template carries the same ``priorityClassName`` and ``priority``."""
    flat = [_priority_key(t) for t in items(spec.get(_PGTS))]
    if len(set(flat)) > 1:
        return [invalid("spec", None, "detected multiple priority configurations", ratchet=False)]
    tree = flat[:1] + [k for c in composites for k in _tree_priorities(c)]
    if len(set(tree)) > 1:
        detail = (
            "all priority and priorityClassName values must be identical, detected multiple values"
        )
        return [invalid("spec", None, detail, ratchet=False)]
    return []


def _has_children(path: str, tpl: Obj) -> Errs:
    subs = items(tpl.get(_CPGTS))
    errs: Errs = []
    if not items(tpl.get(_PGTS)) and not subs:
        detail = "must have at least one child PodGroupTemplate or CompositePodGroupTemplate"
        errs.append(invalid(path, tpl.get("name", ""), detail, ratchet=False))
    for i, sub in enumerate(subs):
        errs += _has_children(index(child(path, _CPGTS), i), mapping(sub))
    return errs


def validate_workload(obj: Obj, gates: frozenset[str]) -> Errs:
    """Create-time rules of a Workload's ``spec``."""
    spec = mapping(obj.get("spec"))
    errs = union("spec", spec, [_PGTS, _CPGTS])
    errs += list_map(
        child("spec", _PGTS), spec.get(_PGTS), MAX_TEMPLATES, _pod_group_template(gates)
    )
    cpath = child("spec", _CPGTS)
    if gated(spec.get(_CPGTS), "CompositePodGroup", gates):
        errs += list_map(cpath, spec.get(_CPGTS), MAX_TEMPLATES, _composite_template(gates))
    else:
        errs.append(forbidden(cpath))
    if is_set(spec.get("controllerRef")):
        errs += _controller_ref(child("spec", "controllerRef"), spec["controllerRef"])
    composites = _composites(spec, gates)
    errs += _unique_names("spec", spec, composites)
    errs += _depth(composites)
    errs += _priority(spec, composites)
    for i, tpl in enumerate(composites):
        errs += _has_children(index(cpath, i), tpl)
    return errs


def _list_update(path: str, new: Any, old: Any, composite: bool) -> Errs:
    """Templates cannot be added or removed; kept ones follow the per-field rules."""
    old_by_name = {mapping(t).get("name"): mapping(t) for t in items(old)}
    new_names = {mapping(t).get("name") for t in items(new)}
    errs: Errs = []
    for i, entry in enumerate(items(new)):
        tpl = mapping(entry)
        tpath = index(path, i)
        previous = old_by_name.get(tpl.get("name"))
        if previous is None:
            errs.append(forbidden(tpath, "item may not be added", ratchet=False))
            continue
        errs += group_fields_update(tpath, tpl, previous)
        if composite:
            errs += _list_update(child(tpath, _PGTS), tpl.get(_PGTS), previous.get(_PGTS), False)
            errs += _list_update(child(tpath, _CPGTS), tpl.get(_CPGTS), previous.get(_CPGTS), True)
    if any(name not in new_names for name in old_by_name):
        errs.append(forbidden(path, "item may not be removed", ratchet=False))
    return errs


def validate_workload_update(obj: Obj, old: Obj) -> Errs:
    """Update rules of a Workload: fixed template sets and immutable fields."""
    spec, old_spec = mapping(obj.get("spec")), mapping(old.get("spec"))
    path = child("spec", "controllerRef")
    errs = immutable(path, spec.get("controllerRef"), old_spec.get("controllerRef"))
    errs += _list_update(child("spec", _PGTS), spec.get(_PGTS), old_spec.get(_PGTS), False)
    errs += _list_update(child("spec", _CPGTS), spec.get(_CPGTS), old_spec.get(_CPGTS), True)
    return errs
