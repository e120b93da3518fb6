"""Nodes, pods and free capacity as the simulated scheduler sees them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction
from functools import cached_property
from types import MappingProxyType
from typing import Any

from .quantity import parse_quantity

Resources = dict[str, Fraction]
HOSTNAME_LABEL = "kubernetes.io/hostname"
_TERMINAL_PHASES = frozenset({"Succeeded", "Failed"})


def _default_allocatable() -> Mapping[str, str]:
    return {"cpu": "8", "memory": "32Gi", "nvidia.com/gpu": "4"}


@dataclass(frozen=True)
class SimNode:
    """A node as the simulated scheduler sees it: allocatable resources (quantities), labels,
    taints and ``spec.unschedulable``.

    ``kubernetes.io/hostname`` is implied (the node name) unless given in ``labels``. As a
    shorthand, a ``SimNode`` given to the simulator becomes a Node object in the server
    (:meth:`to_object`); the simulator schedules onto the Node objects it reads back.
    """

    name: str
    allocatable: Mapping[str, str | int] = field(default_factory=_default_allocatable)
    labels: Mapping[str, str] = field(default_factory=dict)
    taints: tuple[Mapping[str, str], ...] = ()
    unschedulable: bool = False

    def __post_init__(self) -> None:
        for resource, quantity in self.allocatable.items():
            try:
                parse_quantity(quantity)
            except ValueError as err:
                raise ValueError(f"node {self.name!r}: allocatable {resource}: {err}") from None

    @cached_property
    def allocatable_values(self) -> Mapping[str, Fraction]:
        """Allocatable resources as exact numbers, read once."""
        return MappingProxyType({r: parse_quantity(q) for r, q in self.allocatable.items()})

    def capacity(self) -> Resources:
        """Allocatable resources as exact numbers (a new dict the caller may change)."""
        return dict(self.allocatable_values)

    def label(self, key: str) -> str | None:
        """The value of label ``key`` (hostname implied)."""
        if key == HOSTNAME_LABEL:
            return self.labels.get(key, self.name)
        return self.labels.get(key)

    def to_object(self) -> dict[str, Any]:
        """The Node object this shorthand stands for: Ready, with its allocatable as capacity."""
        allocatable = {r: str(q) for r, q in self.allocatable.items()}
        spec: dict[str, Any] = {}
        if self.taints:
            spec["taints"] = [dict(t) for t in self.taints]
        if self.unschedulable:
            spec["unschedulable"] = True
        return {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": self.name, "labels": {HOSTNAME_LABEL: self.name, **self.labels}},
            "spec": spec,
            "status": {
                "capacity": allocatable,
                "allocatable": allocatable,
                "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}],
            },
        }

    @classmethod
    def from_object(cls, node: Mapping[str, Any]) -> SimNode:
        """Read a Node object; ``ValueError`` says why the scheduler cannot use it."""
        meta, spec = node.get("metadata") or {}, node.get("spec") or {}
        name = meta.get("name")
        if not isinstance(name, str) or not name:
            raise ValueError("the node has no metadata.name")
        allocatable = (node.get("status") or {}).get("allocatable")
        if not isinstance(allocatable, Mapping) or not allocatable:
            raise ValueError(f"node {name!r} has no status.allocatable")
        labels = meta.get("labels") or {}
        taints = spec.get("taints") or []
        if not isinstance(labels, Mapping) or not isinstance(taints, list):
            raise ValueError(f"node {name!r}: labels or taints are not readable")
        return cls(
            name,
            allocatable=dict(allocatable),
            labels={str(k): str(v) for k, v in labels.items()},
            taints=tuple(t for t in taints if isinstance(t, Mapping)),
            unschedulable=spec.get("unschedulable") is True,
        )


def _container_requests(container: Mapping[str, Any]) -> Resources:
    resources = container.get("resources") or {}
    merged = {**(resources.get("limits") or {}), **(resources.get("requests") or {})}
    return {r: parse_quantity(q) for r, q in merged.items()}


def pod_requests(pod: Mapping[str, Any]) -> Resources:
    """What a pod asks for: containers summed, init containers as a floor, plus overhead.

    A resource with only a limit requests its limit, as the API server defaults it.
    """
    spec = pod.get("spec") or {}
    total: Resources = {}
    for container in spec.get("containers") or []:
        for r, q in _container_requests(container).items():
            total[r] = total.get(r, Fraction(0)) + q
    for container in spec.get("initContainers") or []:
        for r, q in _container_requests(container).items():
            total[r] = max(total.get(r, Fraction(0)), q)
    for r, q in (spec.get("overhead") or {}).items():
        total[r] = total.get(r, Fraction(0)) + parse_quantity(q)
    total["pods"] = Fraction(1)
    return total


@dataclass(frozen=True)
class PodInfo:
    """The parts of a pod the scheduler uses."""

    namespace: str
    name: str
    requests: Resources
    node_selector: Mapping[str, str]
    node: str | None
    group: str | None
    uid: str = ""
    scheduled: tuple[str, str, str] | None = None  # PodScheduled (status, reason, message)
    priority: int = 0
    preempts: bool = True  # preemptionPolicy is not Never
    tolerations: tuple[Mapping[str, Any], ...] = ()
    deleting: str | None = None  # metadata.deletionTimestamp: terminating, still on its node
    nominated: str | None = None  # status.nominatedNodeName
    started: int | None = None  # status.startTime, in whole seconds since the epoch
    # spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms
    # (None: the pod has no required node affinity)
    required_terms: tuple[Mapping[str, Any], ...] | None = None

    def start_key(self, now: int) -> tuple[int, int]:
        """``status.startTime`` as kube-scheduler compares it: a pod without one (not started
        by a kubelet) counts as starting ``now``, later than any recorded start; the key
        orders whole seconds, the field's precision."""
        return (0, self.started) if self.started is not None else (1, now)

    @property
    def key(self) -> str:
        """``namespace/name``."""
        return f"{self.namespace}/{self.name}"

    @classmethod
    def from_object(cls, pod: Mapping[str, Any]) -> PodInfo:
        """Read a pod object."""
        meta, spec = pod.get("metadata") or {}, pod.get("spec") or {}
        namespace, name = meta.get("namespace", "default"), meta["name"]
        try:
            requests = pod_requests(pod)
        except ValueError as err:
            raise ValueError(f"pod {namespace}/{name}: {err}") from None
        status = pod.get("status") or {}
        conditions = status.get("conditions") or []
        scheduled = next((c for c in conditions if c.get("type") == "PodScheduled"), None)
        priority = spec.get("priority")
        return cls(
            namespace=namespace,
            name=name,
            requests=requests,
            node_selector=spec.get("nodeSelector") or {},
            node=spec.get("nodeName") or None,
            group=(spec.get("schedulingGroup") or {}).get("podGroupName") or None,
            uid=str(meta.get("uid") or ""),
            scheduled=(
                None
                if scheduled is None
                else (scheduled.get("status"), scheduled.get("reason"), scheduled.get("message"))
            ),
            priority=priority if isinstance(priority, int) else 0,
            preempts=spec.get("preemptionPolicy") != "Never",
            tolerations=tuple(t for t in spec.get("tolerations") or [] if isinstance(t, Mapping)),
            deleting=meta.get("deletionTimestamp") or None,
            nominated=status.get("nominatedNodeName") or None,
            started=_seconds(status.get("startTime")),
            required_terms=_required_terms(spec),
        )


