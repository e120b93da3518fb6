"""The oracles themselves: they agree with kubernetes-validate's own entry point, and they fail."""

from __future__ import annotations

import copy
from typing import Any

import kubernetes_validate
import pytest
from conformance_corpus import FULL_POD_GROUP, SEED_POD_GROUP, SEED_WORKLOAD
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles import (
    assert_conforms,
    assert_official_round_trip,
    assert_schema_valid,
    official_model_for,
    schema_errors,
    validate_with_package,
)
from strategies import composite_pod_groups, pod_groups, workloads

from workloadbuilder.api import K8sModel, scheduling_v1alpha3


@settings(
    max_examples=15, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(st.one_of(pod_groups(), workloads(version="v1alpha3"), composite_pod_groups()))
def test_cached_validator_agrees_with_the_package(obj: K8sModel) -> None:
    doc = obj.to_dict()
    assert not schema_errors(doc)
    validate_with_package(doc)


def _broken(doc: dict[str, Any], *path: str | int, value: Any) -> dict[str, Any]:
    out = copy.deepcopy(doc)
    target: Any = out
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return out


BROKEN = [
    _broken(SEED_POD_GROUP, "spec", "schedulingPolicy", "gang", "maxCount", value=3),
    _broken(SEED_POD_GROUP, "spec", "schedulingPolicy", "gang", "minCount", value="4"),
    _broken(SEED_POD_GROUP, "spec", "schedulingPolicy", "gang", value={}),
    _broken(FULL_POD_GROUP, "metadata", "ownerReferences", 0, "uid", value=None),
    _broken(SEED_WORKLOAD, "spec", "compositePodGroupTemplates", 0, "name", value=None),
    _broken(SEED_POD_GROUP, "apiVersion", value="scheduling.k8s.io/v1alpha2"),
]


@pytest.mark.parametrize("doc", BROKEN, ids=range(len(BROKEN)))
def test_both_schema_paths_reject_a_broken_document(doc: dict[str, Any]) -> None:
    if doc["apiVersion"].endswith("v1alpha2"):  # the package has no such kind file at 1.37
        with pytest.raises(kubernetes_validate.SchemaNotFoundError):
            validate_with_package(doc)
        assert schema_errors(doc, "io.k8s.api.scheduling.v1beta1.PodGroup")
        return
    with pytest.raises(AssertionError, match="strict schema"):
        assert_schema_valid(doc)
    with pytest.raises(kubernetes_validate.ValidationError):
        validate_with_package(doc)


def test_formats_are_checked() -> None:
    gang = "io.k8s.api.scheduling.v1beta1.GangSchedulingPolicy"
    assert schema_errors({"minCount": 2**31 - 1}, gang) == []
    assert schema_errors({"minCount": 2**31}, gang)
    condition = {
        "type": "DisruptionTarget",
        "status": "True",
        "lastTransitionTime": "yesterday",
        "reason": "PreemptionByScheduler",
        "message": "",
    }
    assert schema_errors(condition, "io.k8s.apimachinery.pkg.apis.meta.v1.Condition")


def test_official_round_trip_rejects_unknown_fields() -> None:
    doc = _broken(SEED_POD_GROUP, "spec", "podGroupTemplateRef", value={"name": "x"})
    with pytest.raises(AssertionError, match="V1beta1PodGroup rejects"):
        assert_official_round_trip(doc, "io.k8s.api.scheduling.v1beta1.PodGroup")


def test_official_model_names() -> None:
    assert official_model_for("io.k8s.api.scheduling.v1alpha3.CompositePodGroup") is not None
    assert official_model_for("PodGroup", "scheduling.k8s.io/v1beta1") is not None
    assert official_model_for("JobSchedulingConfiguration", "batch/v1") is not None
    assert official_model_for("io.k8s.api.core.v1.PodSchedulingGroup") is not None
    # The client holds the empty structs as plain dicts.
    assert official_model_for("io.k8s.api.scheduling.v1beta1.BasicSchedulingPolicy") is None


@pytest.mark.parametrize(
    "doc", [{"gang": {}}, {"basic": {}, "gang": {"minGroupCount": 1}}], ids=["no-count", "both"]
)
def test_conforms_rejects_a_composite_block_that_is_no_valid_counterpart(
    doc: dict[str, Any],
) -> None:
    block = scheduling_v1alpha3.WorkloadCompositePodGroupSchedulingPolicy.model_validate(doc)
    with pytest.raises(AssertionError, match="is not a valid CompositePodGroupSchedulingPolicy"):
        assert_conforms(block)
