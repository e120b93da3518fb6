"""validate(): upstream's layers in upstream's order, then the API server's rules, earlier.

1. the fail-fast tree check (one Internal error);
2. per item, in tree order: declarative validation of each building block at the controller's
   path (ratcheted on update), the allow-lists on the *resolved* config, the Basic + ``all``
   cross rule;
3. beyond upstream (``BuildOptions.check_api_server_rules``, on by default): what the API
   server would reject in the compiled Workload, reported at the controller's paths;
4. ours (``BuildOptions.check_satisfiable_counts``, on by default): counts that can never be
   met (``workloadbuilder.counts``).

``validate()`` never raises: a failing callback or an unexpected error is an Internal error.
See ``docs/validation.md`` for every rule.
"""

from __future__ import annotations

from collections.abc import Iterator

from ._declarative import (
    count_errors,
    format_errors,
    validate_claim,
    validate_constraints,
    validate_disruption_mode,
    validate_policy,
    validate_topology,
)
from ._formats import (
    dns_label_errors,
    dns_subdomain_errors,
    parse_group_version,
    path_segment_name_errors,
)
from ._gorender import go_quote
from .api import INT32_MAX
from .api.meta_v1 import OwnerReference
from .api.scheduling_v1alpha3 import (
    TopologyConstraint,
    WorkloadCompositePodGroupSchedulingPolicy,
    WorkloadPodGroupResourceClaim,
)
from .config import SchedulingConfig
from .counts import never_met_errors
from .field import ErrorList, FieldError, FieldPath
from .item import WorkloadItem
from .locations import NOWHERE, Locations, relocated
from .options import BuildOptions, DisruptionModeOption, SchedulingPolicyOption

__all__ = [
    "MAX_CLAIMS",
    "MAX_TEMPLATES_PER_LIST",
    "MAX_TREE_DEPTH",
    "ItemResolutionCache",
    "Resolution",
    "TreeCheckCache",
    "TreeError",
    "check_tree",
    "resolves_alone",
    "validate_tree",
]

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
    if item.children:
        for label, present in (
            ("policy", given.policy.pod_group_data is not None),
            ("constraints", given.constraints.pod_group_data is not None),
            ("disruptionMode", given.disruption_mode.pod_group_data is not None),
            ("resourceClaims", bool(given.resource_claims.pod_group_data)),
        ):
            if present:
                name = go_quote(item.name)
                return f"composite workload item {name} sets leaf building block: {label}"
        return ""
    for label, present in (
        ("policy", given.policy.composite_pod_group_data is not None),
        ("constraints", given.constraints.composite_pod_group_data is not None),
        ("disruptionMode", given.disruption_mode.composite_pod_group_data is not None),
    ):
        if present:
            return (
                f"leaf workload item {go_quote(item.name)} sets composite building block: {label}"
            )
    return ""


class Resolution:
    """One item resolved: its blocks as a partial config (``user``, ``None`` when mapping them
    failed), its resolved ``config``, or the ``error`` resolving raised."""

    __slots__ = ("config", "error", "item", "user")

    def __init__(
        self,
        item: WorkloadItem,
        user: SchedulingConfig | None,
        config: SchedulingConfig | None,
        error: Exception | None,
    ) -> None:
        self.item = item
        self.user = user
        self.config = config
        self.error = error

    @classmethod
    def of(cls, item: WorkloadItem) -> Resolution:
        """Resolve ``item`` now (its callbacks run once, here). An item without callbacks
        is resolved once for good: its resolution is a value of the item alone."""
        pure = resolves_alone(item)
        if pure:
            done: Resolution | None = item.derived().get("resolution")
            if done is not None:
                return done
        try:
            user = item.user_config()
        except Exception as exc:
            return cls(item, None, None, exc)
        try:
            resolution = cls(item, user, item.resolve(user), None)
        except Exception as exc:
            return cls(item, user, None, exc)
        if pure:
            item.derived()["resolution"] = resolution
        return resolution


