"""Any Job input: a documented error, never a crash.

The Job entry points (``job_builder``, ``validate_job``, ``decide_job_scheduling``,
``delegate_to_job``, ``workload_item_for_job``) raise only ``TypeError`` (not a Job at all) or
``ValueError`` (``BuildError`` with field errors, pydantic's ``ValidationError``, a missing
name or UID) for arbitrary JSON anywhere in a Job; ``validate_job`` returns field errors and
never an Internal "unexpected" one for input that is merely malformed.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from property_bound import bounded

import workloadbuilder as wb
from workloadbuilder.field import ErrorType

BASE: dict[str, Any] = {
    "apiVersion": "batch/v1",
    "kind": "Job",
    "metadata": {"name": "trainer", "namespace": "ml", "uid": "uid-1", "annotations": {}},
    "spec": {
        "parallelism": 4,
        "scheduling": {
            "schedulingPolicy": {"gang": {"minCount": 2}},
            "schedulingConstraints": {"topology": [{"key": "topology.kubernetes.io/zone"}]},
            "disruptionMode": {"all": {}},
            "resourceClaims": [{"name": "gpus", "resourceClaimTemplateName": "gpu"}],
        },
        "template": {"spec": {"priorityClassName": "high", "containers": []}},
    },
    "status": {"succeeded": 0, "conditions": [{"type": "Complete"}]},
}

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True)
    | st.text(max_size=8)
    | st.sampled_from(["8", "\ud800", "9999-12-31T23:59:59-01:00", "a.b", "", "UPPER"]),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


def _paths(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out.extend(_paths(v, (*prefix, k)))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out.extend(_paths(v, (*prefix, i)))
    return out


PATHS = [p for p in _paths(BASE) if p]


def _replaced(path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    doc = copy.deepcopy(BASE)
    target: Any = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return doc


ENTRY_POINTS: dict[str, Callable[[Any], object]] = {
    "job_builder": lambda j: wb.job_builder(j).build_workload(),
    "decide_job_scheduling": lambda j: wb.decide_job_scheduling(j),
    "delegate_to_job": lambda j: wb.delegate_to_job(j, "workers"),
}


def _only_documented_errors(call: Callable[[Any], object], job: Any) -> None:
    try:
        call(job)
    except (TypeError, ValueError) as exc:
        assert str(exc)  # every error says what was wrong


def _no_internal(errors: wb.ErrorList) -> None:
    assert isinstance(errors, wb.ErrorList)
    assert not [e for e in errors if e.type is ErrorType.INTERNAL], errors


def _no_unexpected(errors: wb.ErrorList) -> None:
    """Upstream's tree check reports misuse (an empty item name) as Internal; nothing else is."""
    assert isinstance(errors, wb.ErrorList)
    assert not [e for e in errors if "unexpected" in e.detail], errors


@settings(max_examples=bounded(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(path=st.sampled_from(PATHS), value=json_values)
def test_any_json_value_anywhere_in_a_job(path: tuple[Any, ...], value: Any) -> None:
    job = _replaced(path, value)
    for call in ENTRY_POINTS.values():
        _only_documented_errors(call, job)
    _no_internal(wb.validate_job(job))
    _no_internal(wb.validate_job(BASE, job)) if _parses(job) else None


def _parses(job: Any) -> bool:
    try:
        wb.job_builder(job)
    except (TypeError, ValueError):
        return False
    return True


@settings(max_examples=bounded(60), deadline=None)
@given(value=json_values)
def test_any_json_value_as_the_job_itself(value: Any) -> None:
    for call in ENTRY_POINTS.values():
        _only_documented_errors(call, value)
    try:
        errors = wb.validate_job(value)
    except TypeError:
        assert not isinstance(value, dict)
    else:
        _no_internal(errors)


@settings(max_examples=bounded(60), deadline=None)
@given(
    template_name=json_values,
    priority=json_values,
    parallelism=json_values,
    scheduling=json_values,
)
def test_workload_item_for_job_with_any_arguments(
    template_name: Any, priority: Any, parallelism: Any, scheduling: Any
) -> None:
    try:
        item = wb.workload_item_for_job(template_name, priority, parallelism, scheduling)
    except (TypeError, ValueError):
        return
    options = wb.BuildOptions(
        name="w",
        namespace="ml",
        owner={"apiVersion": "batch/v1", "kind": "Job", "name": "t", "uid": "u"},
        allowed_policies=frozenset(wb.SchedulingPolicyOption),
        allowed_disruption_modes=frozenset(wb.DisruptionModeOption),
    )
    _no_unexpected(wb.Builder(item, options).validate())


def _nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth):
        value = {"x": value}
    return value


def _cyclic() -> dict[str, Any]:
    loaded = yaml.load("a: &a {b: *a}", Loader=yaml.Loader)  # a recursive YAML alias
    assert isinstance(loaded, dict)
    return loaded


@pytest.mark.parametrize(
    "path",
    [
        ("spec", "scheduling"),
        ("spec", "scheduling", "schedulingPolicy", "gang"),
        ("spec", "template", "spec", "containers"),  # a field the controller does not read
        ("metadata", "annotations"),
    ],
)
@pytest.mark.parametrize("make", [lambda: _nested(1500), _cyclic], ids=["1500-deep", "cyclic"])
def test_deep_and_cyclic_values(path: tuple[str, ...], make: Callable[[], Any]) -> None:
    job = _replaced(path, make())
    for call in ENTRY_POINTS.values():
        _only_documented_errors(call, job)
    _no_internal(wb.validate_job(job))


@pytest.mark.parametrize(
    ("path", "value", "field"),
    [
        (("metadata", "name"), "tr\ud800iner", "metadata.name"),
        (("metadata", "uid"), "\udfff", "metadata.uid"),
        (("metadata", "name"), 5, "metadata.name"),
        (("spec", "parallelism"), "4", "spec.parallelism"),
        (("spec", "parallelism"), 2**40, "spec.parallelism"),
        (("status", "succeeded"), "1", "status.succeeded"),
        (("metadata", "ownerReferences"), [1], "metadata.ownerReferences[0]"),
    ],
)
def test_the_error_names_the_field(path: tuple[str, ...], value: Any, field: str) -> None:
    with pytest.raises(wb.BuildError) as info:
        wb.job_builder(_replaced(path, value))
    assert [e.field for e in info.value.errors] == [field]
    assert [e.field for e in wb.validate_job(_replaced(path, value))] == [field]


def test_an_out_of_range_start_time_is_only_a_sign_the_job_started() -> None:
    job = _replaced(("status", "startTime"), "9999-12-31T23:59:59-01:00")
    assert wb.decide_job_scheduling(job).new_job is False


def test_a_lone_surrogate_in_a_claim_name_is_an_invalid_name() -> None:
    job = _replaced(("spec", "scheduling", "resourceClaims", 0, "name"), "gp\ud800us")
    errors = wb.validate_job(job)
    assert [(e.type, e.field) for e in errors] == [
        (ErrorType.INVALID, "spec.scheduling.resourceClaims[0].name")
    ]
