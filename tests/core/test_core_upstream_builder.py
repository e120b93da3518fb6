"""Upstream parity: the Go library's builder, mapping and PodGroup tests, case by case.

Compilation, resolution (default config, then the item's blocks, then callbacks), the
Builder's life cycle and the runtime objects it stamps, with upstream's exact messages.
"""

from __future__ import annotations

import dataclasses

import pytest
from core_support import job_owner
from oracles import assert_conforms

from workloadbuilder import Builder, BuildError, BuildOptions
from workloadbuilder.api.meta_v1 import ObjectMeta, OwnerReference
from workloadbuilder.api.scheduling_v1alpha3 import (
    TopologyConstraint,
    WorkloadCompositePodGroupAllDisruptionMode,
    WorkloadCompositePodGroupDisruptionMode,
    WorkloadCompositePodGroupGangSchedulingPolicy,
    WorkloadCompositePodGroupSchedulingConstraints,
    WorkloadCompositePodGroupSchedulingPolicy,
    WorkloadPodGroupAllDisruptionMode,
    WorkloadPodGroupBasicSchedulingPolicy,
    WorkloadPodGroupDisruptionMode,
    WorkloadPodGroupGangSchedulingPolicy,
    WorkloadPodGroupResourceClaim,
    WorkloadPodGroupSchedulingConstraints,
    WorkloadPodGroupSchedulingPolicy,
    WorkloadPodGroupSingleDisruptionMode,
)
from workloadbuilder.api.scheduling_v1beta1 import Workload
from workloadbuilder.config import (
    AllDisruptionMode,
    BasicSchedulingPolicy,
    DisruptionMode,
    GangSchedulingPolicy,
    ResourceClaim,
    SchedulingConfig,
    SchedulingConstraints,
    SchedulingPolicy,
    SingleDisruptionMode,
)
from workloadbuilder.field import ErrorType
from workloadbuilder.item import (
    ConstraintsInput,
    DisruptionModeInput,
    PolicyInput,
    ResourceClaimsInput,
    WorkloadInput,
    WorkloadItem,
)

BASIC_CONFIG = SchedulingConfig(policy=SchedulingPolicy(basic=BasicSchedulingPolicy()))


def gang_config(count: int | None) -> SchedulingConfig:
    return SchedulingConfig(policy=SchedulingPolicy(gang=GangSchedulingPolicy(min_count=count)))


def gang_input(count: int | None) -> WorkloadInput:
    return WorkloadInput(
        policy=PolicyInput(
            pod_group_data=WorkloadPodGroupSchedulingPolicy(
                gang=WorkloadPodGroupGangSchedulingPolicy(min_count=count)
            )
        )
    )


def composite_gang_input(count: int | None) -> WorkloadInput:
    return WorkloadInput(
        policy=PolicyInput(
            composite_pod_group_data=WorkloadCompositePodGroupSchedulingPolicy(
                gang=WorkloadCompositePodGroupGangSchedulingPolicy(min_group_count=count)
            )
        )
    )


def default_gang_min_count(n: int):  # type: ignore[no-untyped-def]
    """Upstream's ``defaultGangMinCount``: set a missing gang count."""

    def callback(config: SchedulingConfig) -> SchedulingConfig:
        policy = config.policy
        if policy is not None and policy.gang is not None and policy.gang.min_count is None:
            return dataclasses.replace(
                config, policy=SchedulingPolicy(gang=GangSchedulingPolicy(min_count=n))
            )
        return config

    return callback


def build(root: WorkloadItem | None, owner: OwnerReference | None = None) -> Workload:
    options = BuildOptions(name="wl", namespace="ns", owner=owner or job_owner("test-job"))
    return Builder(root, options).build_workload()


def build_error(root: WorkloadItem | None, **options: object) -> str:
    opts = {"name": "wl", "namespace": "ns", "owner": job_owner("test-job"), **options}
    with pytest.raises(BuildError) as info:
        Builder(root, BuildOptions(**opts)).build_workload()  # type: ignore[arg-type]
    assert isinstance(info.value, ValueError)
    return str(info.value)


# ------------------------------------------------------------------------- TestBuildWorkload


def test_basic_policy() -> None:
    [template] = (
        build(WorkloadItem("test-job", default_config=BASIC_CONFIG)).spec.pod_group_templates or []
    )
    assert template.to_dict() == {"name": "test-job", "schedulingPolicy": {"basic": {}}}


def test_gang_policy_from_default() -> None:
    [template] = (
        build(WorkloadItem("gang-job", default_config=gang_config(4))).spec.pod_group_templates
        or []
    )
    assert template.scheduling_policy.to_dict() == {"gang": {"minCount": 4}}


def test_gang_min_count_defaulted_by_callback() -> None:
    item = WorkloadItem(
        "gang-job",
        default_config=BASIC_CONFIG,
        input=gang_input(None),
        callbacks=(default_gang_min_count(8),),
    )
    [template] = build(item).spec.pod_group_templates or []
    assert template.scheduling_policy.to_dict() == {"gang": {"minCount": 8}}


def test_user_gang_overrides_default_basic() -> None:
    item = WorkloadItem("override-job", default_config=BASIC_CONFIG, input=gang_input(2))
    [template] = build(item).spec.pod_group_templates or []
    assert template.scheduling_policy.to_dict() == {"gang": {"minCount": 2}}


