"""Smoke tests of the model base: parse, emit, unions, tolerant parsing."""

import pytest
from pydantic import ValidationError

from workloadbuilder import PodGroup

SEED = {
    "apiVersion": "scheduling.k8s.io/v1beta1",
    "kind": "PodGroup",
    "metadata": {"name": "training-workers", "namespace": "ml-training"},
    "spec": {"schedulingPolicy": {"gang": {"minCount": 4}}},
}


def test_seed_round_trips() -> None:
    assert PodGroup.model_validate(SEED).to_dict() == SEED


def test_union_enforced_with_json_path() -> None:
    bad = {"spec": {"schedulingPolicy": {"basic": {}, "gang": {"minCount": 1}}}}
    with pytest.raises(ValidationError) as err:
        PodGroup.model_validate(bad)
    assert err.value.errors()[0]["loc"] == ("spec", "schedulingPolicy")
    assert "must specify exactly one of: `basic`, `gang`" in str(err.value)


def test_unknown_field_rejected_but_tolerated_from_server() -> None:
    doc = {**SEED, "spec": {**SEED["spec"], "futureField": 1}}
    with pytest.raises(ValidationError) as err:
        PodGroup.model_validate(doc)
    assert err.value.errors()[0]["loc"] == ("spec", "futureField")
    assert PodGroup.from_server(doc).to_dict() == SEED
