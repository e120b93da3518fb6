"""PodGroupProtection (``plugin/pkg/admission/scheduling/podgroupprotection``): a new PodGroup
gets the ``scheduling.k8s.io/podgroup-protection`` finalizer, which the stand-in controller
lifts once no pod of the group is left."""

from __future__ import annotations

from workloadbuilder.testing.common.resources import SCHEDULING
from workloadbuilder.testing.engine.admission.attributes import CREATE, Attributes
from workloadbuilder.testing.rules import POD_GROUP_PROTECTION


class PodGroupProtection:
    """Adds the protection finalizer to a new PodGroup."""

    name = "PodGroupProtection"

    def admit(self, attrs: Attributes) -> None:
        obj = attrs.obj
        if attrs.operation != CREATE or obj is None:
            return
        if (attrs.rt.group, attrs.rt.kind) != (SCHEDULING, "PodGroup"):
            return
        meta = obj["metadata"]
        finalizers = list(meta.get("finalizers") or [])
        if POD_GROUP_PROTECTION not in finalizers:
            meta["finalizers"] = [*finalizers, POD_GROUP_PROTECTION]