def test_field_by_field_merge_of_default_and_user_config() -> None:
    item = WorkloadItem(
        "merge-job",
        default_config=SchedulingConfig(
            policy=SchedulingPolicy(basic=BasicSchedulingPolicy()),
            disruption_mode=DisruptionMode(single=SingleDisruptionMode()),
        ),
        input=WorkloadInput(
            constraints=ConstraintsInput(
                pod_group_data=WorkloadPodGroupSchedulingConstraints(
                    topology=[TopologyConstraint(key="topology.kubernetes.io/zone")]
                )
            )
        ),
    )
    [template] = build(item).spec.pod_group_templates or []
    assert template.to_dict() == {
        "name": "merge-job",
        "schedulingPolicy": {"basic": {}},
        "schedulingConstraints": {"topology": [{"key": "topology.kubernetes.io/zone"}]},
        "disruptionMode": {"single": {}},
    }


def test_disruption_mode_all_compiles_without_the_validation_rule() -> None:
    """build_workload() compiles Basic + all as given: the cross rule belongs to validate()."""
    item = WorkloadItem(
        "disruption-job",
        default_config=BASIC_CONFIG,
        input=WorkloadInput(
            disruption_mode=DisruptionModeInput(
                pod_group_data=WorkloadPodGroupDisruptionMode(
                    all=WorkloadPodGroupAllDisruptionMode()
                )
            )
        ),
    )
    [template] = build(item).spec.pod_group_templates or []
    assert template.to_dict()["disruptionMode"] == {"all": {}}


def test_resource_claims() -> None:
    item = WorkloadItem(
        "dra-job",
        default_config=BASIC_CONFIG,
        input=WorkloadInput(
            resource_claims=ResourceClaimsInput(
                pod_group_data=(
                    WorkloadPodGroupResourceClaim(name="gpu", resource_claim_name="my-claim"),
                )
            )
        ),
    )
    [template] = build(item).spec.pod_group_templates or []
    assert template.to_dict()["resourceClaims"] == [
        {"name": "gpu", "resourceClaimName": "my-claim"}
    ]


def test_priority_class_name_propagates_to_template() -> None:
    item = WorkloadItem(
        "prio-job",
        default_config=dataclasses.replace(
            BASIC_CONFIG, priority_class_name="system-node-critical"
        ),
    )
    [template] = build(item).spec.pod_group_templates or []
    assert template.priority_class_name == "system-node-critical"
    assert template.priority is None
    assert template.preemption_policy is None


def test_owner_reference_and_controller_ref_parse_api_group() -> None:
    owner = OwnerReference(api_version="batch/v1", kind="Job", name="my-job", uid="abc-123")
    workload = build(WorkloadItem("owned-job", default_config=BASIC_CONFIG), owner)
    assert workload.to_dict()["metadata"] == {
        "name": "wl",
        "namespace": "ns",
        "ownerReferences": [
            {"apiVersion": "batch/v1", "kind": "Job", "name": "my-job", "uid": "abc-123"}
        ],
    }
    assert workload.to_dict()["spec"]["controllerRef"] == {
        "apiGroup": "batch",
        "kind": "Job",
        "name": "my-job",
    }


def test_core_group_owner_gives_an_empty_api_group() -> None:
    owner = OwnerReference(api_version="v1", kind="ConfigMap", name="cm", uid="u")
    workload = build(WorkloadItem("job"), owner)
    assert workload.spec.controller_ref is not None
    assert workload.spec.controller_ref.api_group == ""


def test_empty_leaf_name_fails_before_resolution_and_callbacks() -> None:
    ran: list[SchedulingConfig] = []

    def callback(config: SchedulingConfig) -> SchedulingConfig:
        ran.append(config)
        return config

    item = WorkloadItem(
        "",
        input=WorkloadInput(
            policy=PolicyInput(
                pod_group_data=WorkloadPodGroupSchedulingPolicy(
                    basic=WorkloadPodGroupBasicSchedulingPolicy()
                )
            )
        ),
        callbacks=(callback,),
    )
    assert build_error(item) == "workload item name cannot be empty"
    [err] = Builder(item, BuildOptions(owner=job_owner())).validate()
    # Upstream reports it at the root's nil path; ours names the root's template.
    assert str(err) == (
        "spec.podGroupTemplates[0]: Internal error: workload item name cannot be empty"
    )
    assert ran == []


def test_nil_configs_default_to_basic() -> None:
    [template] = build(WorkloadItem("bare")).spec.pod_group_templates or []
    assert template.scheduling_policy.to_dict() == {"basic": {}}


def test_callback_performs_arbitrary_adjustment() -> None:
    def triple(config: SchedulingConfig) -> SchedulingConfig:
        gang = config.policy.gang if config.policy else None
        if gang is None or gang.min_count is None:
            return config
        return dataclasses.replace(
            config, policy=SchedulingPolicy(gang=GangSchedulingPolicy(gang.min_count * 3))
        )

    item = WorkloadItem("adjusted", default_config=gang_config(4), callbacks=(triple,))
    [template] = build(item).spec.pod_group_templates or []
    assert template.scheduling_policy.to_dict() == {"gang": {"minCount": 12}}


def test_resolution_does_not_mutate_caller_inputs() -> None:
    default = gang_config(None)
    item = WorkloadItem(
        "gang-job",
        default_config=default,
        input=gang_input(None),
        callbacks=(default_gang_min_count(16),),
    )
    before = (item.input.policy.pod_group_data.model_dump(), default)  # type: ignore[union-attr]
    [template] = build(item).spec.pod_group_templates or []
    assert template.scheduling_policy.to_dict() == {"gang": {"minCount": 16}}
    assert item.input.policy.pod_group_data.gang.min_count is None  # type: ignore[union-attr]
    assert (item.input.policy.pod_group_data.model_dump(), item.default_config) == before  # type: ignore[union-attr]
    assert item.default_config is default
    assert item.resolve() == gang_config(16)


