"""batch/v1: the Job's ``spec.scheduling`` block (gate WorkloadWithJob).

Like the building blocks it embeds, it holds any structurally typed value; the Job
integration's ``validate()`` reports problems at ``spec.scheduling...``.
"""

from __future__ import annotations

from ._base import K8sModel, OptList
from .scheduling_v1alpha3 import (
    WorkloadPodGroupDisruptionMode,
    WorkloadPodGroupResourceClaim,
    WorkloadPodGroupSchedulingConstraints,
    WorkloadPodGroupSchedulingPolicy,
)

__all__ = ["JobSchedulingConfiguration"]


class JobSchedulingConfiguration(K8sModel):
    """``job.spec.scheduling``: how the Job controller compiles the Job into a Workload."""

    scheduling_policy: WorkloadPodGroupSchedulingPolicy | None = None
    scheduling_constraints: WorkloadPodGroupSchedulingConstraints | None = None
    disruption_mode: WorkloadPodGroupDisruptionMode | None = None
    resource_claims: OptList[WorkloadPodGroupResourceClaim] = None
