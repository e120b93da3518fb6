"""TaintNodesByCondition (``plugin/pkg/admission/nodetaint``): a new Node gets the
``node.kubernetes.io/not-ready:NoSchedule`` taint, even when created with ``Ready`` True
(observed); the node lifecycle stand-in removes it."""

from __future__ import annotations

from typing import Any, Final

from workloadbuilder.testing.engine.admission.attributes import CREATE, Attributes

NOT_READY_TAINT: Final = {"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}


class TaintNodesByCondition:
    """Taints a new Node not-ready."""

    name = "TaintNodesByCondition"

    def admit(self, attrs: Attributes) -> None:
        obj = attrs.obj
        if (
            attrs.operation != CREATE
            or obj is None
            or (attrs.rt.group, attrs.rt.kind) != ("", "Node")
        ):
            return
        spec = obj.setdefault("spec", {})
        if not isinstance(spec, dict):
            return
        given = spec.get("taints")
        taints: list[Any] = given if isinstance(given, list) else []
        if not any(
            isinstance(t, dict)
            and (t.get("key"), t.get("effect")) == tuple(NOT_READY_TAINT.values())
            for t in taints
        ):
            spec["taints"] = [*taints, dict(NOT_READY_TAINT)]
