"""Runtime objects of one execution, and linking pods to their groups."""

from __future__ import annotations

import copy
from typing import Any

import kubernetes.client as k8s
import pytest

import workloadbuilder as wb

OWNER = {"apiVersion": "example.com/v1", "kind": "Trainer", "name": "t", "uid": "u-1"}
ALL = {
    "allowed_policies": frozenset(wb.SchedulingPolicyOption),
    "allowed_disruption_modes": frozenset(wb.DisruptionModeOption),
}
CLAIM = wb.ResourceClaim("gpus", resource_claim_template_name="gpu-template")


def group_with_claim() -> wb.PodGroup:
    item = wb.leaf("workers", policy=wb.gang(2), resource_claims=[CLAIM])
    builder = wb.Builder(item, wb.BuildOptions(name="wl", namespace="ml", owner=OWNER, **ALL))
    (group,) = wb.instantiate(builder)
    assert isinstance(group, wb.PodGroup)
    return group


def pod(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p0", "namespace": "ml"},
        "spec": {"containers": [{"name": "main", "image": "x"}], **spec},
    }


def test_linking_returns_a_linked_copy() -> None:
    group = group_with_claim()
    original = pod()
    before = copy.deepcopy(original)
    linked = wb.set_scheduling_group(original, group)
    assert linked["spec"]["schedulingGroup"] == {"podGroupName": group.metadata.name}
    assert original == before
    assert wb.set_scheduling_group(linked, group) == linked  # linking again is a no-op


def test_official_client_pods_stay_official_client_pods() -> None:
    group = group_with_claim()
    linked = wb.set_scheduling_group(k8s.V1Pod.model_validate(pod()), group)
    assert isinstance(linked, k8s.V1Pod)
    assert linked.spec.scheduling_group.pod_group_name == group.metadata.name


def test_a_group_read_from_the_server_as_a_dict_works_too() -> None:
    group = group_with_claim().to_dict()
    group["status"] = {"futureField": 1}  # a newer server's field is tolerated
    linked = wb.set_scheduling_group(pod(), group)
    assert linked["spec"]["schedulingGroup"]["podGroupName"] == group["metadata"]["name"]


def test_a_pod_of_another_group_is_refused() -> None:
    linked = pod(schedulingGroup={"podGroupName": "other"})
    with pytest.raises(ValueError, match="already belongs to PodGroup 'other'"):
        wb.set_scheduling_group(linked, group_with_claim())


def test_a_pod_of_another_namespace_is_refused() -> None:
    stranger = pod()
    stranger["metadata"]["namespace"] = "elsewhere"
    with pytest.raises(ValueError, match="namespace 'elsewhere'"):
        wb.set_scheduling_group(stranger, group_with_claim())


def test_a_shared_claim_must_be_declared_identically() -> None:
    same = pod(resourceClaims=[{"name": "gpus", "resourceClaimTemplateName": "gpu-template"}])
    assert wb.set_scheduling_group(same, group_with_claim())["spec"]["schedulingGroup"]
    other = pod(resourceClaims=[{"name": "gpus", "resourceClaimName": "my-own-claim"}])
    with pytest.raises(ValueError, match=r"spec\.resourceClaims\[0\] 'gpus' does not match"):
        wb.set_scheduling_group(other, group_with_claim())
    unrelated = pod(resourceClaims=[{"name": "scratch", "resourceClaimName": "scratch"}])
    assert wb.set_scheduling_group(unrelated, group_with_claim())["spec"]["schedulingGroup"]


def test_a_pod_that_is_not_a_pod_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="pod must be a Pod dict"):
        wb.set_scheduling_group(42, group_with_claim())


def test_instantiate_from_a_workload_read_from_the_server() -> None:
    root = wb.composite(
        "root",
        [
            wb.leaf("ps", policy=wb.gang(1)),
            wb.composite("inner", [wb.leaf("w", policy=wb.gang(4))]),
        ],
        policy=wb.gang(min_group_count=2),
    )
    options = wb.BuildOptions(name="wl", namespace="ml", owner=OWNER, **ALL)
    built = wb.instantiate(wb.Builder(root, options))
    stored = wb.Builder(root, options).build_workload().to_dict()
    stored["metadata"]["uid"] = "server-assigned"
    again = wb.instantiate(stored, options=options)
    assert [o.to_dict() for o in again] == [o.to_dict() for o in built]
    parents = {o.metadata.name: o.spec.parent_composite_pod_group_name for o in built}
    names = [o.metadata.name for o in built]
    assert [o.kind for o in built] == [
        "CompositePodGroup",
        "PodGroup",
        "CompositePodGroup",
        "PodGroup",
    ]
    assert parents[names[0]] is None
    assert parents[names[1]] == parents[names[2]] == names[0]
    assert parents[names[3]] == names[2]


def test_instantiate_needs_a_named_workload() -> None:
    builder = wb.Builder(wb.leaf("w", policy=wb.gang(1)), wb.BuildOptions(owner=OWNER, **ALL))
    with pytest.raises(ValueError, match="the Workload has no name"):
        wb.instantiate(builder)
