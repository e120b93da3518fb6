"""The previous validation and build path, frozen: the reference of the differential tests.

This is how ``validate()`` and ``build_workload()`` worked before they checked without paths
first and shared each item's resolution and the tree check between them
(``workloadbuilder.validation``, ``_declarative``, ``item.WorkloadItem.resolve``, and the
template-by-template build of ``builder``), copied as they were and kept unchanged on purpose:
``tests/core/test_core_fastcheck_differential.py`` asserts that today's code answers exactly
what this one does. Do not "fix" or speed up this module; it is the behaviour to keep.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from pydantic import ValidationError
from pydantic.alias_generators import to_snake as _to_snake

from workloadbuilder._formats import (
    _LABEL_KEY_MESSAGE,
    _LABEL_RE,
    _NAME_PART_MESSAGE,
    _QUALIFIED_RE,
    _SUBDOMAIN_RE,
    DNS1123_LABEL_MAX_LENGTH,
    DNS1123_SUBDOMAIN_MAX_LENGTH,
    LABEL_MESSAGE,
    SUBDOMAIN_MESSAGE,
)
from workloadbuilder._gorender import go_quote
from workloadbuilder.api import INT32_MAX
from workloadbuilder.api.meta_v1 import ObjectMeta
from workloadbuilder.api.scheduling_v1alpha3 import (
    TopologyConstraint,
    WorkloadCompositePodGroupDisruptionMode,
    WorkloadCompositePodGroupSchedulingConstraints,
    WorkloadCompositePodGroupSchedulingPolicy,
    WorkloadPodGroupDisruptionMode,
    WorkloadPodGroupResourceClaim,
    WorkloadPodGroupSchedulingConstraints,
    WorkloadPodGroupSchedulingPolicy,
)
from workloadbuilder.api.scheduling_v1beta1 import (
    CompositePodGroupTemplate,
    PodGroupTemplate,
    TypedLocalObjectReference,
    Workload,
    WorkloadSpec,
)
from workloadbuilder.builder import BuildError, api_group
from workloadbuilder.config import (
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
from workloadbuilder.field import ErrorList, FieldError, FieldPath, child_path
from workloadbuilder.item import BlockInput, WorkloadInput, WorkloadItem
from workloadbuilder.mapconfig import COMPOSITE, LEAF, config_type_errors
from workloadbuilder.mapconfig import ItemKind as _ItemKind
from workloadbuilder.options import BuildOptions, DisruptionModeOption, SchedulingPolicyOption

# ------------------------------------------------------------------ name and key formats


def byte_length(value: str) -> int:
    """The length of ``value`` in UTF-8 bytes, as Go's ``len`` (a lone surrogate counts 3)."""
    return len(value.encode("utf-8", "surrogatepass"))


def dns_label_errors(value: str) -> list[str]:
    """Problems of ``value`` as an RFC 1123 DNS label (a template or claim name)."""
    errors = []
    if byte_length(value) > DNS1123_LABEL_MAX_LENGTH:
        errors.append(f"must be no more than {DNS1123_LABEL_MAX_LENGTH} bytes")
    if not _LABEL_RE.fullmatch(value):
        errors.append("must not contain dots" if _SUBDOMAIN_RE.fullmatch(value) else LABEL_MESSAGE)
    return errors


def is_dns_subdomain(value: str) -> bool:
    """Whether ``value`` is a valid RFC 1123 DNS subdomain (an object name)."""
    # A match is ASCII, so its length in characters is its length in bytes.
    return _SUBDOMAIN_RE.fullmatch(value) is not None and len(value) <= DNS1123_SUBDOMAIN_MAX_LENGTH


def dns_subdomain_errors(value: str) -> list[str]:
    """Problems of ``value`` as an RFC 1123 DNS subdomain (an object name)."""
    errors = []
    if byte_length(value) > DNS1123_SUBDOMAIN_MAX_LENGTH:
        errors.append(f"must be no more than {DNS1123_SUBDOMAIN_MAX_LENGTH} bytes")
    if not _SUBDOMAIN_RE.fullmatch(value):
        errors.append(SUBDOMAIN_MESSAGE)
    return errors


