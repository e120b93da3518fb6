"""``simulate``: the spec's objects and pods on a local API server, one simulated pass."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..api.scheduling_v1alpha3 import CompositePodGroup
from ..api.scheduling_v1beta1 import PodGroup, Workload
from ..counts import GANG_NEVER_FORMS
from ..execution import RuntimeObject
from ..field import ErrorList, FieldError, FieldPath
from ..runtime import set_scheduling_group
from ..spec import DocumentError, LoadedSpec, SpecLeaf, read_documents
from ..testing import FakeAPIServer, GangSimulator, SimNode
from ..testing.sim.quantity import parse_quantity

__all__ = ["MAX_PODS", "GroupVerdict", "load_nodes", "simulate", "spec_errors"]

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
    """``placed``, ``waiting for members``, ``pending`` or ``unschedulable``: ``diagnose``'s
    Scheduled, WaitingForMembers, Pending, Unschedulable."""
    detail: str

    def to_dict(self) -> dict[str, str]:
        """The verdict as plain JSON, in field order."""
        return dataclasses.asdict(self)


def load_nodes(path: Path) -> list[SimNode]:
    """Nodes from a YAML file: ``Node`` objects (a stream or a ``List``), or a list of
    ``{name, allocatable, labels}``."""
    nodes: list[SimNode] = []
    try:
        documents = read_documents(path.read_bytes())
    except DocumentError as exc:
        raise ValueError(exc.located(str(path))) from None
    for doc in documents:
        try:
            nodes.extend(_nodes_of(doc, path))
        except ValueError as exc:  # a node's quantity, from SimNode: name the file
            message = str(exc)
            named = message if message.startswith(str(path)) else f"{path}: {message}"
            raise ValueError(named) from None
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
    where = f"{path}: [{index}]"
    kwargs: dict[str, Any] = {"labels": _labels(node.get("labels"), f"{where}.labels")}
    if node.get("allocatable") is not None:
        kwargs["allocatable"] = _allocatable(node["allocatable"], f"{where}.allocatable")
    return SimNode(node["name"], **kwargs)


def _node_object(node: Any, path: Path) -> SimNode:
    meta = node.get("metadata") or {} if isinstance(node, Mapping) else {}
    name = meta.get("name") if isinstance(meta, Mapping) else None
    if not isinstance(name, str):
        raise ValueError(f"{path}: a Node without metadata.name")
    where = f"{path}: Node {name}"
    status = node.get("status") or {}
    if not isinstance(status, Mapping):
        raise ValueError(f"{where}: status must be an object")
    labels = _labels(meta.get("labels"), f"{where}: metadata.labels")
    kwargs: dict[str, Any] = {"labels": labels}
    if status.get("allocatable") is not None:
        kwargs["allocatable"] = _allocatable(status["allocatable"], f"{where}: status.allocatable")
    return SimNode(name, **kwargs)


def _labels(value: Any, where: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise ValueError(f"{where}: must be a map of strings to strings")
    return dict(value)


def _is_quantity(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, str | int) and not isinstance(value, bool)


def _allocatable(value: Any, where: str) -> dict[str, str | int]:
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and _is_quantity(v) for k, v in value.items()
    ):
        raise ValueError(f"{where}: must be a map of resource names to quantities (e.g. cpu: 4)")
    return dict(value)


MAX_PODS = 10_000
"""The most pods ``simulate`` creates (the sum of the leaves' ``replicas``)."""


def spec_errors(spec: LoadedSpec) -> ErrorList:
    """What ``simulate`` cannot run with, at the spec's paths: requests that are not quantities
    or are negative, more than :data:`MAX_PODS` pods."""
    errors = ErrorList()
    pods = 0
    for path, node, _ in spec.nodes():
        if not isinstance(node, SpecLeaf):
            continue
        for resource, quantity in (node.resources or {}).items():
            where = path.child("resources").key(resource)
            try:
                negative = parse_quantity(quantity) < 0
            except ValueError as err:
                errors.append(FieldError.invalid(where, quantity, str(err).split(": ", 1)[-1]))
            else:
                if negative:  # the API server's check of a pod's requests
                    detail = "must be greater than or equal to 0"
                    errors.append(FieldError.invalid(where, quantity, detail))
        pods += node.replicas or 0
    if pods > MAX_PODS:
        detail = f"the leaves' replicas add up to more than the {MAX_PODS} pods simulate creates"
        errors.append(FieldError.invalid(FieldPath("spec", "root"), pods, detail))
    return errors


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


_WORDS = {
    "Scheduled": "placed",
    "WaitingForMembers": "waiting for members",
    "Unschedulable": "unschedulable",
    "Pending": "pending",
}
"""``diagnose``'s states as ``simulate`` words them (one pass leaves no Degraded or Preempted)."""


async def simulate(
    spec: LoadedSpec,
    nodes: list[SimNode],
    objects: Sequence[Workload | RuntimeObject] | None = None,
) -> list[GroupVerdict]:
    """Create the spec's objects (``spec.objects()`` unless given) and pods on a fresh local
    API server, run one scheduling pass, and say what happened to each group, as ``diagnose``
    tells it."""
    from .. import aio  # the async helpers: loaded with the local API server

    if objects is None:
        objects = spec.objects()
    namespace = spec.options.namespace
    replicas = {n.name: n.replicas for _, n, _ in spec.nodes() if isinstance(n, SpecLeaf)}
    async with FakeAPIServer() as server:
        if server.get_object("", "v1", "namespaces", None, namespace) is None:
            server.create_object(
                "",
                "v1",
                "namespaces",
                {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}},
            )
        for obj in objects:
            group, version, plural = _WHERE[type(obj)]
            server.create_object(group, version, plural, obj.to_dict())
            if isinstance(obj, PodGroup):
                for pod in _pods(spec, obj):
                    server.create_object("", "v1", "pods", pod)
        await GangSimulator(server, nodes).step()
        verdicts = []
        async with server.api_client() as api:
            for obj in objects:
                if isinstance(obj, Workload):
                    continue
                template = obj.spec.workload_ref.template_name if obj.spec.workload_ref else ""
                verdict = await aio.diagnose(api, obj)
                verdicts.append(_row(verdict, template, replicas.get(template)))
    return verdicts


