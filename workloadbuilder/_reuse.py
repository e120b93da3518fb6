"""What a Builder takes from an earlier Builder of the same tree and options of the same value.

A tree is immutable, and what ``validate()`` answers, the Workload compiled from it and the
spec every stamp of a template shares follow from the tree and the options alone, when every
item resolves alone (no callbacks: ``validation.resolves_alone``). So a tree ``validate()``
found nothing in keeps, per value of the options (``options_key``), that verdict: the next
Builder of the same tree and options of the same value answers ``validate()`` without doing
it again, and keeps what it compiles (``Compiled``: the Workload's JSON, its stamps' specs) for
the Builders after it, which take it as it is and compile the ``to_dict()`` of what they
release. A tree released once keeps only the verdict. Options of a value whose own rules
held (the Workload's name, namespace, owner) are not checked again for any tree.

An equal tree made anew (as a controller makes it from its object on every reconcile) is the
same value: ``seen_equal`` finds the tree found clean before of the same value (``tree_value``:
every field of every item, with the types of the values that could compare equal across types),
so that its Builder takes what that tree keeps. Only trees whose items resolve alone and whose
every value is of an exact known type have a value; the table keeps at most ``_MAX_TREES``
trees and ``_MAX_TREE_ITEMS`` items in all, the least recently found leaving first.

``BuildOptions`` is frozen but for its owner, an ``OwnerReference`` model that can be changed
in place: ``options_key`` reads every field each time, the owner's too, with their types
(``1 == True``, so a value alone could answer for another of a different type).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any, Final

from ._stampjson import flat_copy
from .api import scheduling_v1alpha3 as v1alpha3
from .api.meta_v1 import OwnerReference
from .api.scheduling_v1alpha3 import CompositePodGroup
from .api.scheduling_v1beta1 import PodGroup, Workload
from .api.sdk import JsonFactory, deferred_json, json_factory
from .config import (
    AllDisruptionMode,
    BasicSchedulingPolicy,
    DisruptionMode,
    GangSchedulingPolicy,
    ResourceClaim,
    SchedulingConfig,
    SchedulingConstraints,
    SchedulingPolicy,
    SingleDisruptionMode,
)
from .field import ErrorList, FieldPath
from .item import (
    UNSET_BLOCKS,
    BlockInput,
    ConstraintsInput,
    DisruptionModeInput,
    PolicyInput,
    ResourceClaimsInput,
    WorkloadInput,
    WorkloadItem,
)
from .options import BuildOptions
from .validation import TreeCheckCache, resolves_alone, validate_tree

__all__ = [
    "Compiled",
    "OptionsKey",
    "compiled_for",
    "options_key",
    "seen_equal",
    "still_of_value",
    "tree_value",
    "validate_again",
]

OptionsKey = tuple[object, ...]

# Kept with the root item (WorkloadItem.derived()): whether every item resolves alone, and
# the Compiled of each options value the tree validated under.
_RESOLVES_ALONE: Final = "every item resolves alone"
_COMPILED: Final = "compiled per options value"
# Options values kept per tree: a controller uses one or a few.
_MAX_KEPT: Final = 8
# Options values whose own rules held (the Workload's name, namespace and owner), whatever
# the tree: a controller builds with one or a few.
_OPTIONS_CLEAN: dict[OptionsKey, bool] = {}
_MAX_OPTIONS_CLEAN: Final = 256
# Stamp functions compiled per tree and options value: each takes about 0.1 ms and 3 KB to
# make, once; a wider tree's other templates keep their generic function.
_MAX_COMPILED_STAMPS: Final = 64
# Trees found clean, by value (tree_value), least recently found first; their items in all.
_TREES: dict[tuple[object, ...], tuple[WorkloadItem, int]] = {}
_MAX_TREES: Final = 128
_MAX_TREE_ITEMS: Final = 8192
_tree_items = 0
_VALUE: Final = "value"  # kept with a root whose value was told (WorkloadItem.derived())
_UNSET: Final[Any] = object()
_OTHER: Final[Any] = object()
_WORKLOAD: Final = "workload"
_PARENT: Final = "parentCompositePodGroupName"
_NAME: Final = ("metadata", "name")


def _owner_value(owner: object) -> object:
    """The owner's fields and their types now; ``_OTHER`` for an owner of another type."""
    if owner is None:
        return None
    if type(owner) is not OwnerReference:
        return _OTHER
    values = owner.__dict__.values()
    return (*values, *map(type, values))