def label_key_errors(value: str) -> list[str]:
    """Problems of ``value`` as a label key (an optional DNS-subdomain prefix and a name)."""
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
        errors: list[str] = []
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errors = ["prefix part must be non-empty"]
        else:
            errors = [f"prefix part {e}" for e in dns_subdomain_errors(prefix)]
    else:
        return [_LABEL_KEY_MESSAGE]
    if not name:
        errors.append("name part must be non-empty")
    elif byte_length(name) > 63:
        errors.append("name part must be no more than 63 bytes")
    if not _QUALIFIED_RE.fullmatch(name):
        errors.append(_NAME_PART_MESSAGE)
    return errors


# --------------------------------------------------------------------------- resolving an item


def _kind_of(item: WorkloadItem) -> _ItemKind:
    return COMPOSITE if item.is_composite else LEAF


def _user_config(item: WorkloadItem) -> SchedulingConfig:
    return _map_input(item.input, _kind_of(item))


def _map_input(given: WorkloadInput, kind: _ItemKind) -> SchedulingConfig:
    policy = getattr(given.policy, kind.data)
    constraints = getattr(given.constraints, kind.data)
    mode = getattr(given.disruption_mode, kind.data)
    mapped_policy = None
    if policy is not None and policy.basic is not None:
        mapped_policy = SchedulingPolicy(basic=BasicSchedulingPolicy())
    elif policy is not None and policy.gang is not None:
        count = getattr(policy.gang, kind.count)
        mapped_policy = SchedulingPolicy(gang=GangSchedulingPolicy(min_count=count))
    mapped_mode = None
    if mode is not None and mode.single is not None:
        mapped_mode = DisruptionMode(single=SingleDisruptionMode())
    elif mode is not None and mode.all is not None:
        mapped_mode = DisruptionMode(all=AllDisruptionMode())
    topology = None if constraints is None else constraints.topology
    claims = given.resource_claims.pod_group_data if kind is LEAF else ()
    return SchedulingConfig(
        policy=mapped_policy,
        constraints=SchedulingConstraints(tuple(t.key for t in topology)) if topology else None,
        disruption_mode=mapped_mode,
        resource_claims=tuple(
            ResourceClaim(c.name, c.resource_claim_name, c.resource_claim_template_name)
            for c in claims
        ),
    )


def _resolve(item: WorkloadItem, user: SchedulingConfig | None = None) -> SchedulingConfig:
    """Default config, overridden per field by the item's blocks, then the callbacks.

    ``user`` is ``user_config()`` when the caller has it already. Raises whatever a
    callback raises, and ``TypeError`` when a callback or the default config gives
    something other than a well-typed ``SchedulingConfig``.
    """
    resolved = item.default_config or SchedulingConfig()
    if user is None:
        user = _user_config(item)
    changes: dict[str, Any] = {}
    if user.policy is not None:
        changes["policy"] = user.policy
    if user.constraints is not None:
        changes["constraints"] = user.constraints
    if user.disruption_mode is not None:
        changes["disruption_mode"] = user.disruption_mode
    if user.resource_claims:
        changes["resource_claims"] = user.resource_claims
    if changes:
        resolved = dataclasses.replace(resolved, **changes)
    for cb in item.callbacks:
        resolved = cb(resolved)
        if not isinstance(resolved, SchedulingConfig):
            raise TypeError(
                f"a callback returned {type(resolved).__name__};"
                " it must return the adjusted SchedulingConfig"
            )
    if item.callbacks or item.default_config is not None:
        problems = config_type_errors(resolved)
        if problems:
            raise TypeError(
                "the callbacks or the default config gave a malformed SchedulingConfig: "
                + "; ".join(problems)
            )
    return resolved


# ------------------------------------------------------------ declarative validation (blocks)

MAX_TOPOLOGY = 1


