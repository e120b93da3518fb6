"""Compile a Job's ``spec.scheduling`` as the native Job controller does.

The Job becomes one leaf template ``<job>-pgt-0``: Basic unless ``spec.scheduling`` says
otherwise, a gang's ``minCount`` defaulting to the Job's parallelism, errors reported at
``spec.scheduling...``, the Workload and PodGroup owned by the Job.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from ..api.batch_v1 import JobSchedulingConfiguration
from ..api.meta_v1 import OwnerReference
from ..api.scheduling_v1beta1 import PodGroup, Workload
from ..builder import (
    Builder,
    BuildError,
    BuildOptions,
    DisruptionModeOption,
    SchedulingPolicyOption,
)
from ..config import (
    BasicSchedulingPolicy,
    GangSchedulingPolicy,
    SchedulingConfig,
    SchedulingConfigFunc,
    SchedulingPolicy,
)
from ..field import ErrorList, FieldPath, parse_model
from ..item import (
    ConstraintsInput,
    DisruptionModeInput,
    PathLike,
    PolicyInput,
    ResourceClaimsInput,
    WorkloadInput,
    WorkloadItem,
    as_path,
)
from ..naming import generate_pod_group_name, generate_workload_name
from ._read import JobView, read_job

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
    if not isinstance(job_name, str):
        raise TypeError(f"job_name must be a str, not {type(job_name).__name__}")
    return f"{job_name}-pgt-0"


def _min_count_default(parallelism: int | None) -> SchedulingConfigFunc:
    def default_min_count(config: SchedulingConfig) -> SchedulingConfig:
        policy = config.policy
        if policy is None or policy.gang is None or policy.gang.min_count is not None:
            return config
        gang = GangSchedulingPolicy(min_count=max(1, 1 if parallelism is None else parallelism))
        return dataclasses.replace(config, policy=SchedulingPolicy(gang=gang))

    return default_min_count


def parse_scheduling(
    scheduling: JobSchedulingConfiguration | Mapping[str, Any] | None, path: PathLike
) -> JobSchedulingConfiguration | None:
    """``spec.scheduling`` as a model; ``BuildError`` (errors at ``path``) if it does not parse."""
    if scheduling is None:
        return None
    expected = "scheduling must be a JobSchedulingConfiguration or its dict"
    try:
        return parse_model(JobSchedulingConfiguration, scheduling, expected)
    except ValidationError as exc:
        errors = ErrorList.from_pydantic(exc, as_path(path), model=JobSchedulingConfiguration)
        raise BuildError(f"the Job's scheduling block is malformed: {errors}", errors) from None


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
    for label, value in (
        ("template_name", template_name),
        ("priority_class_name", priority_class_name),
    ):
        if not isinstance(value, str):
            raise TypeError(f"{label} must be a str, not {type(value).__name__}")
    if parallelism is not None and (
        isinstance(parallelism, bool) or not isinstance(parallelism, int)
    ):
        raise TypeError(f"parallelism must be an int or None, not {type(parallelism).__name__}")
    given = parse_scheduling(scheduling, path) or JobSchedulingConfiguration()
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


def item_for_view(view: JobView, parallelism: int | None) -> WorkloadItem:
    """The WorkloadItem for a Job that has been read, a gang sized from ``parallelism``."""
    return workload_item_for_job(
        job_template_name(view.name),
        view.pod_spec.priority_class_name or "",
        parallelism,
        view.job_spec.scheduling,
    )


def builder_for_view(view: JobView, parallelism: int | None) -> Builder:
    """The Builder a Job's Workload is compiled with; ``parallelism`` sizes a gang without
    an explicit ``minCount``."""
    view.require_identity()
    options = BuildOptions(
        name=generate_workload_name(view.name, view.uid),
        namespace=view.namespace,
        owner=view.owner_reference(),
        allowed_policies=frozenset(SchedulingPolicyOption),
        allowed_disruption_modes=frozenset(DisruptionModeOption),
    )
    return Builder(item_for_view(view, parallelism), options)


def job_builder(job: Any) -> Builder:
    """A ready Builder for a batch/v1 Job (a dict, an official-client ``V1Job``, a lightkube
    ``Job``).

    The Workload is named as the Job controller names it, lives in the Job's namespace and
    is owned by the Job; the Job allows both policies and both disruption modes. Raises
    ``TypeError`` for something that is not a Job, ``BuildError`` (a ``ValueError``, with
    ``errors`` naming each field) for a malformed one, ``ValueError`` for a Job without
    ``metadata.name`` / ``metadata.uid``.
    """
    view = read_job(job)
    return builder_for_view(view, view.job_spec.parallelism)


def link_workload(pod_group: PodGroup, workload: Workload, workload_uid: str) -> PodGroup:
    """``pod_group`` also referencing its Workload, without being controlled by it.

    A root Job's PodGroup carries this reference; ``blockOwnerDeletion`` stays unset so that
    deleting the Workload is never blocked by a surviving PodGroup.
    """
    refs = list(pod_group.metadata.owner_references or [])
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


def job_pod_group(builder: Builder, *, workload_uid: str | None = None) -> PodGroup:
    """The Job's PodGroup, named as the Job controller names it.

    With ``workload_uid`` (a root Job, once its Workload exists) the PodGroup also references
    the Workload, without being controlled by it.
    """
    if not isinstance(builder, Builder):
        raise TypeError(f"builder must be a Builder, not {type(builder).__name__}")
    if workload_uid is not None and not isinstance(workload_uid, str):
        raise TypeError(f"workload_uid must be a str, not {type(workload_uid).__name__}")
    workload = builder.workload()
    templates = workload.spec.pod_group_templates or []
    if len(templates) != 1:
        raise ValueError(
            f"a Job's Workload has exactly one podGroupTemplate; this one has {len(templates)}"
        )
    template = templates[0]
    name = generate_pod_group_name(workload.metadata.name or "", template.name)
    pod_group = builder.new_pod_group(name, template.name)
    return link_workload(pod_group, workload, workload_uid) if workload_uid else pod_group
