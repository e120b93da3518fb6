"""Where validation reports each error: the item's own path in the controller's API, or its
template's path in the compiled Workload, and the controller's own fields ``field_paths`` name.
"""

from __future__ import annotations

from collections.abc import Mapping

from .field import ErrorList, FieldError, FieldPath
from .item import TEMPLATE_FIELDS, BlockInput, WorkloadItem

__all__ = ["NOWHERE", "Locations", "relocated"]


class Locations:
    """Where each item of a tree is reported: its own ``path``, or, for an item without one,
    the path of its template in the compiled Workload (``spec.podGroupTemplates[0]``,
    ``spec.compositePodGroupTemplates[0].podGroupTemplates[1]``, ...), built on demand."""

    def __init__(self, root: WorkloadItem, index: int = 0) -> None:
        self._root = root
        self._index = index
        self._parent: dict[int, tuple[WorkloadItem, str, int]] = {}
        self._cache: dict[int, FieldPath] = {}
        for item in root.walk():
            leaves = composites = 0
            for child in item.children:
                if child.is_composite:
                    self._parent[id(child)] = (item, "compositePodGroupTemplates", composites)
                    composites += 1
                else:
                    self._parent[id(child)] = (item, "podGroupTemplates", leaves)
                    leaves += 1

    def of(self, item: WorkloadItem) -> FieldPath:
        """The path errors of ``item`` are reported below."""
        if item.path is not None:
            return item.path
        known = self._cache.get(id(item))
        if known is not None:
            return known
        chain: list[WorkloadItem] = []
        current: WorkloadItem | None = item
        while current is not None and id(current) not in self._cache:
            chain.append(current)
            up = self._parent.get(id(current))
            current = None if up is None else up[0]
        for node in reversed(chain):
            up = self._parent.get(id(node))
            if up is None:
                lists = "compositePodGroupTemplates" if node.is_composite else "podGroupTemplates"
                path = FieldPath("spec", lists).index(self._index)
            else:
                parent, lists, index = up
                base = parent.path if parent.path is not None else self._cache[id(parent)]
                path = base.child(lists).index(index)
            self._cache[id(node)] = path
        return self._cache[id(item)]

    def block(self, item: WorkloadItem, block: BlockInput) -> FieldPath:
        """The path of one of ``item``'s building blocks: below the item's own ``path`` where
        its ``path_elements`` say; for an item without a path, the template's own field
        (``spec.podGroupTemplates[0].resourceClaims``) unless ``path_elements`` say otherwise."""
        path = self.of(item)
        if block.path_elements:
            return path.child(*block.path_elements)
        field = next((f for t, f in TEMPLATE_FIELDS.items() if isinstance(block, t)), None)
        return path.child(field) if item.path is None and field else path

    def field(self, item: WorkloadItem, name: str) -> FieldPath:
        """A template field of ``item`` (its name, its priorityClassName): where the item's
        ``field_paths`` place it, else the item's own ``path`` when it has one, else the field
        of its template."""
        placed = item.field_paths.get(name)
        if placed is not None:
            return placed
        return item.path if item.path is not None else self.of(item).child(name)

    def option(self, item: WorkloadItem, name: str) -> FieldPath:
        """Where a rule over the whole tree reports ``item``'s template field ``name``: where
        the item's ``field_paths`` place it, else the item's path."""
        placed = item.field_paths.get(name)
        return placed if placed is not None else self.of(item)


class _NoPath(FieldPath):
    """The one path of the check without paths: every path below it is itself."""

    __slots__ = ()

    def child(self, name: str, *more_names: str) -> FieldPath:
        return self

    def index(self, index: int) -> FieldPath:
        return self

    def key(self, key: str) -> FieldPath:
        return self


_NO_PATH = _NoPath("<unplaced>")


class _NoLocations(Locations):
    """Every item and block at ``_NO_PATH``: what the check without paths reports at."""

    def __init__(self) -> None:
        pass

    def of(self, item: WorkloadItem) -> FieldPath:
        return _NO_PATH

    def block(self, item: WorkloadItem, block: BlockInput) -> FieldPath:
        return _NO_PATH

    def field(self, item: WorkloadItem, name: str) -> FieldPath:
        return _NO_PATH

    def option(self, item: WorkloadItem, name: str) -> FieldPath:
        return _NO_PATH


NOWHERE = _NoLocations()
"""Where the check without paths reports: every item and block at one stand-in path."""


def relocated(item: WorkloadItem, errors: ErrorList, where: Locations) -> ErrorList:
    """Move errors inside a block to the controller's own fields named by ``field_paths``."""
    if not errors:
        return errors
    blocks: list[BlockInput] = [
        item.input.policy,
        item.input.constraints,
        item.input.disruption_mode,
        item.input.resource_claims,
    ]
    mappings = [(str(where.block(item, b)), b.field_paths) for b in blocks if b.field_paths]
    if not mappings:
        return errors
    out = ErrorList()
    for err in errors:
        out.append(_relocate(err, mappings))
    return out


def _relocate(err: FieldError, mappings: list[tuple[str, Mapping[str, FieldPath]]]) -> FieldError:
    for base, field_paths in mappings:
        if base and not (err.field == base or err.field.startswith((base + ".", base + "["))):
            continue
        relative = err.field[len(base) :].lstrip(".") if base else err.field
        for inner, target in sorted(field_paths.items(), key=lambda kv: -len(kv[0])):
            if relative == inner or relative.startswith((inner + ".", inner + "[")):
                rest = relative[len(inner) :]
                return err.with_field(str(target) + rest)
    return err
