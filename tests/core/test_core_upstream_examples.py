"""Upstream parity: the Go library's three examples (examples/example.go), line by line."""

from __future__ import annotations

import dataclasses

import pytest

from workloadbuilder import (
    BasicSchedulingPolicy,
    Builder,
    BuildError,
    BuildOptions,
    ConstraintsInput,
    DisruptionModeInput,
    DisruptionModeOption,
    FieldPath,
    GangSchedulingPolicy,
    PolicyInput,
    SchedulingConfig,
    SchedulingPolicy,
    SchedulingPolicyOption,
    Workload,
    WorkloadInput,
    WorkloadItem,
)
from workloadbuilder.api.meta_v1 import OwnerReference
from workloadbuilder.api.scheduling_v1alpha3 import (
    TopologyConstraint,
    WorkloadPodGroupAllDisruptionMode,
    WorkloadPodGroupBasicSchedulingPolicy,
    WorkloadPodGroupDisruptionMode,
    WorkloadPodGroupGangSchedulingPolicy,
    WorkloadPodGroupSchedulingConstraints,
    WorkloadPodGroupSchedulingPolicy,
)

SCHEDULING = FieldPath("spec", "scheduling")
BASIC = SchedulingConfig(policy=SchedulingPolicy(basic=BasicSchedulingPolicy()))
EVERYTHING = {
    "allowed_policies": frozenset({SchedulingPolicyOption.BASIC, SchedulingPolicyOption.GANG}),
    "allowed_disruption_modes": frozenset({DisruptionModeOption.SINGLE, DisruptionModeOption.ALL}),
}


def test_out_of_tree_controller_validation() -> None:
    item = WorkloadItem(
        "worker",
        path=SCHEDULING,
        default_config=BASIC,
        input=WorkloadInput(
            policy=PolicyInput(
                path_elements=("schedulingPolicy",),
                pod_group_data=WorkloadPodGroupSchedulingPolicy(
                    basic=WorkloadPodGroupBasicSchedulingPolicy()
                ),
            ),
            disruption_mode=DisruptionModeInput(
                path_elements=("disruptionMode",),
                pod_group_data=WorkloadPodGroupDisruptionMode(
                    all=WorkloadPodGroupAllDisruptionMode()
                ),
            ),
        ),
    )
    owner = OwnerReference(api_version="batch/v1", kind="Job", name="worker", uid="job-uid")
    errors = Builder(item, BuildOptions(owner=owner, **EVERYTHING)).validate()
    assert f"rejected: {errors}" == (
        'rejected: spec.scheduling.disruptionMode: Invalid value: "": the disruptionMode `all` is'
        " not supported with the Basic scheduling policy"
    )


def test_job_controller_end_to_end() -> None:
    parallelism = 4
    user_input = WorkloadInput(
        policy=PolicyInput(
            path_elements=("schedulingPolicy",),
            pod_group_data=WorkloadPodGroupSchedulingPolicy(
                gang=WorkloadPodGroupGangSchedulingPolicy()
            ),
        ),
        constraints=ConstraintsInput(
            path_elements=("schedulingConstraints",),
            pod_group_data=WorkloadPodGroupSchedulingConstraints(
                topology=[TopologyConstraint(key="kubernetes.io/hostname")]
            ),
        ),
    )

    def default_min_count(config: SchedulingConfig) -> SchedulingConfig:
        gang = config.policy.gang if config.policy else None
        if gang is not None and gang.min_count is None:
            return dataclasses.replace(
                config, policy=SchedulingPolicy(gang=GangSchedulingPolicy(parallelism))
            )
        return config

    item = WorkloadItem(
        "trainer-pgt-0",
        path=SCHEDULING,
        default_config=BASIC,
        input=user_input,
        callbacks=(default_min_count,),
    )
    owner = OwnerReference(api_version="batch/v1", kind="Job", name="trainer", uid="job-uid")
    builder = Builder(
        item,
        BuildOptions(
            name="trainer-wl",
            namespace="ml",
            owner=owner,
            disable_declarative_validation=True,
            **EVERYTHING,
        ),
    )
    assert builder.validate() == []
    workload = builder.build_workload()
    pod_group = builder.new_pod_group("trainer-pg", item.name)
    [template] = workload.spec.pod_group_templates or []
    ref = workload.spec.controller_ref
    assert ref is not None and template.scheduling_policy.gang is not None
    assert template.scheduling_constraints is not None
    assert pod_group.spec.workload_ref is not None and pod_group.spec.scheduling_policy.gang
    lines = [
        f"Workload {workload.metadata.namespace}/{workload.metadata.name}"
        f" controllerRef={ref.api_group}/{ref.kind}/{ref.name}",
        f'  template "{template.name}": gang minCount={template.scheduling_policy.gang.min_count},'
        f" topology={template.scheduling_constraints.topology[0].key}",  # type: ignore[index]
        f"PodGroup {pod_group.metadata.namespace}/{pod_group.metadata.name}"
        f" -> workload={pod_group.spec.workload_ref.workload_name}"
        f" template={pod_group.spec.workload_ref.template_name}"
        f" gang minCount={pod_group.spec.scheduling_policy.gang.min_count}",
    ]
    assert lines == [
        "Workload ml/trainer-wl controllerRef=batch/Job/trainer",
        '  template "trainer-pgt-0": gang minCount=4, topology=kubernetes.io/hostname',
        "PodGroup ml/trainer-pg -> workload=trainer-wl template=trainer-pgt-0 gang minCount=4",
    ]
    assert user_input.policy.pod_group_data.gang.min_count is None  # type: ignore[union-attr]


def test_delegated_pod_group_from_existing_workload() -> None:
    parent = Workload.model_validate(
        {
            "metadata": {"name": "trainer-wl", "namespace": "ml", "uid": "wl-uid"},
            "spec": {
                "podGroupTemplates": [
                    {
                        "name": "trainer-pgt-0",
                        "priorityClassName": "high-priority",
                        "schedulingPolicy": {"gang": {"minCount": 4}},
                    }
                ]
            },
        }
    )
    owner = OwnerReference(api_version="batch/v1", kind="Job", name="trainer-worker", uid="job-uid")
    builder = Builder.from_existing_workload(parent, BuildOptions(owner=owner))
    # The example's comment calls Validate a no-op, but upstream's code (and its test) return one
    # Internal error; we follow the code.
    assert [str(e) for e in builder.validate()] == [
        "<nil>: Internal error: cannot validate a builder constructed from an existing workload"
    ]
    with pytest.raises(BuildError):
        builder.build_workload()
    pod_group = builder.new_pod_group("trainer-pg", "trainer-pgt-0")
    assert pod_group.spec.workload_ref is not None and pod_group.spec.scheduling_policy.gang
    assert pod_group.metadata.owner_references
    line = (
        f"PodGroup {pod_group.metadata.namespace}/{pod_group.metadata.name}"
        f" -> workload={pod_group.spec.workload_ref.workload_name}"
        f" template={pod_group.spec.workload_ref.template_name}"
        f" priorityClass={pod_group.spec.priority_class_name}"
        f" gang minCount={pod_group.spec.scheduling_policy.gang.min_count}"
        f" ownedBy={pod_group.metadata.owner_references[0].name}"
    )
    assert line == (
        "PodGroup ml/trainer-pg -> workload=trainer-wl template=trainer-pgt-0"
        " priorityClass=high-priority gang minCount=4 ownedBy=trainer-worker"
    )
