"""Types and behaviour as the docs promise them (issue: "types and behaviour that match the docs").

Messages are upstream's (``validate.Minimum`` -> ``content.MinError``: "must be greater than or
equal to 1"; ``content.IsDNS1123Label``) or the ones docs/builder.md documents.
"""

from __future__ import annotations

import dataclasses

import pytest
from core_support import all_allowed, job_owner, rendered

from workloadbuilder import (
    Builder,
    BuildError,
    BuildOptions,
    DisruptionModeOption,
    FieldPath,
    GangSchedulingPolicy,
    PolicyInput,
    SchedulingConfig,
    SchedulingPolicy,
    SchedulingPolicyOption,
    WorkloadInput,
    WorkloadItem,
    composite,
    controller_ref,
    gang,
    instantiate,
    leaf,
)
from workloadbuilder.api.scheduling_v1alpha3 import (
    WorkloadPodGroupGangSchedulingPolicy,
    WorkloadPodGroupSchedulingPolicy,
)

MIN = "must be greater than or equal to 1"


def test_two_items_without_paths_keep_their_own_errors() -> None:
    root = composite("root", [leaf("a", policy=gang(0)), leaf("b", policy=gang(0))])
    assert rendered(Builder(root, all_allowed()).validate()) == [
        "spec.compositePodGroupTemplates[0].podGroupTemplates[0].schedulingPolicy.gang.minCount:"
        f" Invalid value: 0: {MIN}",
        "spec.compositePodGroupTemplates[0].podGroupTemplates[1].schedulingPolicy.gang.minCount:"
        f" Invalid value: 0: {MIN}",
    ]


def test_two_items_at_the_same_path_are_not_merged() -> None:
    # A controller may map two roles to one field; each role's error is still reported.
    root = composite(
        "root",
        [leaf("a", path="spec.x", policy=gang(0)), leaf("b", path="spec.x", policy=gang(0))],
    )
    errors = Builder(root, all_allowed()).validate()
    assert (
        rendered(errors) == [f"spec.x.schedulingPolicy.gang.minCount: Invalid value: 0: {MIN}"] * 2
    )


@pytest.mark.parametrize("declarative", [True, False])
def test_a_rule_runs_once(declarative: bool) -> None:
    item = leaf(
        "w",
        path="spec",
        policy=gang(0),
        topology=["-bad-"],
        resource_claims=[{"name": "Gpu", "resourceClaimName": "c"}],
    )
    options = all_allowed(disable_declarative_validation=not declarative)
    errors = rendered(Builder(item, options).validate())
    assert errors.count(f"spec.schedulingPolicy.gang.minCount: Invalid value: 0: {MIN}") == 1
    assert len([e for e in errors if e.startswith("spec.schedulingConstraints.topology[0]")]) == 1
    assert len([e for e in errors if e.startswith("spec.resourceClaims[0].name")]) == 1
    assert len(errors) == 3


def test_a_default_value_is_checked_by_the_server_rules() -> None:
    # Declarative validation never saw the default's count: the API server's rule reports it.
    item = WorkloadItem(
        "w",
        path=FieldPath("spec"),
        default_config=SchedulingConfig(
            policy=SchedulingPolicy(gang=GangSchedulingPolicy(min_count=0))
        ),
        input=WorkloadInput(policy=PolicyInput(path_elements=("schedulingPolicy",))),
    )
    assert rendered(Builder(item, all_allowed()).validate()) == [
        f"spec.schedulingPolicy.gang.minCount: Invalid value: 0: {MIN}"
    ]


def test_builder_root_and_options_are_read_only() -> None:
    builder = Builder(leaf("w"), all_allowed())
    builder.build_workload()
    with pytest.raises(AttributeError):
        builder.root = leaf("other")  # type: ignore[misc]
    with pytest.raises(AttributeError):
        builder.options = all_allowed(name="other")  # type: ignore[misc]


