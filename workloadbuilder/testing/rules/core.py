"""Rules on the workload-aware fields of core and batch objects: Pod and Job."""

from __future__ import annotations

from typing import Any

from .common import (
    MAX_CLAIMS,
    Errs,
    Obj,
    group_fields_update,
    immutable,
    list_map,
    long_name,
    mapping,
    resource_claim,
    scheduling_policy,
    set_once,
    topology,
    union,
)
from .errors import child, forbidden

_GROUP_PATH = "spec.schedulingGroup"
_SCHED_PATH = "spec.scheduling"


def validate_pod(obj: Obj, old: Obj | None) -> Errs:
    """``spec.schedulingGroup``: exactly one member, a DNS-subdomain name; immutable."""
    group = mapping(obj.get("spec")).get("schedulingGroup")
    errs: Errs = []
    if group is not None:
        errs += union(_GROUP_PATH, group, ["podGroupName"])
        name = mapping(group).get("podGroupName")
        errs += long_name(child(_GROUP_PATH, "podGroupName"), name, is_required=False)
    if old is not None:
        errs += immutable(_GROUP_PATH, group, mapping(old.get("spec")).get("schedulingGroup"))
    return errs


def validate_job(obj: Obj, old: Obj | None, gates: frozenset[str]) -> Errs:
    """``spec.scheduling`` (gate WorkloadWithJob): the v1alpha3 building blocks, then frozen."""
    scheduling = mapping(obj.get("spec")).get("scheduling")
    old_scheduling = None if old is None else mapping(old.get("spec")).get("scheduling")
    errs: Errs = []
    if scheduling is not None:
        if "WorkloadWithJob" not in gates and scheduling != old_scheduling:
            return [forbidden(_SCHED_PATH)]
        errs += _blocks(mapping(scheduling))
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
    path = child(_SCHED_PATH, "resourceClaims")
    return errs + list_map(path, scheduling.get("resourceClaims"), MAX_CLAIMS, resource_claim)
