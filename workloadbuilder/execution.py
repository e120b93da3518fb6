"""What one execution of a Workload is made of: the Workload and its runtime objects, parents
first, as ``Builder.release()`` and ``instantiate()`` give them."""

from __future__ import annotations

from dataclasses import dataclass

from .api.scheduling_v1alpha3 import CompositePodGroup
from .api.scheduling_v1beta1 import PodGroup, Workload

__all__ = ["Release", "RuntimeObject", "RuntimeObjects"]

RuntimeObject = PodGroup | CompositePodGroup


class RuntimeObjects(list[RuntimeObject]):
    """The runtime objects of one execution, parents first (a real ``list``), and
    ``by_template``: each object by the name of the template it was stamped from."""

    __slots__ = ()

    @property
    def by_template(self) -> dict[str, RuntimeObject]:
        """Template name -> object, in the list's order."""
        out: dict[str, RuntimeObject] = {}
        for obj in self:
            ref = obj.spec.workload_ref
            if ref is not None:
                out[ref.template_name] = obj
        return out


@dataclass(frozen=True, slots=True)
class Release:
    """What ``Builder.release()`` gives: the Workload and the runtime objects of one execution."""

    workload: Workload
    """The compiled Workload (or the existing one): a copy of the Builder's, to change freely."""
    objects: RuntimeObjects
    """Every CompositePodGroup and PodGroup, parents first."""

    @property
    def ordered(self) -> list[Workload | RuntimeObject]:
        """The Workload, then the runtime objects: the order to apply them in."""
        return [self.workload, *self.objects]
