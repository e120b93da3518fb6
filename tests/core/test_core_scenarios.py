"""Acceptance scenarios: the trees controllers write, their objects, and their errors.

Every object built here also passes the upstream 1.37 strict schema and the official 1.37
models (see ``conftest.py``); pods are checked against the Pod schema explicitly.
"""

from __future__ import annotations

from typing import Any

from core_support import ALL_MODES, ALL_POLICIES, rendered
from oracles import assert_schema_valid

from workloadbuilder import (
    Builder,
    BuildOptions,
    CompositePodGroup,
    DisruptionModeOption,
    ErrorType,
    FieldPath,
    PodGroup,
    PolicyInput,
    SchedulingPolicyOption,
    WorkloadInput,
    WorkloadItem,
    basic,
    composite,
    controller_ref,
    gang,
    generate_pod_group_name,
    generate_workload_name,
    instantiate,
    leaf,
    set_scheduling_group,
)
from workloadbuilder.api.scheduling_v1alpha3 import (
    WorkloadPodGroupGangSchedulingPolicy,
    WorkloadPodGroupSchedulingPolicy,
)

TRAIN_JOB = {
    "apiVersion": "training.example.com/v1",
    "kind": "TrainJob",
    "metadata": {"name": "resnet", "namespace": "ml-training", "uid": "3f6c1a2e-0d1b-4c55"},
}
OWNER = controller_ref(TRAIN_JOB)
OWNER_DOC = {
    "apiVersion": "training.example.com/v1",
    "kind": "TrainJob",
    "name": "resnet",
    "uid": "3f6c1a2e-0d1b-4c55",
    "controller": True,
    "blockOwnerDeletion": True,
}
CONTROLLER_REF = {"apiGroup": "training.example.com", "kind": "TrainJob", "name": "resnet"}


def options(name: str = "resnet-wl", **changes: Any) -> BuildOptions:
    values: dict[str, Any] = {
        "name": name,
        "namespace": "ml-training",
        "owner": OWNER,
        "allowed_policies": ALL_POLICIES,
        "allowed_disruption_modes": ALL_MODES,
        **changes,
    }
    return BuildOptions(**values)


def pod(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "ml-training"},
        "spec": {"containers": [{"name": "trainer", "image": "example.com/trainer:1.0"}]},
    }


# ------------------------------------------------------------ the standalone 4-worker gang


def test_standalone_four_worker_gang() -> None:
    builder = Builder(leaf("training-workers", policy=gang(4)), options("training-workers"))
    assert builder.validate() == []
    workload = builder.build_workload()
    assert workload.to_dict()["spec"] == {
        "controllerRef": CONTROLLER_REF,
        "podGroupTemplates": [
            {"name": "training-workers", "schedulingPolicy": {"gang": {"minCount": 4}}}
        ],
    }
    pod_group = builder.new_pod_group("training-workers", "training-workers")
    assert isinstance(pod_group, PodGroup)
    assert pod_group.to_dict() == {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {
            "name": "training-workers",
            "namespace": "ml-training",
            "ownerReferences": [OWNER_DOC],
        },
        "spec": {
            "workloadRef": {"workloadName": "training-workers", "templateName": "training-workers"},
            "schedulingPolicy": {"gang": {"minCount": 4}},
        },
    }
    pods = [set_scheduling_group(pod(f"worker-{i}"), pod_group) for i in range(4)]
    for i, linked in enumerate(pods):
        assert linked["metadata"]["name"] == f"worker-{i}"
        assert linked["spec"]["schedulingGroup"] == {"podGroupName": "training-workers"}
        assert_schema_valid(linked)
    assert "schedulingGroup" not in pod("worker-0")["spec"]  # the input pod is not modified


def test_six_members_with_a_minimum_of_four() -> None:
    """minCount is a threshold, not the size: six members of a gang of at least four."""
    builder = Builder(leaf("workers", policy=gang(4)), options())
    assert builder.validate() == []
    builder.build_workload()
    pod_group = builder.new_pod_group(generate_pod_group_name("resnet-wl", "workers"), "workers")
    assert pod_group.to_dict()["spec"]["schedulingPolicy"] == {"gang": {"minCount": 4}}
    members = [set_scheduling_group(pod(f"worker-{i}"), pod_group) for i in range(6)]
    assert {m["spec"]["schedulingGroup"]["podGroupName"] for m in members} == {
        pod_group.metadata.name
    }
    for member in members:
        assert_schema_valid(member)


# ------------------------------------------------ parameter server + workers under a root