def test_gang_missing_min_count_fails() -> None:
    item = WorkloadItem("gang-job", input=gang_input(None))
    assert build_error(item) == "gang scheduling requires minCount to be set after resolution"


def test_composite_root_compiles_into_a_composite_template_with_leaf_children() -> None:
    root = WorkloadItem(
        "cpg-root",
        default_config=gang_config(2),
        children=(
            WorkloadItem("workers", default_config=gang_config(4)),
            WorkloadItem("ps", default_config=BASIC_CONFIG),
        ),
    )
    spec = build(root).to_dict()["spec"]
    assert "podGroupTemplates" not in spec
    assert spec["compositePodGroupTemplates"] == [
        {
            "name": "cpg-root",
            "schedulingPolicy": {"gang": {"minGroupCount": 2}},
            "podGroupTemplates": [
                {"name": "workers", "schedulingPolicy": {"gang": {"minCount": 4}}},
                {"name": "ps", "schedulingPolicy": {"basic": {}}},
            ],
        }
    ]


def test_composite_gang_min_group_count_from_user_input() -> None:
    root = WorkloadItem(
        "cpg-root",
        input=composite_gang_input(3),
        children=(WorkloadItem("workers", default_config=BASIC_CONFIG),),
    )
    [template] = build(root).spec.composite_pod_group_templates or []
    assert template.scheduling_policy.to_dict() == {"gang": {"minGroupCount": 3}}


def test_composite_constraints_and_disruption_mode_compile_onto_the_composite_template() -> None:
    root = WorkloadItem(
        "cpg-root",
        default_config=BASIC_CONFIG,
        input=WorkloadInput(
            constraints=ConstraintsInput(
                composite_pod_group_data=WorkloadCompositePodGroupSchedulingConstraints(
                    topology=[TopologyConstraint(key="topology.kubernetes.io/zone")]
                )
            ),
            disruption_mode=DisruptionModeInput(
                composite_pod_group_data=WorkloadCompositePodGroupDisruptionMode(
                    all=WorkloadCompositePodGroupAllDisruptionMode()
                )
            ),
        ),
        children=(WorkloadItem("workers", default_config=BASIC_CONFIG),),
    )
    [template] = build(root).spec.composite_pod_group_templates or []
    assert template.to_dict()["schedulingConstraints"] == {
        "topology": [{"key": "topology.kubernetes.io/zone"}]
    }
    assert template.to_dict()["disruptionMode"] == {"all": {}}


def test_composite_defaults_to_basic_policy() -> None:
    root = WorkloadItem(
        "cpg-root", children=(WorkloadItem("workers", default_config=BASIC_CONFIG),)
    )
    [template] = build(root).spec.composite_pod_group_templates or []
    assert template.scheduling_policy.to_dict() == {"basic": {}}


def test_nested_composite_compiles_recursively() -> None:
    root = WorkloadItem(
        "cpg-root",
        default_config=BASIC_CONFIG,
        children=(
            WorkloadItem(
                "inner",
                default_config=gang_config(2),
                children=(WorkloadItem("workers", default_config=BASIC_CONFIG),),
            ),
        ),
    )
    [template] = build(root).to_dict()["spec"]["compositePodGroupTemplates"]
    assert template["compositePodGroupTemplates"] == [
        {
            "name": "inner",
            "schedulingPolicy": {"gang": {"minGroupCount": 2}},
            "podGroupTemplates": [{"name": "workers", "schedulingPolicy": {"basic": {}}}],
        }
    ]


def test_composite_gang_missing_min_group_count_fails() -> None:
    root = WorkloadItem(
        "cpg-root",
        input=composite_gang_input(None),
        children=(WorkloadItem("workers", default_config=BASIC_CONFIG),),
    )
    assert (
        build_error(root)
        == "composite gang scheduling requires minGroupCount to be set after resolution"
    )


def test_composite_policy_set_together_with_a_leaf_block_fails_the_input_union() -> None:
    root = WorkloadItem(
        "cpg-root",
        input=dataclasses.replace(
            composite_gang_input(2),
            disruption_mode=DisruptionModeInput(
                pod_group_data=WorkloadPodGroupDisruptionMode(
                    single=WorkloadPodGroupSingleDisruptionMode()
                )
            ),
        ),
        children=(WorkloadItem("workers", default_config=BASIC_CONFIG),),
    )
    assert build_error(root) == (
        'composite workload item "cpg-root" sets leaf building block: disruptionMode'
    )


@pytest.mark.parametrize(
    ("given", "label"),
    [
        (
            PolicyInput(composite_pod_group_data=WorkloadCompositePodGroupSchedulingPolicy()),
            "policy",
        ),
        (
            ConstraintsInput(
                composite_pod_group_data=WorkloadCompositePodGroupSchedulingConstraints()
            ),
            "constraints",
        ),
        (
            DisruptionModeInput(composite_pod_group_data=WorkloadCompositePodGroupDisruptionMode()),
            "disruptionMode",
        ),
    ],
)
def test_leaf_setting_a_composite_block_fails(given: object, label: str) -> None:
    field = {PolicyInput: "policy", ConstraintsInput: "constraints"}.get(
        type(given), "disruption_mode"
    )
    item = WorkloadItem("leafy", input=WorkloadInput(**{field: given}))  # type: ignore[arg-type]
    message = f'leaf workload item "leafy" sets composite building block: {label}'
    assert build_error(item) == message
    [err] = Builder(item, BuildOptions(owner=job_owner())).validate()
    assert (err.type, err.detail) == (ErrorType.INTERNAL, message)


