"""The delegation annotations and the helper a parent controller stamps them with.

The keys are kubernetes/kubernetes ``pkg/apis/scheduling/annotation_key_constants.go``
(``GroupName + "/group-template-name"``, ``GroupName + "/parent-compositepodgroup"``, with
``GroupName = "scheduling.k8s.io"``); the end-to-end test follows the delegated path of
``pkg/controller/job/job_scheduling_manager.go``.
"""

from __future__ import annotations

import copy
from typing import Any

import kubernetes.client as k8s
import pytest
from oracles import assert_conforms

import workloadbuilder as wb
from workloadbuilder.job import JobSchedulingOutcome

TEMPLATE = {
    "metadata": {"labels": {"role": "workers"}},
    "spec": {
        "parallelism": 3,
        "template": {
            "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}
        },
    },
}


def test_the_keys_are_upstreams() -> None:
    assert wb.GROUP_TEMPLATE_NAME_ANNOTATION == "scheduling.k8s.io/group-template-name"
    assert wb.PARENT_COMPOSITE_POD_GROUP_ANNOTATION == "scheduling.k8s.io/parent-compositepodgroup"


def test_a_job_template_gets_both_annotations_and_the_input_is_unchanged() -> None:
    before = copy.deepcopy(TEMPLATE)
    out = wb.delegate_to_job(TEMPLATE, "workers", parent_composite_pod_group="train-all-x1")
    assert before == TEMPLATE
    assert out["metadata"] == {
        "labels": {"role": "workers"},
        "annotations": {
            "scheduling.k8s.io/group-template-name": "workers",
            "scheduling.k8s.io/parent-compositepodgroup": "train-all-x1",
        },
    }
    assert out["spec"] == TEMPLATE["spec"]
    assert wb.delegate_to_job(out, "workers") == {
        **out,
        "metadata": {**out["metadata"]},
    }  # stamping again with the same value is a no-op


def test_an_official_client_template_stays_one() -> None:
    official = k8s.V1JobTemplateSpec.model_validate(TEMPLATE)
    out = wb.delegate_to_job(official, "workers")
    assert isinstance(out, k8s.V1JobTemplateSpec)
    assert out.metadata is not None
    assert out.metadata.annotations == {"scheduling.k8s.io/group-template-name": "workers"}


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        (("Workers",), {}, ValueError, "template_name 'Workers' is not valid"),
        (("a.b",), {}, ValueError, "must not contain dots|RFC 1123 label"),
        ((7,), {}, TypeError, "template_name must be a str"),
        (("w",), {"parent_composite_pod_group": "UPPER"}, ValueError, "parent_composite_pod_group"),
    ],
)
def test_invalid_names_are_refused(
    args: tuple[Any, ...], kwargs: dict[str, Any], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        wb.delegate_to_job(TEMPLATE, *args, **kwargs)


def test_a_different_template_already_stamped_is_refused() -> None:
    stamped = wb.delegate_to_job(TEMPLATE, "workers")
    with pytest.raises(ValueError, match="refusing to change it"):
        wb.delegate_to_job(stamped, "leader")


def test_a_parent_delegating_its_roles_gets_one_pod_group_per_child_job() -> None:
    """JobSet-style: one Workload owned by the parent, a child Job per role."""
    parent = {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": "train", "namespace": "ml", "uid": "js-uid"},
    }
    owner = wb.controller_ref(parent)
    workload = {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "Workload",
        "metadata": {
            "name": "train-wl",
            "namespace": "ml",
            "uid": "wl-uid",
            "ownerReferences": [owner.to_dict()],
        },
        "spec": {
            "controllerRef": {"apiGroup": "jobset.x-k8s.io", "kind": "JobSet", "name": "train"},
            "podGroupTemplates": [
                {"name": "leader", "schedulingPolicy": {"basic": {}}},
                {"name": "workers", "schedulingPolicy": {"gang": {"minCount": 3}}},
            ],
        },
    }
    names = []
    for role in ("leader", "workers"):
        child = wb.delegate_to_job(TEMPLATE, role)
        child["metadata"].update(
            name=f"train-{role}",
            namespace="ml",
            uid=f"{role}-uid",
            ownerReferences=[owner.to_dict()],
        )
        decision = wb.decide_job_scheduling(child, [workload])
        assert decision.outcome is JobSchedulingOutcome.CREATE_POD_GROUP
        pod_group = decision.create_pod_group
        assert pod_group is not None
        assert_conforms(pod_group)
        assert pod_group.spec.workload_ref is not None
        assert pod_group.spec.workload_ref.template_name == role
        assert [r.uid for r in pod_group.metadata.owner_references or []] == [f"{role}-uid"]
        names.append(pod_group.metadata.name)
    assert names == [wb.generate_pod_group_name("train-wl", r) for r in ("leader", "workers")]
