"""validate_job: the API server's rules on a Job's ``spec.scheduling``, reported before the call.

Sources of the expected values:

* the immutability markers of ``JobSchedulingConfiguration`` (kubernetes/api ``batch/v1``, their
  text in the 1.37 JSON schema of ``kubernetes-validate``), with apimachinery's update messages
  (``pkg/api/validate/update.go``: ``field cannot be set once created`` / ``field cannot be
  cleared once set``; ``immutable.go``: ``field is immutable``, value ``null``);
* KEP-5547 and kubernetes/kubernetes PR #140188 for the hand-written rules: an explicit gang
  ``minCount`` greater than ``spec.parallelism`` is rejected (``minCount >= 1 > parallelism``
  too), on the final state of an update; the basic/gang variant is frozen;
* the declarative validation of the building blocks (kubernetes/api
  ``scheduling/v1alpha3/zz_generated.validations.go``).
"""

from __future__ import annotations

import copy
from typing import Any

import kubernetes.client as k8s
import pytest

import workloadbuilder as wb

ZONE = "topology.kubernetes.io/zone"
MIN_COUNT = "spec.scheduling.schedulingPolicy.gang.minCount"


def job(scheduling: dict[str, Any] | None, parallelism: int | None = 4) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "template": {
            "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}
        }
    }
    if parallelism is not None:
        spec["parallelism"] = parallelism
    if scheduling is not None:
        spec["scheduling"] = scheduling
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "t", "namespace": "ml"},
        "spec": spec,
    }


def gang(min_count: int | None = None) -> dict[str, Any]:
    return {"schedulingPolicy": {"gang": {} if min_count is None else {"minCount": min_count}}}


def rendered(errors: wb.ErrorList) -> list[str]:
    return [str(e) for e in errors]


def test_the_schema_documents_the_rules_these_tests_check() -> None:
    import json
    import os

    import kubernetes_validate

    base = os.path.dirname(kubernetes_validate.__file__)
    path = f"{base}/kubernetes-json-schema/v1.37.0-local/jobschedulingconfiguration-batch-v1.json"
    with open(path) as f:
        props = json.load(f)["properties"]
    assert (
        "only schedulingPolicy.gang.minCount may be changed"
        in props["schedulingPolicy"]["description"]
    )
    assert "immutable" in props["schedulingConstraints"]["description"]
    assert "immutable" in props["disruptionMode"]["description"]
    assert "At most 4 claims" in props["resourceClaims"]["description"]


@pytest.mark.parametrize(("count", "parallelism"), [(4, 4), (1, 4), (1, None)])
def test_an_explicit_min_count_up_to_parallelism_is_accepted(
    count: int, parallelism: int | None
) -> None:
    assert wb.validate_job(job(gang(count), parallelism)) == []


@pytest.mark.parametrize(
    ("count", "parallelism", "limit"),
    [(5, 4, 4), (2, None, 1), (1, 0, 0)],
    ids=["above", "parallelism-defaults-to-1", "suspended-with-parallelism-0"],
)
def test_an_explicit_min_count_above_parallelism_is_rejected(
    count: int, parallelism: int | None, limit: int
) -> None:
    assert rendered(wb.validate_job(job(gang(count), parallelism))) == [
        f"{MIN_COUNT}: Invalid value: {count}: must be less than or equal to {limit}"
        " (the value specified for spec.parallelism)"
    ]


def test_a_defaulted_min_count_is_never_above_parallelism() -> None:
    assert wb.validate_job(job(gang(), 0)) == []


def test_the_building_blocks_declarative_rules_are_reported_at_the_jobs_path() -> None:
    assert rendered(wb.validate_job(job(gang(0)))) == [
        f"{MIN_COUNT}: Invalid value: 0: must be greater than or equal to 1"
    ]
    both = {"schedulingPolicy": {"basic": {}, "gang": {}}}
    assert rendered(wb.validate_job(job(both))) == [
        'spec.scheduling.schedulingPolicy: Invalid value: "{basic, gang}": must specify exactly'
        " one of: `basic`, `gang`"
    ]
    basic_all = {"schedulingPolicy": {"basic": {}}, "disruptionMode": {"all": {}}}
    assert rendered(wb.validate_job(job(basic_all))) == [
        'spec.scheduling.disruptionMode: Invalid value: "": the disruptionMode `all` is not'
        " supported with the Basic scheduling policy"
    ]