def test_parameter_server_and_workers_under_a_root() -> None:
    root = composite(
        "training",
        [leaf("ps", policy=gang(1)), leaf("workers", policy=gang(4))],
        policy=gang(min_group_count=2),
    )
    workload_name = generate_workload_name("resnet", "3f6c1a2e-0d1b-4c55")
    builder = Builder(root, options(workload_name))
    assert builder.validate() == []
    objects = instantiate(builder)
    assert [type(o) for o in objects] == [CompositePodGroup, PodGroup, PodGroup]
    parent, ps, workers = objects
    assert parent.metadata.name == generate_pod_group_name(workload_name, "training")
    assert parent.to_dict()["spec"] == {
        "workloadRef": {"workloadName": workload_name, "templateName": "training"},
        "schedulingPolicy": {"gang": {"minGroupCount": 2}},
    }
    for child, template, count in ((ps, "ps", 1), (workers, "workers", 4)):
        assert child.metadata.name == generate_pod_group_name(workload_name, template)
        assert child.to_dict()["spec"] == {
            "workloadRef": {"workloadName": workload_name, "templateName": template},
            "parentCompositePodGroupName": parent.metadata.name,
            "schedulingPolicy": {"gang": {"minCount": count}},
        }
        assert child.metadata.owner_references == [OWNER]
    linked = set_scheduling_group(pod("ps-0"), ps)
    assert linked["spec"]["schedulingGroup"] == {"podGroupName": ps.metadata.name}


# -------------------------------------------------------------------- the release's Workload


def release_tree() -> WorkloadItem:
    return composite(
        "workload-root",
        [
            leaf("workers", policy=gang(4), topology=["topology.example.com/rack"]),
            leaf("driver", policy=gang(1)),
        ],
        policy=gang(min_group_count=2),
        topology=["topology.kubernetes.io/zone"],
        disruption_mode="all",
    )


RELEASE_WORKLOAD = {
    "apiVersion": "scheduling.k8s.io/v1beta1",
    "kind": "Workload",
    "metadata": {
        "name": "resnet-wl",
        "namespace": "ml-training",
        "ownerReferences": [OWNER_DOC],
    },
    "spec": {
        "controllerRef": CONTROLLER_REF,
        "compositePodGroupTemplates": [
            {
                "name": "workload-root",
                "schedulingPolicy": {"gang": {"minGroupCount": 2}},
                "schedulingConstraints": {"topology": [{"key": "topology.kubernetes.io/zone"}]},
                "disruptionMode": {"all": {}},
                "podGroupTemplates": [
                    {
                        "name": "workers",
                        "schedulingPolicy": {"gang": {"minCount": 4}},
                        "schedulingConstraints": {
                            "topology": [{"key": "topology.example.com/rack"}]
                        },
                    },
                    {"name": "driver", "schedulingPolicy": {"gang": {"minCount": 1}}},
                ],
            }
        ],
    },
}


def test_release_workload() -> None:
    builder = Builder(release_tree(), options())
    assert builder.validate() == []
    assert builder.build_workload().to_dict() == RELEASE_WORKLOAD
    objects = instantiate(builder)
    assert [o.kind for o in objects] == ["CompositePodGroup", "PodGroup", "PodGroup"]
    assert objects[0].to_dict()["spec"] == {
        "workloadRef": {"workloadName": "resnet-wl", "templateName": "workload-root"},
        "schedulingPolicy": {"gang": {"minGroupCount": 2}},
        "schedulingConstraints": {"topology": [{"key": "topology.kubernetes.io/zone"}]},
        "disruptionMode": {"all": {}},
    }
    assert objects[1].to_dict()["spec"]["schedulingConstraints"] == {
        "topology": [{"key": "topology.example.com/rack"}]
    }


# --------------------------------------------------------- a controller allowing Gang + Single


GANG_SINGLE = options(
    allowed_policies=frozenset({SchedulingPolicyOption.GANG}),
    allowed_disruption_modes=frozenset({DisruptionModeOption.SINGLE}),
)


def test_gang_and_single_controller_forbids_basic_and_all_at_their_own_paths() -> None:
    root = composite(
        "run",
        [
            leaf("launcher", path="spec.replicaSpecs[Launcher]", policy=basic()),
            leaf("worker", path="spec.replicaSpecs[Worker]", policy=gang(4), disruption_mode="all"),
            leaf("ps", path="spec.replicaSpecs[PS]", policy=gang(1), disruption_mode="single"),
        ],
        path="spec",
        policy=gang(min_group_count=3),
    )
    errors = Builder(root, GANG_SINGLE).validate()
    assert rendered(errors) == [
        "spec.replicaSpecs[Launcher].schedulingPolicy: Forbidden: basic scheduling policy is not"
        " supported by this controller",
        "spec.replicaSpecs[Worker].disruptionMode: Forbidden: the disruptionMode `all` is not"
        " supported by this controller",
    ]
    assert [e.type for e in errors] == [ErrorType.FORBIDDEN, ErrorType.FORBIDDEN]
    assert [e.bad_value for e in errors] == ["", ""]