def union_errors(
    path: FieldPath | None, members: dict[str, Any], old: dict[str, Any] | None = None
) -> list[FieldError]:
    """Exactly one of ``members`` (JSON name -> value) is set, with apimachinery's messages.

    On update (``old``: the old block's members), a union whose set of members is unchanged is
    not checked again, as ``validate.Union`` does.
    """
    chosen = [name for name, value in members.items() if value is not None]
    if old is not None and chosen == [name for name, value in old.items() if value is not None]:
        return []
    if len(chosen) == 1:
        return []
    listed = ", ".join(f"`{name}`" for name in members)
    if not chosen:
        return [FieldError.invalid(path, "", f"must specify one of: {listed}")]
    value = "{" + ", ".join(chosen) + "}"
    return [FieldError.invalid(path, value, f"must specify exactly one of: {listed}")]


def count_errors(path: FieldPath, value: int) -> list[FieldError]:
    """A group count: at least 1, and representable as the API's int32."""
    if value < 1:
        return [FieldError.invalid(path, value, "must be greater than or equal to 1")]
    if value > INT32_MAX:
        return [FieldError.invalid(path, value, f"must be less than or equal to {INT32_MAX}")]
    return []


def format_errors(
    path: FieldPath, value: str, check: Callable[[str], list[str]]
) -> list[FieldError]:
    """One Invalid error per problem ``check`` finds in ``value``."""
    return [FieldError.invalid(path, value, detail) for detail in check(value)]


to_snake = functools.cache(_to_snake)


def _members(block: Any, *names: str) -> dict[str, Any]:
    return {name: getattr(block, to_snake(name)) for name in names}


def validate_policy(
    new: WorkloadPodGroupSchedulingPolicy | WorkloadCompositePodGroupSchedulingPolicy,
    old: WorkloadPodGroupSchedulingPolicy | WorkloadCompositePodGroupSchedulingPolicy | None,
    path: FieldPath | None,
) -> ErrorList:
    """A leaf or composite scheduling policy block: one of basic/gang, a positive count.

    On update the union ratchets on its membership, ``gang`` as a whole when equal to the old
    one, and the count when equal to the old count.
    """
    errors = ErrorList(
        union_errors(
            path,
            _members(new, "basic", "gang"),
            None if old is None else _members(old, "basic", "gang"),
        )
    )
    old_gang = None if old is None else old.gang
    if new.gang is None or (old is not None and new.gang == old_gang):
        return errors
    field = (
        "minGroupCount"
        if isinstance(new, WorkloadCompositePodGroupSchedulingPolicy)
        else "minCount"
    )
    count = getattr(new.gang, to_snake(field))
    old_count = None if old_gang is None else getattr(old_gang, to_snake(field), None)
    if count is not None and (old_gang is None or count != old_count):
        errors.extend(count_errors(child_path(path, "gang", field), count))
    return errors


def validate_topology(
    topology: Sequence[TopologyConstraint],
    old: Sequence[TopologyConstraint] | None,
    path: FieldPath,
) -> list[FieldError]:
    """At most one constraint (else only that is reported); each key a required label key."""
    if old is not None and list(topology) == list(old):
        return []
    if len(topology) > MAX_TOPOLOGY:
        return [FieldError.too_many(path, len(topology), MAX_TOPOLOGY)]
    errors: list[FieldError] = []
    for i, constraint in enumerate(topology):
        key_path = path.index(i).child("key")
        if not constraint.key:
            errors.append(FieldError.required(key_path))
        else:
            errors.extend(format_errors(key_path, constraint.key, label_key_errors))
    return errors


def validate_constraints(
    new: WorkloadPodGroupSchedulingConstraints | WorkloadCompositePodGroupSchedulingConstraints,
    old: WorkloadPodGroupSchedulingConstraints
    | WorkloadCompositePodGroupSchedulingConstraints
    | None,
    path: FieldPath | None,
) -> ErrorList:
    """A scheduling constraints block (an unset and an empty topology are equal on update)."""
    old_topology: Sequence[TopologyConstraint] | None = (
        None if old is None else (old.topology or ())
    )
    return ErrorList(
        validate_topology(new.topology or (), old_topology, child_path(path, "topology"))
    )


