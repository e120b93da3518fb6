"""``ValidatePodUpdate``'s comparison and its rarer rules, on plain objects.

Expected values come from apimachinery's ``Semantic.DeepEqual`` (``pkg/api/equality``: nil and
empty slices and maps are equal, a nil pointer is not an empty struct, quantities compare by
value) and from kubernetes 1.36.3 ``pkg/apis/core/validation/validation.go``.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from workloadbuilder.testing.rules import apply_defaults, validate_object
from workloadbuilder.testing.rules.semantic import normal

GATES = frozenset({"GenericWorkload"})
TERMS = (
    "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
)


def pod(**spec: Any) -> dict[str, Any]:
    obj = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "ml"},
        "spec": {"containers": [{"name": "c", "image": "busybox"}], **spec},
    }
    apply_defaults("", "Pod", obj, creating=True)
    return obj


def errors(new: dict[str, Any], old: dict[str, Any]) -> list[tuple[str, str, str]]:
    causes = validate_object("", "v1", "Pod", new, old, GATES)
    return [(c["reason"], c["field"], c["message"]) for c in causes]


def changed(old: dict[str, Any], **spec: Any) -> dict[str, Any]:
    new = copy.deepcopy(old)
    new["spec"].update(spec)
    return new


@pytest.mark.parametrize(
    ("a", "b", "equal"),
    [
        ({"tolerations": []}, {}, True),  # nil and empty slices
        ({"nodeSelector": {}}, {}, True),  # nil and empty maps
        ({"hostname": ""}, {}, True),  # a string's zero value
        ({"overhead": {"cpu": "1"}}, {"overhead": {"cpu": "1000m"}}, True),  # by value
        ({"overhead": {"memory": "1Gi"}}, {"overhead": {"memory": "1073741824"}}, True),
        ({"overhead": {"cpu": "1"}}, {"overhead": {"cpu": "1001m"}}, False),
        ({"affinity": {}}, {}, False),  # a pointer to an empty struct is not nil
        ({"hostNetwork": False}, {}, True),  # a bool's zero value, moved into securityContext
        ({"hostNetwork": True}, {}, False),
        ({"priority": 0}, {}, False),  # *int32: 0 is not nil
    ],
)
def test_specs_compare_as_semantic_deep_equal(
    a: dict[str, Any], b: dict[str, Any], equal: bool
) -> None:
    assert (normal("PodSpec", a) == normal("PodSpec", b)) is equal


def test_a_negative_grace_period_may_become_one() -> None:
    old = pod(terminationGracePeriodSeconds=-1)
    assert errors(changed(old, terminationGracePeriodSeconds=1), old) == []
    assert errors(changed(old, terminationGracePeriodSeconds=2), old)[0][1] == "spec"


def test_an_active_deadline_out_of_range_stops_the_checks() -> None:
    old = pod(schedulingGroup={"podGroupName": "a"})
    new = changed(old, activeDeadlineSeconds=-1, schedulingGroup={"podGroupName": "b"})
    assert errors(new, old) == [
        (
            "FieldValueInvalid",
            "spec.activeDeadlineSeconds",
            "Invalid value: -1: must be between 0 and 2147483647, inclusive",
        )
    ]


def test_a_gated_pods_required_node_affinity_may_only_gain_expressions() -> None:
    zone = {"key": "zone", "operator": "In", "values": ["a"]}
    disk = {"key": "disk", "operator": "Exists"}

    def affinity(*terms: dict[str, Any]) -> dict[str, Any]:
        required = {"nodeSelectorTerms": list(terms)}
        return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": required}}

    old = pod(schedulingGates=[{"name": "g"}], affinity=affinity({"matchExpressions": [zone]}))
    grown = changed(old, affinity=affinity({"matchExpressions": [zone, disk]}))
    assert errors(grown, old) == []
    two = changed(
        old, affinity=affinity({"matchExpressions": [zone]}, {"matchExpressions": [disk]})
    )
    # the bad value is json.Marshal of the internal []core.NodeSelectorTerm (no JSON tags)
    rendered = (
        '[{"MatchExpressions":[{"Key":"zone","Operator":"In","Values":["a"]}],"MatchFields":null},'
        '{"MatchExpressions":[{"Key":"disk","Operator":"Exists","Values":null}],"MatchFields":null}]'
    )
    assert errors(two, old) == [
        (
            "FieldValueInvalid",
            TERMS,
            f"Invalid value: {rendered}: no additions/deletions to non-empty NodeSelectorTerms "
            "list are allowed",
        )
    ]
    other = changed(old, affinity=affinity({"matchExpressions": [disk]}))
    assert errors(other, old) == [
        (
            "FieldValueInvalid",
            TERMS + "[0]",
            'Invalid value: {"MatchExpressions":[{"Key":"disk","Operator":"Exists","Values":null}],'
            '"MatchFields":null}: only additions are allowed (no mutations or deletions)',
        )
    ]
    # without gates the same growth is one of the changes no pod update may make
    ungated = pod(affinity=affinity({"matchExpressions": [zone]}))
    (error,) = errors(
        changed(ungated, affinity=affinity({"matchExpressions": [zone, disk]})), ungated
    )
    assert error[:2] == ("FieldValueForbidden", "spec")


def test_a_gated_pod_may_gain_a_node_affinity() -> None:
    old = pod(schedulingGates=[{"name": "g"}])
    required = {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "Exists"}]}]
    }
    new = changed(
        old, affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": required}}
    )
    assert errors(new, old) == []


@pytest.mark.parametrize(
    "spec",
    [
        {"containers": "x"},
        {"containers": [None]},
        {"tolerations": {"a": 1}},
        {"schedulingGates": [1]},
        {"activeDeadlineSeconds": "10"},
        {"nodeSelector": [1], "schedulingGates": [{"name": "g"}]},
        {"affinity": "x", "schedulingGates": [{"name": "g"}]},
    ],
)
def test_misshapen_updates_do_not_crash(spec: dict[str, Any]) -> None:
    old = pod(schedulingGates=[{"name": "g"}])
    new = copy.deepcopy(old)
    new["spec"].update(spec)
    validate_object("", "v1", "Pod", new, old, GATES)
    validate_object("", "v1", "Pod", old, new, GATES)
