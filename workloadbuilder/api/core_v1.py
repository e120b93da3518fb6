"""core/v1: the pod's link to its scheduling group."""

from __future__ import annotations

from ._base import K8sModel, Str

__all__ = ["PodSchedulingGroup"]


class PodSchedulingGroup(K8sModel):
    """``pod.spec.schedulingGroup``: the PodGroup a pod belongs to (immutable)."""

    pod_group_name: Str | None = None