def validate_disruption_mode(
    new: WorkloadPodGroupDisruptionMode | WorkloadCompositePodGroupDisruptionMode,
    old: WorkloadPodGroupDisruptionMode | WorkloadCompositePodGroupDisruptionMode | None,
    path: FieldPath | None,
) -> ErrorList:
    """A disruption mode block: one of single/all (ratcheting on membership)."""
    return ErrorList(
        union_errors(
            path,
            _members(new, "single", "all"),
            None if old is None else _members(old, "single", "all"),
        )
    )


_CLAIM_SOURCES = ("resourceClaimName", "resourceClaimTemplateName")


def validate_claim(
    new: WorkloadPodGroupResourceClaim, old: WorkloadPodGroupResourceClaim | None, path: FieldPath
) -> ErrorList:
    """One shared claim, in the generated order: exactly one source, a DNS-label name, each
    source a DNS subdomain. On update each field (and the union's membership) ratchets."""
    errors = ErrorList(
        union_errors(
            path,
            _members(new, *_CLAIM_SOURCES),
            None if old is None else _members(old, *_CLAIM_SOURCES),
        )
    )
    if old is None or new.name != old.name:
        if not new.name:
            errors.append(FieldError.required(path.child("name")))
        else:
            errors.extend(format_errors(path.child("name"), new.name, dns_label_errors))
    for json_name in _CLAIM_SOURCES:
        value = getattr(new, to_snake(json_name))
        if value is not None and (old is None or value != getattr(old, to_snake(json_name))):
            errors.extend(format_errors(path.child(json_name), value, dns_subdomain_errors))
    return errors


# ------------------------------------------------------------------------------- validate()

MAX_TEMPLATES_PER_LIST = 8
MAX_TREE_DEPTH = 4
MAX_CLAIMS = 4
PRIORITY_MESSAGE = (
    "all priority and priorityClassName values must be identical, detected multiple values"
)


class TreeError(Exception):
    """The tree cannot be compiled; ``item`` is the offending item (for its path)."""

    def __init__(self, message: str, item: WorkloadItem | None) -> None:
        super().__init__(message)
        self.item = item


def check_tree(root: WorkloadItem) -> None:
    """Upstream's fail-fast structural check: names present and unique, blocks of the right kind.

    Raises ``TreeError`` with upstream's message for the first problem.
    """
    seen: set[str] = set()
    for item in root.walk():
        if not item.name:
            raise TreeError("workload item name cannot be empty", item)
        if item.name in seen:
            raise TreeError(
                f"duplicate workload item name {go_quote(item.name)}: template names must be"
                " unique across the Workload",
                item,
            )
        seen.add(item.name)
        kind = _wrong_kind_block(item)
        if kind:
            raise TreeError(kind, item)


def _wrong_kind_block(item: WorkloadItem) -> str:
    given = item.input
    name = go_quote(item.name)
    if item.is_composite:
        for label, present in (
            ("policy", given.policy.pod_group_data is not None),
            ("constraints", given.constraints.pod_group_data is not None),
            ("disruptionMode", given.disruption_mode.pod_group_data is not None),
            ("resourceClaims", bool(given.resource_claims.pod_group_data)),
        ):
            if present:
                return f"composite workload item {name} sets leaf building block: {label}"
        return ""
    for label, present in (
        ("policy", given.policy.composite_pod_group_data is not None),
        ("constraints", given.constraints.composite_pod_group_data is not None),
        ("disruptionMode", given.disruption_mode.composite_pod_group_data is not None),
    ):
        if present:
            return f"leaf workload item {name} sets composite building block: {label}"
    return ""


