"""Building blocks of the server: field sets, patches, selectors, ownership."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from property_bound import bounded

from workloadbuilder.testing.apply import managed
from workloadbuilder.testing.apply.fieldset import decode, encode, fieldset, format_path, get_at
from workloadbuilder.testing.apply.merge import (
    JSONPatchError,
    json_patch,
    merge_patch,
    strategic_merge,
)
from workloadbuilder.testing.common.errors import APIStatusError
from workloadbuilder.testing.store.selectors import field_selector, label_selector

WORKLOAD_SPEC = {
    "spec": {
        "podGroupTemplates": [
            {"name": "workers", "schedulingPolicy": {"gang": {"minCount": 4}}},
        ],
        "controllerRef": {"kind": "Job", "name": "j"},
    }
}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=10,
)


def test_fieldset_of_a_list_map() -> None:
    paths = fieldset(WORKLOAD_SPEC)
    entry = ("f:spec", "f:podGroupTemplates", 'k:{"name":"workers"}')
    assert paths == {
        entry,
        (*entry, "f:name"),
        (*entry, "f:schedulingPolicy", "f:gang", "f:minCount"),
        ("f:spec", "f:controllerRef", "f:kind"),
        ("f:spec", "f:controllerRef", "f:name"),
    }
    assert encode(paths)["f:spec"]["f:podGroupTemplates"] == {
        'k:{"name":"workers"}': {
            ".": {},
            "f:name": {},
            "f:schedulingPolicy": {"f:gang": {"f:minCount": {}}},
        }
    }
    assert decode(encode(paths)) == paths
    assert get_at(WORKLOAD_SPEC, (*entry, "f:schedulingPolicy", "f:gang", "f:minCount")) == 4
    assert format_path((*entry, "f:name")) == '.spec.podGroupTemplates[name="workers"].name'


@given(st.dictionaries(st.text(min_size=1, max_size=4), json_values, max_size=4))
def test_encode_decode_round_trip(obj: dict[str, Any]) -> None:
    paths = fieldset(obj)
    assert decode(encode(paths)) == paths


@given(
    st.dictionaries(st.text(max_size=4), json_values, max_size=4),
    st.dictionaries(st.text(max_size=4), json_values, max_size=4),
)
def test_merge_patch_is_idempotent(target: dict[str, Any], patch: dict[str, Any]) -> None:
    once = merge_patch(target, patch)
    assert merge_patch(once, patch) == once


def test_strategic_merge_directives() -> None:
    live = {"conditions": [{"type": "A", "status": "True"}, {"type": "B", "status": "False"}]}
    patch = {"conditions": [{"type": "A", "$patch": "delete"}, {"type": "C", "status": "True"}]}
    assert strategic_merge(live, patch) == {
        "conditions": [{"type": "B", "status": "False"}, {"type": "C", "status": "True"}]
    }
    assert strategic_merge({"m": {"a": 1}}, {"m": {"$patch": "replace", "b": 2}}) == {"m": {"b": 2}}
    assert strategic_merge({"x": [1, 2]}, {"x": [3], "$setElementOrder/x": [3]}) == {"x": [3]}


def test_json_patch_errors() -> None:
    with pytest.raises(JSONPatchError, match="missing value"):
        json_patch({}, [{"op": "remove", "path": "/a"}])
    with pytest.raises(JSONPatchError, match="out of bounds"):
        json_patch({"a": []}, [{"op": "add", "path": "/a/3", "value": 1}])
    with pytest.raises(JSONPatchError, match="unexpected kind"):
        json_patch({}, [{"op": "frob", "path": "/a"}])
    assert json_patch({"a": [1]}, [{"op": "add", "path": "/a/-", "value": 2}]) == {"a": [1, 2]}
    moved = json_patch({"a": {"b~c": 1}}, [{"op": "move", "from": "/a/b~0c", "path": "/d"}])
    assert moved == {"a": {}, "d": 1}


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ("", True),
        ("app=web", True),
        ("app!=web", False),
        ("app in (web,db),tier", True),
        ("app notin (web)", False),
        ("!missing", True),
        ("missing", False),
    ],
)
def test_label_selector(selector: str, expected: bool) -> None:
    obj = {"metadata": {"labels": {"app": "web", "tier": "1"}}}
    assert label_selector(selector)(obj) is expected


def test_bad_selectors_say_how_to_write_them() -> None:
    with pytest.raises(ValueError, match="key in \\(a,b\\)"):
        label_selector("a in b")
    with pytest.raises(ValueError, match="field=value"):
        field_selector("metadata.name")
    assert field_selector("spec.ready=true")({"spec": {"ready": True}})


def test_update_takes_over_changed_fields() -> None:
    alpha = ("alpha", "Apply", "")
    live = {"spec": {"a": 1, "b": 1}}
    merged, entries = managed.apply({}, alpha, "v1", live, {"spec": {"a": 1, "b": 1}}, False, "t0")
    beta = ("beta", "Update", "")
    entries = managed.record_update(entries, beta, "v1", merged, {"spec": {"a": 2, "b": 1}}, "t1")
    assert entries[alpha].fields == {("f:spec", "f:b")}
    assert entries[beta].fields == {("f:spec", "f:a")}
    assert entries[alpha].time == "t0"
    with pytest.raises(APIStatusError) as err:
        managed.apply(
            entries, alpha, "v1", {"spec": {"a": 2, "b": 1}}, {"spec": {"a": 3}}, False, "t2"
        )
    assert err.value.status["details"]["causes"][0]["message"] == 'conflict with "beta" using v1'


configs = st.recursive(
    st.integers(0, 3) | st.sampled_from(["x", "y"]) | st.lists(st.integers(0, 2), max_size=2),
    lambda inner: st.dictionaries(st.sampled_from(["a", "b", "c"]), inner, max_size=3),
    max_leaves=8,
).filter(lambda v: isinstance(v, dict))


def _leaves(config: dict[str, Any]) -> list[tuple[str, ...]]:
    return [p for p in fieldset(config) if not isinstance(get_at(config, p), dict)]


@given(configs, configs)
def test_forced_apply_sets_every_applied_value_and_takes_ownership(
    first: dict[str, Any], second: dict[str, Any]
) -> None:
    one, two = ("one", "Apply", ""), ("two", "Apply", "")
    merged, entries = managed.apply({}, one, "v1", {}, {"spec": first}, False, "t")
    merged, entries = managed.apply(entries, two, "v1", merged, {"spec": second}, True, "t")
    for path in _leaves({"spec": second}):
        assert get_at(merged, path) == get_at({"spec": second}, path)
    if two in entries:
        assert entries[two].fields == fieldset({"spec": second})
    for path in entries[one].fields if one in entries else ():
        if not isinstance(get_at({"spec": first}, path), dict):
            assert get_at(merged, path) == get_at({"spec": first}, path)
    again, same = managed.apply(entries, two, "v1", merged, {"spec": second}, False, "t")
    assert again == merged
    assert {k: e.fields for k, e in same.items()} == {k: e.fields for k, e in entries.items()}


label_sets = st.dictionaries(
    st.sampled_from(["a", "b", "c"]), st.sampled_from(["1", "2"]), max_size=3
)


@settings(max_examples=bounded(50), deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["m1", "m2"]), label_sets), min_size=1, max_size=5))
def test_reapplying_the_last_configuration_is_a_no_op(
    steps: list[tuple[str, dict[str, str]]],
) -> None:
    from workloadbuilder.testing import FakeAPIServer

    server = FakeAPIServer()
    applied: dict[str, dict[str, str]] = {}
    for manager, labels in steps:
        obj = {
            "apiVersion": "scheduling.k8s.io/v1beta1",
            "kind": "PodGroup",
            "metadata": {"name": "pg", "namespace": "default", "labels": labels},
            "spec": {"schedulingPolicy": {"gang": {"minCount": 1}}},
        }
        result = server.apply_object(
            "scheduling.k8s.io", "v1beta1", "podgroups", obj, field_manager=manager, force=True
        )
        applied[manager] = labels
        live = result["metadata"].get("labels", {})
        assert all(live[k] == v for k, v in labels.items())
        owned = {k for cfg in applied.values() for k in cfg}
        assert set(live) <= owned
        again = server.apply_object(
            "scheduling.k8s.io", "v1beta1", "podgroups", obj, field_manager=manager, force=True
        )
        assert again == result


def test_prune_ignores_paths_it_cannot_follow() -> None:
    from workloadbuilder.testing.engine.unknown_fields import prune

    obj = {"spec": {"a": 1, "[x]": 2, "items": [{"b": 1}]}}
    prune(obj, "")
    prune(obj, "spec.items[5].b")
    assert obj == {"spec": {"a": 1, "[x]": 2, "items": [{"b": 1}]}}
    prune(obj, "spec.[x]")
    prune(obj, "spec.items[0].b")
    assert obj == {"spec": {"a": 1, "items": [{}]}}
    meta = {"metadata": {"": None, "name": "n"}}
    prune(meta, "metadata.")
    assert meta == {"metadata": {"name": "n"}}


# -- the store's index of objects being deleted ---------------------------------------------


def _stored(name: str, deleting: bool, rv: int) -> Any:
    from workloadbuilder.testing.store.store import Stored

    meta: dict[str, Any] = {"name": name, "namespace": "ns", "resourceVersion": str(rv)}
    if deleting:
        meta["deletionTimestamp"] = "2026-12-01T10:00:00Z"
    return Stored({"metadata": meta}, ())


@settings(max_examples=bounded(60), deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from("abcd"), st.sampled_from(["put", "delete-mark", "remove"])),
        max_size=30,
    )
)
def test_terminating_is_every_stored_object_with_a_deletion_timestamp(
    steps: list[tuple[str, str]],
) -> None:
    # The index settle() reads instead of scanning every object after each write.
    from workloadbuilder.testing.store.store import Store

    store = Store(history=100)
    resource = ("scheduling.k8s.io", "podgroups")
    for rv, (name, step) in enumerate(steps, start=1):
        if step == "remove":
            final = _stored(name, False, rv).obj
            store.remove(resource, ("ns", name), final)
        else:
            store.put(resource, ("ns", name), _stored(name, step == "delete-mark", rv))
        expected = [
            s for s in store.select(resource, None) if s.obj["metadata"].get("deletionTimestamp")
        ]
        assert store.terminating(resource) == expected