def options_key(options: BuildOptions) -> OptionsKey | None:
    """The value of ``options`` now, with the types of its fields and of its owner's; ``None``
    for options whose value cannot be told this way (a subclass, an owner of another type, a
    field that cannot be hashed)."""
    if type(options) is not BuildOptions:
        return None
    owned = _owner_value(options.owner)
    if owned is _OTHER:
        return None
    key = (
        owned,
        options.name,
        type(options.name),
        options.namespace,
        type(options.namespace),
        options.allowed_policies,
        options.allowed_disruption_modes,
        options.disable_declarative_validation,
        options.check_api_server_rules,
        options.check_satisfiable_counts,
    )
    try:
        hash(key)
    except TypeError:
        return None
    return key


def still_of_value(options: BuildOptions, key: OptionsKey) -> bool:
    """Whether ``options``, of value ``key`` when it was taken, still is: only its owner can
    have changed (the options are frozen, their fields immutable), so only it is read again."""
    return _owner_value(options.owner) == key[0]


class Compiled:
    """What the Builders of one tree and one options value share, each part made once by the
    first Builder that needs it and never changed after: the Workload's JSON (``document``,
    the deferred input; ``view``, its ``to_dict()`` form) and each template's stamp spec and
    ``to_dict()`` function, with the owner JSON and namespace stamps are made with, and the
    upstream name of each template's objects, and the plan of a release with those names."""

    __slots__ = (
        "compiled",
        "composite_stamps",
        "document",
        "leaf_stamps",
        "names",
        "owner_copy",
        "owner_json",
        "plan",
        "stamp_json",
        "stamp_namespace",
        "stamp_ready",
        "templates",
        "view",
    )

    def __init__(self) -> None:
        self.document: dict[str, Any] | None = None
        self.view: dict[str, Any] | None = None
        self.leaf_stamps: dict[str, dict[str, Any]] = {}
        self.composite_stamps: dict[str, dict[str, Any]] = {}
        # generate_pod_group_name(the Workload's name, template) by template name.
        self.names: dict[str, str] = {}
        # Each object of a release with those names: kind, name, spec, to_dict() function.
        self.plan: list[tuple[type, str, dict[str, Any], Any]] | None = None
        self.stamp_json: dict[tuple[bool, str], JsonFactory | None] = {}
        self.owner_json: dict[str, Any] | None = None
        self.owner_copy: Callable[[], dict[str, Any]] | None = None
        self.stamp_namespace: str | None = None
        self.stamp_ready = False  # the three above are set
        # The templates' JSON by name: PodGroup templates, CompositePodGroup templates.
        self.templates: tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]] | None = None
        # to_dict() of the Workloads of ``view`` and of released stamps, compiled on first use.
        self.compiled: dict[object, JsonFactory | None] = {}

    def start_stamping(self, owner: OwnerReference | None, document: dict[str, Any]) -> None:
        """Read once what every stamp shares: the owner's JSON (the compiled Workload's owner
        reference, when it was compiled here) and the namespace of the Workload's JSON."""
        if not self.stamp_ready:
            owner_json = self.owner_json or (owner.to_dict() if owner is not None else None)
            self.owner_copy = flat_copy(owner_json)
            self.owner_json = owner_json
            self.stamp_namespace = (document.get("metadata") or {}).get("namespace")
            self.stamp_ready = True

    def workload_json(self) -> JsonFactory | None:
        """``to_dict()`` of a Workload whose input is ``view``: a copy of it compiled once
        (``api.sdk.json_factory``); ``None`` where that cannot be."""
        compiled: JsonFactory | None = self.compiled.get(_WORKLOAD, _UNSET)
        if compiled is _UNSET:
            view = self.view
            compiled = None if view is None else json_factory(deferred_json(Workload, view), ())
            self.compiled[_WORKLOAD] = compiled
        return compiled

    def release_json(
        self, leaf: bool, template: str, data: dict[str, Any], compile: bool
    ) -> JsonFactory | None:
        """``to_dict()`` of a stamp of ``template`` made as ``Builder.release()`` makes them:
        ``stamp_json``'s or, with ``compile``, one with ``data``'s name and parent at its
        holes and the rest shared by every such stamp (the spec, the namespace, the owner),
        compiled once per template and parent present or not (when the name and parent are
        exact ``str`` and it can be)."""
        name, parent = data["metadata"]["name"], data["spec"].get(_PARENT)
        if compile and type(name) is str and (parent is None or type(parent) is str):
            key = (leaf, template, parent is not None)
            compiled: JsonFactory | None = self.compiled.get(key, _UNSET)
            if compiled is _UNSET:
                compiled = None
                if len(self.compiled) <= _MAX_COMPILED_STAMPS:
                    holes = [_NAME, ("spec", _PARENT)] if parent is not None else [_NAME]
                    kind = PodGroup if leaf else CompositePodGroup
                    compiled = json_factory(deferred_json(kind, data), holes)
                    self.compiled[key] = compiled
            if compiled is not None:
                return compiled
        return self.stamp_json[leaf, template]


