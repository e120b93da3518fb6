"""The seed examples: exact round trips, both oracles, and the official client's own rendering."""

from __future__ import annotations

from typing import Any

import kubernetes.client as k8s
import pytest
import yaml
from conformance_corpus import SEED_JOB_SCHEDULING, SEED_POD_GROUP, SEED_WORKLOAD, SEEDS
from oracles import (
    assert_conforms,
    assert_official_round_trip,
    assert_schema_valid,
    official_dump,
    validate_with_package,
    wire_dump,
)

from workloadbuilder.api import K8sModel, batch_v1, scheduling_v1beta1

SEED_IDS = list(SEEDS)


@pytest.mark.parametrize("name", SEED_IDS)
def test_seed_round_trips_exactly(name: str) -> None:
    cls, doc = SEEDS[name]
    obj = cls.model_validate(doc)
    assert obj.to_dict() == doc
    assert yaml.safe_load(obj.to_yaml()) == doc
    assert_conforms(obj)


def test_seed_pod_group_oracles() -> None:
    validate_with_package(SEED_POD_GROUP)
    assert_official_round_trip(SEED_POD_GROUP, "io.k8s.api.scheduling.v1beta1.PodGroup")


def test_seed_workload_oracles() -> None:
    validate_with_package(SEED_WORKLOAD)
    assert_official_round_trip(SEED_WORKLOAD, "io.k8s.api.scheduling.v1beta1.Workload")
    # The same spec is also a valid v1alpha3 Workload.
    alpha = {**SEED_WORKLOAD, "apiVersion": "scheduling.k8s.io/v1alpha3"}
    validate_with_package(alpha)
    assert_official_round_trip(alpha, "io.k8s.api.scheduling.v1alpha3.Workload")


def test_seed_job_scheduling_oracles() -> None:
    assert_schema_valid(SEED_JOB_SCHEDULING, "io.k8s.api.batch.v1.JobSchedulingConfiguration")
    assert_official_round_trip(
        SEED_JOB_SCHEDULING, "io.k8s.api.batch.v1.JobSchedulingConfiguration"
    )
    # Embedded in a whole Job, it is valid at spec.scheduling.
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "trainer"},
        "spec": {
            "parallelism": 4,
            "scheduling": SEED_JOB_SCHEDULING,
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [{"name": "main", "image": "trainer:1"}],
                }
            },
        },
    }
    validate_with_package(job)


def _official_seeds() -> dict[str, tuple[type[K8sModel], Any]]:
    """The seeds written with the official client's constructors, as its users write them."""
    pod_group = k8s.V1beta1PodGroup(
        api_version="scheduling.k8s.io/v1beta1",
        kind="PodGroup",
        metadata=k8s.V1ObjectMeta(name="training-workers", namespace="ml-training"),
        spec=k8s.V1beta1PodGroupSpec(
            scheduling_policy=k8s.V1beta1PodGroupSchedulingPolicy(
                gang=k8s.V1beta1GangSchedulingPolicy(min_count=4)
            )
        ),
    )
    workload = k8s.V1beta1Workload(
        api_version="scheduling.k8s.io/v1beta1",
        kind="Workload",
        metadata=k8s.V1ObjectMeta(name="training", namespace="ml-training"),
        spec=k8s.V1beta1WorkloadSpec(
            composite_pod_group_templates=[
                k8s.V1beta1CompositePodGroupTemplate(
                    name="workload-root",
                    scheduling_policy=k8s.V1beta1CompositePodGroupSchedulingPolicy(
                        gang=k8s.V1beta1CompositeGangSchedulingPolicy(min_group_count=2)
                    ),
                    scheduling_constraints=k8s.V1beta1CompositePodGroupSchedulingConstraints(
                        topology=[k8s.V1beta1TopologyConstraint(key="topology.kubernetes.io/zone")]
                    ),
                    disruption_mode=k8s.V1beta1CompositeDisruptionMode(all={}),
                    pod_group_templates=[
                        k8s.V1beta1PodGroupTemplate(
                            name="workers",
                            scheduling_policy=k8s.V1beta1PodGroupSchedulingPolicy(
                                gang=k8s.V1beta1GangSchedulingPolicy(min_count=4)
                            ),
                            scheduling_constraints=k8s.V1beta1PodGroupSchedulingConstraints(
                                topology=[
                                    k8s.V1beta1TopologyConstraint(key="topology.example.com/rack")
                                ]
                            ),
                        ),
                        k8s.V1beta1PodGroupTemplate(
                            name="driver",
                            scheduling_policy=k8s.V1beta1PodGroupSchedulingPolicy(
                                gang=k8s.V1beta1GangSchedulingPolicy(min_count=1)
                            ),
                        ),
                    ],
                )
            ]
        ),
    )
    job_scheduling = k8s.V1JobSchedulingConfiguration(
        scheduling_policy=k8s.V1alpha3WorkloadPodGroupSchedulingPolicy(
            gang=k8s.V1alpha3WorkloadPodGroupGangSchedulingPolicy()
        ),
        scheduling_constraints=k8s.V1alpha3WorkloadPodGroupSchedulingConstraints(
            topology=[k8s.V1alpha3TopologyConstraint(key="topology.kubernetes.io/zone")]
        ),
        disruption_mode=k8s.V1alpha3WorkloadPodGroupDisruptionMode(all={}),
    )
    return {
        "pod-group": (scheduling_v1beta1.PodGroup, pod_group),
        "workload": (scheduling_v1beta1.Workload, workload),
        "job-scheduling": (batch_v1.JobSchedulingConfiguration, job_scheduling),
    }


@pytest.mark.parametrize("name", SEED_IDS)
def test_official_client_seed_parses_unchanged(name: str) -> None:
    cls, official = _official_seeds()[name]
    sent = official_dump(official)
    assert sent == SEEDS[name][1]
    assert cls.model_validate(sent).to_dict() == sent
    assert cls.model_validate(wire_dump(official)).to_dict() == (sent)
