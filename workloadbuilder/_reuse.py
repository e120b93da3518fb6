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

``BuildOptions`` is frozen but for its owner, an ``OwnerReference`` model that can be changed
in place: ``options_key`` reads every field each time, the owner's too, with their types
(``1 == True``, so a value alone could answer for another of a different type).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from ._stampjson import flat_copy
from .api.meta_v1 import OwnerReference
from .api.scheduling_v1alpha3 import CompositePodGroup
from .api.scheduling_v1beta1 import PodGroup, Workload
from .api.sdk import JsonFactory, deferred_json, json_factory
from .field import ErrorList
from .item import WorkloadItem
from .options import BuildOptions
from .validation import TreeCheckCache, resolves_alone, validate_tree

__all__ = [
    "Compiled",
    "OptionsKey",
    "compiled_for",
    "options_key",
    "still_of_value",
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
    ``to_dict()`` function, with the owner JSON and namespace stamps are made with."""

    __slots__ = (
        "compiled",
        "composite_stamps",
        "document",
        "leaf_stamps",
        "owner_copy",
        "owner_json",
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
