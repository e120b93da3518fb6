"""What a core object's Go struct always writes, filled in as it writes it when unset.

``omitempty`` does not omit a struct value, and ``metav1.Time``'s ``MarshalJSON`` writes a
zero time as ``null``. So a condition of a Pod, Job, Node, Namespace or
CustomResourceDefinition written without its timestamps comes back with them ``null``
(``PodCondition.lastProbeTime``/``lastTransitionTime`` and their like, each a
``metav1.Time`` with ``omitempty`` in ``k8s.io/api``); ``metav1.Condition`` (PodGroup,
CompositePodGroup) has no ``omitempty`` but validation requires its time. A Node's status
always carries ``daemonEndpoints.kubeletEndpoint.Port`` (``0``) and ``nodeInfo``'s ten
strings (``""``), and an Event its ``involvedObject``: struct values, not pointers.
"""

from __future__ import annotations

from typing import Any, Final

__all__ = ["fill_struct_zero_values"]

_CONDITION_TIMES: Final[dict[tuple[str, str], tuple[str, ...]]] = {
    ("", "Pod"): ("lastProbeTime", "lastTransitionTime"),
    ("batch", "Job"): ("lastProbeTime", "lastTransitionTime"),
    ("", "Node"): ("lastHeartbeatTime", "lastTransitionTime"),
    ("", "Namespace"): ("lastTransitionTime",),
    ("apiextensions.k8s.io", "CustomResourceDefinition"): ("lastTransitionTime",),
}
"""The ``metav1.Time`` (``omitempty``, not a pointer) fields of each kind's conditions."""

_NODE_INFO: Final = (
    "machineID",
    "systemUUID",
    "bootID",
    "kernelVersion",
    "osImage",
    "containerRuntimeVersion",
    "kubeletVersion",
    "kubeProxyVersion",
    "operatingSystem",
    "architecture",
)
"""``NodeSystemInfo``'s string fields (no ``omitempty``), in the struct's order; ``swap``
is a pointer."""


def fill_struct_zero_values(group: str, kind: str, obj: dict[str, Any]) -> None:
    """Write, in place, the zero values ``obj``'s Go struct serializes though unset."""
    times = _CONDITION_TIMES.get((group, kind))
    if times is not None:
        _condition_times(obj, times)
    if (group, kind) == ("", "Node"):
        _node_status(obj)
    elif (group, kind) == ("", "Event") and obj.get("involvedObject") is None:
        obj["involvedObject"] = {}


def _condition_times(obj: dict[str, Any], times: tuple[str, ...]) -> None:
    status = obj.get("status")
    conditions = status.get("conditions") if isinstance(status, dict) else None
    if not isinstance(conditions, list):
        return
    for condition in conditions:
        if isinstance(condition, dict):
            for key in times:
                condition.setdefault(key, None)


def _node_status(obj: dict[str, Any]) -> None:
    status = obj.get("status")
    if status is None:
        status = obj["status"] = {}
    if not isinstance(status, dict):
        return
    endpoints = status.get("daemonEndpoints")
    if endpoints is None:
        endpoints = status["daemonEndpoints"] = {}
    if isinstance(endpoints, dict):
        kubelet = endpoints.get("kubeletEndpoint")
        if kubelet is None:
            kubelet = endpoints["kubeletEndpoint"] = {}
        if isinstance(kubelet, dict):
            kubelet.setdefault("Port", 0)
    info = status.get("nodeInfo")
    if info is None:
        info = status["nodeInfo"] = {}
    if isinstance(info, dict):
        for key in _NODE_INFO:
            if info.get(key) is None:
                info[key] = ""