@pytest.mark.parametrize(
    ("given", "label"),
    [
        (PolicyInput(pod_group_data=WorkloadPodGroupSchedulingPolicy()), "policy"),
        (ConstraintsInput(pod_group_data=WorkloadPodGroupSchedulingConstraints()), "constraints"),
        (DisruptionModeInput(pod_group_data=WorkloadPodGroupDisruptionMode()), "disruptionMode"),
        (
            ResourceClaimsInput(
                pod_group_data=(WorkloadPodGroupResourceClaim(name="c", resource_claim_name="c"),)
            ),
            "resourceClaims",
        ),
    ],
)
def test_composite_setting_a_leaf_block_fails(given: object, label: str) -> None:
    field = {
        PolicyInput: "policy",
        ConstraintsInput: "constraints",
        DisruptionModeInput: "disruption_mode",
    }.get(type(given), "resource_claims")
    item = WorkloadItem(
        "comp",
        input=WorkloadInput(**{field: given}),
        children=(WorkloadItem("kid"),),  # type: ignore[arg-type]
    )
    assert build_error(item) == f'composite workload item "comp" sets leaf building block: {label}'


def test_composite_with_a_nil_child_is_refused_at_construction() -> None:
    """Upstream fails at build time; an item here cannot hold a non-item child at all."""
    with pytest.raises(
        TypeError,
        match="each child of workload item 'cpg-root' must be a WorkloadItem, not NoneType",
    ):
        WorkloadItem("cpg-root", default_config=BASIC_CONFIG, children=(None,))  # type: ignore[arg-type]


def test_composite_child_with_empty_name_fails() -> None:
    root = WorkloadItem("cpg-root", children=(WorkloadItem("", default_config=BASIC_CONFIG),))
    assert build_error(root) == "workload item name cannot be empty"


def test_duplicate_template_names_across_the_tree_fail() -> None:
    root = WorkloadItem(
        "cpg-root",
        default_config=BASIC_CONFIG,
        children=(WorkloadItem("workers"), WorkloadItem("workers")),
    )
    assert build_error(root) == (
        'duplicate workload item name "workers": template names must be unique across the Workload'
    )


def test_nil_root_fails() -> None:
    # builder.go: BuildWorkload -> compileWorkloadItemTree(nil) -> validateWorkloadItemTree.
    assert build_error(None) == "workload item cannot be nil"


def test_missing_owner_returns_error() -> None:
    message = build_error(WorkloadItem("job", default_config=BASIC_CONFIG), owner=None)
    assert message == "a Workload must be owned by its controller for garbage collection"


def test_owner_api_version_that_fails_to_parse_returns_error() -> None:
    owner = OwnerReference(api_version="batch/v1/extra", kind="Job", name="my-job", uid="abc-123")
    message = build_error(WorkloadItem("job", default_config=BASIC_CONFIG), owner=owner)
    assert message == (
        'invalid owner apiVersion "batch/v1/extra": unexpected GroupVersion string: batch/v1/extra'
    )


# ------------------------------------------------------------- resolution (mapconfig tests)


def test_resolution_merges_every_field() -> None:
    """Default, then each block the item sets; priorityClassName comes from the default only."""
    default = SchedulingConfig(
        policy=SchedulingPolicy(basic=BasicSchedulingPolicy()),
        constraints=SchedulingConstraints(topology=("topology.kubernetes.io/zone",)),
        disruption_mode=DisruptionMode(single=SingleDisruptionMode()),
        resource_claims=(ResourceClaim("default-claim", resource_claim_name="default"),),
        priority_class_name="default-priority",
    )
    given = WorkloadInput(
        policy=PolicyInput(
            pod_group_data=WorkloadPodGroupSchedulingPolicy(
                gang=WorkloadPodGroupGangSchedulingPolicy(min_count=4)
            )
        ),
        constraints=ConstraintsInput(
            pod_group_data=WorkloadPodGroupSchedulingConstraints(
                topology=[TopologyConstraint(key="topology.kubernetes.io/region")]
            )
        ),
        disruption_mode=DisruptionModeInput(
            pod_group_data=WorkloadPodGroupDisruptionMode(all=WorkloadPodGroupAllDisruptionMode())
        ),
        resource_claims=ResourceClaimsInput(
            pod_group_data=(
                WorkloadPodGroupResourceClaim(name="user-claim", resource_claim_name="user"),
            )
        ),
    )
    for f in dataclasses.fields(SchedulingConfig):
        assert getattr(default, f.name), f"the default fixture leaves {f.name} unset"
    assert WorkloadItem("job", default_config=default, input=given).resolve() == SchedulingConfig(
        policy=SchedulingPolicy(gang=GangSchedulingPolicy(min_count=4)),
        constraints=SchedulingConstraints(topology=("topology.kubernetes.io/region",)),
        disruption_mode=DisruptionMode(all=AllDisruptionMode()),
        resource_claims=(ResourceClaim("user-claim", resource_claim_name="user"),),
        priority_class_name="default-priority",
    )


