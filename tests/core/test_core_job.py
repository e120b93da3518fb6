"""The batch/v1 Job integration: what the Job controller compiles from ``spec.scheduling``."""

from __future__ import annotations

import copy
from typing import Any

import kubernetes.client as k8s
import pytest

import workloadbuilder as wb
from workloadbuilder.job import job_template_name

ZONE = "topology.kubernetes.io/zone"


def job(
    scheduling: dict[str, Any] | None, parallelism: int | None = 8, **meta: Any
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "template": {"spec": {"containers": [{"name": "main", "image": "trainer"}]}},
    }
    if parallelism is not None:
        spec["parallelism"] = parallelism
    if scheduling is not None:
        spec["scheduling"] = scheduling
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "trainer", "namespace": "ml", "uid": "uid-1", **meta},
        "spec": spec,
    }


EIGHT_WORKER_GANG = {
    "schedulingPolicy": {"gang": {}},
    "schedulingConstraints": {"topology": [{"key": ZONE}]},
    "disruptionMode": {"all": {}},
}


def test_eight_worker_gang_job_compiles_min_count_from_parallelism() -> None:
    builder = wb.job_builder(job(EIGHT_WORKER_GANG))
    assert builder.validate() == []
    workload = builder.build_workload()
    assert workload.to_dict() == {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "Workload",
        "metadata": {
            "name": wb.generate_workload_name("trainer", "uid-1"),
            "namespace": "ml",
            "ownerReferences": [
                {
                    "apiVersion": "batch/v1",
                    "kind": "Job",
                    "name": "trainer",
                    "uid": "uid-1",
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "spec": {
            "controllerRef": {"apiGroup": "batch", "kind": "Job", "name": "trainer"},
            "podGroupTemplates": [
                {
                    "name": "trainer-pgt-0",
                    "schedulingPolicy": {"gang": {"minCount": 8}},
                    "schedulingConstraints": {"topology": [{"key": ZONE}]},
                    "disruptionMode": {"all": {}},
                }
            ],
        },
    }


def test_basic_with_all_gets_upstreams_message_at_the_jobs_path() -> None:
    scheduling = {"schedulingPolicy": {"basic": {}}, "disruptionMode": {"all": {}}}
    errors = wb.job_builder(job(scheduling)).validate()
    assert [str(e) for e in errors] == [
        'spec.scheduling.disruptionMode: Invalid value: "": the disruptionMode `all` is not'
        " supported with the Basic scheduling policy"
    ]


def test_omitted_policy_defaults_to_basic_and_the_cross_rule_sees_it() -> None:
    errors = wb.job_builder(job({"disruptionMode": {"all": {}}})).validate()
    assert [e.field for e in errors] == ["spec.scheduling.disruptionMode"]
    plain = wb.job_builder(job(None)).build_workload()
    assert plain.spec.pod_group_templates[0].scheduling_policy.to_dict() == {"basic": {}}  # type: ignore[index]


@pytest.mark.parametrize(("parallelism", "expected"), [(None, 1), (0, 1), (1, 1), (3, 3)])
def test_gang_min_count_defaults_to_at_least_one(parallelism: int | None, expected: int) -> None:
    builder = wb.job_builder(job({"schedulingPolicy": {"gang": {}}}, parallelism=parallelism))
    template = builder.build_workload().spec.pod_group_templates[0]  # type: ignore[index]
    assert template.scheduling_policy.gang.min_count == expected  # type: ignore[union-attr]


def test_explicit_min_count_wins_and_zero_is_reported_at_the_jobs_field() -> None:
    builder = wb.job_builder(job({"schedulingPolicy": {"gang": {"minCount": 2}}}))
    template = builder.build_workload().spec.pod_group_templates[0]  # type: ignore[index]
    assert template.scheduling_policy.gang.min_count == 2  # type: ignore[union-attr]
    errors = wb.job_builder(job({"schedulingPolicy": {"gang": {"minCount": 0}}})).validate()
    assert [str(e) for e in errors] == [
        "spec.scheduling.schedulingPolicy.gang.minCount: Invalid value: 0:"
        " must be greater than or equal to 1"
    ]


def test_priority_class_comes_from_the_pod_template() -> None:
    doc = job(None)
    doc["spec"]["template"]["spec"]["priorityClassName"] = "high"
    template = wb.job_builder(doc).build_workload().spec.pod_group_templates[0]  # type: ignore[index]
    assert template.priority_class_name == "high"


def test_job_pod_group_is_named_and_owned_as_the_job_controller_does() -> None:
    builder = wb.job_builder(job(EIGHT_WORKER_GANG))
    workload_name = wb.generate_workload_name("trainer", "uid-1")
    plain = wb.job_pod_group(builder)
    assert plain.metadata.name == wb.generate_pod_group_name(workload_name, "trainer-pgt-0")
    assert [r.kind for r in plain.metadata.owner_references or []] == ["Job"]
    rooted = wb.job_pod_group(builder, workload_uid="wl-uid")
    refs = [r.to_dict() for r in rooted.metadata.owner_references or []]
    assert refs[1] == {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "Workload",
        "name": workload_name,
        "uid": "wl-uid",
    }
    assert rooted.spec.to_dict() == {
        "workloadRef": {"workloadName": workload_name, "templateName": "trainer-pgt-0"},
        "schedulingPolicy": {"gang": {"minCount": 8}},
        "schedulingConstraints": {"topology": [{"key": ZONE}]},
        "disruptionMode": {"all": {}},
    }


def test_official_client_job_gives_the_same_builder() -> None:
    doc = job(EIGHT_WORKER_GANG)
    official = k8s.V1Job.model_validate(doc)
    assert (
        wb.job_builder(official).build_workload().to_dict()
        == wb.job_builder(doc).build_workload().to_dict()
    )


def test_a_job_read_without_type_meta_is_still_owned_by_a_batch_v1_job() -> None:
    doc = job(None)
    del doc["apiVersion"], doc["kind"]
    owner = wb.job_builder(doc).build_workload().metadata.owner_references[0]  # type: ignore[index]
    assert (owner.api_version, owner.kind) == ("batch/v1", "Job")


def test_a_job_name_too_long_for_its_template_is_reported_before_any_api_call() -> None:
    name = "j" * 60
    errors = wb.job_builder(job(None, name=name)).validate()
    assert [str(e) for e in errors] == [
        f'spec.scheduling: Invalid value: "{job_template_name(name)}":'
        " must be no more than 63 bytes"
    ]


def test_the_input_job_is_not_changed() -> None:
    doc = job(EIGHT_WORKER_GANG)
    before = copy.deepcopy(doc)
    builder = wb.job_builder(doc)
    builder.validate()
    builder.build_workload()
    assert doc == before


@pytest.mark.parametrize("missing", ["name", "uid"])
def test_a_job_not_read_from_the_server_is_refused(missing: str) -> None:
    doc = job(None)
    del doc["metadata"][missing]
    with pytest.raises(ValueError, match=r"metadata\.name and metadata\.uid"):
        wb.job_builder(doc)


def test_upstream_example_job() -> None:
    """examples/example.go: Job ml/trainer, parallelism 4, gang -> template trainer-pgt-0."""
    item = wb.workload_item_for_job("trainer-pgt-0", "", 4, {"schedulingPolicy": {"gang": {}}})
    builder = wb.Builder(
        item,
        wb.BuildOptions(
            name="trainer-wl",
            namespace="ml",
            owner={"apiVersion": "batch/v1", "kind": "Job", "name": "trainer", "uid": "u"},
            allowed_policies=frozenset(wb.SchedulingPolicyOption),
            allowed_disruption_modes=frozenset(wb.DisruptionModeOption),
        ),
    )
    workload = builder.build_workload()
    assert workload.spec.controller_ref.to_dict() == {  # type: ignore[union-attr]
        "apiGroup": "batch",
        "kind": "Job",
        "name": "trainer",
    }
    pod_group = builder.new_pod_group("trainer-pg", "trainer-pgt-0")
    assert pod_group.metadata.namespace == "ml"
    assert pod_group.spec.scheduling_policy.to_dict() == {"gang": {"minCount": 4}}
