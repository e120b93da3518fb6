"""``explain``: the compiled tree as an outline a person reads."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rich.markup import escape
from rich.tree import Tree

from ..api.scheduling_v1beta1 import CompositePodGroupTemplate, PodGroupTemplate, Workload
from ..counts import GANG_NEVER_FORMS
from ..spec import LoadedSpec, SpecLeaf

__all__ = ["GroupOutline", "outline", "render"]

Template = PodGroupTemplate | CompositePodGroupTemplate


@dataclass(frozen=True)
class GroupOutline:
    """One group of the tree, as ``explain`` describes it."""

    name: str
    composite: bool
    policy: str
    threshold: int
    """How many pods must exist before the scheduler looks at the group at all."""
    lines: tuple[str, ...]
    warnings: tuple[str, ...]
    children: tuple[GroupOutline, ...]


def outline(spec: LoadedSpec, workload: Workload) -> list[GroupOutline]:
    """The outline of every top-level template of ``workload`` (compiled from ``spec``)."""
    replicas = {
        node.name: node.replicas for _, node, _ in spec.nodes() if isinstance(node, SpecLeaf)
    }
    roots: list[Template] = [
        *(workload.spec.pod_group_templates or ()),
        *(workload.spec.composite_pod_group_templates or ()),
    ]
    return [_group(t, replicas) for t in roots]


def _children(template: CompositePodGroupTemplate) -> list[Template]:
    return [*(template.pod_group_templates or ()), *(template.composite_pod_group_templates or ())]


def _group(template: Template, replicas: Mapping[str, int | None]) -> GroupOutline:
    lines: list[str] = []
    warnings: list[str] = []
    if isinstance(template, CompositePodGroupTemplate):
        children = tuple(_group(c, replicas) for c in _children(template))
        gang = template.scheduling_policy.gang
        thresholds = sorted(c.threshold for c in children)
        if gang is not None:
            k, n = gang.min_group_count, len(children)
            if k <= n:
                policy = f"gang over its groups: at least {k} of {n} must fit together"
                threshold = sum(thresholds[:k])
            else:  # a template may stamp several groups: the templates are no bound
                policy = (
                    f"gang over its groups: at least {k} child groups must fit together"
                    f" (from {n} child template{'s' if n != 1 else ''})"
                )
                threshold = sum(thresholds) + (k - n) * thresholds[0]
        else:
            policy = "basic: each group is scheduled on its own"
            threshold = thresholds[0] if thresholds else 0
    else:
        children = ()
        leaf_gang = template.scheduling_policy.gang
        count = replicas.get(template.name)
        if leaf_gang is not None:
            policy = f"gang: at least {leaf_gang.min_count} pods must fit together"
            threshold = leaf_gang.min_count
            if count is not None and count < leaf_gang.min_count:
                warnings.append(
                    f"only {count} replicas for minCount {leaf_gang.min_count}: {GANG_NEVER_FORMS}"
                )
        else:
            policy = "basic: each pod is scheduled on its own"
            threshold = 1
        if count is not None:
            lines.append(f"pods: {count} replicas")
    mode = template.disruption_mode
    if mode is not None and mode.all is not None:
        lines.append("disruption: all (losing one pod disrupts the whole group)")
    else:
        shown = "single" if mode is not None else "single (not set: one pod at a time)"
        lines.append(f"disruption: {shown}")
    topology = template.scheduling_constraints.topology if template.scheduling_constraints else None
    for constraint in topology or ():
        lines.append(f"topology: all in one domain of {constraint.key}")
    for claim in getattr(template, "resource_claims", None) or ():
        source = (
            f"ResourceClaim {claim.resource_claim_name}"
            if claim.resource_claim_name
            else f"one claim made from ResourceClaimTemplate {claim.resource_claim_template_name}"
        )
        lines.append(f"shared DRA claim {claim.name}: {source}")
    if template.priority_class_name:
        lines.append(f"priority class: {template.priority_class_name}")
    lines.append(f"the scheduler looks at it once {threshold} pod(s) exist")
    return GroupOutline(
        name=template.name,
        composite=isinstance(template, CompositePodGroupTemplate),
        policy=policy,
        threshold=threshold,
        lines=tuple(lines),
        warnings=tuple(warnings),
        children=children,
    )


def render(spec: LoadedSpec, workload: Workload) -> Tree:
    """A rich Tree of the Workload: one branch per group."""
    meta = workload.metadata
    owner = workload.spec.controller_ref
    head = f"[bold]Workload {escape(str(meta.name))}[/] in namespace {escape(str(meta.namespace))}"
    if owner is not None:
        head += f", controlled by {escape(owner.kind)} {escape(owner.name)}"
    tree = Tree(head)
    groups = outline(spec, workload)
    for group in groups:
        _branch(tree, group)
    if len(groups) == 1:
        total = groups[0].threshold
        tree.add(f"[bold]{total} pod(s) must exist before the scheduler even looks[/]")
    else:
        tree.add(f"[bold]{len(groups)} independent groups: each is scheduled on its own[/]")
    return tree


def _branch(parent: Tree, group: GroupOutline) -> None:
    kind = "CompositePodGroup" if group.composite else "PodGroup"
    node = parent.add(f"[bold cyan]{escape(group.name)}[/] ({kind}): {escape(group.policy)}")
    for line in group.lines:
        node.add(escape(line))
    for warning in group.warnings:
        node.add(f"[bold yellow]warning:[/] {escape(warning)}")
    for child in group.children:
        _branch(node, child)