def _required_terms(spec: Mapping[str, Any]) -> tuple[Mapping[str, Any], ...] | None:
    """The pod's required node affinity terms, or None when it has none."""
    affinity = (spec.get("affinity") or {}).get("nodeAffinity") or {}
    required = affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if not isinstance(required, Mapping):
        return None
    terms = required.get("nodeSelectorTerms") or []
    return tuple(t for t in terms if isinstance(t, Mapping))


def _seconds(stamp: Any) -> int | None:
    """An RFC 3339 timestamp in whole seconds since the epoch (None: absent or unreadable)."""
    if not isinstance(stamp, str):
        return None
    try:
        return int(datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp())
    except ValueError:
        return None


def is_active(pod: Mapping[str, Any]) -> bool:
    """A pod that holds (or waits for) a node: not terminal. A terminating pod (one with a
    ``deletionTimestamp``) still holds its node until it is gone."""
    return (pod.get("status") or {}).get("phase") not in _TERMINAL_PHASES


def tolerates(tolerations: Sequence[Mapping[str, Any]], taint: Mapping[str, Any]) -> bool:
    """Whether a toleration matches the taint (``ToleratesTaint`` of core/v1 helpers)."""
    for t in tolerations:
        if t.get("effect") and t.get("effect") != taint.get("effect"):
            continue
        if t.get("key") and t.get("key") != taint.get("key"):
            continue
        if t.get("operator") == "Exists":
            return True
        if t.get("key") and (t.get("value") or "") == (taint.get("value") or ""):
            return True
    return False


@dataclass
class Cluster:
    """Free capacity per node; copies are cheap enough for trial placements."""

    nodes: tuple[SimNode, ...]
    free: dict[str, Resources]

    @classmethod
    def build(cls, nodes: Sequence[SimNode], bound: Iterable[PodInfo]) -> Cluster:
        """Nodes sorted by name, minus what the already bound pods use."""
        ordered = tuple(sorted(nodes, key=lambda n: n.name))
        cluster = cls(ordered, {n.name: n.capacity() for n in ordered})
        for pod in bound:
            if pod.node in cluster.free:
                cluster.take(pod.node, pod.requests)
        return cluster

    def copy(self) -> Cluster:
        """An independent copy of the free capacity."""
        return Cluster(self.nodes, {n: dict(free) for n, free in self.free.items()})

    def take(self, node: str, requests: Resources) -> None:
        """Account ``requests`` on ``node``."""
        free = self.free[node]
        for r, q in requests.items():
            if r in free:
                free[r] -= q

    def give(self, node: str, requests: Resources) -> None:
        """Release ``requests`` on ``node`` (a pod that leaves it)."""
        free = self.free.get(node)
        if free is None:
            return
        for r, q in requests.items():
            if r in free:
                free[r] += q