def resolves_alone(item: WorkloadItem) -> bool:
    """Whether resolving ``item`` depends on the item alone: no callbacks (which may read
    anything), a default config of the plain class (or none)."""
    return not item.callbacks and (
        item.default_config is None or type(item.default_config) is SchedulingConfig
    )


class ItemResolutionCache:
    """Each item's ``Resolution``, computed on first use (held with the item, so that an
    identity is never reused while it is remembered)."""

    __slots__ = ("_done",)

    def __init__(self) -> None:
        self._done: dict[int, Resolution] = {}

    def of(self, item: WorkloadItem) -> Resolution:
        """``item`` resolved, once."""
        done = self._done.get(id(item))
        if done is None:
            done = self._done[id(item)] = Resolution.of(item)
        return done


class TreeCheckCache:
    """What ``validate()`` and ``build_workload()`` of one tree share, each computed once: the
    outcome of ``check_tree`` and every item's resolution."""

    __slots__ = ("_checked", "_tree_error", "resolutions", "root")

    def __init__(self, root: WorkloadItem) -> None:
        self.root = root
        self.resolutions = ItemResolutionCache()
        self._checked = False
        self._tree_error: TreeError | None = None

    def tree_error(self) -> TreeError | None:
        """The ``TreeError`` of ``check_tree(root)``, or ``None`` when the tree passes (kept
        with the root: a tree is immutable)."""
        if not self._checked:
            derived = self.root.derived()
            if _TREE_VALID not in derived:
                try:
                    check_tree(self.root)
                    derived[_TREE_VALID] = True
                except TreeError as exc:
                    self._tree_error = exc
            self._checked = True
        return self._tree_error


def validate_tree(
    root: WorkloadItem | None,
    options: BuildOptions,
    old_root: WorkloadItem | None = None,
    facts: TreeCheckCache | None = None,
    *,
    index: int = 0,
    workload_rules: bool = True,
) -> ErrorList:
    """All errors of ``root`` for ``options`` (see the module docstring). Never raises.

    The tree is checked without paths first: a valid tree builds none. When that check finds
    anything (or fails), the same rules run again with the paths, from the same resolutions.
    ``facts`` (of ``root``) carries the tree check and the resolutions to and from the build.
    ``index`` is the root's place among the Workload's templates (one of several roots);
    ``workload_rules`` whether the Workload's own fields (name, namespace, owner) are checked.
    """
    try:
        if root is not None and (facts is None or facts.root is not root):
            facts = TreeCheckCache(root)
        old_resolutions = ItemResolutionCache()
        try:
            quick = _validate(
                root, options, old_root, facts, old_resolutions, index, workload_rules, placed=False
            )
        except Exception:
            quick = None
        if quick is not None and not quick:
            return quick
        return _validate(
            root, options, old_root, facts, old_resolutions, index, workload_rules, placed=True
        )
    except Exception as exc:
        path = root.path if isinstance(root, WorkloadItem) else None
        return ErrorList([FieldError.internal(path, f"unexpected validation failure: {exc!r}")])


# What validation keeps in WorkloadItem.derived(): the blocks passed declarative validation
# (as created, no old item), the resolved config passed the API server's rules (with
# declarative validation on, or off).
BLOCKS_VALID = "blocks valid"
_TREE_VALID, _SHAPE_VALID = "tree check passed", "shape valid"
_RULES_VALID = {True: "rules valid", False: "rules valid without declarative validation"}

_METADATA_NAME = FieldPath("metadata", "name")
_METADATA_NAMESPACE = FieldPath("metadata", "namespace")


