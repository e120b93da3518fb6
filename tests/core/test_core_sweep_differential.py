"""A sweep (one template stamped many times by one Builder) compiles its objects' ``to_dict()``
and stamps them the short way: the objects are still the previous stamping's.

The reference is ``previous_stamp`` (the previous stamping, written out in
``test_core_stamp_differential``): every stamp, before and after the compiled path starts,
gives the same JSON in the same key order, the same object and the same fields set; a
returned JSON is its caller's own. ``json_factory`` itself is checked against the sample it is
given on any JSON document.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from property_bound import bounded
from test_core_deferred import _OPTIONS
from test_core_properties import trees
from test_core_stamp_differential import _templates, fields_set, previous_stamp

from workloadbuilder import Builder, BuildOptions, CompositePodGroup, PodGroup, WorkloadItem
from workloadbuilder._stampjson import flat_copy, stamp_json_factory
from workloadbuilder.api._json_factory import json_factory
from workloadbuilder.api.sdk import deferred_json
from workloadbuilder.builder import _COMPILE_AFTER


class _Name(str):
    """A name that is a ``str`` subclass: never stamped the compiled way."""


def _ordered(doc: Any) -> str:
    return json.dumps(doc)


_STAMPS = 2 * _COMPILE_AFTER + 1


@pytest.mark.slow
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)
@given(root=trees(sound=True), options=_OPTIONS, odd=st.sets(st.integers(0, _STAMPS - 1)))
def test_a_sweep_stamps_what_the_previous_stamping_did(
    root: WorkloadItem, options: BuildOptions, odd: set[int]
) -> None:
    builder = Builder(root, options)
    if builder.validate():
        return
    reference = Builder(root, options)
    leaves, composites = _templates(reference)
    for template, leaf in [*((t, True) for t in leaves), *((t, False) for t in composites)]:
        stamp = builder.new_pod_group if leaf else builder.new_composite_pod_group
        earlier: list[tuple[Any, str]] = []
        for i in range(_STAMPS):
            name = _Name(f"n-{i}") if i in odd else f"n-{i}"
            ours = stamp(name, template)
            previous = previous_stamp(reference, name, template, leaf=leaf)
            doc = ours.to_dict()
            assert _ordered(doc) == _ordered(previous.to_dict())
            assert type(doc["metadata"]["name"]) is type(previous.to_dict()["metadata"]["name"])
            # The caller's own JSON: changing it changes nothing else.
            doc["metadata"]["ownerReferences"] = "changed"
            doc["spec"].clear()
            earlier.append((ours, _ordered(previous.to_dict())))
        for ours, expected in earlier:  # later stamps and changed results reached none
            assert _ordered(ours.to_dict()) == expected
        for ours, _ in earlier[::5]:
            previous = previous_stamp(reference, ours.metadata.name, template, leaf=leaf)
            assert type(ours) is (PodGroup if leaf else CompositePodGroup)
            assert ours == previous
            assert fields_set(ours) == fields_set(previous)


def test_a_sweep_compiles_after_the_documented_count() -> None:
    from test_core_deferred import _release

    builder = _release()
    objects = [builder.new_pod_group(f"n-{i}", "workers") for i in range(_COMPILE_AFTER + 1)]
    # Every stamp has a to_dict() function: the template's, then, from the documented count
    # on, the compiled one.
    makers = [o._deferred_json for o in objects]  # type: ignore[attr-defined]
    assert None not in makers
    first, compiled = makers[0], makers[_COMPILE_AFTER - 1]
    assert makers == [first] * (_COMPILE_AFTER - 1) + [compiled, compiled]
    assert first is not compiled


_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
_JSON = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


def _containers(value: Any) -> list[int]:
    if isinstance(value, dict):
        return [id(value), *(i for v in value.values() for i in _containers(v))]
    if isinstance(value, list):
        return [id(value), *(i for v in value for i in _containers(v))]
    return []


def _typed(value: Any) -> Any:
    """``value`` with every scalar's type beside it (``1 == True == 1.0`` otherwise)."""
    if isinstance(value, dict):
        return [(k, _typed(v)) for k, v in value.items()]
    if isinstance(value, list):
        return [_typed(v) for v in value]
    return (type(value).__name__, repr(value))