def test_items_are_hashable_values() -> None:
    a = leaf(
        "w",
        policy=gang(2),
        topology=["zone"],
        resource_claims=[{"name": "c", "resourceClaimName": "r"}],
    )
    b = leaf(
        "w",
        policy=gang(2),
        topology=["zone"],
        resource_claims=[{"name": "c", "resourceClaimName": "r"}],
    )
    assert a == b and hash(a) == hash(b)
    assert len({a, b, leaf("w", policy=gang(3))}) == 2
    root = composite("r", [a])
    assert hash(root) == hash(composite("r", [b]))


def test_blocks_inside_items_are_frozen() -> None:
    block = WorkloadPodGroupSchedulingPolicy(gang=WorkloadPodGroupGangSchedulingPolicy(min_count=2))
    item = WorkloadItem("w", input=WorkloadInput(policy=PolicyInput(pod_group_data=block)))
    held = item.input.policy.pod_group_data
    assert held is not None and held.gang is not None
    with pytest.raises(Exception):  # noqa: B017 (pydantic's frozen-instance error)
        held.gang.min_count = 5
    # The caller's block is the same frozen value: nothing can change the item afterwards.
    with pytest.raises(Exception):  # noqa: B017
        block.gang = None
    assert item.input.policy.pod_group_data.gang.min_count == 2  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda: leaf("w", policy=gang(min_group_count=2)),
            "leaf 'w': gang(min_group_count=...) counts child groups, which only a composite"
            " has; a leaf's gang is gang(min_count)",
        ),
        (
            lambda: composite("c", [leaf("w")], policy=gang(2)),
            "composite 'c': gang(min_count) counts pods, which only a leaf has; a composite's"
            " gang is gang(min_group_count=...)",
        ),
    ],
)
def test_the_wrong_gang_count_is_an_error_at_construction(make, message) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError) as err:
        make()
    assert str(err.value) == message


def test_the_right_gang_counts_compile() -> None:
    root = composite("c", [leaf("w", policy=gang(3))], policy=gang(min_group_count=1))
    spec = Builder(root, all_allowed()).build_workload().to_dict()["spec"]
    [template] = spec["compositePodGroupTemplates"]
    assert template["schedulingPolicy"] == {"gang": {"minGroupCount": 1}}
    assert template["podGroupTemplates"][0]["schedulingPolicy"] == {"gang": {"minCount": 3}}
    # gang() without a count serves both (a callback supplies it).
    leaf("w", policy=gang())
    composite("c", [leaf("w")], policy=gang())


@pytest.mark.parametrize(
    ("key", "allowed"),
    [
        ("gang.min_count", "'', 'basic', 'gang', 'gang.minCount', 'gang.minGroupCount'"),
        ("gang.mincount", "'', 'basic', 'gang', 'gang.minCount', 'gang.minGroupCount'"),
        ("basic.x", "'', 'basic', 'gang', 'gang.minCount', 'gang.minGroupCount'"),
    ],
)
def test_field_paths_keys_are_checked(key: str, allowed: str) -> None:
    with pytest.raises(ValueError) as err:
        PolicyInput(field_paths={key: FieldPath("spec", "minAvailable")})
    assert str(err.value) == (
        f"PolicyInput.field_paths key {key!r} is not a field of the block; allowed: {allowed}"
        " ([i] is any list index)"
    )


def test_field_paths_keys_that_exist_are_accepted() -> None:
    PolicyInput(field_paths={"gang.minCount": FieldPath("spec", "minAvailable"), "": "spec.p"})
    from workloadbuilder import ConstraintsInput, ResourceClaimsInput

    ConstraintsInput(field_paths={"topology[0].key": "spec.zone", "topology": "spec.t"})
    ResourceClaimsInput(field_paths={"[0].name": "spec.claim", "[1]": "spec.other"})
    with pytest.raises(ValueError):
        ResourceClaimsInput(field_paths={"name": "spec.claim"})


def test_allow_lists_take_any_iterable() -> None:
    options = BuildOptions(
        allowed_policies=[SchedulingPolicyOption.GANG],
        allowed_disruption_modes=(m for m in DisruptionModeOption),
    )
    assert options.allowed_policies == frozenset({SchedulingPolicyOption.GANG})
    assert options.allowed_disruption_modes == frozenset(DisruptionModeOption)