def _validate(
    root: WorkloadItem | None,
    options: BuildOptions,
    old_root: WorkloadItem | None,
    facts: TreeCheckCache | None,
    old_resolutions: ItemResolutionCache,
    index: int,
    workload_rules: bool,
    *,
    placed: bool,
) -> ErrorList:
    """The errors, at their paths when ``placed``; else at no path, stopping at the first
    item with an error (the caller then runs it placed)."""
    if root is None or facts is None:
        return ErrorList(
            [FieldError.invalid(None, None, "invalid builder: missing root WorkloadItem")]
        )
    where = Locations(root, index) if placed else NOWHERE
    if old_root is not None and old_root.name != root.name:
        detail = (
            f"old root name {go_quote(old_root.name)} does not match new root name"
            f" {go_quote(root.name)}"
        )
        return ErrorList([FieldError.internal(where.of(root), detail)])
    tree_error = facts.tree_error()
    if tree_error is not None:
        bad = tree_error.item
        item = bad if bad is not None and bad.path is not None else root
        return ErrorList([FieldError.internal(where.of(item), str(tree_error))])
    errors = ErrorList()
    resolved: dict[str, SchedulingConfig] = {}
    declarative = not options.disable_declarative_validation
    for item, old in _pairs(root, old_root):
        derived = item.derived()
        if not declarative or (old is None and BLOCKS_VALID in derived):
            item_errors = ErrorList()
        else:
            item_errors = _declarative(item, old, where)
            if old is None and not item_errors:  # the blocks alone: true for every Builder
                derived[BLOCKS_VALID] = True
        resolution = facts.resolutions.of(item)
        user = resolution.user
        if user is None:  # the blocks themselves could not be read
            assert resolution.error is not None
            raise resolution.error
        config = resolution.config
        if config is None:
            item_errors.append(
                FieldError.internal(
                    where.of(item),
                    f"resolving workload item {go_quote(item.name)}: {resolution.error}",
                )
            )
        else:
            resolved[item.name] = config
            found = _allow_lists(item, config, options, where)
            if found:
                item_errors.extend(found)
            if options.check_api_server_rules and not _ratcheted(
                item, old, config, old_resolutions
            ):
                # Of a pure item's own resolution, the rules' answer is the item's alone.
                known = _RULES_VALID[declarative] if resolves_alone(item) else None
                if known is None or known not in derived:
                    seen = user if declarative else SchedulingConfig()
                    found = _resolved_rules(item, config, seen, where)
                    if found:
                        item_errors.extend(found)
                    elif known is not None:
                        derived[known] = True
        if item_errors:
            if not placed:
                return item_errors
            errors.extend(relocated(item, item_errors, where))
    if options.check_api_server_rules:
        errors.extend(_tree_rules(root, resolved, options, where, workload_rules))
    if options.check_satisfiable_counts:
        for item in root.walk():
            found = never_met_errors(
                item, resolved.get(item.name), where.block(item, item.input.policy)
            )
            if found:
                errors.extend(relocated(item, found, where))
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
        if not item.children:
            continue
        if old is None:
            stack.extend((child, None) for child in reversed(item.children))
        else:
            old_children = {c.name: c for c in old.children}
            stack.extend((child, old_children.get(child.name)) for child in reversed(item.children))


def _ratcheted(
    item: WorkloadItem,
    old: WorkloadItem | None,
    config: SchedulingConfig,
    old_resolutions: ItemResolutionCache,
) -> bool:
    """An update that leaves an item's compiled template unchanged is not validated again."""
    if old is None or old.is_composite != item.is_composite:
        return False
    old_config = old_resolutions.of(old).config
    if old_config is None:
        return False
    try:
        return old_config == config
    except Exception:
        return False


_BLOCK_CHECKS = (
    ("policy", validate_policy),
    ("constraints", validate_constraints),
    ("disruption_mode", validate_disruption_mode),
)


def _plain_policy(value: object) -> bool:
    """Whether a new policy block is one ``validate_policy`` finds nothing in, told without
    building its union's members: exactly one of basic and gang, a count unset or an int
    within 1..INT32_MAX."""
    basic, gang = getattr(value, "basic", 0), getattr(value, "gang", 0)
    if basic is not None:
        return gang is None and basic != 0
    if gang is None or gang == 0:
        return False
    composite = isinstance(value, WorkloadCompositePodGroupSchedulingPolicy)
    count = getattr(gang, "min_group_count" if composite else "min_count")
    return count is None or (type(count) is int and 0 < count <= INT32_MAX)


