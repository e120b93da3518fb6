"""Safe with bad input: misuse fails at construction, naming the argument; validate() never
raises."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest
from core_support import all_allowed, rendered

from workloadbuilder import (
    Builder,
    BuildError,
    BuildOptions,
    ConstraintsInput,
    ErrorType,
    FieldPath,
    GangSchedulingPolicy,
    PolicyInput,
    ResourceClaimsInput,
    SchedulingConfig,
    SchedulingPolicy,
    SchedulingPolicyOption,
    WorkloadInput,
    WorkloadItem,
    composite,
    controller_ref,
    gang,
    leaf,
    validate,
)

CONSTRUCTION: list[tuple[str, Callable[[], Any], type[Exception], str]] = [
    (
        "item name",
        lambda: WorkloadItem(3),
        TypeError,
        "WorkloadItem name must be a string, not int",
    ),
    (
        "item path",
        lambda: WorkloadItem("a", path=3),
        TypeError,
        "path must be a FieldPath, a string or None, not int",
    ),
    (
        "item path text",
        lambda: WorkloadItem("a", path="spec..x"),
        ValueError,
        "empty name in field path 'spec..x'",
    ),
    (
        "default_config",
        lambda: WorkloadItem("a", default_config={}),
        TypeError,
        "default_config must be a SchedulingConfig or None, not dict",
    ),
    (
        "input",
        lambda: WorkloadItem("a", input={}),
        TypeError,
        "WorkloadItem input must be a WorkloadInput",
    ),
    (
        "callbacks",
        lambda: WorkloadItem("a", callbacks=(1,)),
        TypeError,
        "each callback of 'a' must be callable, got 1",
    ),
    (
        "children",
        lambda: WorkloadItem("a", children=("b",)),
        TypeError,
        "each child of workload item 'a' must be a WorkloadItem, not str",
    ),
    (
        "composite without children",
        lambda: composite("x", []),
        ValueError,
        "composite 'x' needs at least one child; an item without children is a leaf()",
    ),
    (
        "leaf policy",
        lambda: leaf("a", policy="gang"),
        TypeError,
        "a leaf's policy is gang(min_count), basic() or a WorkloadPodGroupSchedulingPolicy,"
        " not str",
    ),
    (
        "count text",
        lambda: leaf("a", policy=gang("4")),  # type: ignore[call-overload]
        TypeError,
        "gang(min_count=...) takes an int, not str",
    ),
    (
        "composite policy",
        lambda: composite("x", [leaf("a")], policy=GangSchedulingPolicy(2)),
        TypeError,
        "a composite's policy is gang(min_group_count=...), basic() or a"
        " WorkloadCompositePodGroupSchedulingPolicy, not GangSchedulingPolicy",
    ),
    (
        "disruption_mode",
        lambda: leaf("a", disruption_mode="some"),
        ValueError,
        "disruption_mode must be 'single' or 'all' (or a WorkloadPodGroupDisruptionMode),"
        " got 'some'",
    ),
    (
        "topology",
        lambda: leaf("a", topology="zone"),
        TypeError,
        "topology is a sequence of label keys, e.g. ('topology.kubernetes.io/zone',)",
    ),
    (
        "gang counts",
        lambda: gang(1, min_group_count=2),
        ValueError,
        "gang() takes min_count (a leaf) or min_group_count (a composite), not both",
    ),
    (
        "pod_group_data",
        lambda: PolicyInput(pod_group_data={}),
        TypeError,
        "PolicyInput.pod_group_data must be a WorkloadPodGroupSchedulingPolicy or None, not dict",
    ),
    (
        "composite_pod_group_data",
        lambda: ConstraintsInput(composite_pod_group_data=[]),
        TypeError,
        "ConstraintsInput.composite_pod_group_data must be a"
        " WorkloadCompositePodGroupSchedulingConstraints or"
        " None, not list",
    ),
    (
        "path_elements",
        lambda: PolicyInput(path_elements="schedulingPolicy"),
        TypeError,
        "path_elements must be a sequence of field names, not a string",
    ),
    (
        "resource claims",
        lambda: ResourceClaimsInput(pod_group_data=[1]),
        TypeError,
        "each resource claim must be a WorkloadPodGroupResourceClaim or None, not int",
    ),
    (
        "WorkloadInput.policy",
        lambda: WorkloadInput(policy=ConstraintsInput()),
        TypeError,
        "WorkloadInput.policy must be a PolicyInput",
    ),
    (
        "root",
        lambda: Builder("a", BuildOptions()),
        TypeError,
        "root must be a WorkloadItem or a sequence of them, not str",
    ),
    (
        "options",
        lambda: Builder(leaf("a"), {}),
        TypeError,
        "options must be BuildOptions, not dict",
    ),
    (
        "validate root",
        lambda: validate("x", BuildOptions()),
        TypeError,
        "root must be a WorkloadItem or a sequence of them, not str",
    ),
    (
        "owner",
        lambda: BuildOptions(owner=3),
        TypeError,
        "owner must be an OwnerReference, its dict or a client's owner reference"
        " (see controller_ref()), not int",
    ),
    ("name", lambda: BuildOptions(name=3), TypeError, "name must be a str, not int"),
    (
        "namespace",
        lambda: BuildOptions(namespace=None),
        TypeError,
        "namespace must be a str, not NoneType",
    ),
    (
        "disable_declarative_validation",
        lambda: BuildOptions(disable_declarative_validation="yes"),
        TypeError,
        "disable_declarative_validation must be a bool, not str",
    ),
    (
        "allowed_policies",
        lambda: BuildOptions(allowed_policies={"Gang"}),
        TypeError,
        "allowed_policies takes SchedulingPolicyOption values, got 'Gang'",
    ),
    (
        "allowed_disruption_modes",
        lambda: BuildOptions(allowed_disruption_modes=[SchedulingPolicyOption.GANG]),
        TypeError,
        "allowed_disruption_modes takes DisruptionModeOption values, got"
        " <SchedulingPolicyOption.GANG: 'Gang'>",
    ),
    (
        "controller_ref",
        lambda: controller_ref({"kind": "Job"}),
        ValueError,
        "cannot reference the owner: it has no apiVersion, metadata.name, metadata.uid;"
        " pass the object as read from the API server",
    ),
    (
        "field path names",
        lambda: FieldPath("a").child(3),
        TypeError,
        "field path names must be str, got int",
    ),
]


@pytest.mark.parametrize(
    ("make", "kind", "message"),
    [c[1:] for c in CONSTRUCTION],
    ids=[c[0] for c in CONSTRUCTION],
)
def test_misuse_at_construction(
    make: Callable[[], Any], kind: type[Exception], message: str
) -> None:
    with pytest.raises(kind) as info:
        make()
    text = str(info.value)
    # A block input may prefix its own class: "PolicyInput.pod_group_data must be ...".
    assert text == message or (text.split(".", 1)[-1] == message and "Input." in text)


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (
            lambda: leaf("a", resource_claims=[{"nme": "x"}]),
            ("WorkloadPodGroupResourceClaim", "name"),
        ),
        (lambda: BuildOptions(owner={"kind": "Job"}), ("OwnerReference", "apiVersion")),
    ],
    ids=["claim dict", "owner dict"],
)
def test_malformed_blocks_are_value_errors_naming_the_field(
    make: Callable[[], Any], words: tuple[str, ...]
) -> None:
    with pytest.raises(ValueError) as info:
        make()
    for word in words:
        assert word in str(info.value)


def test_composite_of_nothing_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="needs at least one child"):
        composite("x", [])
    with pytest.raises(ValueError, match="needs at least one child"):
        composite("x", ())


def _raises(config: SchedulingConfig) -> SchedulingConfig:
    raise RuntimeError("kaput")


def _returns_int(config: SchedulingConfig) -> SchedulingConfig:
    return 3  # type: ignore[return-value]


def _text_count(config: SchedulingConfig) -> SchedulingConfig:
    return dataclasses.replace(
        config,
        policy=SchedulingPolicy(gang=GangSchedulingPolicy("x")),  # type: ignore[arg-type]
    )


@pytest.mark.parametrize(
    ("callback", "want"),
    [
        (_raises, 'spec: Internal error: resolving workload item "a": kaput'),
        (
            _returns_int,
            'spec: Internal error: resolving workload item "a": a callback returned int;'
            " it must return the adjusted SchedulingConfig",
        ),
        (
            _text_count,
            'spec: Internal error: resolving workload item "a": the callbacks or the default'
            " config gave a malformed SchedulingConfig: policy.gang.min_count is a str, not an int",
        ),
    ],
    ids=["raises", "returns an int", "sets a text count"],
)
def test_a_failing_callback_is_an_internal_error_not_an_exception(
    callback: Callable[[SchedulingConfig], SchedulingConfig], want: str
) -> None:
    item = leaf("a", path="spec", policy=gang(2), callbacks=[callback])
    errors = Builder(item, all_allowed()).validate()
    assert rendered(errors) == [want]
    assert errors[0].type is ErrorType.INTERNAL
    with pytest.raises(BuildError):
        Builder(item, all_allowed()).build_workload()


def test_validate_never_raises_on_a_nil_root() -> None:
    assert rendered(validate(None, BuildOptions())) == [
        "<nil>: Invalid value: null: invalid builder: missing root WorkloadItem"
    ]


def test_items_are_immutable_values() -> None:
    item = leaf("a", policy=gang(2))
    with pytest.raises(dataclasses.FrozenInstanceError):
        item.name = "b"  # type: ignore[misc]
    assert item == leaf("a", policy=gang(2))
    assert hash(FieldPath("spec")) == hash(FieldPath.parse("spec"))
