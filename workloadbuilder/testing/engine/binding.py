"""``POST pods/<name>/binding``: assign a pod to a node, as the scheduler's binder does.

As the pod registry's binding storage: the pod gets ``spec.nodeName``, the binding's labels and
annotations, and ``PodScheduled`` True (no reason, no message, no ``observedGeneration``);
``metadata.generation`` does not change (the write does not go through the pod update rules).
``status.nominatedNodeName`` is cleared (observed: a nominated preemptor shows none once bound).
Before storing, the PodTopologyLabels admission copies the node's ``topology.kubernetes.io/zone``
and ``/region`` labels onto the pod. A pod already assigned, or being deleted, is a 409; the
answer is a ``Status`` of ``Success`` with code 201.
"""

from __future__ import annotations

from typing import Any, Final

from workloadbuilder.testing.apply.merge import copy_json
from workloadbuilder.testing.common import errors
from workloadbuilder.testing.common.resources import ResourceType
from workloadbuilder.testing.engine import decoding
from workloadbuilder.testing.engine.objects import now
from workloadbuilder.testing.engine.verbs import Engine, Result
from workloadbuilder.testing.store.store import Stored

TOPOLOGY_LABELS: Final = ("topology.kubernetes.io/zone", "topology.kubernetes.io/region")
_NODES = ("", "nodes")


def _conflict(name: str, why: str) -> errors.APIStatusError:
    return errors.APIStatusError(
        errors.status_body(
            409,
            "Conflict",
            f'Operation cannot be fulfilled on pods/binding "{name}": {why}',
            {"name": name, "kind": "pods/binding"},
        )
    )


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _target(body: Any, name: str) -> str:
    """The node a Binding names (400/422 as the API server answers a malformed one)."""
    if not isinstance(body, dict) or body.get("kind", "Binding") != "Binding":
        raise errors.bad_request("the body of the request must be a Binding object")
    meta = _mapping(body.get("metadata"))
    if meta.get("name", name) != name:
        raise errors.bad_request("name in URL does not match name in Binding object")
    target = _mapping(body.get("target"))
    node = target.get("name")
    if target.get("kind", "Node") not in ("", "Node") or not isinstance(node, str) or not node:
        cause = {
            "reason": "FieldValueRequired" if not node else "FieldValueNotSupported",
            "message": "Required value" if not node else 'Unsupported value: must be "Node"',
            "field": "target.name" if not node else "target.kind",
        }
        raise errors.invalid("Binding", "", name, [cause])
    return node


def bind(
    engine: Engine,
    rt: ResourceType,
    namespace: str | None,
    name: str,
    raw: bytes,
    dry_run: bool = False,
) -> Result:
    """Bind the pod ``namespace/name`` to the node the Binding in ``raw`` names."""
    try:
        body = decoding.decode(raw, yaml_ok=True)
    except decoding.DecodeError as exc:
        raise errors.bad_request(
            "the object provided is unrecognized (must be of type Binding): "
            f"couldn't get version/kind; json parse error: {exc}"
        ) from None
    node_name = _target(body, name)
    stored = engine.store.get(("", "pods"), (namespace or "", name))
    if stored is None:
        raise errors.not_found(rt, name)
    pod = copy_json(stored.obj)
    meta, spec = pod["metadata"], pod.setdefault("spec", {})
    if spec.get("nodeName"):
        raise _conflict(name, f'pod {name} is already assigned to node "{spec["nodeName"]}"')
    if meta.get("deletionTimestamp"):
        raise _conflict(name, f"pod {name} is being deleted, cannot be assigned to a host")
    binding_meta = _mapping(body.get("metadata"))
    labels = dict(binding_meta.get("labels") or {})
    node = engine.store.get(_NODES, ("", node_name))
    node_labels = (node.obj["metadata"].get("labels") or {}) if node is not None else {}
    labels.update((k, node_labels[k]) for k in TOPOLOGY_LABELS if k in node_labels)
    if labels:
        meta["labels"] = {**(meta.get("labels") or {}), **labels}
    if binding_meta.get("annotations"):
        meta["annotations"] = {**(meta.get("annotations") or {}), **binding_meta["annotations"]}
    spec["nodeName"] = node_name
    status = pod.setdefault("status", {})
    status.pop("nominatedNodeName", None)
    scheduled = {
        "type": "PodScheduled",
        "status": "True",
        "lastProbeTime": None,
        "lastTransitionTime": now(),
    }
    conditions = list(status.get("conditions") or [])
    at = next((i for i, c in enumerate(conditions) if c.get("type") == "PodScheduled"), None)
    if at is None:
        conditions.append(scheduled)
    else:
        conditions[at] = scheduled
    status["conditions"] = conditions
    if not dry_run:
        engine.persist(rt, Stored(pod, stored.entries))
    success = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success"}
    return Result(201, {**success, "code": 201})
