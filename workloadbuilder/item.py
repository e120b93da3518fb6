"""The WorkloadItem tree: a controller's roles, their building blocks and where they live.

An item with children compiles to a CompositePodGroupTemplate, an item without to a
PodGroupTemplate. Each ``*Input`` carries a v1alpha3 building block exactly as the
controller's object holds it, plus ``path_elements``: where that block sits below the item's
``path`` in the controller's API. ``field_paths`` maps a field inside the block (as rendered
below the block, e.g. ``"gang.minCount"``) to the controller's own path, for controllers whose
API does not embed the block verbatim.

Mapping the blocks to a config (``user_config()``, ``resolve()``) is ``mapconfig``'s; the
shorthands for trees written by hand are in ``shorthands``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any, get_args, get_origin, get_type_hints

from pydantic import BaseModel

from .api import scheduling_v1alpha3 as v1alpha3
from .config import SchedulingConfig, SchedulingConfigFunc
from .field import FieldPath, PathLike
from .mapconfig import COMPOSITE, LEAF, ItemKind, map_blocks, resolve_config

__all__ = [
    "TEMPLATE_FIELDS",
    "UNSET_BLOCKS",
    "BlockInput",
    "ConstraintsInput",
    "DisruptionModeInput",
    "PathLike",
    "PolicyInput",
    "ResourceClaimsInput",
    "WorkloadInput",
    "WorkloadItem",
    "as_path",
    "standard_input",
    "standard_item",
]


def as_path(path: PathLike) -> FieldPath | None:
    """A ``FieldPath`` from a path or its string form (``"spec.replicaSpecs[Worker]"``)."""
    if path is None or isinstance(path, FieldPath):
        return path
    if isinstance(path, str):
        return FieldPath.parse(path)
    raise TypeError(f"path must be a FieldPath, a string or None, not {type(path).__name__}")


def _check_type(what: str, value: Any, *types: type) -> None:
    if value is not None and not isinstance(value, types):
        allowed = " or ".join(t.__name__ for t in types)
        raise TypeError(f"{what} must be a {allowed} or None, not {type(value).__name__}")


_NO_FIELD_PATHS: Mapping[str, FieldPath] = MappingProxyType({})


@dataclass(frozen=True, slots=True, kw_only=True)
class BlockInput:
    """Where a building block sits in the controller's API."""

    path_elements: tuple[str, ...] = ()
    field_paths: Mapping[str, FieldPath] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        elements = self.path_elements
        if type(elements) is not tuple or not all(type(e) is str for e in elements):
            if isinstance(elements, str) or not isinstance(elements, Iterable):
                raise TypeError("path_elements must be a sequence of field names, not a string")
            elements = tuple(elements)
            for element in elements:
                if not isinstance(element, str):
                    raise TypeError(f"path_elements must be field names (str), got {element!r}")
            object.__setattr__(self, "path_elements", elements)
        given = self.field_paths
        if not given and (type(given) is dict or isinstance(given, Mapping)):
            object.__setattr__(self, "field_paths", _NO_FIELD_PATHS)
        elif not isinstance(self.field_paths, Mapping):
            raise TypeError(
                "field_paths maps a field of the block (e.g. 'gang.minCount') to a path,"
                f" not {type(self.field_paths).__name__}"
            )
        else:
            mapped: dict[str, FieldPath] = {}
            for key, target in self.field_paths.items():
                _check_field_path_key(type(self), key)
                path = as_path(target)
                if path is None:
                    raise TypeError(f"field_paths[{key!r}] must be a FieldPath or a string")
                mapped[key] = path
            object.__setattr__(self, "field_paths", MappingProxyType(mapped))
        for name, kind in _block_types(type(self)).items():
            value = getattr(self, name)
            if value is not None and type(value) is not kind:
                _check_type(f"{type(self).__name__}.{name}", value, kind)


