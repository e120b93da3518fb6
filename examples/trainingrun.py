"""The ``TrainingRun`` custom resource of the operator examples, and its tree.

A TrainingRun asks for ``spec.workers`` workers of which ``spec.minAvailable`` must start
together (default: all)::

    apiVersion: training.example.com/v1
    kind: TrainingRun
    metadata: {name: resnet, namespace: ml}
    spec: {workers: 4, minAvailable: 4}

Both reconcilers (``kopf_operator.py``, ``asyncio_reconciler.py``) map it the same way, with
errors at the resource's own paths (``spec.minAvailable``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import workloadbuilder as wb
from workloadbuilder.api.scheduling_v1alpha3 import (
    WorkloadPodGroupGangSchedulingPolicy,
    WorkloadPodGroupSchedulingPolicy,
)

GROUP, VERSION, PLURAL = "training.example.com", "v1", "trainingruns"
FIELD_MANAGER = "trainingrun-operator"
SPEC = wb.FieldPath("spec")


def builder_for(run: Mapping[str, Any]) -> wb.Builder:
    """The Builder of a TrainingRun as read from the API server (it needs its uid)."""
    spec = run.get("spec") or {}
    min_available = spec.get("minAvailable", spec.get("workers", 1))
    workers = wb.WorkloadItem(
        "workers",
        path=SPEC,
        input=wb.WorkloadInput(
            policy=wb.PolicyInput(
                pod_group_data=WorkloadPodGroupSchedulingPolicy(
                    gang=WorkloadPodGroupGangSchedulingPolicy(min_count=min_available)
                ),
                field_paths={"gang.minCount": SPEC.child("minAvailable")},
            )
        ),
    )
    meta = run["metadata"]
    return wb.Builder(
        workers,
        wb.BuildOptions(
            name=wb.generate_workload_name(meta["name"], meta["uid"]),
            namespace=meta["namespace"],
            owner=wb.controller_ref(run),
            allowed_policies=frozenset({wb.SchedulingPolicyOption.GANG}),
            allowed_disruption_modes=frozenset(wb.DisruptionModeOption),
        ),
    )
