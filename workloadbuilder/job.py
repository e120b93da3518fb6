"""The batch/v1 Job integration, as the native Job controller compiles ``spec.scheduling``.

The Job becomes one leaf template ``<job>-pgt-0``: Basic unless ``spec.scheduling`` says
otherwise, a gang's ``minCount`` defaulting to the Job's parallelism, errors reported at
``spec.scheduling...``, the Workload and PodGroup owned by the Job.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from .api.batch_v1 import JobSchedulingConfiguration
from .api.meta_v1 import OwnerReference
from .api.scheduling_v1beta1 import PodGroup
from .builder import (
    Builder,
    BuildError,
    BuildOptions,
    DisruptionModeOption,
    SchedulingPolicyOption,
    controller_ref,
)
from .config import (
    BasicSchedulingPolicy,
    GangSchedulingPolicy,
    SchedulingConfig,
    SchedulingConfigFunc,
    SchedulingPolicy,
)
from .field import ErrorList, FieldPath
from .item import (
    ConstraintsInput,
    DisruptionModeInput,
    PathLike,
    PolicyInput,
    ResourceClaimsInput,
    WorkloadInput,
    WorkloadItem,
    as_path,
)
from .naming import generate_pod_group_name, generate_workload_name

__all__ = [
    "JOB_SCHEDULING_PATH",
    "job_builder",
    "job_pod_group",
    "job_template_name",
    "workload_item_for_job",
]

JOB_SCHEDULING_PATH = FieldPath("spec", "scheduling")


def job_template_name(job_name: str) -> str:
    """The Job's only PodGroupTemplate: ``<job>-pgt-0``."""
    return f"{job_name}-pgt-0"


def _min_count_default(parallelism: int | None) -> SchedulingConfigFunc:
    def default_min_count(config: SchedulingConfig) -> SchedulingConfig:
        policy = config.policy
        if policy is None or policy.gang is None or policy.gang.min_count is not None:
            return config
        gang = GangSchedulingPolicy(min_count=max(1, parallelism or 1))
        return dataclasses.replace(config, policy=SchedulingPolicy(gang=gang))

    return default_min_count


def workload_item_for_job(
    template_name: str,
    priority_class_name: str,
    parallelism: int | None,
    scheduling: JobSchedulingConfiguration | Mapping[str, Any] | None,
    path: PathLike = JOB_SCHEDULING_PATH,
) -> WorkloadItem:
    """The Job's WorkloadItem: Basic by default, gang ``minCount`` defaulting to parallelism.

    Raises ``BuildError`` (with ``.errors`` at ``path``) when ``scheduling`` does not parse.
    """
    if scheduling is not None and not isinstance(scheduling, JobSchedulingConfiguration):
        try:
            scheduling = JobSchedulingConfiguration.model_validate(scheduling)
        except ValidationError as exc:
            errors = ErrorList.from_pydantic(exc, as_path(path), model=JobSchedulingConfiguration)
            raise BuildError(f"the Job's scheduling block is malformed: {errors}", errors) from None
    given = scheduling or JobSchedulingConfiguration()
    return WorkloadItem(
        template_name,
        path=as_path(path),
        default_config=SchedulingConfig(
            policy=SchedulingPolicy(basic=BasicSchedulingPolicy()),
            priority_class_name=priority_class_name,
        ),
        input=WorkloadInput(
            policy=PolicyInput(
                path_elements=("schedulingPolicy",), pod_group_data=given.scheduling_policy
            ),
            constraints=ConstraintsInput(
                path_elements=("schedulingConstraints",),
                pod_group_data=given.scheduling_constraints,
            ),
            disruption_mode=DisruptionModeInput(
                path_elements=("disruptionMode",), pod_group_data=given.disruption_mode
            ),
            resource_claims=ResourceClaimsInput(
                path_elements=("resourceClaims",), pod_group_data=tuple(given.resource_claims or ())
            ),
        ),
        callbacks=(_min_count_default(parallelism),),
    )


def _job_dict(job: object) -> dict[str, Any]:
    if isinstance(job, Mapping):
        return dict(job)
    dump = getattr(job, "model_dump", None)
    if callable(dump):
        result = dump(by_alias=True, exclude_none=True, mode="json")
        if isinstance(result, dict):
            return result
    raise TypeError(f"job must be a Job dict or an official-client V1Job, not {type(job).__name__}")


def job_builder(job: Any) -> Builder:
    """A ready Builder for a batch/v1 Job (a dict or the official client's ``V1Job``).

    The Workload is named as the Job controller names it, lives in the Job's namespace and
    is owned by the Job; the Job allows both policies and both disruption modes.
    """
    doc = _job_dict(job)
    meta = doc.get("metadata") or {}
    spec = doc.get("spec") or {}
    name, uid = meta.get("name"), meta.get("uid")
    if not name or not uid:
        raise ValueError(
            "the Job needs metadata.name and metadata.uid (read it from the API server)"
        )
    owner = controller_ref({"apiVersion": "batch/v1", "kind": "Job", **doc})
    pod_spec = (spec.get("template") or {}).get("spec") or {}
    item = workload_item_for_job(
        job_template_name(name),
        pod_spec.get("priorityClassName") or "",
        spec.get("parallelism"),
        spec.get("scheduling"),
    )
    options = BuildOptions(
        name=generate_workload_name(name, uid),
        namespace=meta.get("namespace") or "",
        owner=owner,
        allowed_policies=frozenset(SchedulingPolicyOption),
        allowed_disruption_modes=frozenset(DisruptionModeOption),
    )
    return Builder(item, options)


def job_pod_group(builder: Builder, *, workload_uid: str | None = None) -> PodGroup:
    """The Job's PodGroup, named as the Job controller names it.

    With ``workload_uid`` (a root Job, once its Workload exists) the PodGroup also references
    the Workload, without being controlled by it.
    """
    workload = builder.workload()
    templates = workload.spec.pod_group_templates or []
    if len(templates) != 1:
        raise ValueError(
            f"a Job's Workload has exactly one podGroupTemplate; this one has {len(templates)}"
        )
    template = templates[0]
    name = generate_pod_group_name(workload.metadata.name or "", template.name)
    pod_group = builder.new_pod_group(name, template.name)
    if workload_uid:
        refs = pod_group.metadata.owner_references or []
        refs.append(
            OwnerReference(
                api_version=workload.api_version,
                kind=workload.kind,
                name=workload.metadata.name or "",
                uid=workload_uid,
            )
        )
        pod_group.metadata.owner_references = refs
    return pod_group
