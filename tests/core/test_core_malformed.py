"""Malformed objects from a controller's users get errors naming the field, not tracebacks."""

from __future__ import annotations

import pytest

import workloadbuilder as wb


def test_a_job_whose_scheduling_block_does_not_parse_gives_field_errors() -> None:
    job = {
        "metadata": {"name": "trainer", "namespace": "ml", "uid": "u"},
        "spec": {"scheduling": {"schedulingPolicy": {"gang": {"minCount": "4"}}, "typo": {}}},
    }
    with pytest.raises(wb.BuildError) as info:
        wb.job_builder(job)
    assert [str(e) for e in info.value.errors] == [
        'spec.scheduling.schedulingPolicy.gang.minCount: Invalid value: "4":'
        " must be of type integer",
        "spec.scheduling.typo: Forbidden: unknown field",
    ]
    status = info.value.errors.to_status(kind="Job", group="batch", name="trainer")
    assert status["code"] == 422
    assert [c["field"] for c in status["details"]["causes"]] == [
        "spec.scheduling.schedulingPolicy.gang.minCount",
        "spec.scheduling.typo",
    ]


def test_an_incomplete_owner_names_what_is_missing() -> None:
    with pytest.raises(ValueError) as info:
        wb.BuildOptions(owner={"kind": "Job", "apiVersion": "batch/v1"})
    assert str(info.value) == (
        "owner is not an OwnerReference: [owner.name: Required value, owner.uid: Required value]"
    )


def test_a_malformed_claim_dict_names_the_field() -> None:
    with pytest.raises(ValueError) as info:
        wb.leaf("w", resource_claims=[{"name": "gpus", "resourceClaimName": 7}])
    assert str(info.value).endswith("resourceClaimName: Invalid value: 7: must be of type string")
    with pytest.raises(TypeError, match="each resource claim is a ResourceClaim"):
        wb.leaf("w", resource_claims=["gpus"])  # type: ignore[list-item]


def test_an_invalid_namespace_is_reported_before_any_api_call() -> None:
    options = wb.BuildOptions(
        namespace="ML_Training", allowed_policies=frozenset(wb.SchedulingPolicyOption)
    )
    errors = wb.validate(wb.leaf("w", policy=wb.gang(1)), options)
    assert [(e.field, e.bad_value) for e in errors] == [("metadata.namespace", "ML_Training")]


def test_a_root_that_fails_to_resolve_is_reported_once() -> None:
    def broken(config: wb.SchedulingConfig) -> wb.SchedulingConfig:
        raise RuntimeError("kaput")

    root = wb.composite(
        "r",
        [wb.leaf("a", policy=wb.gang(1)), wb.leaf("b", policy=wb.gang(1))],
        path="spec",
        policy=wb.gang(min_group_count=1),
        callbacks=[broken],
    )
    options = wb.BuildOptions(allowed_policies=frozenset(wb.SchedulingPolicyOption))
    assert [str(e) for e in wb.validate(root, options)] == [
        'spec: Internal error: resolving workload item "r": kaput'
    ]
