"""Any input: every public entry point raises only its documented errors.

Documented: ``ErrorList`` results (``validate()``), ``BuildError``, pydantic
``ValidationError`` (with a location), and ``TypeError`` / ``ValueError`` naming the argument
or field. Anything else (``AttributeError``, ``RecursionError``, ``UnicodeEncodeError``,
``OverflowError``, ...) is a crash and fails these tests. ``validate()`` has a last-resort
catch-all; it must never be what answers merely malformed input, so no "unexpected" Internal
error may appear.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest
import yaml
from core_support import all_allowed
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from property_bound import bounded
from pydantic import ValidationError

import workloadbuilder as wb
from workloadbuilder.api import batch_v1, meta_v1, scheduling_v1alpha3, scheduling_v1beta1

SETTINGS = settings(
    max_examples=bounded(60),
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

DOCUMENTED = (wb.BuildError, ValidationError, TypeError, ValueError)

# Text with everything JSON can carry, lone surrogates included.
TEXT = st.text(st.characters(exclude_categories=()), max_size=12)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False)
    | TEXT
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=12,
)
KEYS = st.sampled_from(
    [
        "apiVersion",
        "kind",
        "metadata",
        "spec",
        "name",
        "uid",
        "namespace",
        "creationTimestamp",
        "podGroupTemplates",
        "compositePodGroupTemplates",
        "schedulingPolicy",
        "gang",
        "minCount",
        "minGroupCount",
        "topology",
        "key",
        "resourceClaims",
        "resourceClaimName",
        "workloadRef",
        "templateName",
        "ownerReferences",
        "schedulingGroup",
        "podGroupName",
        "containers",
    ]
)
# Objects shaped like Kubernetes JSON (known keys) with arbitrary values anywhere.
SHAPED = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=5),
    max_leaves=16,
)
ANY = JSON | SHAPED


def _documented(call: Callable[[], Any]) -> Any:
    """Run ``call``; a documented error is fine (and its message is one readable text)."""
    try:
        return call()
    except DOCUMENTED as exc:
        assert str(exc)
        return exc


MODELS = [
    scheduling_v1beta1.Workload,
    scheduling_v1beta1.PodGroup,
    scheduling_v1alpha3.Workload,
    scheduling_v1alpha3.CompositePodGroup,
    scheduling_v1alpha3.WorkloadPodGroupSchedulingPolicy,
    scheduling_v1alpha3.WorkloadCompositePodGroupSchedulingConstraints,
    scheduling_v1alpha3.WorkloadPodGroupResourceClaim,
    batch_v1.JobSchedulingConfiguration,
    meta_v1.OwnerReference,
    meta_v1.ObjectMeta,
]


@SETTINGS
@given(value=ANY, model=st.sampled_from(MODELS))
def test_model_parsing(value: Any, model: Any) -> None:
    for parse in (model.model_validate, model.from_server):
        result = _documented(lambda parse=parse: parse(value))
        if isinstance(result, ValidationError):
            # Converting to field errors and rendering them is safe too.
            errors = wb.ErrorList.from_pydantic(result, model=model)
            assert str(errors)
        elif not isinstance(result, Exception):
            assert isinstance(result.to_dict(), dict)
            _documented(result.to_yaml)


@SETTINGS
@given(value=ANY)
def test_controller_ref_and_owner(value: Any) -> None:
    _documented(lambda: wb.controller_ref(value))
    _documented(lambda: wb.controller_ref({"metadata": value, "kind": "K", "apiVersion": "v1"}))
    _documented(lambda: wb.BuildOptions(owner=value))
    _documented(lambda: wb.BuildOptions(name=value, namespace=value))  # type: ignore[arg-type]
    _documented(lambda: wb.BuildOptions(allowed_policies=value))  # type: ignore[arg-type]


@SETTINGS
@given(pod=ANY, group=ANY)
def test_set_scheduling_group(pod: Any, group: Any) -> None:
    stamped = wb.Builder(wb.leaf("w"), all_allowed()).new_pod_group("pg", "w")
    _documented(lambda: wb.set_scheduling_group(pod, stamped))
    _documented(lambda: wb.set_scheduling_group({"metadata": pod, "spec": group}, stamped))
    _documented(lambda: wb.set_scheduling_group({}, group))


@SETTINGS
@given(
    name=ANY,
    path=ANY,
    policy=ANY,
    mode=ANY,
    topology=ANY,
    claims=ANY,
    priority=ANY,
)
def test_tree_shorthands(
    name: Any, path: Any, policy: Any, mode: Any, topology: Any, claims: Any, priority: Any
) -> None:
    for kwargs in (
        {"path": path},
        {"policy": policy},
        {"disruption_mode": mode},
        {"topology": topology},
        {"resource_claims": claims},
        {"priority_class_name": priority},
    ):
        made = _documented(lambda kwargs=kwargs: wb.leaf("w", **kwargs))
        if isinstance(made, wb.WorkloadItem):
            _checked_validate(made)
    _documented(lambda: wb.leaf(name))
    _documented(lambda: wb.composite("c", name))
    _documented(lambda: wb.composite("c", [wb.leaf("w")], policy=policy))
    _documented(lambda: wb.gang(name))
    _documented(lambda: wb.gang(min_group_count=name))


def _checked_validate(root: wb.WorkloadItem) -> None:
    errors = wb.Builder(root, all_allowed()).validate()
    assert not [e for e in errors if "unexpected" in e.detail], errors
    built = _documented(wb.Builder(root, all_allowed()).build_workload)
    if not isinstance(built, Exception):
        assert isinstance(built.to_dict(), dict)


@SETTINGS
@given(name=TEXT, template=ANY, pod_group_name=ANY, returned=ANY)
def test_builder_methods_and_instantiate(
    name: str, template: Any, pod_group_name: Any, returned: Any
) -> None:
    builder = wb.Builder(
        wb.composite("root", [wb.leaf("w")], policy=wb.basic()), all_allowed(name=name)
    )
    errors = builder.validate()
    assert not [e for e in errors if "unexpected" in e.detail]
    _documented(lambda: builder.new_pod_group(pod_group_name, "w"))
    _documented(lambda: builder.new_pod_group("pg", template))
    _documented(lambda: builder.new_composite_pod_group("cpg", template))
    _documented(lambda: wb.instantiate(builder, name=lambda w, t: returned))
    _documented(lambda: wb.instantiate(builder))
    _documented(lambda: wb.Builder.from_existing_workload(returned, all_allowed()))


@SETTINGS
@given(a=ANY, b=ANY)
def test_naming(a: Any, b: Any) -> None:
    for generate in (wb.generate_workload_name, wb.generate_pod_group_name):
        name = _documented(lambda generate=generate: generate(a, b))
        if isinstance(name, str):
            assert wb.generate_pod_group_name(name, "t")  # a valid input for the next step


@SETTINGS
@given(text=TEXT)
def test_lone_surrogates_in_names(text: str) -> None:
    name = "w" + text
    _checked_validate(wb.leaf(name))
    _documented(lambda: wb.generate_pod_group_name(name, name))
    _documented(lambda: wb.generate_workload_name(name, name))
    _documented(lambda: wb.Builder(wb.leaf("w"), all_allowed(name=name)).validate())


def _nested(depth: int) -> list[Any]:
    top: list[Any] = []
    current = top
    for _ in range(depth):
        inner: list[Any] = []
        current.append(inner)
        current = inner
    return top


@pytest.mark.parametrize("depth", [300, 900, 5000])
def test_values_nested_deep(depth: int) -> None:
    deep = _nested(depth)
    owner = {"apiVersion": deep, "kind": "K", "name": "n", "uid": "u"}
    _documented(lambda: wb.BuildOptions(owner=owner))
    _documented(lambda: wb.Workload.model_validate({"spec": {"podGroupTemplates": deep}}))
    stamped = wb.Builder(wb.leaf("w"), all_allowed()).new_pod_group("pg", "w")
    _documented(lambda: wb.set_scheduling_group({"metadata": {"name": deep}}, stamped))
    _documented(lambda: wb.controller_ref({"metadata": deep}))


def test_cyclic_values_from_yaml_aliases() -> None:
    cyclic_list = yaml.safe_load("a: &x [*x]")["a"]
    cyclic_map = yaml.safe_load("&x {metadata: *x, spec: *x}")
    stamped = wb.Builder(wb.leaf("w"), all_allowed()).new_pod_group("pg", "w")
    for value in (cyclic_list, cyclic_map):
        _documented(lambda value=value: wb.Workload.model_validate({"spec": value}))
        _documented(lambda value=value: wb.PodGroup.from_server(value))
        _documented(lambda value=value: wb.BuildOptions(owner=value))
        _documented(lambda value=value: wb.controller_ref(value))
        _documented(lambda value=value: wb.set_scheduling_group(value, stamped))
        _documented(lambda value=value: wb.leaf("w", resource_claims=[value]))


def test_a_tree_1500_levels_deep() -> None:
    item = wb.leaf("l", policy=wb.gang(0))
    for i in range(1500):
        item = wb.composite(f"c{i}", [item])
    errors = wb.Builder(item, all_allowed()).validate()
    assert not [e for e in errors if "unexpected" in e.detail]
    assert any(e.detail == "maximum template hierarchy depth is 4" for e in errors)
    with pytest.raises(wb.BuildError):
        wb.Builder(item, all_allowed()).build_workload()
    assert hash(item) == hash(item)
    assert item == item and sum(1 for _ in item.walk()) == 1501


@pytest.mark.parametrize(
    "timestamp",
    ["9999-12-31T23:59:59-01:00", "0000-01-01T00:00:00Z", "2026-02-30T00:00:00Z", 1e300, 5],
)
def test_out_of_range_timestamps(timestamp: Any) -> None:
    with pytest.raises(ValidationError) as err:
        meta_v1.ObjectMeta.model_validate({"creationTimestamp": timestamp})
    assert err.value.errors()[0]["loc"] == ("creationTimestamp",)


def test_timestamps_emit_as_kubernetes_does() -> None:
    # metav1.Time marshals as RFC 3339 in UTC, "Z", whole seconds.
    for given_, emitted in [
        ("2026-09-20T10:00:00Z", "2026-09-20T10:00:00Z"),
        ("2026-09-20T12:00:00.5+02:00", "2026-09-20T10:00:00Z"),
        ("0005-01-01T00:00:00Z", "0005-01-01T00:00:00Z"),
    ]:
        meta = meta_v1.ObjectMeta.model_validate({"creationTimestamp": given_})
        assert meta.to_dict() == {"creationTimestamp": emitted}


def test_a_server_object_round_trips_through_us_and_the_official_client() -> None:
    from kubernetes.client import ApiClient, V1ObjectMeta

    document = {"name": "w", "creationTimestamp": "2026-09-20T10:00:00Z"}
    ours = meta_v1.ObjectMeta.model_validate(document).to_dict()
    assert ours == document
    official = ApiClient().sanitize_for_serialization(V1ObjectMeta.model_validate(ours))
    assert meta_v1.ObjectMeta.model_validate(official).to_dict() == document


@pytest.mark.parametrize("count", ["4", 4.0, math.inf, True, None])
def test_numeric_fields_given_as_strings(count: Any) -> None:
    block = _documented(
        lambda: scheduling_v1alpha3.WorkloadPodGroupGangSchedulingPolicy.model_validate(
            {"minCount": count}
        )
    )
    if count is not None:
        assert isinstance(block, ValidationError)
    _documented(lambda: wb.gang(count))
    _documented(lambda: wb.leaf("w", resource_claims=[{"name": count}]))


def test_a_timestamp_without_an_offset_is_rejected() -> None:
    # metav1.Time.UnmarshalJSON parses with time.RFC3339, which requires "Z" or an offset.
    with pytest.raises(ValidationError):
        meta_v1.ObjectMeta.model_validate({"creationTimestamp": "2026-07-24T10:11:12"})
