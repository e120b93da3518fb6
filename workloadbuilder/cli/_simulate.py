"""``simulate``: the spec's objects and pods on a local API server, one simulated pass."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..api.scheduling_v1alpha3 import CompositePodGroup
from ..api.scheduling_v1beta1 import PodGroup, Workload
from ..runtime import set_scheduling_group
from ..spec import DocumentError, LoadedSpec, SpecLeaf, read_documents
from ..testing import FakeAPIServer, GangSimulator, SimNode

__all__ = ["GroupVerdict", "load_nodes", "simulate"]

_WHERE: dict[type[Workload | PodGroup | CompositePodGroup], tuple[str, str, str]] = {
    Workload: ("scheduling.k8s.io", "v1beta1", "workloads"),
    CompositePodGroup: ("scheduling.k8s.io", "v1alpha3", "compositepodgroups"),
    PodGroup: ("scheduling.k8s.io", "v1beta1", "podgroups"),
}


@dataclass(frozen=True)
class GroupVerdict:
    """What the simulated scheduler did with one group."""

    kind: str
    name: str
    template: str
    verdict: str
    """``placed``, ``waiting for members`` or ``unschedulable``."""
    detail: str

    def to_dict(self) -> dict[str, str]:
        """The verdict as plain JSON."""
        return {
            "kind": self.kind,
            "name": self.name,
            "template": self.template,
            "verdict": self.verdict,
            "detail": self.detail,
        }


def load_nodes(path: Path) -> list[SimNode]:
    """Nodes from a YAML file: ``Node`` objects (a stream or a ``List``), or a list of
    ``{name, allocatable, labels}``."""
    nodes: list[SimNode] = []
    try:
        documents = read_documents(path.read_bytes())
    except DocumentError as exc:
        raise ValueError(f"{path}:{exc.line}: {exc.message}") from None
    for doc in documents:
        nodes.extend(_nodes_of(doc, path))
    if not nodes:
        raise ValueError(f"{path}: no nodes: give Node objects or a list of {{name, allocatable}}")
    return nodes


def _nodes_of(doc: Any, path: Path) -> Iterable[SimNode]:
    if doc is None:
        return []
    if isinstance(doc, list):
        return [_simple_node(n, path, i) for i, n in enumerate(doc)]
    if isinstance(doc, Mapping) and isinstance(doc.get("items"), list):
        return [_node_object(n, path) for n in doc["items"]]
    if isinstance(doc, Mapping) and doc.get("kind") == "Node":
        return [_node_object(doc, path)]
    raise ValueError(
        f"{path}: expected Node objects or a list of {{name, allocatable, labels}}, got {doc!r:.80}"
    )


def _simple_node(node: Any, path: Path, index: int) -> SimNode:
    if not isinstance(node, Mapping) or not isinstance(node.get("name"), str):
        raise ValueError(f"{path}: [{index}]: each node needs a name, e.g. {{name: node-0}}")
    unknown = sorted(set(node) - {"name", "allocatable", "labels"})
    if unknown:
        raise ValueError(
            f"{path}: [{index}].{unknown[0]}: unknown field (name, allocatable, labels)"
        )
    kwargs: dict[str, Any] = {"labels": dict(node.get("labels") or {})}
    if node.get("allocatable") is not None:
        kwargs["allocatable"] = dict(node["allocatable"])
    return SimNode(node["name"], **kwargs)


def _node_object(node: Any, path: Path) -> SimNode:
    meta = node.get("metadata") or {} if isinstance(node, Mapping) else {}
    name = meta.get("name")
    if not isinstance(name, str):
        raise ValueError(f"{path}: a Node without metadata.name")
    allocatable = (node.get("status") or {}).get("allocatable")
    kwargs: dict[str, Any] = {"labels": dict(meta.get("labels") or {})}
    if allocatable is not None:
        kwargs["allocatable"] = dict(allocatable)
    return SimNode(name, **kwargs)


def _pods(spec: LoadedSpec, group: PodGroup) -> list[dict[str, Any]]:
    template = group.spec.workload_ref.template_name if group.spec.workload_ref else ""
    node = next(n for _, n, _ in spec.nodes() if n.name == template)
    assert isinstance(node, SpecLeaf)
    gang = group.spec.scheduling_policy.gang
    count = node.replicas if node.replicas is not None else (gang.min_count if gang else 1)
    requests = {k: str(v) for k, v in (node.resources or {}).items()}
    claims = [c.to_dict() for c in group.spec.resource_claims or ()]
    pods = []
    for i in range(count):
        container: dict[str, Any] = {"name": "main", "image": "registry.k8s.io/pause:3.10"}
        if requests:
            container["resources"] = {"requests": requests}
        pod_spec: dict[str, Any] = {"containers": [container]}
        if claims:
            pod_spec["resourceClaims"] = claims
        pod = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": f"{group.metadata.name}-{i}", "namespace": spec.options.namespace},
            "spec": pod_spec,
        }
        pods.append(set_scheduling_group(pod, group))
    return pods


async def simulate(spec: LoadedSpec, nodes: list[SimNode]) -> list[GroupVerdict]:
    """Create the spec's objects and pods on a fresh local API server, run one scheduling pass,
    and say what happened to each group."""
    objects = spec.objects()
    namespace = spec.options.namespace
    async with FakeAPIServer() as server:
        if server.get_object("", "v1", "namespaces", None, namespace) is None:
            server.create_object(
                "",
                "v1",
                "namespaces",
                {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}},
            )
        pods_of: dict[str, list[str]] = {}
        for obj in objects:
            group, version, plural = _WHERE[type(obj)]
            server.create_object(group, version, plural, obj.to_dict())
            if isinstance(obj, PodGroup):
                pods = _pods(spec, obj)
                pods_of[obj.metadata.name or ""] = [p["metadata"]["name"] for p in pods]
                for pod in pods:
                    server.create_object("", "v1", "pods", pod)
        result = await GangSimulator(server, nodes).step()
    verdicts = []
    for obj in objects:
        if isinstance(obj, Workload):
            continue
        name = obj.metadata.name or ""
        template = obj.spec.workload_ref.template_name if obj.spec.workload_ref else ""
        kind = type(obj).__name__
        condition = result.conditions.get(f"{kind} {namespace}/{name}")
        members = [f"{namespace}/{p}" for p in pods_of.get(name, [])]
        verdicts.append(_verdict(obj, kind, name, template, condition, result.bound, members))
    return verdicts


def _verdict(
    obj: PodGroup | CompositePodGroup,
    kind: str,
    name: str,
    template: str,
    condition: tuple[str, str, str] | None,
    bound: Mapping[str, str],
    pods: list[str],
) -> GroupVerdict:
    if condition is not None and condition[0] == "True":
        if isinstance(obj, PodGroup):
            placed = [p for p in pods if p in bound]
            nodes = sorted({bound[p] for p in placed})
            detail = f"{len(placed)} of {len(pods)} pod(s) bound to {', '.join(nodes)}"
        else:
            detail = "enough of its groups were placed together"
        return GroupVerdict(kind, name, template, "placed", detail)
    if condition is not None:
        return GroupVerdict(
            kind, name, template, "unschedulable", f"{condition[1]}: {condition[2]}"
        )
    gang = obj.spec.scheduling_policy.gang if isinstance(obj, PodGroup) else None
    if gang is not None:
        detail = (
            f"{len(pods)} of minCount {gang.min_count} pods exist; the scheduler waits for the rest"
        )
        return GroupVerdict(kind, name, template, "waiting for members", detail)
    return GroupVerdict(kind, name, template, "waiting for members", "no pods to schedule yet")