def test_basic_with_all_also_breaks_the_cross_rule() -> None:
    item = leaf(
        "launcher", path="spec.replicaSpecs[Launcher]", policy=basic(), disruption_mode="all"
    )
    assert rendered(Builder(item, GANG_SINGLE).validate()) == [
        "spec.replicaSpecs[Launcher].schedulingPolicy: Forbidden: basic scheduling policy is not"
        " supported by this controller",
        "spec.replicaSpecs[Launcher].disruptionMode: Forbidden: the disruptionMode `all` is not"
        " supported by this controller",
        'spec.replicaSpecs[Launcher].disruptionMode: Invalid value: "": the disruptionMode `all`'
        " is not supported with the Basic scheduling policy",
    ]


def test_empty_allow_lists_reject_everything() -> None:
    deny_all = options(allowed_policies=frozenset(), allowed_disruption_modes=frozenset())
    assert deny_all.allowed_policies == frozenset()
    root = composite(
        "run",
        [
            leaf("a", path="spec.roles[a]", policy=gang(2), disruption_mode="single"),
            leaf("b", path="spec.roles[b]", policy=basic()),
        ],
        path="spec",
        policy=gang(min_group_count=1),
        disruption_mode="all",
    )
    assert rendered(Builder(root, deny_all).validate()) == [
        "spec.schedulingPolicy: Forbidden: gang scheduling policy is not supported by this"
        " controller",
        "spec.disruptionMode: Forbidden: the disruptionMode `all` is not supported by this"
        " controller",
        "spec.roles[a].schedulingPolicy: Forbidden: gang scheduling policy is not supported by"
        " this controller",
        "spec.roles[a].disruptionMode: Forbidden: the disruptionMode `single` is not supported"
        " by this controller",
        "spec.roles[b].schedulingPolicy: Forbidden: basic scheduling policy is not supported by"
        " this controller",
    ]
    assert BuildOptions().allowed_policies == frozenset()  # deny by default
    assert BuildOptions().allowed_disruption_modes == frozenset()


# ------------------------------------------- a Polyaxon-style controller with its own knobs


def polyaxon_run(min_available: int | None) -> WorkloadItem:
    return WorkloadItem(
        "run",
        path=FieldPath("spec"),
        input=WorkloadInput(
            policy=PolicyInput(
                path_elements=("schedulingPolicy",),
                field_paths={
                    "gang.minCount": FieldPath("spec", "schedulingPolicy", "minAvailable")
                },
                pod_group_data=WorkloadPodGroupSchedulingPolicy(
                    gang=WorkloadPodGroupGangSchedulingPolicy(min_count=min_available)
                ),
            )
        ),
    )


def test_polyaxon_style_knob_reports_at_its_own_field() -> None:
    [err] = Builder(polyaxon_run(0), options()).validate()
    assert str(err) == (
        "spec.schedulingPolicy.minAvailable: Invalid value: 0: must be greater than or equal to 1"
    )
    assert (err.type, err.field, err.bad_value) == (
        ErrorType.INVALID,
        "spec.schedulingPolicy.minAvailable",
        0,
    )


def test_polyaxon_style_knob_missing_count() -> None:
    [err] = Builder(polyaxon_run(None), options()).validate()
    assert str(err) == (
        "spec.schedulingPolicy.minAvailable: Required value: gang scheduling requires minCount"
        " to be set after resolution"
    )


def test_polyaxon_style_knob_valid_builds() -> None:
    builder = Builder(polyaxon_run(3), options())
    assert builder.validate() == []
    assert builder.build_workload().to_dict()["spec"]["podGroupTemplates"] == [
        {"name": "run", "schedulingPolicy": {"gang": {"minCount": 3}}}
    ]


def test_field_paths_leave_other_errors_of_the_block_alone() -> None:
    """Only the mapped field moves; the rest of the block keeps its embedded path."""
    item = WorkloadItem(
        "run",
        path=FieldPath("spec"),
        input=WorkloadInput(
            policy=PolicyInput(
                path_elements=("schedulingPolicy",),
                field_paths={"gang.minCount": FieldPath("spec", "minAvailable")},
                pod_group_data=WorkloadPodGroupSchedulingPolicy(),
            )
        ),
    )
    errors = Builder(item, options()).validate()
    assert rendered(errors) == [
        'spec.schedulingPolicy: Invalid value: "": must specify one of: `basic`, `gang`'
    ]


# ------------------------------------------------------------- tree shapes the server rejects


