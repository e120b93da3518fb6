"""``GangSimulator``: what the 1.37 kube-scheduler and its gang plugin do to the objects.

It talks to a test API server (``server.url``) over plain HTTP, like any other client: it
lists pods, PodGroups and CompositePodGroups, binds pods with a merge patch of
``spec.nodeName`` (copying the node's ``topology.kubernetes.io/zone`` label to the pod and,
standing in for the kubelet, marking them ``Running``), writes ``PodScheduled`` and the
groups' ``...InitiallyScheduled`` conditions through ``/status``, and posts the scheduler's
``Scheduled`` / ``FailedScheduling`` events. The placement itself is
:func:`workloadbuilder.testing.sim.place.plan`, a pure function whose module docstring
states the rules and what is written.

Condition reasons: ``Scheduled`` (True, empty message), ``Unschedulable`` (False) and
``Invalid`` (False, for rejected hierarchies).

:meth:`GangSimulator.evict` models node-pressure eviction: the pod stays, with phase
``Failed`` and reason ``Evicted``, and no longer uses its node. Group conditions do not
change (``InitiallyScheduled`` never reverts). :meth:`GangSimulator.preempt` writes what the
scheduler writes on a preemption victim: ``DisruptionTarget``, a ``Preempted`` event, then a
DELETE with the default 30 s grace period.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final, Literal, Protocol

import aiohttp

from .groups import COMPOSITE, POD_GROUP
from .model import SimNode
from .place import ConditionChange, PodWrite, plan

__all__ = ["GangSimulator", "SimNode", "StepResult"]

_PODS = "/api/v1/pods"
_GROUP_APIS = {
    POD_GROUP: ("/apis/scheduling.k8s.io/v1beta1", "podgroups"),
    COMPOSITE: ("/apis/scheduling.k8s.io/v1alpha3", "compositepodgroups"),
}
_MERGE = {"Content-Type": "application/merge-patch+json"}
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
    reason), and the group conditions written (``Kind ns/name`` to ``(status, reason, message)``).
    """

    bound: dict[str, str] = field(default_factory=dict)
    pending: dict[str, str] = field(default_factory=dict)
    conditions: dict[str, tuple[str, str, str]] = field(default_factory=dict)


class GangSimulator:
    """A deterministic stand-in for kube-scheduler; call :meth:`step` to run one pass."""

    def __init__(self, server: _Server, nodes: Sequence[SimNode] | None = None) -> None:
        self._server = server
        self.nodes: tuple[SimNode, ...] = tuple(nodes) if nodes is not None else default_nodes()
        names = [n.name for n in self.nodes]
        if len(set(names)) != len(names):
            raise ValueError(f"node names must be unique, got {names}")

    async def step(self) -> StepResult:
        """Schedule everything pending once, write the outcome, and report it."""
        async with aiohttp.ClientSession(self._server.url) as http:
            pods = await _list(http, _PODS)
            pod_groups = await _list(http, _list_path(POD_GROUP), unserved_ok=True)
            composites = await _list(http, _list_path(COMPOSITE), unserved_ok=True)
            outcome = plan(self.nodes, pods, pod_groups, composites)
            by_key = {_key(p): p for p in pods}
            uids = {k: str(p["metadata"].get("uid") or "") for k, p in by_key.items()}
            nodes = {n.name: n for n in self.nodes}
            for key, node in outcome.binds.items():
                await _bind(http, by_key[key], nodes[node])
            for key, write in outcome.unschedulable.items():
                await _write_unschedulable(http, key, write, uids.get(key, ""))
            for change in outcome.conditions:
                await _write_condition(http, change)
        return StepResult(
            bound=dict(outcome.binds),
            pending={k: v for k, v in sorted(outcome.pending.items())},
            conditions={
                f"{c.kind} {c.namespace}/{c.name}": (c.status, c.reason, c.message)
                for c in outcome.conditions
            },
        )

    async def evict(self, namespace: str, pod_name: str) -> None:
        """Lose a bound pod: it becomes ``Failed`` (reason ``Evicted``) and frees its node."""
        path = f"/api/v1/namespaces/{namespace}/pods/{pod_name}"
        async with aiohttp.ClientSession(self._server.url) as http:
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
        """Preempt a bound pod for ``by`` (the preemptor: a Pod or a PodGroup object).

        As kube-scheduler does: ``DisruptionTarget`` True (reason ``PreemptionByScheduler``),
        a Normal ``Preempted`` event, then a DELETE with ``gracePeriodSeconds=30``.
        """
        path = f"/api/v1/namespaces/{namespace}/pods/{pod_name}"
        kind = by.get("kind")
        if kind not in ("Pod", "PodGroup"):
            raise ValueError(f"the preemptor must be a Pod or a PodGroup object, got kind {kind!r}")
        preemptor: Literal["pod", "podgroup"] = "pod" if kind == "Pod" else "podgroup"
        async with aiohttp.ClientSession(self._server.url) as http:
            pod = await _request(http, "GET", path)
            node = (pod.get("spec") or {}).get("nodeName")
            if not node:
                raise ValueError(
                    f"pod {namespace}/{pod_name} is not bound to a node: only bound pods can be"
                    " preempted; run step() first"
                )
            target = {
                "type": "DisruptionTarget",
                "status": "True",
                "reason": "PreemptionByScheduler",
                "message": f"{SCHEDULER}: preempting to accommodate a higher priority {preemptor}",
                "lastTransitionTime": _now(),
                **_observed(pod),
            }
            await _set_condition(http, path, pod, target)
            uid = (by.get("metadata") or {}).get("uid") or ""
            where = "cluster" if preemptor == "podgroup" else node
            await _event(
                http,
                pod_name,
                namespace,
                str(pod["metadata"].get("uid") or ""),
                ("Normal", "Preempted", "Preempting"),
                f"Preempted by {preemptor} {uid} on node {where}",
            )
            async with http.delete(path, params={"gracePeriodSeconds": "30"}) as response:
                await _payload(response, "DELETE", path)


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


