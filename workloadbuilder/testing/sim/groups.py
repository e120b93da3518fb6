"""The group hierarchy: PodGroups and CompositePodGroups linked by parent name, and its layout."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from .model import PodInfo

POD_GROUP: Final = "PodGroup"
COMPOSITE: Final = "CompositePodGroup"
CONDITION_TYPES: Final = {
    POD_GROUP: "PodGroupInitiallyScheduled",
    COMPOSITE: "CompositePodGroupInitiallyScheduled",
}
MAX_DEPTH: Final = 4


@dataclass(eq=False)
class Group:
    """One PodGroup or CompositePodGroup with its members or children."""

    kind: str
    namespace: str
    name: str
    obj: Mapping[str, Any]
    children: list[Group] = field(default_factory=list)
    members: list[PodInfo] = field(default_factory=list)

    @property
    def key(self) -> str:
        """``Kind namespace/name``."""
        return f"{self.kind} {self.namespace}/{self.name}"

    @property
    def spec(self) -> Mapping[str, Any]:
        """The object's spec."""
        return self.obj.get("spec") or {}

    @property
    def parent(self) -> str | None:
        """The parent CompositePodGroup's name, if any."""
        return self.spec.get("parentCompositePodGroupName") or None

    @property
    def workload(self) -> str | None:
        """The Workload the group was stamped from."""
        return (self.spec.get("workloadRef") or {}).get("workloadName")

    @property
    def threshold(self) -> int | None:
        """``minCount`` / ``minGroupCount`` of a gang, None for the basic policy."""
        gang = (self.spec.get("schedulingPolicy") or {}).get("gang")
        if gang is None:
            return None
        return int(gang.get("minGroupCount" if self.kind == COMPOSITE else "minCount") or 1)

    @property
    def priority(self) -> int:
        """``spec.priority`` as admission resolved it (0 when unset)."""
        value = self.spec.get("priority")
        return value if isinstance(value, int) else 0

    @property
    def preempts(self) -> bool:
        """Whether the group may preempt (``spec.preemptionPolicy`` is not ``Never``)."""
        return self.spec.get("preemptionPolicy") != "Never"

    @property
    def disrupts_all(self) -> bool:
        """``disruptionMode: {all: {}}``: the group's pods are evicted together."""
        return "all" in (self.spec.get("disruptionMode") or {})

    @property
    def topology_key(self) -> str | None:
        """The label key of the group's topology constraint, if any."""
        topology = (self.spec.get("schedulingConstraints") or {}).get("topology") or []
        return topology[0].get("key") if topology else None

    @property
    def condition(self) -> Mapping[str, Any] | None:
        """The group's ``...InitiallyScheduled`` condition, if written."""
        wanted = CONDITION_TYPES[self.kind]
        conditions = (self.obj.get("status") or {}).get("conditions") or []
        return next((c for c in conditions if c.get("type") == wanted), None)

    @property
    def admitted(self) -> bool:
        """Whether the group was scheduled once (the condition is True; it never reverts)."""
        return (self.condition or {}).get("status") == "True"

    @property
    def pending(self) -> list[PodInfo]:
        """Members without a node."""
        return [p for p in self.members if p.node is None]

    def walk(self) -> Iterator[Group]:
        """This group and every descendant, parents first."""
        yield self
        for child in self.children:
            yield from child.walk()

    def depth(self) -> int:
        """Levels in this subtree (a lone group is 1)."""
        return 1 + max((c.depth() for c in self.children), default=0)


@dataclass
class Forest:
    """Roots to schedule, groups that cannot be reached, and layouts the scheduler rejects."""

    roots: list[Group]
    blocked: list[tuple[Group, str]]  # groups whose pods cannot be scheduled, and why
    invalid: list[tuple[Group, str]]  # CompositePodGroups to mark Invalid
    unowned: list[PodInfo]  # pods naming a PodGroup that does not exist


def build_forest(
    pod_groups: Sequence[Mapping[str, Any]],
    composites: Sequence[Mapping[str, Any]],
    pods: Sequence[PodInfo],
) -> Forest:
    """Link groups to parents and members; find cycles, missing parents and bad layouts."""
    groups = [_group(POD_GROUP, o) for o in pod_groups] + [_group(COMPOSITE, o) for o in composites]
    groups.sort(key=lambda g: (g.namespace, g.name, g.kind))
    by_name = {(g.namespace, g.name): g for g in groups if g.kind == COMPOSITE}
    pod_group_names = {(g.namespace, g.name): g for g in groups if g.kind == POD_GROUP}
    unowned = []
    for pod in pods:
        owner = pod_group_names.get((pod.namespace, pod.group or ""))
        if owner is not None:
            owner.members.append(pod)
        elif pod.group is not None:
            unowned.append(pod)
    for g in groups:
        parent = by_name.get((g.namespace, g.parent)) if g.parent else None
        if parent is not None:
            parent.children.append(g)
    roots = [g for g in groups if g.parent is None]
    reached = {id(d) for r in roots for d in r.walk()}
    forest = Forest([], [], [], unowned)
    for g in groups:
        if id(g) not in reached:
            forest.blocked.append((g, _unreachable(g, by_name, forest)))
    for root in roots:
        problem = _layout_problem(root)
        if problem is None:
            forest.roots.append(root)
            continue
        forest.invalid.append((root, problem))
        forest.blocked += [(g, f"invalid group layout: {problem}") for g in root.walk()]
    return forest


def _group(kind: str, obj: Mapping[str, Any]) -> Group:
    meta = obj.get("metadata") or {}
    return Group(kind, meta.get("namespace", "default"), meta["name"], obj)


def _unreachable(g: Group, by_name: Mapping[tuple[str, str], Group], forest: Forest) -> str:
    """Why ``g`` hangs under no root: a missing parent or a cycle (then marked Invalid)."""
    chain = [g]
    while True:
        name = chain[-1].parent
        parent = by_name.get((g.namespace, name)) if name else None
        if parent is None:
            return f"parent composite pod group {g.namespace}/{name} not found"
        if parent in chain:
            cycle = [c.name for c in chain[chain.index(parent) :]]
            start = cycle.index(min(cycle))
            cycle = cycle[start:] + cycle[:start]
            names = " -> ".join([*cycle, cycle[0]])
            message = f"cycle detected in the group hierarchy: {names}"
            if g is parent and all(g is not c for c, _ in forest.invalid):
                forest.invalid.append((g, message))
            return f"invalid group layout: {message}"
        chain.append(parent)


def _layout_problem(root: Group) -> str | None:
    """What the scheduler rejects in a tree: too deep, or spanning several Workloads."""
    depth = root.depth()
    if depth > MAX_DEPTH:
        return f"the group hierarchy is {depth} levels deep; the maximum is {MAX_DEPTH}"
    workloads = sorted({g.workload or "" for g in root.walk()})
    if len(workloads) > 1:
        listed = ", ".join(repr(w) for w in workloads)
        return f"the group hierarchy spans several Workloads: {listed}"
    return None
