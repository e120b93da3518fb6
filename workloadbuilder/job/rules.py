"""The API server's rules on a Job's ``spec.scheduling``, reported before the Job is sent.

Three layers, as kubernetes/kubernetes validates a Job (KEP-5547, ``pkg/apis/batch``):

1. declarative validation of the building blocks and the workloadbuilder semantic checks
   (both policies and both disruption modes allowed; Basic with ``all`` rejected), through
   the same WorkloadItem the controller compiles; plus what the API server would then reject
   in the Workload the controller creates (``BuildOptions.check_api_server_rules``);
2. hand-written batch validation: an explicit gang ``minCount`` at most ``spec.parallelism``
   (checked on the final state of an update too);
3. on update, the immutability markers: ``spec.scheduling`` and its ``schedulingPolicy``
   cannot be set or cleared, the policy cannot switch between basic and gang (only
   ``gang.minCount`` may change), ``schedulingConstraints``, ``disruptionMode`` and
   ``resourceClaims`` are immutable.

kubernetes/kubernetes' 1.37 hand-written batch validation was not available: the messages of
layers 2 and the basic/gang switch are ours, in apimachinery's style (``docs/job.md``).
"""

from __future__ import annotations

from typing import Any

from ..api.batch_v1 import JobSchedulingConfiguration
from ..api.scheduling_v1alpha3 import WorkloadPodGroupSchedulingPolicy
from ..builder import (
    Builder,
    BuildError,
    BuildOptions,
    DisruptionModeOption,
    SchedulingPolicyOption,
)
from ..field import ErrorList, FieldError, FieldPath
from ..item import WorkloadItem
from ._read import JobView, read_job
from .compile import JOB_SCHEDULING_PATH, job_template_name, workload_item_for_job

__all__ = ["validate_job"]

_INT32_MAX = 2**31 - 1
_NO_SET = "field cannot be set once created"
_NO_UNSET = "field cannot be cleared once set"
_IMMUTABLE = "field is immutable"
_OPTIONS = BuildOptions(
    allowed_policies=frozenset(SchedulingPolicyOption),
    allowed_disruption_modes=frozenset(DisruptionModeOption),
)


def validate_job(job: Any, old_job: Any = None) -> ErrorList:
    """Every error the API server would report on ``job``'s ``spec.scheduling``.

    ``job`` is a dict, an official-client ``V1Job`` or a lightkube ``Job``; with ``old_job``
    (the stored Job) the update rules apply too. A malformed ``job`` gives its field errors;
    raises ``TypeError`` for something that is not a Job, and ``BuildError`` for a malformed
    ``old_job`` (it comes from the API server).
    """
    try:
        view = read_job(job)
    except BuildError as exc:
        return exc.errors
    old = read_job(old_job, "old_job") if old_job is not None else None
    errors = ErrorList()
    new_s = view.job_spec.scheduling
    old_s = old.job_spec.scheduling if old is not None else None
    if old is not None and old.name != view.name:
        errors.append(FieldError.invalid(FieldPath("metadata", "name"), view.name, _IMMUTABLE))
    if old is not None and (new_s is None) != (old_s is None):
        errors.append(
            FieldError.invalid(JOB_SCHEDULING_PATH, None, _NO_UNSET if new_s is None else _NO_SET)
        )
    # The old Job's blocks under the new Job's template name, for ratcheting.
    old_root = _item(old, view.name) if old is not None and old_s is not None else None
    errors.extend(Builder(_item(view, view.name), _OPTIONS).validate(old_root))
    if new_s is not None:
        errors.extend(_min_count_rule(new_s, view.job_spec.parallelism))
        if old_s is not None:
            errors.extend(_update_rules(new_s, old_s))
    return errors


def _item(view: JobView, name: str) -> WorkloadItem:
    spec = view.job_spec
    # A Job created with generateName has no name yet; its template name cannot be checked.
    return workload_item_for_job(
        job_template_name(name or "job"),
        view.pod_spec.priority_class_name or "",
        spec.parallelism,
        spec.scheduling,
    )


def _min_count_rule(scheduling: JobSchedulingConfiguration, parallelism: int | None) -> ErrorList:
    """An explicit gang ``minCount`` at most ``spec.parallelism`` (defaulted to 1)."""
    policy = scheduling.scheduling_policy
    gang = policy.gang if policy is not None else None
    count = gang.min_count if gang is not None else None
    limit = 1 if parallelism is None else parallelism
    if count is None or not 1 <= count <= _INT32_MAX or count <= limit:
        return ErrorList()
    path = JOB_SCHEDULING_PATH.child("schedulingPolicy", "gang", "minCount")
    return ErrorList(
        [
            FieldError.invalid(
                path,
                count,
                f"must be less than or equal to {limit} (the value specified for spec.parallelism)",
            )
        ]
    )


def _variant(policy: WorkloadPodGroupSchedulingPolicy) -> str | None:
    """``basic`` or ``gang`` when exactly one is set (otherwise the union rule reports it)."""
    if (policy.basic is None) == (policy.gang is None):
        return None
    return "basic" if policy.basic is not None else "gang"


def _update_rules(new: JobSchedulingConfiguration, old: JobSchedulingConfiguration) -> ErrorList:
    errors = ErrorList()
    path = JOB_SCHEDULING_PATH.child("schedulingPolicy")
    new_p, old_p = new.scheduling_policy, old.scheduling_policy
    if (new_p is None) != (old_p is None):
        errors.append(FieldError.invalid(path, None, _NO_UNSET if new_p is None else _NO_SET))
    elif new_p is not None and old_p is not None:
        before, after = _variant(old_p), _variant(new_p)
        if before is not None and after is not None and before != after:
            errors.append(FieldError.invalid(path, None, _IMMUTABLE))
    for name, new_v, old_v in (
        ("schedulingConstraints", new.scheduling_constraints, old.scheduling_constraints),
        ("disruptionMode", new.disruption_mode, old.disruption_mode),
        ("resourceClaims", new.resource_claims, old.resource_claims),
    ):
        if new_v != old_v:
            errors.append(FieldError.invalid(JOB_SCHEDULING_PATH.child(name), None, _IMMUTABLE))
    return errors