async def _bind(http: aiohttp.ClientSession, pod: Mapping[str, Any], node: SimNode) -> None:
    """Bind: ``spec.nodeName`` and the node's zone label, ``PodScheduled=True`` (no reason,
    no message), a ``Scheduled`` event."""
    meta = pod["metadata"]
    namespace, name, uid = meta.get("namespace", "default"), meta["name"], meta.get("uid", "")
    path = f"/api/v1/namespaces/{namespace}/pods/{name}"
    patch: dict[str, Any] = {"spec": {"nodeName": node.name}}
    zone = node.label(ZONE_LABEL)
    if zone is not None:
        patch["metadata"] = {"labels": {ZONE_LABEL: zone}}
    await _request(http, "PATCH", path, patch)
    scheduled = {
        "type": "PodScheduled",
        "status": "True",
        "lastTransitionTime": _now(),
        "lastProbeTime": None,
        **_observed(pod),  # as listed before binding: the binding does not change generation
    }
    await _set_condition(http, path, pod, scheduled, phase="Running")
    message = f"Successfully assigned {namespace}/{name} to {node.name}"
    await _event(http, name, namespace, uid, ("Normal", "Scheduled", "Binding"), message)


async def _write_unschedulable(
    http: aiohttp.ClientSession, key: str, write: PodWrite, uid: str
) -> None:
    """``PodScheduled=False`` on a pod the scheduler tried, and ``FailedScheduling`` if new."""
    namespace, name = key.split("/", 1)
    path = f"/api/v1/namespaces/{namespace}/pods/{name}"
    pod = await _request(http, "GET", path)
    current: dict[str, Any] = next(
        (
            c
            for c in (pod.get("status") or {}).get("conditions") or []
            if c.get("type") == "PodScheduled"
        ),
        {},
    )
    condition = {
        "type": "PodScheduled",
        "status": write.status,
        "reason": write.reason,
        "message": write.message,
        "lastProbeTime": None,
        "lastTransitionTime": (
            current.get("lastTransitionTime") if current.get("status") == write.status else _now()
        ),
        **_observed(pod),
    }
    if current != condition:
        await _set_condition(http, path, pod, condition)
    if write.event:
        action = ("Warning", "FailedScheduling", "Scheduling")
        await _event(http, name, namespace, uid, action, write.message)


async def _set_condition(
    http: aiohttp.ClientSession,
    path: str,
    pod: Mapping[str, Any],
    condition: Mapping[str, Any],
    phase: str | None = None,
) -> None:
    """Replace the pod's condition of that type, keeping its other conditions."""
    others = [
        c
        for c in (pod.get("status") or {}).get("conditions") or []
        if c.get("type") != condition["type"]
    ]
    status: dict[str, Any] = {"conditions": [*others, dict(condition)]}
    if phase is not None:
        status["phase"] = phase
    await _request(http, "PATCH", path + "/status", {"status": status})


async def _event(
    http: aiohttp.ClientSession,
    pod: str,
    namespace: str,
    uid: str,
    kind: tuple[str, str, str],
    message: str,
) -> None:
    """Post the scheduler's event about a pod, as the core/v1 view of it reads."""
    type_, reason, action = kind
    stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    event = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {
            "name": f"{pod}.{time.time_ns() + next(_EVENT_IDS):x}",
            "namespace": namespace,
        },
        "involvedObject": {
            "apiVersion": "v1",
            "kind": "Pod",
            "name": pod,
            "namespace": namespace,
            "uid": uid,
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