def test_owner_takes_what_the_docs_promise() -> None:
    from kubernetes.client import V1ObjectMeta, V1OwnerReference
    from lightkube.models.meta_v1 import OwnerReference as LightkubeOwnerReference

    expected = job_owner()
    given = [
        expected,
        expected.to_dict(),
        V1OwnerReference(
            api_version="batch/v1",
            kind="Job",
            name="job",
            uid="job-uid",
            controller=True,
            block_owner_deletion=True,
        ),
        LightkubeOwnerReference(
            apiVersion="batch/v1",
            kind="Job",
            name="job",
            uid="job-uid",
            controller=True,
            blockOwnerDeletion=True,
        ),
    ]
    for owner in given:
        assert BuildOptions(owner=owner).owner == expected, owner
    del V1ObjectMeta
    with pytest.raises(TypeError) as err:
        BuildOptions(owner=5)  # type: ignore[arg-type]
    assert "owner" in str(err.value)


def test_controller_ref_takes_lightkube_objects() -> None:
    from lightkube.models.meta_v1 import ObjectMeta
    from lightkube.resources.batch_v1 import Job

    job = Job(metadata=ObjectMeta(name="job", namespace="ns", uid="job-uid"))
    assert controller_ref(job) == job_owner()


def test_set_scheduling_group_takes_lightkube_pods() -> None:
    from lightkube.models.core_v1 import Container, PodSpec
    from lightkube.models.meta_v1 import ObjectMeta
    from lightkube.resources.core_v1 import Pod

    from workloadbuilder import set_scheduling_group

    builder = Builder(leaf("w"), all_allowed())
    group = builder.new_pod_group("pg", "w")
    pod = Pod(
        metadata=ObjectMeta(name="p", namespace="ns"),
        spec=PodSpec(containers=[Container(name="c", image="i")]),
    )
    linked = set_scheduling_group(pod, group)
    assert type(linked) is Pod
    assert linked.to_dict()["spec"]["schedulingGroup"] == {"podGroupName": "pg"}


def test_new_pod_group_compiles_on_demand() -> None:
    builder = Builder(leaf("w", policy=gang(2)), all_allowed())
    group = builder.new_pod_group("pg", "w")
    assert group.to_dict()["spec"]["schedulingPolicy"] == {"gang": {"minCount": 2}}


def test_stamping_without_an_owner_is_an_error() -> None:
    workload = Builder(leaf("w"), all_allowed()).build_workload()
    ownerless = Builder.from_existing_workload(workload, BuildOptions())
    with pytest.raises(BuildError) as err:
        ownerless.new_pod_group("pg", "w")
    assert str(err.value) == (
        "a PodGroup must be owned by its controller for garbage collection:"
        " set BuildOptions(owner=...)"
    )
    with pytest.raises(BuildError):
        instantiate(workload)


def test_no_message_names_a_go_function() -> None:
    workload = Builder(leaf("w"), all_allowed()).build_workload()
    existing = Builder.from_existing_workload(workload, all_allowed())
    with pytest.raises(BuildError) as err:
        existing.build_workload()
    assert "BuildWorkload" not in str(err.value)
    assert str(err.value).startswith("build_workload() is not available on a Builder created")


def test_stamped_objects_by_template_name() -> None:
    root = composite("root", [leaf("a"), leaf("b")])
    objects = instantiate(Builder(root, all_allowed()))
    assert objects.by_template["a"].spec.workload_ref.template_name == "a"  # type: ignore[union-attr]
    assert objects.by_template["root"].kind == "CompositePodGroup"
    assert list(objects.by_template) == ["root", "a", "b"]
    assert objects[0] is objects.by_template["root"]


def test_replace_keeps_an_item_valid() -> None:
    item = leaf("w", policy=gang(2))
    renamed = dataclasses.replace(item, name="v")
    assert renamed.name == "v" and renamed.input == item.input