def _row(verdict: Any, template: str, replicas: int | None) -> GroupVerdict:
    """One group's row: the verdict in ``simulate``'s words, and why."""
    kind, state = verdict.group.kind, str(verdict.state)
    word = _WORDS.get(state, state)
    if state == "Scheduled" and kind == "PodGroup":
        placed = [m for m in verdict.members if m.node]
        nodes = sorted({m.node for m in placed})
        detail = f"{len(placed)} of {len(verdict.members)} pod(s) bound to {', '.join(nodes)}"
        if verdict.extras:
            detail += f"; {len(verdict.extras)} beyond minCount still pending"
    elif state == "Scheduled":
        detail = "enough of its groups were placed together"
    elif state == "WaitingForMembers" and kind == "PodGroup":
        detail = (
            f"{verdict.present} of minCount {verdict.required} pods exist;"
            " the scheduler waits for the rest"
        )
        if replicas is not None and verdict.required is not None and replicas < verdict.required:
            detail += f" (only {replicas} replicas: {GANG_NEVER_FORMS})"
    elif state == "WaitingForMembers":
        detail = (
            f"{verdict.present} of minGroupCount {verdict.required} child groups can be tried;"
            f" {verdict.cause or 'the others are missing'}"
        )
    elif kind == "PodGroup" and verdict.cause:
        detail = verdict.cause
    elif verdict.reason:
        detail = f"{verdict.reason}: {verdict.message}" + (
            f"; {verdict.cause}" if verdict.cause else ""
        )
    else:
        detail = verdict.summary
    return GroupVerdict(kind, verdict.group.name, template, word, detail)