@settings(max_examples=bounded(300), deadline=None, database=None)
@given(sample=st.dictionaries(st.text(), _JSON, max_size=5), hole=_JSON)
def test_json_factory_copies_its_sample_with_the_holes_filled(
    sample: dict[str, Any], hole: Any
) -> None:
    sample = {"metadata": {"name": "sample"}, **sample}
    factory = json_factory(sample, [("metadata", "name")])
    assert factory is not None
    data = {"metadata": {"name": hole}}
    made, again = factory(data), factory(data)
    expected = {**sample, "metadata": {**sample["metadata"], "name": hole}}
    assert _typed(made) == _typed(expected)
    assert made["metadata"]["name"] is hole
    # Fresh containers, shared with nothing (the hole's value is the input's own).
    shared = set(_containers(sample)) | set(_containers(hole))
    assert not (set(_containers(made)) - set(_containers(hole))) & (
        shared | set(_containers(again))
    )


@given(
    bad=st.sampled_from(
        [math.inf, -math.inf, math.nan, type("S", (str,), {})("x"), True.__class__, (1,), 10**5000]
    )
)
def test_json_factory_refuses_what_is_not_a_plain_literal(bad: Any) -> None:
    assert json_factory({"a": [{"b": bad}]}, []) is None
    assert json_factory({1: "a"}, []) is None  # type: ignore[dict-item]
    assert json_factory({"a": 1}, [("b",)]) is None  # a hole that is not in the sample


def _error(builder: Builder, method: str, name: Any, template: Any) -> tuple[str, str]:
    try:
        getattr(builder, method)(name, template)
    except Exception as exc:
        return type(exc).__name__, str(exc)
    return "no error", ""


@given(bad=st.one_of(st.none(), st.integers(), st.lists(st.text(), max_size=1), st.text()))
@settings(max_examples=bounded(60), deadline=None, database=None)
def test_a_compiled_template_refuses_what_a_fresh_builder_refuses(bad: Any) -> None:
    from test_core_deferred import _release

    swept, fresh = _release(), _release()
    for i in range(_COMPILE_AFTER + 1):
        swept.new_pod_group(f"n-{i}", "workers")
    for name, template in [(bad, "workers"), ("x", bad), (bad, bad)]:
        for method in ("new_pod_group", "new_composite_pod_group"):
            ours = _error(swept, method, name, template)
            assert ours == _error(fresh, method, name, template)


_PARENT_UNSET = object()
_OWNERS = st.dictionaries(st.text(max_size=3), _SCALARS, max_size=6) | st.none() | _JSON


@settings(max_examples=bounded(300), deadline=None, database=None)
@given(
    parts=st.dictionaries(st.text(max_size=8), _JSON, max_size=4),
    owner=_OWNERS,
    name=st.text() | st.builds(_Name, st.text()),
    parent=st.none() | st.text() | st.builds(_Name, st.text()) | st.just(_PARENT_UNSET),
    namespace=st.none() | st.text(),
    leaf=st.booleans(),
)
def test_a_templates_to_dict_is_deferred_json(
    parts: dict[str, Any], owner: Any, name: str, parent: Any, namespace: Any, leaf: bool
) -> None:
    """Every stamp's to_dict() (before a sweep) is the generic copy of its input, whatever its
    template's spec, owner, name and parent: same keys, order and types, sharing nothing."""
    kind = PodGroup if leaf else CompositePodGroup
    spec = {"workloadRef": {"workloadName": "w", "templateName": "t"}, **parts}
    spec.pop("parentCompositePodGroupName", None)
    factory = stamp_json_factory(leaf, spec, flat_copy(owner))
    if factory is None:  # the Builder then uses the generic copy
        assert flat_copy(owner) is None or None in spec.values()
        return
    metadata: dict[str, Any] = {"name": name, "namespace": namespace}
    if owner is not None:
        metadata["ownerReferences"] = [owner]
    given_spec = spec
    if parent is not _PARENT_UNSET:
        given_spec = {"workloadRef": spec["workloadRef"], "parentCompositePodGroupName": parent}
        given_spec.update(spec)
    data = {"metadata": metadata, "spec": given_spec}
    made, expected = factory(data), deferred_json(kind, data)
    assert _typed(made) == _typed(expected)
    assert not set(_containers(made)) & set(_containers(data))
    assert not set(_containers(made)) & set(_containers(factory(data)))
