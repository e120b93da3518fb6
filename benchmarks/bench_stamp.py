"""Benchmark: stamping many PodGroups from one template, next to hand-written dicts,
lightkube's models and the official ``kubernetes`` 37 models.

Run: ``python -m benchmarks.bench_stamp [--count N] [--repeats N]``

A sweep stamps one PodGroup per execution: ``count`` calls of
``builder.new_pod_group(name, "workers").to_dict()`` on a built Builder. The baselines build
the same JSON (same names from ``generate_pod_group_name``, same fields): by hand as dicts,
with lightkube's models (``lightkube-models`` 1.37, the ``bench`` extra: a PodGroup resource made
per object from the template's shared parts, serialised with its ``to_dict()``), and with the
official client's models (made the same way, serialised with
``ApiClient.sanitize_for_serialization``, what that client sends on the wire).
"""

from __future__ import annotations

from typing import Any

import kubernetes.client as official
from lightkube.models import meta_v1 as lightkube_meta
from lightkube.models import scheduling_v1beta1 as lightkube_scheduling
from lightkube.resources.scheduling_v1beta1 import PodGroup as LightkubePodGroup

from benchmarks._harness import Case, Row, arguments, measure, print_table
from workloadbuilder import Builder, BuildOptions, SchedulingPolicyOption, gang, leaf
from workloadbuilder import generate_pod_group_name as pod_group_name

OWNER = {
    "apiVersion": "training.example.com/v1",
    "kind": "TrainJob",
    "name": "resnet",
    "uid": "3f6c1a2e-0d1b-4c55",
    "controller": True,
    "blockOwnerDeletion": True,
}
RACK = "topology.example.com/rack"
WORKLOAD = "resnet-wl"


def builder() -> Builder:
    options = BuildOptions(
        name=WORKLOAD,
        namespace="ml-training",
        owner=OWNER,
        allowed_policies=frozenset(SchedulingPolicyOption),
    )
    built = Builder(leaf("workers", policy=gang(4), topology=[RACK]), options)
    built.build_workload()
    return built


def sdk(built: Builder, count: int) -> list[dict[str, Any]]:
    return [
        built.new_pod_group(pod_group_name(WORKLOAD, f"run-{i}"), "workers").to_dict()
        for i in range(count)
    ]


def dicts(count: int, names: list[str] | None = None) -> list[dict[str, Any]]:
    """The PodGroups by hand; ``names`` given, those names instead of computing them."""
    return [
        {
            "apiVersion": "scheduling.k8s.io/v1beta1",
            "kind": "PodGroup",
            "metadata": {
                "name": names[i] if names else pod_group_name(WORKLOAD, f"run-{i}"),
                "namespace": "ml-training",
                "ownerReferences": [dict(OWNER)],
            },
            "spec": {
                "workloadRef": {"workloadName": WORKLOAD, "templateName": "workers"},
                "schedulingPolicy": {"gang": {"minCount": 4}},
                "schedulingConstraints": {"topology": [{"key": RACK}]},
            },
        }
        for i in range(count)
    ]


def lightkube_models(count: int) -> list[dict[str, Any]]:
    policy = lightkube_scheduling.PodGroupSchedulingPolicy(
        gang=lightkube_scheduling.GangSchedulingPolicy(minCount=4)
    )
    constraints = lightkube_scheduling.PodGroupSchedulingConstraints(
        topology=[lightkube_scheduling.TopologyConstraint(key=RACK)]
    )
    owner = lightkube_meta.OwnerReference(**OWNER)
    return [
        LightkubePodGroup(
            metadata=lightkube_meta.ObjectMeta(
                name=pod_group_name(WORKLOAD, f"run-{i}"),
                namespace="ml-training",
                ownerReferences=[owner],
            ),
            spec=lightkube_scheduling.PodGroupSpec(
                workloadRef=lightkube_scheduling.WorkloadReference(
                    workloadName=WORKLOAD, templateName="workers"
                ),
                schedulingPolicy=policy,
                schedulingConstraints=constraints,
            ),
        ).to_dict()
        for i in range(count)
    ]


def official_models(count: int) -> list[dict[str, Any]]:
    client = official.ApiClient()
    policy = official.V1beta1PodGroupSchedulingPolicy(
        gang=official.V1beta1GangSchedulingPolicy(min_count=4)
    )
    constraints = official.V1beta1PodGroupSchedulingConstraints(
        topology=[official.V1beta1TopologyConstraint(key=RACK)]
    )
    owner = official.V1OwnerReference(
        api_version=OWNER["apiVersion"],
        kind=OWNER["kind"],
        name=OWNER["name"],
        uid=OWNER["uid"],
        controller=True,
        block_owner_deletion=True,
    )
    out = []
    for i in range(count):
        group = official.V1beta1PodGroup(
            api_version="scheduling.k8s.io/v1beta1",
            kind="PodGroup",
            metadata=official.V1ObjectMeta(
                name=pod_group_name(WORKLOAD, f"run-{i}"),
                namespace="ml-training",
                owner_references=[owner],
            ),
            spec=official.V1beta1PodGroupSpec(
                workload_ref=official.V1beta1WorkloadReference(
                    workload_name=WORKLOAD, template_name="workers"
                ),
                scheduling_policy=policy,
                scheduling_constraints=constraints,
            ),
        )
        out.append(client.sanitize_for_serialization(group))
    return out


def main() -> None:
    args = arguments(__doc__.split("\n\n")[0], count=10_000)
    built = builder()
    count = args.count
    expected = dicts(count)
    assert sdk(built, count) == expected, "the SDK and the dicts differ"
    assert lightkube_models(count) == expected, "lightkube and the dicts differ"
    assert official_models(count) == expected, "the official models and the dicts differ"
    times = measure(
        [
            Case("dicts", lambda: dicts(count)),
            Case("sdk", lambda: sdk(built, count)),
            Case("lightkube", lambda: lightkube_models(count)),
            Case("official", lambda: official_models(count)),
        ],
        repeats=args.repeats,
    )
    what = f"{count:,} new_pod_group(...).to_dict() from one template"
    print_table(
        "stamping a sweep",
        [
            Row(what, "hand-written dicts", times["dicts"], times["sdk"], target=1.5),
            Row(what, "lightkube 1.37 models", times["lightkube"], times["sdk"], target=1.0),
            Row(what, "official kubernetes 37 models", times["official"], times["sdk"], target=0.5),
        ],
    )


if __name__ == "__main__":
    main()