def test_more_than_four_claims_are_too_many() -> None:
    claims = [{"name": f"c{i}", "resourceClaimName": f"rc{i}"} for i in range(5)]
    errors = wb.validate_job(job({**gang(), "resourceClaims": claims}))
    assert [(e.type, e.field) for e in errors] == [
        (wb.ErrorType.TOO_MANY, "spec.scheduling.resourceClaims")
    ]


def test_a_job_created_with_generate_name_is_checked_without_a_name() -> None:
    doc = job(gang(2))
    doc["metadata"] = {"generateName": "t-", "namespace": "ml"}
    assert wb.validate_job(doc) == []


# -- updates -----------------------------------------------------------------------------------


def test_spec_scheduling_cannot_be_set_or_cleared_on_update() -> None:
    assert rendered(wb.validate_job(job(gang()), job(None))) == [
        "spec.scheduling: Invalid value: null: field cannot be set once created"
    ]
    assert rendered(wb.validate_job(job(None), job(gang()))) == [
        "spec.scheduling: Invalid value: null: field cannot be cleared once set"
    ]


def test_the_policy_cannot_be_set_cleared_or_switched() -> None:
    mode = {"disruptionMode": {"single": {}}}
    assert rendered(wb.validate_job(job({**mode, **gang()}), job(mode))) == [
        "spec.scheduling.schedulingPolicy: Invalid value: null: field cannot be set once created"
    ]
    assert rendered(wb.validate_job(job(mode), job({**mode, **gang()}))) == [
        "spec.scheduling.schedulingPolicy: Invalid value: null: field cannot be cleared once set"
    ]
    basic = {"schedulingPolicy": {"basic": {}}}
    assert rendered(wb.validate_job(job(gang()), job(basic))) == [
        "spec.scheduling.schedulingPolicy: Invalid value: null: field is immutable"
    ]


def test_only_gang_min_count_may_change() -> None:
    assert wb.validate_job(job(gang(2)), job(gang(4))) == []
    assert wb.validate_job(job(gang()), job(gang(4))) == []


@pytest.mark.parametrize(
    ("field", "old", "new"),
    [
        ("schedulingConstraints", None, {"topology": [{"key": ZONE}]}),
        ("disruptionMode", {"single": {}}, {"all": {}}),
        (
            "resourceClaims",
            [{"name": "a", "resourceClaimName": "x"}],
            [{"name": "a", "resourceClaimName": "y"}],
        ),
    ],
)
def test_the_other_blocks_are_immutable(field: str, old: Any, new: Any) -> None:
    def with_(value: Any) -> dict[str, Any]:
        return job({**gang(), field: value} if value is not None else gang())

    assert rendered(wb.validate_job(with_(new), with_(old))) == [
        f"spec.scheduling.{field}: Invalid value: null: field is immutable"
    ]


def test_min_count_is_checked_against_the_parallelism_of_the_update() -> None:
    stored = job(gang(4), parallelism=4)
    lowered = job(gang(4), parallelism=2)
    assert rendered(wb.validate_job(lowered, stored)) == [
        f"{MIN_COUNT}: Invalid value: 4: must be less than or equal to 2"
        " (the value specified for spec.parallelism)"
    ]
    assert wb.validate_job(job(gang(2), parallelism=2), stored) == []


def test_an_unchanged_block_is_not_validated_again_on_update() -> None:
    stored = job({**gang(), "schedulingConstraints": {"topology": [{"key": "not a key!"}]}})
    assert wb.validate_job(copy.deepcopy(stored), stored) == []
    assert wb.validate_job(stored) != []


# -- input ---------------------------------------------------------------------------------------


def test_a_malformed_job_gives_its_field_errors_instead_of_raising() -> None:
    doc = job(gang())
    doc["spec"]["parallelism"] = "4"
    doc["metadata"]["annotations"] = ["x"]
    assert [e.field for e in wb.validate_job(doc)] == ["metadata.annotations", "spec.parallelism"]
    assert [e.field for e in wb.validate_job({**job(None), "kind": "Pod"})] == ["kind"]


def test_an_official_client_job_is_validated_alike() -> None:
    doc = job(gang(9))
    assert rendered(wb.validate_job(k8s.V1Job.model_validate(doc))) == rendered(
        wb.validate_job(doc)
    )
    with pytest.raises(TypeError, match="job must be"):
        wb.validate_job("a job")


def test_an_update_cannot_rename_the_job() -> None:
    """apimachinery ValidateObjectMetaUpdate: ``metadata.name`` is immutable."""
    renamed = job(gang())
    renamed["metadata"]["name"] = "u"
    assert rendered(wb.validate_job(renamed, job(gang()))) == [
        'metadata.name: Invalid value: "u": field is immutable'
    ]