def _declarative(item: WorkloadItem, old: WorkloadItem | None, where: Locations) -> ErrorList:
    errors = ErrorList()
    new_in, old_in = item.input, old.input if old is not None else None
    data = "composite_pod_group_data" if item.children else "pod_group_data"
    for block_name, check in _BLOCK_CHECKS:
        block = getattr(new_in, block_name)
        value = getattr(block, data)
        if value is not None and not (
            old_in is None and check is validate_policy and _plain_policy(value)
        ):
            old_value = getattr(getattr(old_in, block_name), data) if old_in else None
            found = check(value, old_value, where.block(item, block))
            if found:
                errors.extend(found)
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
    errors = ErrorList(format_errors(where.field(item, "name"), item.name, dns_label_errors))
    policy = config.policy
    if policy is not None and policy.gang is not None:  # gang wins when both are set
        count_field = "minGroupCount" if item.children else "minCount"
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
    workload_rules: bool = True,
) -> ErrorList:
    """Rules over the whole compiled tree: list sizes, depth, one priority, the Workload's
    name, namespace and owner reference (with ``workload_rules``)."""
    errors = ErrorList()
    if workload_rules:
        if options.name:
            errors.extend(format_errors(_METADATA_NAME, options.name, dns_subdomain_errors))
        if options.namespace:
            errors.extend(format_errors(_METADATA_NAMESPACE, options.namespace, dns_label_errors))
        if options.owner is not None:
            errors.extend(_owner_errors(options.owner))
    derived = root.derived()
    if _SHAPE_VALID not in derived:
        found = len(errors)
        _check_shape(root, 1, errors, where)
        if len(errors) == found:
            derived[_SHAPE_VALID] = True
    # Items that failed to resolve were reported already; the others must agree.
    first: str | None = None
    for item in root.walk():
        config = resolved.get(item.name)
        if config is None:
            continue
        if first is None:
            first = config.priority_class_name
        elif config.priority_class_name != first:
            errors.append(
                FieldError.invalid(where.option(item, "priorityClassName"), None, PRIORITY_MESSAGE)
            )
            break
    return errors


def _owner_errors(owner: OwnerReference) -> ErrorList:
    """What the API server checks of the owner: apimachinery's ``validateOwnerReference`` of
    every object's ``metadata.ownerReferences[0]``, and the Workload's ``spec.controllerRef``
    made from it (an API group that is a DNS subdomain, a kind and a name usable as path
    segments)."""
    errors = ErrorList()

    def reference(name: str) -> FieldPath:
        return FieldPath("metadata", "ownerReferences").index(0).child(name)

    def controller_ref(name: str) -> FieldPath:
        return FieldPath("spec", "controllerRef", name)

    # Paths are built only for an error: a valid owner costs no path.
    parsed = parse_group_version(owner.api_version)
    if not owner.api_version:
        errors.append(FieldError.required(reference("apiVersion"), "must not be empty"))
    elif parsed is None or not parsed[1]:
        detail = "must be <group>/<version> or <version>"
        errors.append(FieldError.invalid(reference("apiVersion"), owner.api_version, detail))
    for name, value in (("kind", owner.kind), ("name", owner.name), ("uid", owner.uid)):
        if not value:
            errors.append(FieldError.required(reference(name), "must not be empty"))
    group = parsed[0] if parsed is not None else ""
    for detail in dns_subdomain_errors(group) if group else ():
        errors.append(FieldError.invalid(controller_ref("apiGroup"), group, detail))
    for name, value in (("kind", owner.kind), ("name", owner.name)):
        if not value:
            errors.append(FieldError.required(controller_ref(name)))
        for detail in path_segment_name_errors(value):
            errors.append(FieldError.invalid(controller_ref(name), value, detail))
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
    composites = 0
    for child in item.children:
        if child.children:
            composites += 1
    leaves = len(item.children) - composites
    for count in (leaves, composites):
        if count > MAX_TEMPLATES_PER_LIST:
            errors.append(FieldError.too_many(where.of(item), count, MAX_TEMPLATES_PER_LIST))
    for child in item.children:
        _check_shape(child, depth + 1, errors, where)