def test_resolution_order_default_then_input_then_callbacks_in_order() -> None:
    seen: list[tuple[str, SchedulingConfig]] = []

    def first(config: SchedulingConfig) -> SchedulingConfig:
        seen.append(("first", config))
        return dataclasses.replace(config, priority_class_name="from-first")

    def second(config: SchedulingConfig) -> SchedulingConfig:
        seen.append(("second", config))
        return dataclasses.replace(
            config, priority_class_name=config.priority_class_name + "-second"
        )

    item = WorkloadItem(
        "job",
        default_config=dataclasses.replace(gang_config(1), priority_class_name="default"),
        input=gang_input(5),
        callbacks=(first, second),
    )
    resolved = item.resolve()
    assert seen[0] == ("first", dataclasses.replace(gang_config(5), priority_class_name="default"))
    assert seen[1][1].priority_class_name == "from-first"
    assert resolved == dataclasses.replace(gang_config(5), priority_class_name="from-first-second")


def test_all_nil_blocks_leave_fields_unset() -> None:
    assert WorkloadItem("job").user_config() == SchedulingConfig()


@pytest.mark.parametrize("composite", [False, True], ids=["leaf", "composite"])
def test_empty_policy_and_disruption_blocks_are_treated_as_unset(composite: bool) -> None:
    """An empty block ({}: no member set) keeps the default, as upstream's mapping does."""
    default = SchedulingConfig(
        policy=SchedulingPolicy(gang=GangSchedulingPolicy(min_count=3)),
        constraints=SchedulingConstraints(topology=("zone",)),
        disruption_mode=DisruptionMode(all=AllDisruptionMode()),
    )
    if composite:
        given = WorkloadInput(
            policy=PolicyInput(
                composite_pod_group_data=WorkloadCompositePodGroupSchedulingPolicy()
            ),
            constraints=ConstraintsInput(
                composite_pod_group_data=WorkloadCompositePodGroupSchedulingConstraints()
            ),
            disruption_mode=DisruptionModeInput(
                composite_pod_group_data=WorkloadCompositePodGroupDisruptionMode()
            ),
        )
        children: tuple[WorkloadItem, ...] = (WorkloadItem("kid"),)
    else:
        given = WorkloadInput(
            policy=PolicyInput(pod_group_data=WorkloadPodGroupSchedulingPolicy()),
            constraints=ConstraintsInput(pod_group_data=WorkloadPodGroupSchedulingConstraints()),
            disruption_mode=DisruptionModeInput(pod_group_data=WorkloadPodGroupDisruptionMode()),
        )
        children = ()
    item = WorkloadItem("job", default_config=default, input=given, children=children)
    assert item.user_config() == SchedulingConfig()
    assert item.resolve() == default


def test_gang_policy_preserves_nil_min_count() -> None:
    assert WorkloadItem("job", input=gang_input(None)).user_config() == gang_config(None)
    composite = WorkloadItem("c", input=composite_gang_input(None), children=(WorkloadItem("k"),))
    assert composite.user_config() == gang_config(None)


def test_composite_gang_carries_min_group_count_in_min_count() -> None:
    composite = WorkloadItem("c", input=composite_gang_input(3), children=(WorkloadItem("k"),))
    assert composite.user_config() == gang_config(3)
    assert composite.user_config().resource_claims == ()


def test_all_fields_populated_mapping() -> None:
    item = WorkloadItem(
        "job",
        input=WorkloadInput(
            policy=PolicyInput(
                pod_group_data=WorkloadPodGroupSchedulingPolicy(
                    gang=WorkloadPodGroupGangSchedulingPolicy(min_count=2)
                )
            ),
            constraints=ConstraintsInput(
                pod_group_data=WorkloadPodGroupSchedulingConstraints(
                    topology=[TopologyConstraint(key="zone")]
                )
            ),
            disruption_mode=DisruptionModeInput(
                pod_group_data=WorkloadPodGroupDisruptionMode(
                    single=WorkloadPodGroupSingleDisruptionMode()
                )
            ),
            resource_claims=ResourceClaimsInput(
                pod_group_data=(
                    WorkloadPodGroupResourceClaim(name="net", resource_claim_template_name="tpl"),
                )
            ),
        ),
    )
    assert item.user_config() == SchedulingConfig(
        policy=SchedulingPolicy(gang=GangSchedulingPolicy(2)),
        constraints=SchedulingConstraints(("zone",)),
        disruption_mode=DisruptionMode(single=SingleDisruptionMode()),
        resource_claims=(ResourceClaim("net", resource_claim_template_name="tpl"),),
    )


def test_map_config_end_to_end() -> None:
    leaf = WorkloadItem(
        "job-root",
        default_config=BASIC_CONFIG,
        input=WorkloadInput(
            policy=PolicyInput(
                pod_group_data=WorkloadPodGroupSchedulingPolicy(
                    gang=WorkloadPodGroupGangSchedulingPolicy()
                )
            ),
            constraints=ConstraintsInput(
                pod_group_data=WorkloadPodGroupSchedulingConstraints(
                    topology=[TopologyConstraint(key="topology.kubernetes.io/zone")]
                )
            ),
            disruption_mode=DisruptionModeInput(
                pod_group_data=WorkloadPodGroupDisruptionMode(
                    all=WorkloadPodGroupAllDisruptionMode()
                )
            ),
        ),
        callbacks=(default_gang_min_count(4),),
    )
    assert build(leaf).to_dict()["spec"]["podGroupTemplates"] == [
        {
            "name": "job-root",
            "schedulingPolicy": {"gang": {"minCount": 4}},
            "schedulingConstraints": {"topology": [{"key": "topology.kubernetes.io/zone"}]},
            "disruptionMode": {"all": {}},
        }
    ]
    root = WorkloadItem(
        "cpg-root",
        default_config=BASIC_CONFIG,
        input=composite_gang_input(None),
        callbacks=(default_gang_min_count(4),),
        children=(WorkloadItem("workers", default_config=BASIC_CONFIG),),
    )
    assert build(root).to_dict()["spec"]["compositePodGroupTemplates"] == [
        {
            "name": "cpg-root",
            "schedulingPolicy": {"gang": {"minGroupCount": 4}},
            "podGroupTemplates": [{"name": "workers", "schedulingPolicy": {"basic": {}}}],
        }
    ]