@dataclass(frozen=True, slots=True, kw_only=True)
class PolicyInput(BlockInput):
    """The scheduling policy block of a leaf (``pod_group_data``) or composite item."""

    pod_group_data: v1alpha3.WorkloadPodGroupSchedulingPolicy | None = None
    composite_pod_group_data: v1alpha3.WorkloadCompositePodGroupSchedulingPolicy | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ConstraintsInput(BlockInput):
    """The scheduling constraints block of a leaf or composite item."""

    pod_group_data: v1alpha3.WorkloadPodGroupSchedulingConstraints | None = None
    composite_pod_group_data: v1alpha3.WorkloadCompositePodGroupSchedulingConstraints | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class DisruptionModeInput(BlockInput):
    """The disruption mode block of a leaf or composite item."""

    pod_group_data: v1alpha3.WorkloadPodGroupDisruptionMode | None = None
    composite_pod_group_data: v1alpha3.WorkloadCompositePodGroupDisruptionMode | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ResourceClaimsInput(BlockInput):
    """The shared DRA claims of a leaf item (composites have none)."""

    pod_group_data: tuple[v1alpha3.WorkloadPodGroupResourceClaim, ...] = ()

    def __post_init__(self) -> None:
        BlockInput.__post_init__(self)
        if self.pod_group_data == () and type(self.pod_group_data) is tuple:
            return
        claims = tuple(self.pod_group_data or ())
        for claim in claims:
            _check_type("each resource claim", claim, v1alpha3.WorkloadPodGroupResourceClaim)
        object.__setattr__(self, "pod_group_data", claims)


@dataclass(frozen=True, slots=True)
class WorkloadInput:
    """The building blocks of one item, as the controller's object holds them."""

    policy: PolicyInput = field(default_factory=PolicyInput)
    constraints: ConstraintsInput = field(default_factory=ConstraintsInput)
    disruption_mode: DisruptionModeInput = field(default_factory=DisruptionModeInput)
    resource_claims: ResourceClaimsInput = field(default_factory=ResourceClaimsInput)
    # The number of this value of the four blocks, once told (workloadbuilder/_reuse.py).
    _number: int | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if (
            type(self.policy) is PolicyInput
            and type(self.constraints) is ConstraintsInput
            and type(self.disruption_mode) is DisruptionModeInput
            and type(self.resource_claims) is ResourceClaimsInput
        ):
            return
        for name, kind in (
            ("policy", PolicyInput),
            ("constraints", ConstraintsInput),
            ("disruption_mode", DisruptionModeInput),
            ("resource_claims", ResourceClaimsInput),
        ):
            value = getattr(self, name)
            if not isinstance(value, kind):
                raise TypeError(f"WorkloadInput.{name} must be a {kind.__name__}")


TEMPLATE_FIELDS: Mapping[type[BlockInput], str] = MappingProxyType(
    {
        PolicyInput: "schedulingPolicy",
        ConstraintsInput: "schedulingConstraints",
        DisruptionModeInput: "disruptionMode",
        ResourceClaimsInput: "resourceClaims",
    }
)
"""The field of a template (and of a PodGroup) each kind of block becomes: also the standard
path element of the block below the item's path."""


def _held(kind: ItemKind, block: object) -> dict[str, Any]:
    """``block`` as the keyword of the ``*_data`` attribute that holds ``kind``'s blocks."""
    return {kind.data: block}


