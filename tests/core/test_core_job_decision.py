"""decide_job_scheduling: the native Job controller's decision of whether and what to create.

Every expected value is read from kubernetes/kubernetes
``pkg/controller/job/job_scheduling_manager.go`` (the newest stored version: ``getManagementMode``,
``isNewJob``, ``getOrCreateWorkload``, ``validateWorkloadStructure``, ``getOrCreatePodGroup``,
``getOrCreateDelegatedPodGroup``, ``findParentWorkload``, ``getPodGroupTemplateByName``,
``createPodGroup``, ``syncGangMinCount``, ``syncDelegatedPodGroupMinCount``) and from the
annotation keys of ``pkg/apis/scheduling/annotation_key_constants.go``; the objects created are
checked against the 1.37 JSON schema and the official client (``assert_conforms``).
"""

from __future__ import annotations

import copy
from typing import Any

import kubernetes.client as k8s
import pytest
from oracles import assert_conforms

import workloadbuilder as wb
from workloadbuilder.job import JobEvent, JobSchedulingMode, JobSchedulingOutcome

Mode, Outcome = JobSchedulingMode, JobSchedulingOutcome
GANG = {"schedulingPolicy": {"gang": {}}}
JOBSET_REF = {
    "apiVersion": "jobset.x-k8s.io/v1alpha2",
    "kind": "JobSet",
    "name": "train",
    "uid": "jobset-uid",
    "controller": True,
    "blockOwnerDeletion": True,
}


def make_job(
    scheduling: dict[str, Any] | None = GANG,
    *,
    parallelism: int | None = 4,
    owners: list[dict[str, Any]] | None = None,
    annotations: dict[str, str] | None = None,
    status: dict[str, Any] | None = None,
    name: str = "trainer",
) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "ml", "uid": f"{name}-uid"}
    if owners is not None:
        meta["ownerReferences"] = copy.deepcopy(owners)
    if annotations is not None:
        meta["annotations"] = annotations
    spec: dict[str, Any] = {
        "template": {
            "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}
        }
    }
    if parallelism is not None:
        spec["parallelism"] = parallelism
    if scheduling is not None:
        spec["scheduling"] = scheduling
    doc: dict[str, Any] = {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta, "spec": spec}
    if status is not None:
        doc["status"] = status
    return doc


def stored(obj: wb.Workload | wb.PodGroup, uid: str) -> dict[str, Any]:
    """The object as the API server returns it once created."""
    doc = obj.to_dict()
    doc["metadata"]["uid"] = uid
    doc["metadata"]["resourceVersion"] = "7"
    return doc


def created_workload(job: dict[str, Any]) -> dict[str, Any]:
    decision = wb.decide_job_scheduling(job)
    assert decision.create_workload is not None
    return stored(decision.create_workload, "wl-uid")


