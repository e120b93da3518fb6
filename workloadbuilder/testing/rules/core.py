"""Rules on the workload-aware fields of core and batch objects: Pod and Job."""

from __future__ import annotations

from typing import Any

from .common import (
    MAX_CLAIMS,
    Errs,
    Obj,
    group_fields_update,
    list_map,
    mapping,
    resource_claim,
    scheduling_policy,
    set_once,
    topology,
    union,
)
from .errors import child, forbidden, invalid
from .formats import dns_subdomain

_GROUP_PATH = "spec.schedulingGroup"
_SCHED_PATH = "spec.scheduling"
_BASIC_ALL = "the disruptionMode `all` is not supported with the Basic scheduling policy"


def validate_pod(obj: Obj) -> Errs:
    """``spec.schedulingGroup`` (``validateSchedulingGroup``): its one member, ``podGroupName``,
    set to a DNS subdomain (a change is one of the pod updates :mod:`.pod_update` refuses)."""
    group = mapping(obj.get("spec")).get("schedulingGroup")
    if group is None:
        return []
    path = child(_GROUP_PATH, "podGroupName")
    name = mapping(group).get("podGroupName")
    if name is None:  # a one-of with a single member, reported at the member (observed)
        return [invalid(path, None, "must specify one of: `podGroupName`")]
    if not isinstance(name, str):
        return []
    return [invalid(path, name, msg) for msg in dns_subdomain(name)]


def drop_disabled_job_fields(obj: Obj, old: Obj | None, gates: frozenset[str]) -> None:
    """The Job strategy's ``dropDisabledFields``: without WorkloadWithJob, ``spec.scheduling``
    is dropped on create, and on update unless the old Job has it (``pkg/api/job``)."""
    spec = obj.get("spec")
    if "WorkloadWithJob" in gates or not isinstance(spec, dict) or "scheduling" not in spec:
        return
    if old is None or mapping(old.get("spec")).get("scheduling") is None:
        del spec["scheduling"]


def validate_job(obj: Obj, old: Obj | None, gates: frozenset[str]) -> Errs:
    """``spec.scheduling`` (gate WorkloadWithJob): the v1alpha3 building blocks, then frozen."""
    scheduling = mapping(obj.get("spec")).get("scheduling")
    old_scheduling = None if old is None else mapping(old.get("spec")).get("scheduling")
    errs: Errs = []
    if scheduling is not None:
        if "WorkloadWithJob" not in gates and scheduling != old_scheduling:
            return [forbidden(_SCHED_PATH)]
        errs += _blocks(mapping(scheduling))
        errs += _gang_within_parallelism(mapping(obj.get("spec")), mapping(scheduling))
    if old is not None:
        errs += set_once(_SCHED_PATH, scheduling, old_scheduling)
        if scheduling is not None and old_scheduling is not None:
            new, previous = mapping(scheduling), mapping(old_scheduling)
            policy_path = child(_SCHED_PATH, "schedulingPolicy")
            errs += set_once(
                policy_path, new.get("schedulingPolicy"), previous.get("schedulingPolicy")
            )
            errs += group_fields_update(_SCHED_PATH, new, previous)
    return errs


def _gang_within_parallelism(spec: Obj, scheduling: Obj) -> Errs:
    """KEP-5547 ``validateGangMinCount``: an explicit gang ``minCount`` at most the Job's
    parallelism (defaulted to 1), on the final state of every write."""
    count = mapping(mapping(scheduling.get("schedulingPolicy")).get("gang")).get("minCount")
    parallelism = spec.get("parallelism", 1)
    if not isinstance(count, int) or isinstance(count, bool) or not isinstance(parallelism, int):
        return []
    if count < 1 or count <= parallelism:
        return []
    path = child(child(child(_SCHED_PATH, "schedulingPolicy"), "gang"), "minCount")
    detail = (
        f"must be less than or equal to {parallelism} (the value specified for spec.parallelism)"
    )
    return [invalid(path, count, detail, ratchet=False)]


def _blocks(scheduling: Obj) -> Errs:
    errs: Errs = []
    policy = scheduling.get("schedulingPolicy")
    if policy is not None:
        path = child(_SCHED_PATH, "schedulingPolicy")
        errs += scheduling_policy(path, policy, False, threshold_required=False)
    constraints: Any = scheduling.get("schedulingConstraints")
    if constraints is not None:
        errs += topology(child(_SCHED_PATH, "schedulingConstraints"), constraints)
    if scheduling.get("disruptionMode") is not None:
        path = child(_SCHED_PATH, "disruptionMode")
        errs += union(path, scheduling["disruptionMode"], ["single", "all"])
        gang = mapping(policy).get("gang") if policy is not None else None
        if set(mapping(scheduling["disruptionMode"])) == {"all"} and gang is None:
            # the registry's workloadbuilder check: Basic (also when defaulted) with `all`
            errs.append(invalid(path, "", _BASIC_ALL))
    path = child(_SCHED_PATH, "resourceClaims")
    return errs + list_map(path, scheduling.get("resourceClaims"), MAX_CLAIMS, resource_claim)