def validate_tree(
    root: WorkloadItem | None, options: BuildOptions, old_root: WorkloadItem | None = None
) -> ErrorList:
    """All errors of ``root`` for ``options`` (see the module docstring). Never raises."""
    try:
        return _validate(root, options, old_root)
    except Exception as exc:
        path = root.path if isinstance(root, WorkloadItem) else None
        return ErrorList([FieldError.internal(path, f"unexpected validation failure: {exc!r}")])


class Locations:
    """Where each item of a tree is reported: its own ``path``, or, for an item without one,
    the path of its template in the compiled Workload (``spec.podGroupTemplates[0]``,
    ``spec.compositePodGroupTemplates[0].podGroupTemplates[1]``, ...), built on demand."""

    def __init__(self, root: WorkloadItem) -> None:
        self._root = root
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
                path = FieldPath("spec", lists).index(0)
            else:
                parent, lists, index = up
                base = parent.path if parent.path is not None else self._cache[id(parent)]
                path = base.child(lists).index(index)
            self._cache[id(node)] = path
        return self._cache[id(item)]

    def block(self, item: WorkloadItem, block: BlockInput) -> FieldPath:
        """The path of one of ``item``'s building blocks."""
        path = self.of(item)
        return path.child(*block.path_elements) if block.path_elements else path

    def field(self, item: WorkloadItem, name: str) -> FieldPath:
        """A template field of ``item`` (its name, its priorityClassName): the item's own
        ``path`` when it has one, else the field of its template."""
        return item.path if item.path is not None else self.of(item).child(name)


def _validate(
    root: WorkloadItem | None, options: BuildOptions, old_root: WorkloadItem | None
) -> ErrorList:
    if root is None:
        return ErrorList(
            [FieldError.invalid(None, None, "invalid builder: missing root WorkloadItem")]
        )
    where = Locations(root)
    if old_root is not None and old_root.name != root.name:
        detail = (
            f"old root name {go_quote(old_root.name)} does not match new root name"
            f" {go_quote(root.name)}"
        )
        return ErrorList([FieldError.internal(where.of(root), detail)])
    try:
        check_tree(root)
    except TreeError as exc:
        item = exc.item if exc.item is not None and exc.item.path is not None else root
        return ErrorList([FieldError.internal(where.of(item), str(exc))])
    errors = ErrorList()
    resolved: dict[str, SchedulingConfig] = {}
    declarative = not options.disable_declarative_validation
    for item, old in _pairs(root, old_root):
        item_errors = ErrorList()
        if declarative:
            item_errors.extend(_declarative(item, old, where))
        user = _user_config(item)
        try:
            config = _resolve(item, user)
        except Exception as exc:
            item_errors.append(
                FieldError.internal(
                    where.of(item), f"resolving workload item {go_quote(item.name)}: {exc}"
                )
            )
        else:
            resolved[item.name] = config
            item_errors.extend(_allow_lists(item, config, options, where))
            if options.check_api_server_rules and not _ratcheted(item, old, config):
                seen = user if declarative else SchedulingConfig()
                item_errors.extend(_resolved_rules(item, config, seen, where))
        errors.extend(_relocated(item, item_errors, where))
    if options.check_api_server_rules:
        errors.extend(_tree_rules(root, resolved, options, where))
    return errors


def _pairs(
    root: WorkloadItem, old_root: WorkloadItem | None
) -> Iterator[tuple[WorkloadItem, WorkloadItem | None]]:
    """Each item with its old counterpart: the same name at the same level, as upstream.
    Depth first, in child order, without recursion (trees may be deep)."""
    stack: list[tuple[WorkloadItem, WorkloadItem | None]] = [(root, old_root)]
    while stack:
        item, old = stack.pop()
        yield item, old
        old_children = {c.name: c for c in old.children} if old is not None else {}
        stack.extend((child, old_children.get(child.name)) for child in reversed(item.children))


def _ratcheted(item: WorkloadItem, old: WorkloadItem | None, config: SchedulingConfig) -> bool:
    """An update that leaves an item's compiled template unchanged is not validated again."""
    if old is None or old.is_composite != item.is_composite:
        return False
    try:
        return _resolve(old) == config
    except Exception:
        return False


