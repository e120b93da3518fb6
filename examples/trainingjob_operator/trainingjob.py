"""The ``TrainingJob`` custom resource: its tree, and the admission webhooks that guard it.

A TrainingJob asks for ``spec.workers`` workers, of which ``spec.minWorkers`` must start
together (defaulted to all of them by the mutating webhook)::

    apiVersion: training.example.com/v1
    kind: TrainingJob
    metadata: {name: bert, namespace: ml}
    spec: {workers: 4, minWorkers: 4}

``validate`` is the SDK's ``Builder.validate()`` run at admission, so a bad TrainingJob is
refused by ``kubectl apply`` with the error at the resource's own path
(``spec.minWorkers: Invalid value: 0: must be greater than or equal to 1``) instead of being
stored and failing later in the reconcile.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import workloadbuilder as wb
from workloadbuilder import aio
from workloadbuilder.api.scheduling_v1alpha3 import (
    WorkloadPodGroupGangSchedulingPolicy,
    WorkloadPodGroupSchedulingPolicy,
)

GROUP, VERSION, PLURAL, KIND = "training.example.com", "v1", "trainingjobs", "TrainingJob"
TRAINING_JOBS = aio.CustomResource(GROUP, VERSION, PLURAL, KIND)
FIELD_MANAGER = "trainingjob-operator"
SPEC = wb.FieldPath("spec")


def tree_for(job: Mapping[str, Any]) -> wb.WorkloadItem:
    """The job's one gang, its ``minCount`` at ``spec.minWorkers``."""
    spec = job.get("spec") or {}
    min_workers = spec.get("minWorkers", spec.get("workers", 1))
    return wb.WorkloadItem(
        "workers",
        path=SPEC,
        input=wb.WorkloadInput(
            policy=wb.PolicyInput(
                pod_group_data=WorkloadPodGroupSchedulingPolicy(
                    gang=WorkloadPodGroupGangSchedulingPolicy(min_count=min_workers)
                ),
                field_paths={"gang.minCount": SPEC.child("minWorkers")},
            )
        ),
    )


def options_for(job: Mapping[str, Any], uid: str) -> wb.BuildOptions:
    meta = job["metadata"]
    owner = {
        "apiVersion": f"{GROUP}/{VERSION}",
        "kind": KIND,
        "name": meta["name"],
        "uid": uid,
        "controller": True,
        "blockOwnerDeletion": True,
    }
    return wb.BuildOptions(
        name=wb.generate_workload_name(meta["name"], uid),
        namespace=meta.get("namespace", ""),
        owner=owner,
        allowed_policies=frozenset({wb.SchedulingPolicyOption.GANG}),
        allowed_disruption_modes=frozenset(wb.DisruptionModeOption),
    )


def builder_for(job: Mapping[str, Any]) -> wb.Builder:
    """The Builder of a TrainingJob as stored (the reconcile's: it needs the uid)."""
    return wb.Builder(tree_for(job), options_for(job, job["metadata"]["uid"]))


# A TrainingJob being created has no uid yet; nothing validate() checks reads it.
_ADMISSION_UID = "00000000-0000-0000-0000-000000000000"


def validate(request: aio.AdmissionRequest) -> wb.ErrorList | None:
    """The validating webhook: the tree's errors at the TrainingJob's own paths."""
    if request.object is None:  # DELETE: nothing to check
        return None
    old = tree_for(request.old_object) if request.old_object else None
    builder = wb.Builder(tree_for(request.object), options_for(request.object, _ADMISSION_UID))
    return builder.validate(old_root=old)


def default(request: aio.AdmissionRequest) -> dict[str, Any] | None:
    """The defaulting webhook: ``spec.minWorkers`` is ``spec.workers`` when left out."""
    job = request.object
    if job is None or "minWorkers" in (job.get("spec") or {}):
        return None
    defaulted = copy.deepcopy(job)
    spec = defaulted.setdefault("spec", {})
    spec["minWorkers"] = spec.get("workers", 1)
    return defaulted
