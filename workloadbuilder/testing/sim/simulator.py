"""``GangSimulator``: what the 1.37 kube-scheduler and its gang plugin do to the objects.

It talks to a test API server (``server.url``) over plain HTTP, like any other client: it
lists pods, PodGroups and CompositePodGroups, binds pods with a merge patch of
``spec.nodeName`` (and, standing in for the kubelet, marks them ``Running``), and writes
``...InitiallyScheduled`` conditions through ``/status``. The placement itself is
:func:`workloadbuilder.testing.sim.place.plan`, a pure function whose module docstring
states the rules.

Condition reasons: ``Scheduled`` (True; the API names no reason for success),
``Unschedulable`` (False) and ``Invalid`` (False, for rejected hierarchies).

:meth:`GangSimulator.evict` models node-pressure eviction: the pod stays, with phase
``Failed`` and reason ``Evicted``, and no longer uses its node. Group conditions do not
change (``InitiallyScheduled`` never reverts).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

import aiohttp

from .groups import COMPOSITE, POD_GROUP
from .model import SimNode
from .place import ConditionChange, plan

__all__ = ["GangSimulator", "SimNode", "StepResult"]

_PODS = "/api/v1/pods"
_GROUP_APIS = {
    POD_GROUP: ("/apis/scheduling.k8s.io/v1beta1", "podgroups"),
    COMPOSITE: ("/apis/scheduling.k8s.io/v1alpha3", "compositepodgroups"),
}
_MERGE = {"Content-Type": "application/merge-patch+json"}


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
            for key, node in outcome.binds.items():
                await _bind(http, key, node)
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
    http: aiohttp.ClientSession, method: str, path: str, body: Any = None
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


async def _bind(http: aiohttp.ClientSession, key: str, node: str) -> None:
    namespace, name = key.split("/", 1)
    path = f"/api/v1/namespaces/{namespace}/pods/{name}"
    await _request(http, "PATCH", path, {"spec": {"nodeName": node}})
    scheduled = {
        "type": "PodScheduled",
        "status": "True",
        "lastTransitionTime": _now(),
    }
    await _request(
        http, "PATCH", path + "/status", {"status": {"phase": "Running", "conditions": [scheduled]}}
    )


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
        "observedGeneration": change.generation,
    }
    others = [c for c in change.existing if c.get("type") != change.type]
    prefix, plural = _GROUP_APIS[change.kind]
    path = f"{prefix}/namespaces/{change.namespace}/{plural}/{change.name}/status"
    await _request(http, "PATCH", path, {"status": {"conditions": [*others, condition]}})