def _declarative(item: WorkloadItem, old: WorkloadItem | None, where: Locations) -> ErrorList:
    errors = ErrorList()
    new_in, old_in = item.input, old.input if old is not None else None
    data = "composite_pod_group_data" if item.is_composite else "pod_group_data"
    for block_name, check in (
        ("policy", validate_policy),
        ("constraints", validate_constraints),
        ("disruption_mode", validate_disruption_mode),
    ):
        block = getattr(new_in, block_name)
        value = getattr(block, data)
        if value is not None:
            old_value = getattr(getattr(old_in, block_name), data) if old_in else None
            errors.extend(check(value, old_value, where.block(item, block)))
    claims = new_in.resource_claims
    if claims.pod_group_data:
        path = where.block(item, claims)
        old_claims = {c.name: c for c in old_in.resource_claims.pod_group_data} if old_in else {}
        for i, claim in enumerate(claims.pod_group_data):
            errors.extend(validate_claim(claim, old_claims.get(claim.name), path.index(i)))
    return errors


def _allow_lists(
    item: WorkloadItem, config: SchedulingConfig, options: BuildOptions, where: Locations
) -> ErrorList:
    errors = ErrorList()
    policy_path = where.block(item, item.input.policy)
    mode_path = where.block(item, item.input.disruption_mode)
    policy, mode = config.policy, config.disruption_mode
    if policy is not None:
        if (
            policy.basic is not None
            and SchedulingPolicyOption.BASIC not in options.allowed_policies
        ):
            errors.append(
                FieldError.forbidden(
                    policy_path, "basic scheduling policy is not supported by this controller"
                )
            )
        if policy.gang is not None and SchedulingPolicyOption.GANG not in options.allowed_policies:
            errors.append(
                FieldError.forbidden(
                    policy_path, "gang scheduling policy is not supported by this controller"
                )
            )
    if mode is not None:
        allowed = options.allowed_disruption_modes
        if mode.single is not None and DisruptionModeOption.SINGLE not in allowed:
            errors.append(
                FieldError.forbidden(
                    mode_path, "the disruptionMode `single` is not supported by this controller"
                )
            )
        if mode.all is not None and DisruptionModeOption.ALL not in allowed:
            errors.append(
                FieldError.forbidden(
                    mode_path, "the disruptionMode `all` is not supported by this controller"
                )
            )
    if (
        policy is not None
        and policy.basic is not None
        and mode is not None
        and mode.all is not None
    ):
        errors.append(
            FieldError.invalid(
                mode_path,
                "",
                "the disruptionMode `all` is not supported with the Basic scheduling policy",
            )
        )
    return errors


def _resolved_rules(
    item: WorkloadItem, config: SchedulingConfig, seen: SchedulingConfig, where: Locations
) -> ErrorList:
    """What the API server would reject in this item's compiled template.

    ``seen`` is what declarative validation already checked (the item's own blocks): a value
    the config took from there unchanged is not checked twice.
    """
    errors = ErrorList()
    errors.extend(format_errors(where.field(item, "name"), item.name, dns_label_errors))
    policy = config.policy
    if policy is not None and policy.gang is not None:  # gang wins when both are set
        count_field = "minGroupCount" if item.is_composite else "minCount"
        count_path = where.block(item, item.input.policy).child("gang", count_field)
        if policy.gang.min_count is None:
            errors.append(
                FieldError.required(
                    count_path,
                    f"gang scheduling requires {count_field} to be set after resolution",
                )
            )
        elif policy != seen.policy:
            errors.extend(count_errors(count_path, policy.gang.min_count))
    constraints = config.constraints
    if constraints is not None and constraints.topology and constraints != seen.constraints:
        topology = [TopologyConstraint(key=k) for k in constraints.topology]
        path = where.block(item, item.input.constraints).child("topology")
        errors.extend(validate_topology(topology, None, path))
    claims = config.resource_claims
    if claims:
        path = where.block(item, item.input.resource_claims)
        if len(claims) > MAX_CLAIMS:
            errors.append(FieldError.too_many(path, len(claims), MAX_CLAIMS))
        seen_names: set[str] = set()
        for i, claim in enumerate(claims):
            if claim.name in seen_names:
                errors.append(FieldError.duplicate(path.index(i), claim.name))
            seen_names.add(claim.name)
        if claims != seen.resource_claims:
            for i, claim in enumerate(claims):
                block = WorkloadPodGroupResourceClaim(
                    name=claim.name,
                    resource_claim_name=claim.resource_claim_name,
                    resource_claim_template_name=claim.resource_claim_template_name,
                )
                errors.extend(validate_claim(block, None, path.index(i)))
    if config.priority_class_name:
        errors.extend(
            format_errors(
                where.field(item, "priorityClassName"),
                config.priority_class_name,
                dns_subdomain_errors,
            )
        )
    return errors