def standard_input(
    kind: ItemKind,
    policy: v1alpha3.WorkloadPodGroupSchedulingPolicy
    | v1alpha3.WorkloadCompositePodGroupSchedulingPolicy
    | None,
    constraints: v1alpha3.WorkloadPodGroupSchedulingConstraints
    | v1alpha3.WorkloadCompositePodGroupSchedulingConstraints
    | None,
    disruption_mode: v1alpha3.WorkloadPodGroupDisruptionMode
    | v1alpha3.WorkloadCompositePodGroupDisruptionMode
    | None,
    resource_claims: tuple[v1alpha3.WorkloadPodGroupResourceClaim, ...] = (),
    *,
    shared: bool = False,
) -> WorkloadInput:
    """The blocks of an item of ``kind`` at the standard path elements (``schedulingPolicy``,
    ``schedulingConstraints``, ``disruptionMode``, ``resourceClaims``); an unset block is one
    shared value. With ``shared`` (blocks that are themselves shared, as the shorthands'),
    the input of the same block objects is one value too."""
    raw = (kind.data, id(policy), id(constraints), id(disruption_mode))
    if shared and resource_claims == ():  # the same block objects: the same input
        known = _SHARED_BY_BLOCKS.get(raw)
        if known is not None:
            return known[1]
    unset = UNSET_BLOCKS
    blocks = (
        unset[PolicyInput] if policy is None else _standard(PolicyInput, kind, policy, shared),
        unset[ConstraintsInput]
        if constraints is None
        else _standard(ConstraintsInput, kind, constraints, shared),
        unset[DisruptionModeInput]
        if disruption_mode is None
        else _standard(DisruptionModeInput, kind, disruption_mode, shared),
        unset[ResourceClaimsInput]
        if resource_claims == ()
        else ResourceClaimsInput(
            path_elements=_STANDARD[ResourceClaimsInput], pod_group_data=resource_claims
        ),
    )
    key = tuple(map(id, blocks))
    known = _SHARED_WORKLOAD_INPUTS.get(key) if shared else None
    if known is not None:
        return known[1]
    given: WorkloadInput = _NEW(WorkloadInput)  # as WorkloadInput(...), of blocks made here
    for setter, block in zip(_SET_INPUT, (*blocks, None), strict=True):
        setter(given, block)
    if shared:
        if len(_SHARED_WORKLOAD_INPUTS) >= _MAX_SHARED_INPUTS:
            _SHARED_WORKLOAD_INPUTS.clear()
        _SHARED_WORKLOAD_INPUTS[key] = (blocks, given)
        if resource_claims == ():
            if len(_SHARED_BY_BLOCKS) >= _MAX_SHARED_INPUTS:
                _SHARED_BY_BLOCKS.clear()
            _SHARED_BY_BLOCKS[raw] = ((policy, constraints, disruption_mode), given)
    return given


# Frozen slotted dataclasses set as their __init__ sets them, without a call of
# object.__setattr__ per field, for values made and checked here.
_NEW = object.__new__
_SET_INPUT = tuple(vars(WorkloadInput)[f.name].__set__ for f in fields(WorkloadInput))


# The standard *Input of a building block of the SDK's own (frozen) types, one per block
# object (held here, so that its id is not reused while it is): blocks shared between trees
# (the shorthands share them) share their *Input too. At most _MAX_SHARED_INPUTS.
_SHARED_INPUTS: dict[tuple[type, str, int], tuple[object, BlockInput]] = {}
_MAX_SHARED_INPUTS = 1024
# The WorkloadInput of four such blocks (held here too), one per four block objects; and the
# same by the building blocks themselves (held), for an item without claims.
_SHARED_WORKLOAD_INPUTS: dict[tuple[int, ...], tuple[tuple[BlockInput, ...], WorkloadInput]] = {}
_SHARED_BY_BLOCKS: dict[tuple[object, ...], tuple[tuple[object, ...], WorkloadInput]] = {}


def _standard(input_kind: type[BlockInput], kind: ItemKind, block: object, shared: bool) -> Any:
    """``input_kind`` of ``block`` at the standard path element, for an item of ``kind``
    (with ``shared``, one per block object)."""
    key = (input_kind, kind.data, id(block))
    known = _SHARED_INPUTS.get(key) if shared else None
    if known is not None:
        return known[1]
    made = input_kind(path_elements=_STANDARD[input_kind], **_held(kind, block))
    if shared and type(block) in _block_types(input_kind).values():
        if len(_SHARED_INPUTS) >= _MAX_SHARED_INPUTS:
            _SHARED_INPUTS.clear()
        _SHARED_INPUTS[key] = (block, made)
    return made


_BLOCK_TYPES: dict[type, Mapping[str, type]] = {}


def _block_types(kind: type[BlockInput]) -> Mapping[str, type]:
    """The building-block type each ``*_data`` attribute of ``kind`` holds (or ``None``), from
    its annotations; the claims' tuple is checked by ``ResourceClaimsInput`` itself."""
    found = _BLOCK_TYPES.get(kind)
    if found is None:
        found = {}
        for name, hint in get_type_hints(kind).items():
            model = [a for a in get_args(hint) if a is not type(None)]
            if name.endswith("_data") and get_origin(hint) is not tuple and len(model) == 1:
                found[name] = model[0]
        found = _BLOCK_TYPES[kind] = MappingProxyType(found)
    return found


