"""``GangSimulator``: what the 1.37 kube-scheduler and its gang plugin do to the objects.

It talks to a test API server (``server.url``) over plain HTTP, like any other client: it
lists Nodes, pods, PodGroups and CompositePodGroups, binds pods through the ``pods/binding``
subresource (the server then copies the node's topology labels to the pod) and, standing in
for the kubelet, marks them ``Running``; it writes ``PodScheduled`` and the groups'
``...InitiallyScheduled`` conditions through ``/status``, and posts the scheduler's
``Scheduled`` / ``FailedScheduling`` / ``Preempted`` events. The placement itself is
:func:`workloadbuilder.testing.sim.place.plan`, a pure function whose module docstring
states the rules and what is written; the filters, gang rules and victims are the scheduler
plugins of :mod:`.plugins`. A plain pod left unschedulable is tried again only after a cluster
event that one of the plugins that rejected it says may help (a Node changed, a pod removed
from its node, a victim of its preemption starting to terminate, the pod's spec changed) or
five minutes on the simulator's clock, as :mod:`.queue` says; a new ``GangSimulator`` starts
with an empty queue, as a restarted scheduler does.

Nodes are the Node objects stored in the server. ``SimNode`` values given to the simulator
(or, when the server has no Node at the first pass, :func:`default_nodes`) are created as
Node objects first. A Node it cannot read (no allocatable, a bad quantity) is left out, with
the reason in :attr:`StepResult.skipped_nodes`.

Preemption victims get ``DisruptionTarget``, a ``Preempted`` event, then a DELETE with the
pod's grace period (30 s by default): they stay Terminating, holding their node, until the
simulator's stand-in kubelet removes them, once their ``deletionTimestamp`` has passed on the
simulator's clock (:meth:`GangSimulator.advance` moves it) or when
:meth:`GangSimulator.finish_terminating` is called; a force delete (grace 0) by the test
works too.

:meth:`GangSimulator.evict` models node-pressure eviction: the pod stays, with phase
``Failed`` and reason ``Evicted``, and no longer uses its node. Group conditions do not
change (``InitiallyScheduled`` never reverts). :meth:`GangSimulator.preempt` is the manual
lever: it evicts a named pod as a preemption does.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Final, Protocol

import aiohttp

from .groups import COMPOSITE, POD_GROUP
from .model import SimNode
from .place import ConditionChange, PodWrite, Preemption, plan
from .queue import ClusterState, UnschedulablePool

__all__ = ["GangSimulator", "SimNode", "StepResult"]

_PODS = "/api/v1/pods"
_GROUP_APIS = {
    POD_GROUP: ("/apis/scheduling.k8s.io/v1beta1", "podgroups"),
    COMPOSITE: ("/apis/scheduling.k8s.io/v1alpha3", "compositepodgroups"),
}
_MERGE = {"Content-Type": "application/merge-patch+json"}
_SCHEDULING = "scheduling.k8s.io"
ZONE_LABEL: Final = "topology.kubernetes.io/zone"
SCHEDULER: Final = "default-scheduler"
_EVENT_IDS = itertools.count()


class _Server(Protocol):
    @property
    def url(self) -> str: ...


def default_nodes() -> tuple[SimNode, ...]:
    """Four nodes of 8 cpu, 32Gi, 4 GPUs: ``node-0``/``1`` in zone ``a``, ``2``/``3`` in ``b``."""
    return tuple(
        SimNode(
            f"node-{i}",
            labels={
                "topology.kubernetes.io/zone": "ab"[i // 2],
                "topology.example.com/rack": f"r{i}",
            },
        )
        for i in range(4)
    )


@dataclass(frozen=True)
class StepResult:
    """What one pass did: pods bound (``ns/name`` to node), pods left pending (with the
    reason), the group conditions written (``Kind ns/name`` to ``(status, reason, message)``),
    victims evicted (``ns/name`` to the preemptor, ``Pod ns/name`` or ``PodGroup ns/name``),
    pods nominated to a node, terminating pods the stand-in kubelet removed, and Nodes left
    out (name to the reason).
    """

    bound: dict[str, str] = field(default_factory=dict)
    pending: dict[str, str] = field(default_factory=dict)
    conditions: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    preempted: dict[str, str] = field(default_factory=dict)
    nominated: dict[str, str] = field(default_factory=dict)
    finished: list[str] = field(default_factory=list)
    skipped_nodes: dict[str, str] = field(default_factory=dict)


class GangSimulator:
    """A deterministic stand-in for kube-scheduler; call :meth:`step` to run one pass.

    ``nodes``: ``SimNode`` shorthands created as Node objects at the first pass (none given:
    the server's own Nodes, or :func:`default_nodes` when it has none).
    """

    def __init__(self, server: _Server, nodes: Sequence[SimNode] | None = None) -> None:
        self._server = server
        self._shorthand: tuple[SimNode, ...] | None = tuple(nodes) if nodes is not None else None
        names = [n.name for n in self._shorthand or ()]
        if len(set(names)) != len(names):
            raise ValueError(f"node names must be unique, got {names}")
        self._nodes_made = False
        self._offset = 0.0
        self._seen: tuple[SimNode, ...] = self._shorthand or default_nodes()
        self._pool = UnschedulablePool()

    @property
    def nodes(self) -> tuple[SimNode, ...]:
        """The nodes the last pass scheduled onto (before the first: those it will create)."""
        return self._seen

    @nodes.setter
    def nodes(self, nodes: Sequence[SimNode]) -> None:
        """More shorthand nodes: those missing from the server are created at the next pass."""
        self._shorthand, self._nodes_made = tuple(nodes), False
        self._seen = self._shorthand

    def now(self) -> datetime:
        """The simulator's clock: real time plus what :meth:`advance` added."""
        return datetime.now(UTC) + timedelta(seconds=self._offset)

    def advance(self, seconds: float) -> None:
        """Move the simulator's clock on: terminating pods whose grace has passed then finish
        at the next :meth:`step`."""
        if seconds < 0:
            raise ValueError(f"the clock only moves forward: got {seconds} seconds")
        self._offset += seconds

    def _session(self) -> aiohttp.ClientSession:
        """A session to the server, as the administrator where the server checks credentials
        (it stands in for the scheduler, the kubelet and the node controller at once)."""
        headers: Mapping[str, str] = getattr(self._server, "admin_headers", {})
        return aiohttp.ClientSession(self._server.url, headers=headers)

    async def finish_terminating(self) -> list[str]:
        """Stand in for the kubelet now: remove every terminating pod (a DELETE with
        ``gracePeriodSeconds=0``), whatever its grace; the ``ns/name`` of those removed."""
        async with self._session() as http:
            pods = await _list(http, _PODS)
            return await _finish(http, pods, None)

    async def step(self) -> StepResult:
        """Finish due terminations, schedule everything pending once, write the outcome."""
        async with self._session() as http:
            await self._make_nodes(http)
            pods = await _list(http, _PODS)
            finished = await _finish(http, pods, self.now())
            pods = [p for p in pods if _key(p) not in finished]
            node_objects = await _list(http, "/api/v1/nodes")
            nodes, skipped = _read_nodes(node_objects)
            self._seen = nodes
            pod_groups = await _list(http, _list_path(POD_GROUP), unserved_ok=True)
            composites = await _list(http, _list_path(COMPOSITE), unserved_ok=True)
            state, now = ClusterState.read(node_objects, pods), self.now()
            parked = self._pool.parked(state, pods, now)
            outcome = plan(nodes, pods, pod_groups, composites, parked)
            self._pool.tried(state, pods, outcome.unschedulable, now, outcome.rejections)
            by_key = {_key(p): p for p in pods}
            for key, node in outcome.binds.items():
                await _bind(http, by_key[key], node, outcome.nominations.get(key) == node)
            for key, writes in outcome.unschedulable.items():
                await _write_unschedulable(http, by_key[key], writes, outcome.nominations.get(key))
            for change in outcome.conditions:
                await _write_condition(http, change)
            for preemption in outcome.preemptions:
                for victim in preemption.victims:
                    await _evict_for(http, by_key[victim.key], preemption)
        return StepResult(
            bound=dict(outcome.binds),
            pending={k: v for k, v in sorted(outcome.pending.items())},
            conditions={
                f"{c.kind} {c.namespace}/{c.name}": (c.status, c.reason, c.message)
                for c in outcome.conditions
            },
            preempted={
                v.key: f"{p.kind} {p.namespace}/{p.name}"
                for p in outcome.preemptions
                for v in p.victims
            },
            nominated=dict(outcome.nominations),
            finished=finished,
            skipped_nodes=skipped,
        )

    async def _make_nodes(self, http: aiohttp.ClientSession) -> None:
        """Create the shorthand nodes (or the default set on an empty server) once."""
        if self._nodes_made:
            return
        self._nodes_made = True
        wanted = self._shorthand
        if wanted is None:
            if await _list(http, "/api/v1/nodes"):
                return
            wanted = default_nodes()
        for node in wanted:
            await _create_node(http, node)

    async def evict(self, namespace: str, pod_name: str) -> None:
        """Lose a bound pod: it becomes ``Failed`` (reason ``Evicted``) and frees its node."""
        path = f"/api/v1/namespaces/{namespace}/pods/{pod_name}"
        async with self._session() as http:
            pod = await _request(http, "GET", path)
            if not (pod.get("spec") or {}).get("nodeName"):
                raise ValueError(
                    f"pod {namespace}/{pod_name} is not bound to a node: only bound pods can be "
                    "evicted; run step() first"
                )
            now = _now()
            status = {
                "phase": "Failed",
                "reason": "Evicted",
                "message": "The simulated node evicted the pod.",
                "conditions": [
                    *[
                        c
                        for c in (pod.get("status") or {}).get("conditions") or []
                        if c.get("type") != "DisruptionTarget"
                    ],
                    {
                        "type": "DisruptionTarget",
                        "status": "True",
                        "reason": "TerminationByKubelet",
                        "message": "The simulated node evicted the pod.",
                        "lastTransitionTime": now,
                    },
                ],
            }
            await _request(http, "PATCH", path + "/status", {"status": status})

    async def preempt(
        self,
        namespace: str,
        pod_name: str,
        *,
        by: Mapping[str, Any],
    ) -> None:
        """Preempt a bound pod for ``by`` (the preemptor: a Pod or a PodGroup object), as
        :meth:`step` does on its own: ``DisruptionTarget`` True (reason
        ``PreemptionByScheduler``), a Normal ``Preempted`` event, then a DELETE with the
        pod's grace period (30 s by default)."""
        path = f"/api/v1/namespaces/{namespace}/pods/{pod_name}"
        kind = by.get("kind")
        if kind not in ("Pod", POD_GROUP):
            raise ValueError(f"the preemptor must be a Pod or a PodGroup object, got kind {kind!r}")
        meta = by.get("metadata") or {}
        async with self._session() as http:
            pod = await _request(http, "GET", path)
            node = (pod.get("spec") or {}).get("nodeName")
            if not node:
                raise ValueError(
                    f"pod {namespace}/{pod_name} is not bound to a node: only bound pods can be"
                    " preempted; run step() first"
                )
            preemptor = Preemption(
                str(kind),
                str(meta.get("namespace") or namespace),
                str(meta.get("name") or ""),
                str(meta.get("uid") or ""),
                (),
                node if kind == "Pod" else None,
            )
            await _evict_for(http, pod, preemptor)


def _key(obj: Mapping[str, Any]) -> str:
    meta = obj.get("metadata") or {}
    return f"{meta.get('namespace', 'default')}/{meta.get('name')}"


def _observed(pod: Mapping[str, Any]) -> dict[str, int]:
    """A pod condition's ``observedGeneration``: the pod's generation, when it has one."""
    generation = (pod.get("metadata") or {}).get("generation")
    return {"observedGeneration": int(generation)} if generation else {}


def _list_path(kind: str) -> str:
    prefix, plural = _GROUP_APIS[kind]
    return f"{prefix}/{plural}"


def _now() -> str:
    return datetime.now(UTC).replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")


async def _payload(response: aiohttp.ClientResponse, method: str, path: str) -> dict[str, Any]:
    payload = await response.json(content_type=None)
    if response.status >= 400:
        raise RuntimeError(
            f"{method} {path} answered {response.status}: {payload}; the simulator needs "
            "the test API server to serve this resource"
        )
    return dict(payload)


async def _request(
    http: aiohttp.ClientSession,
    method: str,
    path: str,
    body: Any = None,
) -> dict[str, Any]:
    headers = _MERGE if method == "PATCH" else None
    async with http.request(method, path, json=body, headers=headers) as response:
        return await _payload(response, method, path)


async def _list(
    http: aiohttp.ClientSession, path: str, *, unserved_ok: bool = False
) -> list[dict[str, Any]]:
    """The items of a list; none when ``unserved_ok`` and the API answers 404."""
    async with http.get(path) as response:
        if unserved_ok and response.status == 404:
            return []
        return list((await _payload(response, "GET", path)).get("items") or [])


async def _create_node(http: aiohttp.ClientSession, node: SimNode) -> None:
    """A shorthand's Node object, created as a kubelet registers one, then its status."""
    path = f"/api/v1/nodes/{node.name}"
    async with http.get(path) as response:
        if response.status != 404:
            return
    obj = node.to_object()
    await _request(http, "POST", "/api/v1/nodes", obj)
    await _request(http, "PATCH", path + "/status", {"status": obj["status"]})


def _read_nodes(
    objects: Sequence[Mapping[str, Any]],
) -> tuple[tuple[SimNode, ...], dict[str, str]]:
    """The Nodes the scheduler can use, and those left out with the reason."""
    nodes, skipped = [], {}
    for obj in objects:
        try:
            nodes.append(SimNode.from_object(obj))
        except ValueError as err:
            skipped[str((obj.get("metadata") or {}).get("name") or "")] = str(err)
    return tuple(nodes), skipped


def _deletion_time(pod: Mapping[str, Any]) -> datetime | None:
    stamp = (pod.get("metadata") or {}).get("deletionTimestamp")
    if not isinstance(stamp, str):
        return None
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None


async def _finish(
    http: aiohttp.ClientSession, pods: Sequence[Mapping[str, Any]], now: datetime | None
) -> list[str]:
    """The stand-in kubelet: force-delete terminating pods whose time has come (all: ``None``)."""
    done = []
    for pod in pods:
        when = _deletion_time(pod)
        if when is None or (now is not None and when > now):
            continue
        if not (pod.get("metadata") or {}).get("deletionGracePeriodSeconds"):
            continue  # already at grace 0: only its finalizers hold it, not a kubelet
        meta = pod["metadata"]
        path = f"/api/v1/namespaces/{meta.get('namespace', 'default')}/pods/{meta['name']}"
        async with http.delete(path, params={"gracePeriodSeconds": "0"}) as response:
            if response.status != 404:
                await _payload(response, "DELETE", path)
        done.append(_key(pod))
    return done


async def _bind(
    http: aiohttp.ClientSession, pod: Mapping[str, Any], node: str, nominate: bool = False
) -> None:
    """Bind through ``pods/binding`` (the server writes ``nodeName``, ``PodScheduled=True``
    and the topology labels, and clears a nomination), mark the pod ``Running``, post the
    ``Scheduled`` event; ``nominate``: write ``nominatedNodeName`` just before binding."""
    meta = pod["metadata"]
    namespace, name = meta.get("namespace", "default"), meta["name"]
    path = f"/api/v1/namespaces/{namespace}/pods/{name}"
    if nominate and (pod.get("status") or {}).get("nominatedNodeName") != node:
        await _request(http, "PATCH", path + "/status", {"status": {"nominatedNodeName": node}})
    binding = {
        "apiVersion": "v1",
        "kind": "Binding",
        "metadata": {"name": name, "namespace": namespace},
        "target": {"apiVersion": "v1", "kind": "Node", "name": node},
    }
    await _request(http, "POST", path + "/binding", binding)
    await _request(http, "PATCH", path + "/status", {"status": {"phase": "Running"}})
    message = f"Successfully assigned {namespace}/{name} to {node}"
    await _event(http, pod, ("Normal", "Scheduled", "Binding"), message)


async def _write_unschedulable(
    http: aiohttp.ClientSession,
    pod: Mapping[str, Any],
    writes: Sequence[PodWrite],
    nominated: str | None,
) -> None:
    """``PodScheduled=False`` on a pod the scheduler tried, in turn for each write, with a
    ``FailedScheduling`` event first when the message is new (and ``nominatedNodeName``)."""
    meta = pod["metadata"]
    path = f"/api/v1/namespaces/{meta.get('namespace', 'default')}/pods/{meta['name']}"
    for write in writes:
        if write.event:
            await _event(http, pod, ("Warning", "FailedScheduling", "Scheduling"), write.message)
        pod = await _request(http, "GET", path)
        current: dict[str, Any] = next(
            (
                c
                for c in (pod.get("status") or {}).get("conditions") or []
                if c.get("type") == "PodScheduled"
            ),
            {},
        )
        same = current.get("status") == write.status
        condition = {
            "type": "PodScheduled",
            "status": write.status,
            "reason": write.reason,
            "message": write.message,
            "lastProbeTime": None,
            "lastTransitionTime": current.get("lastTransitionTime") if same else _now(),
            **_observed(pod),
        }
        if current != condition:
            await _set_condition(http, path, pod, condition, nominated=nominated)
        elif nominated and (pod.get("status") or {}).get("nominatedNodeName") != nominated:
            await _request(
                http, "PATCH", path + "/status", {"status": {"nominatedNodeName": nominated}}
            )


async def _evict_for(
    http: aiohttp.ClientSession, pod: Mapping[str, Any], preemptor: Preemption
) -> None:
    """What the scheduler writes on a victim: the ``Preempted`` event, ``DisruptionTarget``,
    then a DELETE with default options (the pod's own grace period)."""
    meta = pod["metadata"]
    path = f"/api/v1/namespaces/{meta.get('namespace', 'default')}/pods/{meta['name']}"
    word = "pod" if preemptor.kind == "Pod" else "podgroup"
    where = preemptor.node if preemptor.kind == "Pod" else "cluster"
    # kube-scheduler names the preemptor as the event's related object, but for a plain pod it
    # passes its preemption wrapper, whose type no scheme knows: the recorder then leaves
    # ``related`` out (observed); a PodGroup is passed as itself and is referenced.
    related = None
    if preemptor.kind == POD_GROUP:
        related = {
            "apiVersion": f"{_SCHEDULING}/v1beta1",
            "kind": POD_GROUP,
            "name": preemptor.name,
            "namespace": preemptor.namespace,
            "uid": preemptor.uid,
        }
    note = f"Preempted by {word} {preemptor.uid} on node {where}"
    await _event(http, pod, ("Normal", "Preempted", "Preempting"), note, related)
    target = {
        "type": "DisruptionTarget",
        "status": "True",
        "reason": "PreemptionByScheduler",
        "message": f"{SCHEDULER}: preempting to accommodate a higher priority {word}",
        "lastTransitionTime": _now(),
        **_observed(pod),
    }
    await _set_condition(http, path, pod, target)
    async with http.delete(path) as response:
        await _payload(response, "DELETE", path)


async def _set_condition(
    http: aiohttp.ClientSession,
    path: str,
    pod: Mapping[str, Any],
    condition: Mapping[str, Any],
    nominated: str | None = None,
) -> None:
    """Replace the pod's condition of that type, keeping its other conditions (and set
    ``nominatedNodeName`` in the same write)."""
    others = [
        c
        for c in (pod.get("status") or {}).get("conditions") or []
        if c.get("type") != condition["type"]
    ]
    status: dict[str, Any] = {"conditions": [*others, dict(condition)]}
    if nominated is not None:
        status["nominatedNodeName"] = nominated
    await _request(http, "PATCH", path + "/status", {"status": status})


async def _event(
    http: aiohttp.ClientSession,
    pod: Mapping[str, Any],
    kind: tuple[str, str, str],
    message: str,
    related: Mapping[str, Any] | None = None,
) -> None:
    """Post the scheduler's event about a pod, as the core/v1 view of it reads."""
    meta = pod["metadata"]
    name, namespace = meta["name"], meta.get("namespace", "default")
    type_, reason, action = kind
    stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    event: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {
            "name": f"{name}.{time.time_ns() + next(_EVENT_IDS):x}",
            "namespace": namespace,
        },
        "involvedObject": {
            "apiVersion": "v1",
            "kind": "Pod",
            "name": name,
            "namespace": namespace,
            "uid": str(meta.get("uid") or ""),
        },
        "reason": reason,
        "message": message,
        "type": type_,
        "action": action,
        "eventTime": stamp,
        "reportingComponent": SCHEDULER,
        "reportingInstance": f"{SCHEDULER}-simulator",
        "source": {},
    }
    if related is not None:
        event["related"] = dict(related)
    await _request(http, "POST", f"/api/v1/namespaces/{namespace}/events", event)


async def _write_condition(http: aiohttp.ClientSession, change: ConditionChange) -> None:
    """Replace the group's condition of ``change.type``, keeping its other conditions."""
    previous = next((c for c in change.existing if c.get("type") == change.type), {})
    same_status = previous.get("status") == change.status
    condition = {
        "type": change.type,
        "status": change.status,
        "reason": change.reason,
        "message": change.message,
        "lastTransitionTime": previous.get("lastTransitionTime") if same_status else _now(),
    }
    if change.generation:  # a PodGroup has no generation, so its conditions carry none
        condition["observedGeneration"] = change.generation
    others = [c for c in change.existing if c.get("type") != change.type]
    prefix, plural = _GROUP_APIS[change.kind]
    path = f"{prefix}/namespaces/{change.namespace}/{plural}/{change.name}/status"
    await _request(http, "PATCH", path, {"status": {"conditions": [*others, condition]}})