def _resolves_alone(root: WorkloadItem) -> bool:
    derived = root.derived()
    known: bool | None = derived.get(_RESOLVES_ALONE)
    if known is None:
        known = derived[_RESOLVES_ALONE] = all(resolves_alone(i) for i in root.walk())
    return known


def compiled_for(root: WorkloadItem, key: OptionsKey) -> Compiled | None:
    """The ``Compiled`` the Builders of ``root`` share under options of value ``key``, made on
    first call; ``None`` unless ``validate()`` of this tree found nothing under such options
    (without an old tree)."""
    kept: dict[OptionsKey, Compiled | None] | None = root.derived().get(_COMPILED)
    if kept is None or key not in kept:
        return None
    compiled = kept[key]
    if compiled is None:
        compiled = kept[key] = Compiled()
    return compiled


def _remember_clean(root: WorkloadItem, key: OptionsKey) -> None:
    """Record that ``validate()`` of ``root`` (without an old tree) found nothing under options
    of value ``key``, when every item resolves alone (else the answer may change)."""
    if not _resolves_alone(root):
        return
    _keep_tree(root)
    derived = root.derived()
    kept: dict[OptionsKey, Compiled | None] | None = derived.get(_COMPILED)
    if kept is None:
        kept = derived[_COMPILED] = {}
    if key not in kept:
        if len(kept) >= _MAX_KEPT:
            kept.clear()
        kept[key] = None  # a Compiled once a Builder validates the tree again


def validate_again(
    root: WorkloadItem | None,
    options: BuildOptions,
    old_root: WorkloadItem | None,
    facts: TreeCheckCache | None,
) -> tuple[ErrorList, OptionsKey | None]:
    """``validation.validate_tree(root, options, old_root, facts)``: not run again for a tree
    found clean under options of the same value (without an old tree), nor the options' own
    rules for options of a value they held for. With the errors, the options' value when the
    tree was found clean before (its ``compiled_for`` then holds), else ``None``."""
    key = options_key(options) if root is not None else None
    if key is None or root is None:
        return validate_tree(root, options, old_root, facts), None
    if old_root is None:
        kept: dict[OptionsKey, Compiled | None] | None = root.derived().get(_COMPILED)
        if kept is not None and key in kept:
            return ErrorList(), key
    known = key in _OPTIONS_CLEAN
    errors = validate_tree(root, options, old_root, facts, workload_rules=not known)
    if not errors:  # the options' own rules held too (or were known to)
        if not known:
            if len(_OPTIONS_CLEAN) >= _MAX_OPTIONS_CLEAN:
                _OPTIONS_CLEAN.clear()
            _OPTIONS_CLEAN[key] = True
        if old_root is None:
            _remember_clean(root, key)
    return errors, None


class _NoValue(Exception):
    """A part of a tree whose value cannot be told exactly (another type, a callback)."""


# The values compared as they are: of these exact types, no two of different types are equal.
_SCALARS: Final = frozenset({str, int, type(None), FieldPath})
# The fields of each exact type a tree's value reads (the blocks, the default config's parts).
_FIELDS: Final[dict[type, tuple[str, ...]]] = {
    kind: tuple(kind.model_fields)
    for kind in vars(v1alpha3).values()
    if isinstance(kind, type) and issubclass(kind, v1alpha3._Block)
}
_FIELDS[v1alpha3._HeldTopologyConstraint] = ("key",)
_FIELDS.update(
    (kind, kind.__slots__)
    for kind in (
        SchedulingConfig,
        SchedulingPolicy,
        BasicSchedulingPolicy,
        GangSchedulingPolicy,
        SchedulingConstraints,
        DisruptionMode,
        SingleDisruptionMode,
        AllDisruptionMode,
        ResourceClaim,
    )
)
# The attributes holding the blocks of each kind of *Input.
_BLOCK_DATA: Final[dict[type, tuple[str, ...]]] = {
    PolicyInput: ("pod_group_data", "composite_pod_group_data"),
    ConstraintsInput: ("pod_group_data", "composite_pod_group_data"),
    DisruptionModeInput: ("pod_group_data", "composite_pod_group_data"),
    ResourceClaimsInput: ("pod_group_data",),
}


def _value(part: object) -> object:
    """``part`` as a value of exact types: scalars as they are, tuples and known types field
    by field (with their type); raises ``_NoValue`` for anything else."""
    kind = type(part)
    if kind in _SCALARS:
        return part
    if kind is tuple:
        return tuple(map(_value, part))  # type: ignore[call-overload]
    names = _FIELDS.get(kind)
    if names is None:
        raise _NoValue
    return (kind, *[_value(getattr(part, name)) for name in names])


