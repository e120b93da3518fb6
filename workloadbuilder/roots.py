"""A Workload of several independent groups: several root items, one template each.

A v1beta1 Workload holds up to 8 ``podGroupTemplates`` (or, with the alpha CompositePodGroup
gate, 8 ``compositePodGroupTemplates``), each stamped as its own group and scheduled on its own.
``Builder([launcher, workers], options)`` compiles each root to one of them, in order; each is
validated as a tree of its own, reported at its own path (``spec.podGroupTemplates[i]`` when
it has none), and the rules across templates are checked here: one kind of template, at most
8, names unique across the Workload, one priority class.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from ._gorender import go_quote
from .field import ErrorList, FieldError, FieldPath
from .item import WorkloadItem
from .locations import Locations
from .options import BuildOptions
from .validation import MAX_TEMPLATES_PER_LIST, PRIORITY_MESSAGE, TreeCheckCache, validate_tree

__all__ = ["MIXED_KINDS", "as_roots", "templates_key", "validate_roots"]

MIXED_KINDS: Final = (
    "a Workload holds either podGroupTemplates or compositePodGroupTemplates, not both:"
    " give every root item children, or none"
)


def as_roots(root: object) -> tuple[WorkloadItem, ...] | None:
    """The root items of ``Builder(root)``: ``None`` for one item (or none), else the tuple;
    ``TypeError`` for anything that is neither an item nor a sequence of items."""
    if root is None or isinstance(root, WorkloadItem):
        return None
    if isinstance(root, Sequence) and not isinstance(root, str | bytes):
        roots = tuple(root)
        for i, item in enumerate(roots):
            if not isinstance(item, WorkloadItem):
                raise TypeError(f"root [{i}] must be a WorkloadItem, not {type(item).__name__}")
        return roots
    raise TypeError(f"root must be a WorkloadItem or a sequence of them, not {type(root).__name__}")


def templates_key(roots: Sequence[WorkloadItem]) -> str:
    """Where the roots' templates go in ``spec``."""
    return "compositePodGroupTemplates" if roots[0].is_composite else "podGroupTemplates"


def validate_roots(
    roots: Sequence[WorkloadItem],
    options: BuildOptions,
    old_roots: Sequence[WorkloadItem] | None,
    facts: Sequence[TreeCheckCache],
) -> ErrorList:
    """Every error of the roots, each at its own path, then the rules across them."""
    if not roots:
        return ErrorList(
            [FieldError.invalid(None, None, "invalid builder: missing root WorkloadItem")]
        )
    olds = {r.name: r for r in old_roots or ()}
    errors = ErrorList()
    for i, (root, fact) in enumerate(zip(roots, facts, strict=True)):
        errors.extend(
            validate_tree(root, options, olds.get(root.name), fact, index=i, workload_rules=i == 0)
        )
    where = [Locations(root, i).of(root) for i, root in enumerate(roots)]
    kind = roots[0].is_composite
    for i, root in enumerate(roots):
        if root.is_composite != kind:
            errors.append(FieldError.invalid(where[i], root.name, MIXED_KINDS))
            break
    if len(roots) > MAX_TEMPLATES_PER_LIST:
        spec = FieldPath("spec", templates_key(roots))
        errors.append(FieldError.too_many(spec, len(roots), MAX_TEMPLATES_PER_LIST))
    errors.extend(_across(roots, facts, where, options.check_api_server_rules))
    return errors


def _across(
    roots: Sequence[WorkloadItem],
    facts: Sequence[TreeCheckCache],
    where: Sequence[FieldPath],
    api_rules: bool,
) -> ErrorList:
    """Names unique across the Workload; with the API server's rules, one priority class
    (each tree checked its own already)."""
    errors = ErrorList()
    seen: set[str] = set()
    first: str | None = None
    for i, (root, fact) in enumerate(zip(roots, facts, strict=True)):
        names = [item.name for item in root.walk()]
        clash = next((n for n in names if n in seen), None)
        if clash is not None:
            detail = (
                f"duplicate workload item name {go_quote(clash)}: template names must be"
                " unique across the Workload"
            )
            errors.append(FieldError.internal(where[i], detail))
        seen.update(names)
        config = fact.resolutions.of(root).config if api_rules else None
        if config is None:
            continue
        if first is None:
            first = config.priority_class_name
        elif config.priority_class_name != first:
            errors.append(FieldError.invalid(where[i], None, PRIORITY_MESSAGE))
    return errors
