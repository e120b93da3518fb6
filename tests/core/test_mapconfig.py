"""``workloadbuilder.mapconfig``: the building blocks mapped to a ``SchedulingConfig``.

Expected values from upstream's mapconfig.go and builder.go, as summarised in
``../shared/reference/upstream-1.37.md`` ("workloadbuilder merge"): a policy or disruption
block with no member set counts as unset, constraints only when the topology is non-empty,
claims only when there are some; the user's blocks override the default config field by
field, then the callbacks run in order. The standard path elements of a block are the
template's own fields (the 1.37 schema of ``PodGroupTemplate`` / ``CompositePodGroupTemplate``).
"""

from __future__ import annotations

import dataclasses

import pytest
from oracles import definition_schema

from workloadbuilder.api.scheduling_v1alpha3 import (
    TopologyConstraint,
    WorkloadCompositePodGroupAllDisruptionMode,
    WorkloadCompositePodGroupDisruptionMode,
    WorkloadCompositePodGroupGangSchedulingPolicy,
    WorkloadCompositePodGroupSchedulingPolicy,
    WorkloadPodGroupDisruptionMode,
    WorkloadPodGroupGangSchedulingPolicy,
    WorkloadPodGroupResourceClaim,
    WorkloadPodGroupSchedulingConstraints,
    WorkloadPodGroupSchedulingPolicy,
    WorkloadPodGroupSingleDisruptionMode,
)
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
from workloadbuilder.item import TEMPLATE_FIELDS, standard_input
from workloadbuilder.mapconfig import (
    COMPOSITE,
    LEAF,
    config_type_errors,
    map_blocks,
    overridden,
    resolve_config,
)

ZONE = "topology.kubernetes.io/zone"


def test_a_leaf_s_blocks_map_member_by_member() -> None:
    config = map_blocks(
        LEAF,
        WorkloadPodGroupSchedulingPolicy(gang=WorkloadPodGroupGangSchedulingPolicy(min_count=4)),
        WorkloadPodGroupSchedulingConstraints(topology=(TopologyConstraint(key=ZONE),)),
        WorkloadPodGroupDisruptionMode(single=WorkloadPodGroupSingleDisruptionMode()),
        (WorkloadPodGroupResourceClaim(name="gpu", resource_claim_template_name="gpus"),),
    )
    assert config == SchedulingConfig(
        policy=SchedulingPolicy(gang=GangSchedulingPolicy(min_count=4)),
        constraints=SchedulingConstraints(topology=(ZONE,)),
        disruption_mode=DisruptionMode(single=SingleDisruptionMode()),
        resource_claims=(ResourceClaim("gpu", resource_claim_template_name="gpus"),),
    )


def test_a_composite_s_gang_counts_child_groups() -> None:
    config = map_blocks(
        COMPOSITE,
        WorkloadCompositePodGroupSchedulingPolicy(
            gang=WorkloadCompositePodGroupGangSchedulingPolicy(min_group_count=2)
        ),
        None,
        WorkloadCompositePodGroupDisruptionMode(all=WorkloadCompositePodGroupAllDisruptionMode()),
    )
    assert config.policy == SchedulingPolicy(gang=GangSchedulingPolicy(min_count=2))
    assert config.disruption_mode == DisruptionMode(all=AllDisruptionMode())


def test_empty_blocks_are_unset() -> None:
    config = map_blocks(
        LEAF,
        WorkloadPodGroupSchedulingPolicy(),
        WorkloadPodGroupSchedulingConstraints(topology=()),
        WorkloadPodGroupDisruptionMode(),
        (),
    )
    assert config == SchedulingConfig()
    assert config.policy is None and config.constraints is None
    assert config.disruption_mode is None and config.resource_claims == ()


def test_the_user_s_blocks_override_the_default_field_by_field() -> None:
    default = SchedulingConfig(
        policy=SchedulingPolicy(basic=BasicSchedulingPolicy()),
        disruption_mode=DisruptionMode(single=SingleDisruptionMode()),
        priority_class_name="batch",
    )
    user = SchedulingConfig(policy=SchedulingPolicy(gang=GangSchedulingPolicy(min_count=3)))
    assert overridden(default, user) == dataclasses.replace(default, policy=user.policy)
    assert overridden(None, SchedulingConfig()) == SchedulingConfig()
    assert overridden(default, SchedulingConfig()) == default


def test_callbacks_run_in_order_on_the_resolved_config() -> None:
    seen: list[str] = []

    def first(config: SchedulingConfig) -> SchedulingConfig:
        seen.append("first")
        return dataclasses.replace(config, priority_class_name="high")

    def second(config: SchedulingConfig) -> SchedulingConfig:
        seen.append(f"second saw {config.priority_class_name}")
        return config

    resolved = resolve_config(None, SchedulingConfig(), (first, second))
    assert resolved == SchedulingConfig(priority_class_name="high")
    assert seen == ["first", "second saw high"]


def test_a_callback_returning_garbage_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="a callback returned dict"):
        resolve_config(None, SchedulingConfig(), (lambda _config: {},))  # type: ignore[arg-type, return-value]
    bad = SchedulingConfig(priority_class_name=7)  # type: ignore[arg-type]
    assert config_type_errors(bad) == ["priority_class_name is a int, not a str"]
    with pytest.raises(TypeError, match="malformed SchedulingConfig"):
        resolve_config(bad, SchedulingConfig())


@pytest.mark.parametrize(
    ("definition", "kind"),
    [
        ("io.k8s.api.scheduling.v1beta1.PodGroupTemplate", LEAF),
        ("io.k8s.api.scheduling.v1alpha3.CompositePodGroupTemplate", COMPOSITE),
    ],
)
def test_the_standard_path_elements_are_the_template_s_fields(
    definition: str, kind: object
) -> None:
    fields = set(definition_schema(definition)["properties"])
    given = standard_input(kind, None, None, None)  # type: ignore[arg-type]
    blocks = [given.policy, given.constraints, given.disruption_mode, given.resource_claims]
    for block in blocks if kind is LEAF else blocks[:3]:
        (element,) = block.path_elements
        assert element == TEMPLATE_FIELDS[type(block)]
        assert element in fields