def job_controller_ref(job: dict[str, Any]) -> dict[str, Any]:
    meta = job["metadata"]
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "name": meta["name"],
        "uid": meta["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }


# -- the management mode (getManagementMode) ------------------------------------------------------


def test_the_gate_off_manages_nothing() -> None:
    decision = wb.decide_job_scheduling(make_job(), gate_enabled=False)
    assert (decision.mode, decision.outcome) == (Mode.NONE, Outcome.GATE_DISABLED)
    assert decision.create_workload is None and decision.pod_group_name is None


def test_a_pod_template_with_its_own_scheduling_group_gets_nothing() -> None:
    job = make_job()
    job["spec"]["template"]["spec"]["schedulingGroup"] = {"podGroupName": "mine"}
    decision = wb.decide_job_scheduling(job)
    assert (decision.mode, decision.outcome) == (Mode.NONE, Outcome.OWN_SCHEDULING_GROUP)
    assert decision.create_workload is None and decision.create_pod_group is None


@pytest.mark.parametrize(
    "owner",
    [
        JOBSET_REF,
        # "Any controller owner counts, including CronJob."
        {**JOBSET_REF, "apiVersion": "batch/v1", "kind": "CronJob", "name": "nightly"},
    ],
)
def test_a_job_controlled_by_another_controller_without_delegation_gets_nothing(
    owner: dict[str, Any],
) -> None:
    decision = wb.decide_job_scheduling(make_job(owners=[owner]))
    assert (decision.mode, decision.outcome) == (Mode.NONE, Outcome.PARENT_MANAGES)
    assert decision.create_workload is None and decision.create_pod_group is None


def test_a_non_controller_owner_leaves_the_job_a_root() -> None:
    owner = {k: v for k, v in JOBSET_REF.items() if k != "controller"}
    decision = wb.decide_job_scheduling(make_job(owners=[owner]))
    assert decision.mode is Mode.MANAGE_BOTH


@pytest.mark.parametrize("value", ["workers", ""])
def test_the_annotation_key_alone_delegates(value: str) -> None:
    job = make_job(owners=[JOBSET_REF], annotations={wb.GROUP_TEMPLATE_NAME_ANNOTATION: value})
    assert wb.job.job_scheduling_mode(job) is Mode.POD_GROUP_ONLY


# -- a root Job: Workload, then PodGroup --------------------------------------------------------


def test_a_new_root_job_first_creates_its_compiled_workload() -> None:
    job = make_job()
    decision = wb.decide_job_scheduling(job)
    assert (decision.mode, decision.outcome, decision.new_job) == (
        Mode.MANAGE_BOTH,
        Outcome.CREATE_WORKLOAD,
        True,
    )
    assert decision.create_workload is not None
    assert decision.create_workload.to_dict() == wb.job_builder(job).build_workload().to_dict()
    assert decision.create_pod_group is None and not decision.requeue


def test_a_workload_that_cannot_be_compiled_is_an_event_and_a_retry() -> None:
    # A claim naming neither a ResourceClaim nor a template: no PodGroupTemplate can hold it.
    job = make_job({**GANG, "resourceClaims": [{"name": "gpus"}]})
    decision = wb.decide_job_scheduling(job)
    assert decision.outcome is Outcome.COMPILATION_FAILED
    assert decision.requeue and decision.create_workload is None
    assert decision.event is not None
    assert (decision.event.type, decision.event.reason) == ("Warning", "FailedWorkloadCompilation")
    assert decision.event.message.startswith("Failed to compile Workload for Job trainer: ")


def test_once_the_workload_exists_its_pod_group_is_created_from_its_only_template() -> None:
    job = make_job()
    workload = created_workload(job)
    decision = wb.decide_job_scheduling(job, [workload])
    assert decision.outcome is Outcome.CREATE_POD_GROUP
    assert decision.workload is not None and decision.workload.metadata.uid == "wl-uid"
    pod_group = decision.create_pod_group
    assert pod_group is not None
    assert_conforms(pod_group)
    workload_name = workload["metadata"]["name"]
    assert pod_group.to_dict() == {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {
            "name": wb.generate_pod_group_name(workload_name, "trainer-pgt-0"),
            "namespace": "ml",
            # createPodGroup(linkWorkloadOwner=true): the Job's controller reference, then a
            # reference to the Workload with neither controller nor blockOwnerDeletion.
            "ownerReferences": [
                job_controller_ref(job),
                {
                    "apiVersion": "scheduling.k8s.io/v1beta1",
                    "kind": "Workload",
                    "name": workload_name,
                    "uid": "wl-uid",
                },
            ],
        },
        "spec": {
            "workloadRef": {"workloadName": workload_name, "templateName": "trainer-pgt-0"},
            "schedulingPolicy": {"gang": {"minCount": 4}},
        },
    }
    assert decision.pod_group_name == pod_group.metadata.name


def test_existing_objects_are_reused_and_nothing_is_created_twice() -> None:
    job = make_job()
    workload = created_workload(job)
    second = wb.decide_job_scheduling(job, [workload])
    assert second.create_pod_group is not None
    pod_group = stored(second.create_pod_group, "pg-uid")
    third = wb.decide_job_scheduling(job, [workload], [pod_group])
    assert third.outcome is Outcome.EXISTING
    assert third.create_workload is None and third.create_pod_group is None
    assert third.pod_group is not None and third.pod_group.metadata.uid == "pg-uid"
    assert third.workload_min_count is None and third.pod_group_min_count is None


@pytest.mark.parametrize(
    ("status", "pods"),
    [
        (None, ["a-pod"]),
        ({"startTime": "2026-09-20T10:00:00Z"}, []),
        ({"succeeded": 1}, []),
        ({"failed": 1}, []),
        ({"conditions": [{"type": "Suspended", "status": "False"}]}, []),
    ],
    ids=["pods", "startTime", "succeeded", "failed", "suspended-condition"],
)
def test_a_started_job_gets_no_new_objects(status: dict[str, Any] | None, pods: list[str]) -> None:
    job = make_job(status=status)
    decision = wb.decide_job_scheduling(job, pods=pods)
    assert (decision.outcome, decision.new_job) == (Outcome.STARTED_WITHOUT_OBJECTS, False)
    assert decision.create_workload is None and decision.pod_group_name is None
    # A Workload left by an earlier sync is discovered, but its PodGroup is not created.
    workload = created_workload(make_job())
    later = wb.decide_job_scheduling(job, [workload], pods=pods)
    assert later.workload is not None and later.create_pod_group is None
    assert later.outcome is Outcome.STARTED_WITHOUT_OBJECTS


def test_a_completed_condition_alone_does_not_make_the_job_started() -> None:
    job = make_job(status={"conditions": [{"type": "Complete", "status": "True"}]})
    assert wb.decide_job_scheduling(job).new_job is True


def test_workloads_not_controlled_by_the_job_are_ignored() -> None:
    job = make_job()
    mine = created_workload(job)
    byo = copy.deepcopy(mine)
    byo["metadata"]["name"] = "byo"
    byo["metadata"]["ownerReferences"][0]["uid"] = "someone-else"
    elsewhere = copy.deepcopy(mine)
    elsewhere["metadata"]["namespace"] = "other"
    other_job = copy.deepcopy(mine)
    other_job["spec"]["controllerRef"]["name"] = "another-job"
    decision = wb.decide_job_scheduling(job, [byo, elsewhere, other_job])
    assert decision.outcome is Outcome.CREATE_WORKLOAD


def test_several_workloads_fall_back_to_default_scheduling() -> None:
    job = make_job()
    first = created_workload(job)
    second = copy.deepcopy(first)
    second["metadata"]["name"] = "second"
    decision = wb.decide_job_scheduling(job, [first, second])
    assert decision.outcome is Outcome.SEVERAL_WORKLOADS
    assert decision.message == (
        "found 2 Workloads referencing Job ml/trainer, falling back to default scheduling"
    )
    assert decision.workload is None and decision.pod_group_name is None and not decision.requeue


def test_a_workload_without_exactly_one_template_is_an_error_and_a_retry() -> None:
    job = make_job()
    workload = created_workload(job)
    template = workload["spec"]["podGroupTemplates"][0]
    workload["spec"]["podGroupTemplates"] = [template, {**template, "name": "extra"}]
    decision = wb.decide_job_scheduling(job, [workload])
    assert decision.outcome is Outcome.UNSUPPORTED_WORKLOAD
    assert decision.requeue
    assert decision.error == (
        f"workload ml/{workload['metadata']['name']} for job ml/trainer has 2 PodGroupTemplates,"
        " want exactly 1"
    )
    assert decision.create_pod_group is None and decision.pod_group_name is None


def test_several_pod_groups_fall_back_to_default_scheduling() -> None:
    job = make_job()
    workload = created_workload(job)
    made = wb.decide_job_scheduling(job, [workload]).create_pod_group
    assert made is not None
    one, two = stored(made, "a"), stored(made, "b")
    two["metadata"]["name"] = "twin"
    decision = wb.decide_job_scheduling(job, [workload], [one, two])
    assert decision.outcome is Outcome.SEVERAL_POD_GROUPS
    assert decision.workload is not None and decision.pod_group_name is None
    assert not decision.requeue


def test_an_elastic_resize_patches_the_workload_template_and_the_pod_group() -> None:
    job = make_job(parallelism=8)
    workload = created_workload(job)
    made = wb.decide_job_scheduling(job, [workload]).create_pod_group
    assert made is not None
    pod_group = stored(made, "pg-uid")
    job["spec"]["parallelism"] = 6  # gang {} follows parallelism
    decision = wb.decide_job_scheduling(job, [workload], [pod_group], pods=["p"] * 8)
    assert (decision.workload_min_count, decision.pod_group_min_count) == (6, 6)
    basic = make_job({"schedulingPolicy": {"basic": {}}})
    basic_workload = created_workload(basic)
    unchanged = wb.decide_job_scheduling(basic, [basic_workload])
    assert (unchanged.workload_min_count, unchanged.pod_group_min_count) == (None, None)


def test_v1alpha3_objects_and_client_models_are_read_alike() -> None:
    job = make_job()
    workload = created_workload(job)
    alpha = {**workload, "apiVersion": "scheduling.k8s.io/v1alpha3"}
    official = k8s.V1Job.model_validate(job)
    decision = wb.decide_job_scheduling(official, [alpha])
    assert decision.outcome is Outcome.CREATE_POD_GROUP


# -- a delegated child Job: only a PodGroup of the parent's Workload -----------------------------


PARENT_WORKLOAD = {
    "apiVersion": "scheduling.k8s.io/v1beta1",
    "kind": "Workload",
    "metadata": {"name": "train-wl", "namespace": "ml", "uid": "parent-wl-uid"},
    "spec": {
        "controllerRef": {"apiGroup": "jobset.x-k8s.io", "kind": "JobSet", "name": "train"},
        "podGroupTemplates": [
            {"name": "leader", "schedulingPolicy": {"basic": {}}},
            {
                "name": "workers",
                "schedulingPolicy": {"gang": {"minCount": 3}},
                "disruptionMode": {"all": {}},
            },
        ],
    },
}


def child(template: str | None = "workers", **kwargs: Any) -> dict[str, Any]:
    annotations = {} if template is None else {wb.GROUP_TEMPLATE_NAME_ANNOTATION: template}
    return make_job(
        None, owners=[JOBSET_REF], annotations=annotations, name="train-workers", **kwargs
    )


def test_a_delegated_job_creates_only_its_pod_group_from_the_parents_template() -> None:
    job = child()
    decision = wb.decide_job_scheduling(job, [PARENT_WORKLOAD])
    assert (decision.mode, decision.outcome) == (Mode.POD_GROUP_ONLY, Outcome.CREATE_POD_GROUP)
    assert decision.create_workload is None
    pod_group = decision.create_pod_group
    assert pod_group is not None
    assert_conforms(pod_group)
    assert pod_group.to_dict() == {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {
            "name": wb.generate_pod_group_name("train-wl", "workers"),
            "namespace": "ml",
            # linkWorkloadOwner=false: the Job's controller reference only.
            "ownerReferences": [job_controller_ref(job)],
        },
        "spec": {
            "workloadRef": {"workloadName": "train-wl", "templateName": "workers"},
            "schedulingPolicy": {"gang": {"minCount": 3}},
            "disruptionMode": {"all": {}},
        },
    }


def test_an_empty_template_name_selects_the_first_template() -> None:
    decision = wb.decide_job_scheduling(child(""), [PARENT_WORKLOAD])
    assert decision.create_pod_group is not None
    assert decision.create_pod_group.spec.workload_ref.template_name == "leader"  # type: ignore[union-attr]


def test_without_the_parents_workload_nothing_is_created_yet() -> None:
    other = copy.deepcopy(PARENT_WORKLOAD)
    other["spec"]["controllerRef"]["name"] = "another-jobset"
    decision = wb.decide_job_scheduling(child(), [other])
    assert decision.outcome is Outcome.PARENT_WORKLOAD_NOT_FOUND
    assert decision.create_pod_group is None and not decision.requeue


def test_a_parent_with_an_unparsable_api_version_is_never_found() -> None:
    job = child()
    job["metadata"]["ownerReferences"][0]["apiVersion"] = "jobset.x-k8s.io/v1/extra"
    assert (
        wb.decide_job_scheduling(job, [PARENT_WORKLOAD]).outcome
        is Outcome.PARENT_WORKLOAD_NOT_FOUND
    )


def test_a_template_not_at_the_top_level_is_not_found() -> None:
    nested = copy.deepcopy(PARENT_WORKLOAD)
    nested["spec"] = {
        "controllerRef": PARENT_WORKLOAD["spec"]["controllerRef"],  # type: ignore[index]
        "compositePodGroupTemplates": [
            {
                "name": "all",
                "schedulingPolicy": {"basic": {}},
                "podGroupTemplates": [{"name": "workers", "schedulingPolicy": {"basic": {}}}],
            }
        ],
    }
    for parent, template in ((PARENT_WORKLOAD, "nope"), (nested, "workers")):
        decision = wb.decide_job_scheduling(child(template), [parent])
        assert decision.outcome is Outcome.TEMPLATE_NOT_FOUND
        assert decision.create_pod_group is None


def test_a_delegated_pod_group_follows_the_parents_template_min_count() -> None:
    job = child()
    made = wb.decide_job_scheduling(job, [PARENT_WORKLOAD]).create_pod_group
    assert made is not None
    pod_group = stored(made, "pg-uid")
    resized = copy.deepcopy(PARENT_WORKLOAD)
    resized["spec"]["podGroupTemplates"][1]["schedulingPolicy"]["gang"]["minCount"] = 5  # type: ignore[index]
    decision = wb.decide_job_scheduling(job, [resized], [pod_group], pods=["p"])
    assert decision.outcome is Outcome.EXISTING
    assert (decision.pod_group_min_count, decision.workload_min_count) == (5, None)


def test_a_started_delegated_job_gets_no_pod_group() -> None:
    decision = wb.decide_job_scheduling(child(), [PARENT_WORKLOAD], pods=["p"])
    assert decision.outcome is Outcome.STARTED_WITHOUT_OBJECTS
    assert decision.pod_group_name is None


# -- events and misuse ----------------------------------------------------------------------------


def test_the_job_controllers_event_texts() -> None:
    assert JobEvent.workload_created("wl", "trainer") == JobEvent(
        "Normal", "WorkloadCreated", "Created Workload wl for Job trainer"
    )
    assert (
        JobEvent.pod_group_created("pg", "trainer").message == "Created PodGroup pg for Job trainer"
    )
    assert JobEvent.failed_workload_create("trainer", "boom").reason == "FailedWorkloadCreate"


def test_the_decision_is_frozen() -> None:
    decision = wb.decide_job_scheduling(make_job())
    with pytest.raises(AttributeError):
        decision.outcome = Outcome.EXISTING  # type: ignore[misc]


def test_misuse_is_reported_with_the_argument_named() -> None:
    with pytest.raises(TypeError, match="job must be"):
        wb.decide_job_scheduling(42)
    job = make_job()
    del job["metadata"]["uid"]
    with pytest.raises(ValueError, match=r"metadata\.name and metadata\.uid"):
        wb.decide_job_scheduling(job)
    with pytest.raises(wb.BuildError, match=r"workloads\[1\] is not a Workload") as info:
        wb.decide_job_scheduling(make_job(), [PARENT_WORKLOAD, {"spec": []}])
    assert [e.field for e in info.value.errors] == ["workloads[1].spec"]
