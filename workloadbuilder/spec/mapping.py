"""A spec document mapped to the tree and options it describes.

Each node's building blocks go into the item's inputs as they are, at the standard path
elements below the node's own path (``spec.root.children[1]``), so every error is reported at
the spec's own path.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..api.meta_v1 import OwnerReference
from ..config import SchedulingConfig
from ..field import FieldPath
from ..item import WorkloadItem, standard_input
from ..mapconfig import COMPOSITE, LEAF
from ..naming import generate_workload_name
from ..options import BuildOptions
from .schema import SpecBody, SpecComposite, SpecLeaf

__all__ = ["build_options", "tops", "tree", "walk"]


def build_options(body: SpecBody) -> BuildOptions:
    """The Builder's options of a spec: naming inputs, owner and capabilities."""
    owner = OwnerReference(
        api_version=body.owner.api_version,
        kind=body.owner.kind,
        name=body.owner.name,
        uid=body.owner.uid,
        controller=True,
        block_owner_deletion=True,
    )
    named = body.owner.name and body.owner.uid  # else validate() reports the owner
    return BuildOptions(
        name=body.workload_name
        or (generate_workload_name(body.owner.name, body.owner.uid) if named else ""),
        namespace=body.namespace,
        owner=owner,
        allowed_policies=frozenset(body.capabilities.policies),
        allowed_disruption_modes=frozenset(body.capabilities.disruption_modes),
    )


def tree(body: SpecBody) -> WorkloadItem | tuple[WorkloadItem, ...]:
    """The tree of ``spec.root``, or the independent roots of ``spec.roots``."""
    if body.root is not None:
        return _item(body.root, FieldPath("spec", "root"))
    return tuple(_item(n, p) for p, n in tops(body.roots or []))


def _item(node: SpecLeaf | SpecComposite, path: FieldPath) -> WorkloadItem:
    constraints = node.scheduling_constraints
    if constraints is not None and not constraints.topology:
        constraints = None  # no topology: no constraints, as the shorthands take them
    default = (
        SchedulingConfig(priority_class_name=node.priority_class_name)
        if node.priority_class_name
        else None
    )
    if isinstance(node, SpecComposite):
        children = tuple(
            _item(c, path.child("children").index(i)) for i, c in enumerate(node.children)
        )
        given = standard_input(COMPOSITE, node.scheduling_policy, constraints, node.disruption_mode)
        return WorkloadItem(
            node.name, path=path, default_config=default, input=given, children=children
        )
    given = standard_input(
        LEAF,
        node.scheduling_policy,
        constraints,
        node.disruption_mode,
        tuple(node.resource_claims or ()),
    )
    return WorkloadItem(
        node.name, path=path, default_config=default, input=given, replicas=node.replicas
    )


def walk(
    node: SpecLeaf | SpecComposite, path: FieldPath, depth: int
) -> Iterator[tuple[FieldPath, SpecLeaf | SpecComposite, int]]:
    """``node`` and its descendants with their paths and depths, parents first."""
    yield path, node, depth
    if isinstance(node, SpecComposite):
        for i, child in enumerate(node.children):
            yield from walk(child, path.child("children").index(i), depth + 1)


def tops(
    roots: list[SpecLeaf | SpecComposite],
) -> Iterator[tuple[FieldPath, SpecLeaf | SpecComposite]]:
    """Each of ``spec.roots`` with its path."""
    for i, node in enumerate(roots):
        yield FieldPath("spec", "roots").index(i), node