def test_nine_children_under_one_composite() -> None:
    root = composite(
        "run",
        [leaf(f"worker-{i}", path=f"spec.roles[worker-{i}]", policy=gang(1)) for i in range(9)],
        path="spec",
    )
    errors = Builder(root, options()).validate()
    assert rendered(errors) == ["spec: Too many: 9: must have at most 8 items"]
    assert errors[0].type is ErrorType.TOO_MANY


def test_eight_leaves_and_eight_composites_are_accepted() -> None:
    """The cap is per list: 8 podGroupTemplates and 8 compositePodGroupTemplates."""
    leaves = [leaf(f"l{i}") for i in range(8)]
    composites = [composite(f"c{i}", [leaf(f"c{i}-l")]) for i in range(8)]
    assert Builder(composite("run", [*leaves, *composites]), options()).validate() == []


def five_levels() -> WorkloadItem:
    tree = leaf("level-5", path="spec.l2.l3.l4.l5")
    for level, path in ((4, "spec.l2.l3.l4"), (3, "spec.l2.l3"), (2, "spec.l2"), (1, "spec")):
        tree = composite(f"level-{level}", [tree], path=path)
    return tree


def test_five_level_tree() -> None:
    errors = Builder(five_levels(), options()).validate()
    assert rendered(errors) == [
        'spec.l2.l3.l4: Invalid value: "level-4": maximum template hierarchy depth is 4'
    ]


def test_four_level_tree_is_accepted() -> None:
    tree = leaf("level-4")
    for level in (3, 2, 1):
        tree = composite(f"level-{level}", [tree])
    builder = Builder(tree, options())
    assert builder.validate() == []
    assert len(instantiate(builder)) == 4


def test_duplicate_name_two_levels_apart() -> None:
    root = composite(
        "run",
        [
            composite(
                "group",
                [leaf("worker", path="spec.groups[group].roles[worker]")],
                path="spec.groups[group]",
            ),
            leaf("worker", path="spec.roles[worker]"),
        ],
        path="spec",
    )
    errors = Builder(root, options()).validate()
    assert rendered(errors) == [
        'spec.roles[worker]: Internal error: duplicate workload item name "worker": template names'
        " must be unique across the Workload"
    ]


def test_mixed_priorities() -> None:
    root = composite(
        "run",
        [
            leaf("a", path="spec.roles[a]", priority_class_name="high"),
            leaf("b", path="spec.roles[b]", priority_class_name="low"),
            leaf("c", path="spec.roles[c]", priority_class_name="low"),
        ],
        path="spec",
        priority_class_name="high",
    )
    errors = Builder(root, options()).validate()
    assert rendered(errors) == [
        "spec.roles[b]: Invalid value: null: all priority and priorityClassName values must be"
        " identical, detected multiple values"
    ]


def test_several_shape_problems_are_each_reported_once() -> None:
    """A wide composite, a too-deep branch and a stray priority in one tree: three errors."""
    wide = composite(
        "wide",
        [leaf(f"w{i}", path=f"spec.wide.roles[w{i}]") for i in range(9)],
        path="spec.wide",
    )
    deep = leaf("d4", path="spec.deep.d2.d3.d4")
    for name, path in (("d3", "spec.deep.d2.d3"), ("d2", "spec.deep.d2"), ("d1", "spec.deep")):
        deep = composite(name, [deep], path=path)
    odd = leaf("odd", path="spec.odd", priority_class_name="low")
    root = composite("run", [wide, deep, odd], path="spec")
    errors = Builder(root, options()).validate()
    assert rendered(errors) == [
        "spec.wide: Too many: 9: must have at most 8 items",
        'spec.deep.d2.d3: Invalid value: "d3": maximum template hierarchy depth is 4',
        "spec.odd: Invalid value: null: all priority and priorityClassName values must be"
        " identical, detected multiple values",
    ]


def test_errors_become_an_admission_response() -> None:
    """A webhook returns validate()'s errors as a metav1.Status (422, reason Invalid)."""
    item = leaf("worker", path="spec.replicaSpecs[Worker]", policy=gang(0))
    errors = Builder(item, options()).validate()
    status = errors.to_status(kind="TrainJob", group="training.example.com", name="resnet")
    assert_schema_valid(status)
    assert status == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": 'TrainJob.training.example.com "resnet" is invalid:'
        " spec.replicaSpecs[Worker].schedulingPolicy.gang.minCount: Invalid value: 0: must be"
        " greater than or equal to 1",
        "reason": "Invalid",
        "details": {
            "name": "resnet",
            "group": "training.example.com",
            "kind": "TrainJob",
            "causes": [
                {
                    "reason": "FieldValueInvalid",
                    "message": "Invalid value: 0: must be greater than or equal to 1",
                    "field": "spec.replicaSpecs[Worker].schedulingPolicy.gang.minCount",
                }
            ],
        },
        "code": 422,
    }