# ------------------------------------------------------------------ the Builder's life cycle


def gang_item() -> WorkloadItem:
    return WorkloadItem("pgt-0", input=gang_input(3))


def composite_item() -> WorkloadItem:
    """cpgt-0 over a leaf pgt-0 and a nested composite cpgt-1 over pgt-1."""
    return WorkloadItem(
        "cpgt-0",
        default_config=gang_config(2),
        children=(
            WorkloadItem("pgt-0", default_config=BASIC_CONFIG),
            WorkloadItem(
                "cpgt-1",
                default_config=gang_config(2),
                children=(WorkloadItem("pgt-1", default_config=BASIC_CONFIG),),
            ),
        ),
    )


OPTIONS = BuildOptions(name="wl", namespace="ns", owner=job_owner())


def test_new_builder_stores_root_and_options() -> None:
    item = gang_item()
    builder = Builder(item, OPTIONS)
    assert builder.root is item
    assert builder.options is OPTIONS


def test_build_workload_compiles_identity_and_controller_ref() -> None:
    workload = Builder(gang_item(), OPTIONS).build_workload()
    assert workload.to_dict() == {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "Workload",
        "metadata": {
            "name": "wl",
            "namespace": "ns",
            "ownerReferences": [
                {
                    "apiVersion": "batch/v1",
                    "kind": "Job",
                    "name": "job",
                    "uid": "job-uid",
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "spec": {
            "controllerRef": {"apiGroup": "batch", "kind": "Job", "name": "job"},
            "podGroupTemplates": [{"name": "pgt-0", "schedulingPolicy": {"gang": {"minCount": 3}}}],
        },
    }


def test_build_workload_is_cached_and_returns_independent_copies() -> None:
    calls: list[int] = []

    def counting(config: SchedulingConfig) -> SchedulingConfig:
        calls.append(1)
        return config

    builder = Builder(WorkloadItem("pgt-0", input=gang_input(3), callbacks=(counting,)), OPTIONS)
    first = builder.build_workload()
    first.spec.pod_group_templates[0].name = "mutated"  # type: ignore[index]
    second = builder.build_workload()
    assert calls == [1]
    assert second.spec.pod_group_templates[0].name == "pgt-0"  # type: ignore[index]


@pytest.mark.parametrize(
    ("root", "options", "message"),
    [
        (None, OPTIONS, "workload item cannot be nil"),
        (
            gang_item(),
            BuildOptions(name="wl", namespace="ns"),
            "a Workload must be owned by its controller for garbage collection",
        ),
    ],
    ids=["nil root", "missing owner"],
)
def test_failed_build_caches_nothing(
    root: WorkloadItem | None, options: BuildOptions, message: str
) -> None:
    builder = Builder(root, options)
    for _ in range(2):
        with pytest.raises(BuildError, match=f"^{message}$"):
            builder.build_workload()
    # Stamping compiles on demand (docs/builder.md, differences), so it fails the same way.
    with pytest.raises(BuildError, match=f"^{message}$"):
        builder.new_pod_group("pg", "pgt-0")


def test_new_pod_group_compiles_the_workload_first() -> None:
    # Upstream: "no Workload available: call BuildWorkload or use
    # NewBuilderFromExistingWorkload first"; ours compiles on demand (docs/builder.md).
    builder = Builder(gang_item(), OPTIONS)
    assert builder.new_pod_group("pg", "pgt-0").spec.workload_ref.template_name == "pgt-0"  # type: ignore[union-attr]
    with pytest.raises(BuildError) as info:
        builder.new_composite_pod_group("cpg", "pgt-0")
    assert str(info.value).startswith('compositePodGroupTemplate "pgt-0" not found')


def test_new_pod_group_materializes_from_the_compiled_template() -> None:
    builder = Builder(gang_item(), OPTIONS)
    builder.build_workload()
    pod_group = builder.new_pod_group("pg", "pgt-0")
    assert pod_group.to_dict() == {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {
            "name": "pg",
            "namespace": "ns",
            "ownerReferences": [job_owner().to_dict()],
        },
        "spec": {
            "workloadRef": {"workloadName": "wl", "templateName": "pgt-0"},
            "schedulingPolicy": {"gang": {"minCount": 3}},
        },
    }


def test_new_pod_group_without_an_owner_is_an_error() -> None:
    # Upstream stamps an ownerless PodGroup here; we refuse (docs/builder.md, differences).
    workload = Builder(composite_item(), OPTIONS).build_workload()
    ownerless = Builder.from_existing_workload(workload, dataclasses.replace(OPTIONS, owner=None))
    for stamp in (
        lambda: ownerless.new_pod_group("pg", "pgt-0"),
        lambda: ownerless.new_composite_pod_group("cpg", "cpgt-0"),
    ):
        with pytest.raises(BuildError) as info:
            stamp()
        assert "must be owned by its controller for garbage collection" in str(info.value)


def test_new_pod_group_unknown_template() -> None:
    builder = Builder(composite_item(), OPTIONS)
    builder.build_workload()
    with pytest.raises(BuildError) as info:
        builder.new_pod_group("pg", "missing")
    assert (
        str(info.value)
        == 'podGroupTemplate "missing" not found in workload "wl" (have [pgt-0 pgt-1])'
    )
    with pytest.raises(BuildError) as info:
        builder.new_composite_pod_group("cpg", "missing")
    assert str(info.value) == (
        'compositePodGroupTemplate "missing" not found in workload "wl" (have [cpgt-0 cpgt-1])'
    )


def test_template_index_is_built_once() -> None:
    builder = Builder(composite_item(), OPTIONS)
    builder.build_workload()
    builder.new_pod_group("pg-1", "pgt-0")
    builder.new_composite_pod_group("cpg-1", "cpgt-0")
    indexes = builder._shared.templates
    assert indexes is not None
    builder.new_pod_group("pg-2", "pgt-1")
    builder.new_composite_pod_group("cpg-2", "cpgt-1")
    assert builder._shared.templates is indexes


def test_new_composite_pod_group_materializes_top_level_and_nested_templates() -> None:
    builder = Builder(composite_item(), OPTIONS)
    builder.build_workload()
    top = builder.new_composite_pod_group("cpg", "cpgt-0")
    assert top.to_dict() == {
        "apiVersion": "scheduling.k8s.io/v1alpha3",
        "kind": "CompositePodGroup",
        "metadata": {"name": "cpg", "namespace": "ns", "ownerReferences": [job_owner().to_dict()]},
        "spec": {
            "workloadRef": {"workloadName": "wl", "templateName": "cpgt-0"},
            "schedulingPolicy": {"gang": {"minGroupCount": 2}},
        },
    }
    nested = builder.new_composite_pod_group("cpg-1", "cpgt-1")
    assert nested.spec.parent_composite_pod_group_name is None  # left to the caller
    assert nested.spec.scheduling_policy.to_dict() == {"gang": {"minGroupCount": 2}}


def test_new_pod_group_finds_templates_nested_in_composites() -> None:
    """Upstream's NewPodGroup looks only at top-level templates; we find any leaf."""
    builder = Builder(composite_item(), OPTIONS)
    builder.build_workload()
    assert builder.new_pod_group("pg", "pgt-1").spec.workload_ref.template_name == "pgt-1"  # type: ignore[union-attr]


# --------------------------------------------------------------- from an existing Workload


def existing_workload() -> Workload:
    return Workload.model_validate(
        {
            "metadata": {"name": "parent-wl", "namespace": "ns", "uid": "wl-uid"},
            "spec": {
                "podGroupTemplates": [
                    {
                        "name": "pgt-0",
                        "schedulingPolicy": {"gang": {"minCount": 4}},
                        "priorityClassName": "high-priority",
                        "priority": 1000,
                    }
                ]
            },
        }
    )


def test_existing_workload_materializes_without_build() -> None:
    builder = Builder.from_existing_workload(existing_workload(), BuildOptions(owner=job_owner()))
    pod_group = builder.new_pod_group("pg", "pgt-0")
    assert pod_group.to_dict() == {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": "pg", "namespace": "ns", "ownerReferences": [job_owner().to_dict()]},
        "spec": {
            "workloadRef": {"workloadName": "parent-wl", "templateName": "pgt-0"},
            "schedulingPolicy": {"gang": {"minCount": 4}},
            "priorityClassName": "high-priority",
            "priority": 1000,
        },
    }


def test_existing_workload_from_a_server_document() -> None:
    doc = existing_workload().to_dict()
    doc["metadata"]["resourceVersion"] = "7"
    doc["spec"]["someFutureField"] = True  # a newer server may add fields
    builder = Builder.from_existing_workload(doc, BuildOptions(owner=job_owner()))
    assert builder.new_pod_group("pg", "pgt-0").spec.priority == 1000


def test_build_workload_is_refused_on_an_existing_workload_builder() -> None:
    builder = Builder.from_existing_workload(existing_workload(), OPTIONS)
    with pytest.raises(BuildError) as info:
        builder.build_workload()
    # Upstream names its Go method ("BuildWorkload is not available ..."); ours the Python one.
    assert str(info.value) == (
        "build_workload() is not available on a Builder created from an existing Workload:"
        " it stamps runtime objects from the supplied Workload (see workload())"
    )


def test_validate_is_refused_on_an_existing_workload_builder() -> None:
    builder = Builder.from_existing_workload(existing_workload(), BuildOptions(owner=job_owner()))
    [err] = builder.validate()
    assert err.type is ErrorType.INTERNAL
    assert str(err) == (
        "<nil>: Internal error: cannot validate a builder constructed from an existing workload"
    )
    [again] = builder.validate(old_root=WorkloadItem("x"))
    assert again == err


def test_existing_workload_unknown_template() -> None:
    builder = Builder.from_existing_workload(existing_workload(), BuildOptions(owner=job_owner()))
    with pytest.raises(BuildError) as info:
        builder.new_pod_group("pg", "missing")
    assert str(info.value) == (
        'podGroupTemplate "missing" not found in workload "parent-wl" (have [pgt-0])'
    )


# ------------------------------------------------------------------- the stamped objects


def gang_workload() -> Workload:
    return Workload.model_validate(
        {
            "metadata": {"name": "job-abc", "namespace": "training"},
            "spec": {
                "podGroupTemplates": [
                    {
                        "name": "workers",
                        "schedulingPolicy": {"gang": {"minCount": 4}},
                        "schedulingConstraints": {
                            "topology": [{"key": "topology.kubernetes.io/zone"}]
                        },
                        "disruptionMode": {"all": {}},
                        "resourceClaims": [{"name": "gpu", "resourceClaimName": "shared-gpu"}],
                        "priorityClassName": "high",
                        "priority": 1000,
                        "preemptionPolicy": "Never",
                    }
                ]
            },
        }
    )


def test_pod_group_materializes_every_field_from_the_template() -> None:
    owners = [
        OwnerReference(api_version="batch/v1", kind="Job", name="job", uid="u", controller=True),
    ]
    builder = Builder.from_existing_workload(gang_workload(), BuildOptions(owner=owners[0]))
    pod_group = builder.new_pod_group("job-abc-workers-xyz", "workers")
    assert pod_group.metadata == ObjectMeta(
        name="job-abc-workers-xyz", namespace="training", owner_references=owners
    )
    assert pod_group.to_dict()["spec"] == {
        "workloadRef": {"workloadName": "job-abc", "templateName": "workers"},
        "schedulingPolicy": {"gang": {"minCount": 4}},
        "schedulingConstraints": {"topology": [{"key": "topology.kubernetes.io/zone"}]},
        "resourceClaims": [{"name": "gpu", "resourceClaimName": "shared-gpu"}],
        "disruptionMode": {"all": {}},
        "priorityClassName": "high",
        "priority": 1000,
    }  # preemptionPolicy is not copied, as upstream


def test_pod_group_does_not_alias_the_workload_template() -> None:
    workload = gang_workload()
    builder = Builder.from_existing_workload(workload, BuildOptions(owner=job_owner()))
    pod_group = builder.new_pod_group("pg", "workers")
    pod_group.spec.scheduling_policy.gang.min_count = 99  # type: ignore[union-attr]
    pod_group.spec.scheduling_constraints.topology[0].key = "changed"  # type: ignore[union-attr,index]
    pod_group.spec.resource_claims[0].name = "changed"  # type: ignore[index]
    pod_group.spec.priority = 1
    pod_group.metadata.owner_references[0].name = "changed"  # type: ignore[index]
    assert workload.to_dict() == gang_workload().to_dict()
    assert builder.new_pod_group("pg", "workers").spec.scheduling_policy.gang.min_count == 4  # type: ignore[union-attr]
    assert builder.options.owner == job_owner()


def composite_workload() -> Workload:
    return Workload.model_validate(
        {
            "metadata": {"name": "job-abc", "namespace": "training"},
            "spec": {
                "compositePodGroupTemplates": [
                    {
                        "name": "top",
                        "schedulingPolicy": {"gang": {"minGroupCount": 2}},
                        "priorityClassName": "high",
                        "priority": 1000,
                        "compositePodGroupTemplates": [
                            {
                                "name": "nested",
                                "schedulingPolicy": {"basic": {}},
                                "podGroupTemplates": [
                                    {"name": "leaf", "schedulingPolicy": {"basic": {}}}
                                ],
                            }
                        ],
                    }
                ]
            },
        }
    )


def test_composite_pod_group_materializes_top_level_and_nested_templates() -> None:
    builder = Builder.from_existing_workload(composite_workload(), BuildOptions(owner=job_owner()))
    top = builder.new_composite_pod_group("job-abc-top-xyz", "top")
    assert top.to_dict()["metadata"] == {
        "name": "job-abc-top-xyz",
        "namespace": "training",
        "ownerReferences": [job_owner().to_dict()],
    }
    assert top.to_dict()["spec"] == {
        "workloadRef": {"workloadName": "job-abc", "templateName": "top"},
        "schedulingPolicy": {"gang": {"minGroupCount": 2}},
        "priorityClassName": "high",
        "priority": 1000,
    }
    nested = builder.new_composite_pod_group("job-abc-nested-xyz", "nested")
    assert nested.to_dict()["spec"]["schedulingPolicy"] == {"basic": {}}


def test_composite_pod_group_does_not_alias_the_workload_template() -> None:
    workload = composite_workload()
    builder = Builder.from_existing_workload(workload, BuildOptions(owner=job_owner()))
    cpg = builder.new_composite_pod_group("cpg", "top")
    cpg.spec.scheduling_policy.gang.min_group_count = 99  # type: ignore[union-attr]
    cpg.spec.priority = 1
    assert workload.to_dict() == composite_workload().to_dict()


@pytest.mark.parametrize("make", [existing_workload, gang_workload, composite_workload])
def test_hand_written_fixture_workloads_conform(make) -> None:  # type: ignore[no-untyped-def]
    """The Workloads written by hand above are valid 1.37 objects too."""
    assert_conforms(make())


def test_compile_errors_come_before_the_owner_error() -> None:
    """As upstream: the tree is compiled first, then the owner is required."""
    no_owner = {"owner": None}
    assert (
        build_error(WorkloadItem("a", input=gang_input(None)), **no_owner)
        == "gang scheduling requires minCount to be set after resolution"
    )
    assert build_error(WorkloadItem(""), **no_owner) == "workload item name cannot be empty"
    assert (
        build_error(WorkloadItem("ok"), **no_owner)
        == "a Workload must be owned by its controller for garbage collection"
    )