def _tree_rules(
    root: WorkloadItem,
    resolved: dict[str, SchedulingConfig],
    options: BuildOptions,
    where: Locations,
) -> ErrorList:
    """Rules over the whole compiled tree: list sizes, depth, one priority, the Workload's
    name and namespace."""
    errors = ErrorList()
    if options.name:
        errors.extend(
            format_errors(FieldPath("metadata", "name"), options.name, dns_subdomain_errors)
        )
    if options.namespace:
        errors.extend(
            format_errors(FieldPath("metadata", "namespace"), options.namespace, dns_label_errors)
        )
    _check_shape(root, 1, errors, where)
    # Items that failed to resolve were reported already; the others must agree.
    first: str | None = None
    for item in root.walk():
        config = resolved.get(item.name)
        if config is None:
            continue
        if first is None:
            first = config.priority_class_name
        elif config.priority_class_name != first:
            errors.append(FieldError.invalid(where.of(item), None, PRIORITY_MESSAGE))
            break
    return errors


def _check_shape(item: WorkloadItem, depth: int, errors: ErrorList, where: Locations) -> None:
    if not item.is_composite:
        return
    if depth >= MAX_TREE_DEPTH:
        errors.append(
            FieldError.invalid(
                where.of(item), item.name, f"maximum template hierarchy depth is {MAX_TREE_DEPTH}"
            )
        )
        return
    leaves = sum(1 for c in item.children if not c.is_composite)
    composites = len(item.children) - leaves
    for count in (leaves, composites):
        if count > MAX_TEMPLATES_PER_LIST:
            errors.append(FieldError.too_many(where.of(item), count, MAX_TEMPLATES_PER_LIST))
    for child in item.children:
        _check_shape(child, depth + 1, errors, where)


def _relocated(item: WorkloadItem, errors: ErrorList, where: Locations) -> ErrorList:
    """Move errors inside a block to the controller's own fields named by ``field_paths``."""
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


# ------------------------------------------------------------------- build_workload()


def build_workload(root: WorkloadItem | None, options: BuildOptions) -> Workload:
    """The previous ``Builder(root, options).build_workload()``: the template-by-template build
    (which the one-validation path was proven to equal), returned as a fresh copy."""
    if root is None:
        raise BuildError("workload item cannot be nil")
    try:
        check_tree(root)
    except TreeError as exc:
        raise BuildError(str(exc)) from None
    _check_depth(root)
    if root.is_composite:
        spec = WorkloadSpec(composite_pod_group_templates=[_composite_template(root)])
    else:
        spec = WorkloadSpec(pod_group_templates=[_leaf_template(root)])
    owner = options.owner
    if owner is None:
        raise BuildError("a Workload must be owned by its controller for garbage collection")
    spec.controller_ref = TypedLocalObjectReference(
        api_group=_group_of(owner.api_version), kind=owner.kind, name=owner.name
    )
    workload = Workload(
        metadata=ObjectMeta(
            name=options.name or None,
            namespace=options.namespace or None,
            owner_references=[owner.to_dict()],
        ),
        spec=spec,
    )
    return Workload.model_validate(workload.to_dict())


