"""The Go-only ``WorkloadCompositePodGroup*`` blocks, checked structurally.

They have no upstream schema or official model. A valid block must dump exactly the JSON of its
composite API counterpart (``CompositePodGroupSchedulingPolicy`` etc.), which both oracles know;
an invalid one must still be held as written.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import (
    COMPOSITE_BLOCK_COUNTERPARTS,
    assert_conforms,
    assert_official_round_trip,
    assert_schema_valid,
    class_info,
    schema_errors,
)
from property_bound import bounded
from pydantic import ValidationError
from strategies import composite_block_docs

from workloadbuilder.api import K8sModel, scheduling_v1alpha3

a3 = scheduling_v1alpha3
POLICY_DEFINITIONS = (
    "io.k8s.api.scheduling.v1alpha3.CompositePodGroupSchedulingPolicy",
    "io.k8s.api.scheduling.v1beta1.CompositePodGroupSchedulingPolicy",
)
INT32_MAX = 2**31 - 1


def test_gang_min_group_count_2_is_a_valid_composite_policy() -> None:
    block = a3.WorkloadCompositePodGroupSchedulingPolicy(
        gang=a3.WorkloadCompositePodGroupGangSchedulingPolicy(min_group_count=2)
    )
    doc = block.to_dict()
    assert doc == {"gang": {"minGroupCount": 2}}
    for definition in POLICY_DEFINITIONS:
        assert_schema_valid(doc, definition)
        assert_official_round_trip(doc, definition, a3.CompositePodGroupSchedulingPolicy)
    assert a3.CompositePodGroupSchedulingPolicy.model_validate(doc).to_dict() == doc
    assert_conforms(block)


@pytest.mark.parametrize("name", sorted(COMPOSITE_BLOCK_COUNTERPARTS))
def test_every_composite_block_has_an_api_counterpart(name: str) -> None:
    block = getattr(a3, name)
    counterpart = class_info(block).counterpart
    assert counterpart is getattr(a3, COMPOSITE_BLOCK_COUNTERPARTS[name])
    assert class_info(counterpart).definitions  # ... which the upstream schema knows


def _api_valid_policy(doc: dict[str, Any]) -> bool:
    if len(doc) != 1:
        return False
    gang = doc.get("gang")
    return gang is None or 1 <= gang.get("minGroupCount", 0) <= INT32_MAX


@settings(max_examples=bounded(80), deadline=None, database=None)
@given(composite_block_docs())
def test_composite_policy_block_holds_anything_and_matches_its_counterpart(
    doc: dict[str, Any],
) -> None:
    block = a3.WorkloadCompositePodGroupSchedulingPolicy.model_validate(doc)
    assert block.to_dict() == doc  # held as written, valid or not
    try:
        api = a3.CompositePodGroupSchedulingPolicy.model_validate(doc)
    except ValidationError:
        api = None
    # The API shape only enforces its union and int32; minimums are the server's (or validate()'s).
    shape_ok = len(doc) == 1 and (
        "gang" not in doc
        or -(2**31) <= doc["gang"].get("minGroupCount", INT32_MAX + 1) <= INT32_MAX
    )
    assert (api is not None) == shape_ok
    if api is not None:
        assert api.to_dict() == doc
        for definition in POLICY_DEFINITIONS:
            assert not schema_errors(doc, definition)
            assert_official_round_trip(doc, definition, a3.CompositePodGroupSchedulingPolicy)
    if _api_valid_policy(doc):
        assert_conforms(block)


@pytest.mark.parametrize(
    ("block", "doc"),
    [
        (a3.WorkloadCompositePodGroupDisruptionMode, {"single": {}}),
        (a3.WorkloadCompositePodGroupDisruptionMode, {"all": {}}),
        (a3.WorkloadCompositePodGroupSchedulingConstraints, {}),
        (
            a3.WorkloadCompositePodGroupSchedulingConstraints,
            {"topology": [{"key": "topology.kubernetes.io/zone"}]},
        ),
        (a3.WorkloadCompositePodGroupSchedulingPolicy, {"basic": {}}),
        (a3.WorkloadCompositePodGroupBasicSchedulingPolicy, {}),
        (a3.WorkloadCompositePodGroupGangSchedulingPolicy, {"minGroupCount": 3}),
        (a3.WorkloadCompositePodGroupSingleDisruptionMode, {}),
        (a3.WorkloadCompositePodGroupAllDisruptionMode, {}),
    ],
)
def test_valid_composite_block_dumps_its_counterparts_json(
    block: type[K8sModel], doc: dict[str, Any]
) -> None:
    obj = block.model_validate(doc)
    assert obj.to_dict() == doc
    assert_conforms(obj)  # schema and official model of the counterpart, in both versions


@pytest.mark.parametrize(
    "doc",
    [{"gang": {}}, {"gang": {"minGroupCount": 0}}, {"basic": {}, "gang": {"minGroupCount": 1}}],
)
def test_invalid_composite_block_is_not_a_valid_counterpart(doc: dict[str, Any]) -> None:
    block = a3.WorkloadCompositePodGroupSchedulingPolicy.model_validate(doc)
    assert block.to_dict() == doc
    rejected_by_model = True
    try:
        a3.CompositePodGroupSchedulingPolicy.model_validate(doc)
        rejected_by_model = False
    except ValidationError:
        pass
    rejected_by_schema = bool(schema_errors(doc, POLICY_DEFINITIONS[0]))
    # Each invalid block is caught by at least one layer short of the API server's own rules:
    # a missing count by the schema, a double union by our model; a zero count only by validate().
    if doc == {"gang": {"minGroupCount": 0}}:
        assert not rejected_by_model and not rejected_by_schema
    else:
        assert rejected_by_model or rejected_by_schema


@settings(max_examples=40, deadline=None, database=None)
@given(
    st.fixed_dictionaries({}, optional={"single": st.just({}), "all": st.just({})}),
)
def test_composite_disruption_block_matches_its_counterpart(doc: dict[str, Any]) -> None:
    block = a3.WorkloadCompositePodGroupDisruptionMode.model_validate(doc)
    assert block.to_dict() == doc
    if len(doc) == 1:
        assert a3.CompositeDisruptionMode.model_validate(doc).to_dict() == doc
        assert_conforms(block)
    else:
        with pytest.raises(ValidationError, match="must specify"):
            a3.CompositeDisruptionMode.model_validate(doc)