def _block_value(block: BlockInput) -> object:
    """The value of one of an item's ``*Input`` blocks (the shared unset ones are known)."""
    known = _UNSET_VALUES.get(id(block))
    if known is not None:
        return known
    kind = type(block)
    if kind not in _BLOCK_DATA:
        raise _NoValue
    elements = block.path_elements
    paths = block.field_paths
    return (
        kind,
        elements if all(type(e) is str for e in elements) else _value(elements),
        _value(tuple(paths.items())) if paths else (),
        *[_value(getattr(block, name)) for name in _BLOCK_DATA[kind]],
    )


_UNSET_VALUES: dict[int, object] = {}  # of the module's own (immortal) unset blocks
_UNSET_VALUES.update((id(block), _block_value(block)) for block in UNSET_BLOCKS.values())


def tree_value(root: WorkloadItem) -> tuple[object, ...] | None:
    """The value of the tree ``root``: equal for two trees exactly when every field of every
    item is equal and of the same type (a flat tuple: each item's fields and number of
    children, depth first); ``None`` for a tree of an item with callbacks, or of a value of
    another type than the SDK's own (a subclass, a ``bool`` count)."""
    out: list[object] = []
    add = out.extend
    stack = [root]  # depth first, in child order (as WorkloadItem.walk())
    pop, push = stack.pop, stack.extend
    try:
        while stack:
            item = pop()
            if type(item) is not WorkloadItem or item.callbacks:
                return None
            given, name, path, config = item.input, item.name, item.path, item.default_config
            replicas, groups, paths, children = (
                item.replicas, item.child_groups, item.field_paths, item.children,
            )  # fmt: skip
            number = given._number
            add(
                (
                    name if type(name) is str else _value(name),
                    path if path is None or type(path) is FieldPath else _value(path),
                    None if config is None else _value(config),
                    _input_number(given) if number is None else number,
                    replicas if replicas is None or type(replicas) is int else _value(replicas),
                    groups if groups is None or type(groups) is int else _value(groups),
                    _value(tuple(paths.items())) if paths else (),
                    len(children),
                )
            )
            if children:
                push(reversed(children))
    except _NoValue:
        return None
    return tuple(out)


def _input_number(given: WorkloadInput) -> int:
    """The number of the value of an item's four blocks, kept with the (immutable) input: the
    same for equal values told while the table holds them, never given to another value
    (numbers are not reused: a value told again after the table was emptied gets a new one,
    so that an input told before can only miss)."""
    if type(given) is not WorkloadInput:
        raise _NoValue
    value = (
        _block_value(given.policy),
        _block_value(given.constraints),
        _block_value(given.disruption_mode),
        _block_value(given.resource_claims),
    )
    number = _NUMBERS.get(value)
    if number is None:
        if len(_NUMBERS) >= _MAX_NUMBERS:
            _NUMBERS.clear()
        number = _NUMBERS[value] = next(_NEXT_NUMBER)
    object.__setattr__(given, "_number", number)
    return number


# The number of each value of four blocks (at most _MAX_NUMBERS), and the next number.
_NUMBERS: dict[tuple[object, ...], int] = {}
_MAX_NUMBERS: Final = 4096
_NEXT_NUMBER: Final = itertools.count()


def seen_equal(root: WorkloadItem) -> WorkloadItem:
    """The tree found clean before that is equal to ``root`` (``tree_value``), else ``root``
    (then its value is kept with it, for ``_remember_clean``)."""
    derived = root._derived
    if derived is not None and (_COMPILED in derived or _VALUE in derived):
        return root  # kept with the tree itself, or told already
    value = tree_value(root)
    if value is not None:
        seen = _TREES.pop(value, None)
        if seen is not None:
            _TREES[value] = seen  # now the most recently found
            return seen[0]
    root.derived()[_VALUE] = value
    return root


def _keep_tree(root: WorkloadItem) -> None:
    """Keep ``root``, found clean, as the tree of its value (evicting the least recently
    found trees beyond the bounds)."""
    global _tree_items
    value = root.derived().get(_VALUE)
    if value is None or value in _TREES:
        return
    size = sum(1 for _ in root.walk())
    if size > _MAX_TREE_ITEMS:
        return
    while _TREES and (len(_TREES) >= _MAX_TREES or _tree_items + size > _MAX_TREE_ITEMS):
        _tree_items -= _TREES.pop(next(iter(_TREES)))[1]
    _TREES[value] = (root, size)
    _tree_items += size