def _group_of(api_version: str) -> str:
    group = api_group(api_version)
    if group is None:
        raise BuildError(
            f"invalid owner apiVersion {go_quote(api_version)}: unexpected GroupVersion string:"
            f" {api_version}"
        )
    return group


def _check_depth(root: WorkloadItem) -> None:
    stack = [(root, 1)]
    while stack:
        item, depth = stack.pop()
        if item.is_composite and depth >= MAX_TREE_DEPTH:
            raise BuildError(
                f"workload item {go_quote(item.name)} is below {MAX_TREE_DEPTH - 1} levels of"
                f" composites: maximum template hierarchy depth is {MAX_TREE_DEPTH}"
            )
        stack.extend((child, depth + 1) for child in item.children)


def _build_resolve(item: WorkloadItem) -> SchedulingConfig:
    try:
        return _resolve(item)
    except Exception as exc:
        raise BuildError(f"resolving workload item {go_quote(item.name)}: {exc}") from exc


def _template_fields(item: WorkloadItem, composite: bool) -> dict[str, Any]:
    config = _build_resolve(item)
    fields: dict[str, Any] = {"name": item.name}
    policy = config.policy
    if policy is not None and policy.gang is not None:
        count = policy.gang.min_count
        if count is None:
            what = (
                "composite gang scheduling requires minGroupCount"
                if composite
                else ("gang scheduling requires minCount")
            )
            raise BuildError(f"{what} to be set after resolution")
        fields["schedulingPolicy"] = {"gang": {"minGroupCount" if composite else "minCount": count}}
    else:
        fields["schedulingPolicy"] = {"basic": {}}
    if config.constraints is not None and config.constraints.topology:
        fields["schedulingConstraints"] = {
            "topology": [{"key": key} for key in config.constraints.topology]
        }
    mode = config.disruption_mode
    if mode is not None and mode.all is not None:
        fields["disruptionMode"] = {"all": {}}
    elif mode is not None and mode.single is not None:
        fields["disruptionMode"] = {"single": {}}
    if config.priority_class_name:
        fields["priorityClassName"] = config.priority_class_name
    if config.resource_claims and not composite:
        fields["resourceClaims"] = [
            {
                "name": c.name,
                "resourceClaimName": c.resource_claim_name,
                "resourceClaimTemplateName": c.resource_claim_template_name,
            }
            for c in config.resource_claims
        ]
    return fields


def _add_children(
    fields: dict[str, Any],
    item: WorkloadItem,
    leaf: Callable[[WorkloadItem], Any],
    composite: Callable[[WorkloadItem], Any],
) -> None:
    leaves = [leaf(c) for c in item.children if not c.is_composite]
    composites = [composite(c) for c in item.children if c.is_composite]
    if leaves:
        fields["podGroupTemplates"] = leaves
    if composites:
        fields["compositePodGroupTemplates"] = composites


def _parsed(kind: Any, item: WorkloadItem, fields: dict[str, Any]) -> Any:
    try:
        return kind.model_validate(fields)
    except ValidationError as exc:
        errors = ErrorList.from_pydantic(exc, model=kind)
        raise BuildError(
            f"workload item {go_quote(item.name)} cannot be compiled (validate() reports it at"
            f" the controller's path): {errors}",
            errors,
        ) from None


def _leaf_template(item: WorkloadItem) -> PodGroupTemplate:
    return _parsed(PodGroupTemplate, item, _template_fields(item, composite=False))  # type: ignore[no-any-return]


def _composite_template(item: WorkloadItem) -> CompositePodGroupTemplate:
    fields = _template_fields(item, composite=True)
    _add_children(fields, item, _leaf_template, _composite_template)
    return _parsed(CompositePodGroupTemplate, item, fields)  # type: ignore[no-any-return]