def _field_names(model: type[BaseModel], prefix: str, out: list[str]) -> None:
    for name, info in model.model_fields.items():
        alias = info.alias or name
        path = f"{prefix}.{alias}" if prefix else alias
        out.append(path)
        inner = _model_of(info.annotation)
        if inner is not None:
            if _is_sequence(info.annotation):
                out.append(path + "[i]")
                path += "[i]"
            _field_names(inner, path, out)


def _model_of(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in get_args(annotation):
        found = _model_of(arg)
        if found is not None:
            return found
    return None


def _is_sequence(annotation: Any) -> bool:
    if get_origin(annotation) in (list, tuple):
        return True
    return any(_is_sequence(arg) for arg in get_args(annotation))


def _allowed_keys(kind: type[BlockInput]) -> tuple[str, ...]:
    cached = _ALLOWED_KEYS.get(kind)
    if cached is None:
        keys: list[str] = [""]
        if kind is ResourceClaimsInput:
            keys.append("[i]")
            _field_names(v1alpha3.WorkloadPodGroupResourceClaim, "[i]", keys)
        else:
            for block in _block_types(kind).values():
                _field_names(block, "", keys)
        cached = _ALLOWED_KEYS[kind] = tuple(sorted(set(keys)))
    return cached


_ALLOWED_KEYS: dict[type, tuple[str, ...]] = {}
_INDEX = re.compile(r"\[[0-9]+\]")


def _check_field_path_key(kind: type[BlockInput], key: object) -> None:
    """``key`` names a field of the block (``gang.minCount``; ``[0]`` may follow a list)."""
    if not isinstance(key, str):
        raise TypeError(f"{kind.__name__}.field_paths keys are strings, not {type(key).__name__}")
    allowed = _allowed_keys(kind)
    if _INDEX.sub("[i]", key) not in allowed:
        listed = ", ".join(repr(k) for k in allowed)
        raise ValueError(
            f"{kind.__name__}.field_paths key {key!r} is not a field of the block;"
            f" allowed: {listed} ([i] is any list index)"
        )


ITEM_FIELDS: tuple[str, ...] = ("name", "priorityClassName")
"""The template fields of an item that ``WorkloadItem.field_paths`` can place."""


def _item_field_paths(name: str, given: object) -> Mapping[str, FieldPath]:
    if not isinstance(given, Mapping):
        raise TypeError(
            f"field_paths of {name!r} maps a template field ({', '.join(ITEM_FIELDS)}) to a"
            f" path, not {type(given).__name__}"
        )
    if not given:
        return _NO_FIELD_PATHS
    mapped: dict[str, FieldPath] = {}
    for key in sorted(given, key=str):
        if key not in ITEM_FIELDS:
            raise ValueError(
                f"field_paths key {key!r} of {name!r} is not a template field of an item;"
                f" allowed: {', '.join(repr(k) for k in ITEM_FIELDS)}"
            )
        path = as_path(given[key])
        if path is None:
            raise TypeError(f"field_paths[{key!r}] of {name!r} must be a FieldPath or a string")
        mapped[key] = path
    return MappingProxyType(mapped)


def _check_count(name: str, what: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} of {name!r} must be an int or None, not {type(value).__name__}")
    if value < 0:
        raise ValueError(f"{what} of {name!r} must be >= 0, got {value}")


@dataclass(frozen=True, slots=True, eq=False)
class WorkloadItem:
    """One role of the controller's workload: a PodGroupTemplate, or a composite of children.

    Immutable. ``path`` is where the role lives in the controller's API (errors are reported
    below it); ``default_config`` is the controller's default, overridden field by field by
    ``input``, then adjusted by ``callbacks`` in order. ``replicas`` is how many pods the
    controller creates for a leaf, when it knows: ``validate()`` then reports a gang
    ``minCount`` above it (a gang that can never form). ``field_paths`` maps the item's own
    template fields, ``"name"`` and ``"priorityClassName"``, to the controller's field each
    comes from, where that is not ``path`` itself: their errors are reported there.
    ``child_groups`` is how many child groups the controller creates under each group of a
    composite, when it knows (one child template may stamp several, one per replica group as
    LeaderWorkerSet does, so the number of templates is no bound): ``validate()`` then reports
    a ``minGroupCount`` above it.
    """

    name: str
    path: FieldPath | None = None
    default_config: SchedulingConfig | None = None
    input: WorkloadInput = field(default_factory=WorkloadInput)
    callbacks: tuple[SchedulingConfigFunc, ...] = ()
    children: tuple[WorkloadItem, ...] = ()
    replicas: int | None = None
    field_paths: Mapping[str, FieldPath] = field(default_factory=dict)
    child_groups: int | None = None
    _hash: int | None = field(default=None, init=False, repr=False)
    _derived: dict[str, Any] | None = field(default=None, init=False, repr=False)

    def _own(self) -> tuple[object, ...]:
        return (
            self.name, self.path, self.default_config, self.input, self.callbacks, self.replicas,
            tuple(self.field_paths.items()), self.child_groups,
        )  # fmt: skip

    def __eq__(self, other: object) -> bool:
        """Equal items: same fields, same children (compared without recursion)."""
        if not isinstance(other, WorkloadItem):
            return NotImplemented
        stack = [(self, other)]
        while stack:
            a, b = stack.pop()
            if a is b:
                continue
            if len(a.children) != len(b.children) or a._own() != b._own():
                return False
            stack.extend(zip(a.children, b.children, strict=True))
        return True

    def __hash__(self) -> int:
        """A hash over the fields and the children's hashes (computed once, any depth)."""
        if self._hash is None:
            for item in reversed(list(self.walk())):
                if item._hash is None:
                    value = hash((item._own(), tuple(hash(c) for c in item.children)))
                    object.__setattr__(item, "_hash", value)
        assert self._hash is not None
        return self._hash

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise TypeError(f"WorkloadItem name must be a string, not {type(self.name).__name__}")
        if self.path is not None and type(self.path) is not FieldPath:
            object.__setattr__(self, "path", as_path(self.path))
        if self.default_config is not None and type(self.default_config) is not SchedulingConfig:
            _check_type("default_config", self.default_config, SchedulingConfig)
        if type(self.input) is not WorkloadInput and not isinstance(self.input, WorkloadInput):
            raise TypeError("WorkloadItem input must be a WorkloadInput")
        self._check_rest()

    def _check_rest(self) -> None:
        """The checks of the callbacks, children, field paths and counts (as given)."""
        callbacks = self.callbacks
        if callbacks != () or type(callbacks) is not tuple:
            callbacks = tuple(callbacks)
            for cb in callbacks:
                if not callable(cb):
                    raise TypeError(f"each callback of {self.name!r} must be callable, got {cb!r}")
            object.__setattr__(self, "callbacks", callbacks)
        children = self.children
        if type(children) is not tuple or not all(type(c) is WorkloadItem for c in children):
            children = tuple(children)
            for child in children:
                if not isinstance(child, WorkloadItem):
                    raise TypeError(
                        f"each child of workload item {self.name!r} must be a WorkloadItem,"
                        f" not {type(child).__name__}"
                    )
            object.__setattr__(self, "children", children)
        given = self.field_paths
        if type(given) is dict and not given:
            object.__setattr__(self, "field_paths", _NO_FIELD_PATHS)
        elif given is not _NO_FIELD_PATHS:
            object.__setattr__(self, "field_paths", _item_field_paths(self.name, given))
        if self.replicas is not None:
            _check_count(self.name, "replicas", self.replicas)
            if children:
                raise ValueError(
                    f"replicas is the pod count of a leaf; composite workload item {self.name!r}"
                    " has children (give each leaf its replicas)"
                )
        if self.child_groups is not None:
            _check_count(self.name, "child_groups", self.child_groups)
            if not children:
                raise ValueError(
                    f"child_groups counts a composite's child groups; workload item"
                    f" {self.name!r} has no children (give a leaf its replicas)"
                )

    def derived(self) -> dict[str, Any]:
        """Values computed from this item alone, kept with it (the item is immutable, so they
        hold for every Builder): validation keeps here what it found of the item's blocks."""
        derived = self._derived
        if derived is None:
            derived = {}
            object.__setattr__(self, "_derived", derived)
        return derived

    @property
    def is_composite(self) -> bool:
        """True when the item has children (a CompositePodGroupTemplate)."""
        return bool(self.children)

    def walk(self) -> Iterator[WorkloadItem]:
        """This item and its descendants, depth first, in child order (no recursion, so any
        depth is fine)."""
        stack = [self]
        while stack:
            item = stack.pop()
            yield item
            stack.extend(reversed(item.children))

    def user_config(self) -> SchedulingConfig:
        """The item's building blocks as a partial config (unset blocks stay ``None``)."""
        given = self.input
        if self.children:
            return map_blocks(
                COMPOSITE,
                given.policy.composite_pod_group_data,
                given.constraints.composite_pod_group_data,
                given.disruption_mode.composite_pod_group_data,
            )
        return map_blocks(
            LEAF,
            given.policy.pod_group_data,
            given.constraints.pod_group_data,
            given.disruption_mode.pod_group_data,
            given.resource_claims.pod_group_data,
        )

    def resolve(self, user: SchedulingConfig | None = None) -> SchedulingConfig:
        """Default config, overridden per field by the item's blocks, then the callbacks.

        ``user`` is ``user_config()`` when the caller has it already. Raises whatever a
        callback raises, and ``TypeError`` when a callback or the default config gives
        something other than a well-typed ``SchedulingConfig``.
        """
        if user is None:
            user = self.user_config()
        return resolve_config(self.default_config, user, self.callbacks)


# The standard path elements of each kind of block, and each kind unset there (immutable, one
# value shared by every item that leaves the block unset).
_STANDARD: Mapping[type[BlockInput], tuple[str]] = MappingProxyType(
    {kind: (name,) for kind, name in TEMPLATE_FIELDS.items()}
)
UNSET_BLOCKS: Mapping[type[BlockInput], Any] = MappingProxyType(
    {kind: kind(path_elements=elements) for kind, elements in _STANDARD.items()}
)


(
    _SET_NAME, _SET_PATH, _SET_CONFIG, _SET_GIVEN, _SET_CALLBACKS, _SET_CHILDREN, _SET_REPLICAS,
    _SET_FIELD_PATHS, _SET_GROUPS, _SET_HASH, _SET_DERIVED,
) = (vars(WorkloadItem)[f.name].__set__ for f in fields(WorkloadItem))  # fmt: skip


def standard_item(
    name: str,
    path: FieldPath | None,
    default_config: SchedulingConfig | None,
    given: WorkloadInput,
    callbacks: tuple[SchedulingConfigFunc, ...],
    children: tuple[WorkloadItem, ...],
    replicas: int | None,
    child_groups: int | None,
) -> WorkloadItem:
    """``WorkloadItem(name, path=path, ...)`` for a caller that made ``name`` (a ``str``),
    ``path``, ``default_config`` and ``given`` (``standard_input``) itself; the rest is checked
    as ``WorkloadItem`` checks it."""
    item: WorkloadItem = _NEW(WorkloadItem)
    _SET_NAME(item, name)
    _SET_PATH(item, path)
    _SET_CONFIG(item, default_config)
    _SET_GIVEN(item, given)
    _SET_CALLBACKS(item, callbacks)
    _SET_CHILDREN(item, children)
    _SET_REPLICAS(item, replicas)
    _SET_FIELD_PATHS(item, _NO_FIELD_PATHS)
    _SET_GROUPS(item, child_groups)
    _SET_HASH(item, None)
    _SET_DERIVED(item, None)
    if (
        callbacks != ()
        or type(callbacks) is not tuple
        or replicas is not None
        or child_groups is not None
        or type(children) is not tuple
        or not all(type(c) is WorkloadItem for c in children)
    ):
        item._check_rest()  # else nothing to check: no callbacks, no counts, exact children
    return item
