"""An equal tree made anew (as a controller makes it from its object on every reconcile) takes
what the tree found clean before keeps (``workloadbuilder/_reuse.py``: ``tree_value``,
``seen_equal``), and changes no answer.

The expected answers are the first ones: the tree with nothing kept anywhere (its items' kept
values dropped, no tree kept by value), whose objects both oracles check
(``oracles.assert_conforms``, in ``_release``). A tree that only looks equal (a field changed
deep in a leaf, a value of another type, another callback, other options or owner) must get its
own answer, never the kept one.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import pytest
from core_support import job_owner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_core_properties import trees
from test_core_reuse import _forget, _options, _release, _release_tree

import workloadbuilder as wb
from benchmarks.bench_core import wide_tree
from workloadbuilder import _reuse
from workloadbuilder import item as item_module
from workloadbuilder.api.scheduling_v1alpha3 import (
    TopologyConstraint,
    WorkloadPodGroupSchedulingConstraints,
)
from workloadbuilder.item import WorkloadItem


def _anew(root: WorkloadItem) -> WorkloadItem:
    """An equal tree of new objects, its blocks included (as parsed again from a controller's
    object), with nothing kept."""

    def again(block: Any) -> Any:
        data = [f.name for f in dataclasses.fields(block) if f.name.endswith("_data")]
        return dataclasses.replace(block, **{n: copy.deepcopy(getattr(block, n)) for n in data})

    given = root.input
    return dataclasses.replace(
        root,
        input=wb.WorkloadInput(
            policy=again(given.policy),
            constraints=again(given.constraints),
            disruption_mode=again(given.disruption_mode),
            resource_claims=again(given.resource_claims),
        ),
        children=tuple(_anew(child) for child in root.children),
    )


def _first(root: WorkloadItem, options: wb.BuildOptions) -> object:
    """The answer for ``root`` with nothing kept anywhere."""
    _reuse._TREES.clear()
    _reuse._tree_items = 0
    _forget(root)
    answer = _release(root, options)
    _forget(root)
    _reuse._TREES.clear()
    _reuse._tree_items = 0
    return answer


def _wide(count: int = 8) -> WorkloadItem:
    """The widest valid tree (``benchmarks/bench_core.py``), its root's gang ``count``."""
    root = wide_tree()
    policy = wb.gang(min_group_count=count)
    given = item_module.standard_input(item_module.COMPOSITE, policy, None, None)
    return dataclasses.replace(root, input=given)


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)
@given(
    root=trees(sound=True),
    names=st.lists(st.sampled_from(["wl", "other", "Bad_Name"]), min_size=1, max_size=3),
)
def test_an_equal_tree_made_anew_gives_what_the_tree_gave_with_nothing_kept(
    root: WorkloadItem, names: list[str]
) -> None:
    runs = [_options(name=n) for n in names]
    first = [_first(root, options) for options in runs]
    for _ in range(3):  # found by value, then its Workload, then compiled to_dict()s
        for options, expected in zip(runs, first, strict=True):
            assert _release(_anew(root), options) == expected
    for options, expected in zip(runs, first, strict=True):
        assert _release(root, options) == expected


def test_a_tree_made_anew_is_found_by_value_and_the_given_tree_stays_the_builders_root() -> None:
    kept = _release_tree()
    assert wb.Builder(kept, _options()).validate() == []
    again = _release_tree()
    builder = wb.Builder(again, _options())
    assert builder.root is again and builder.roots == (again,)
    assert builder._root is kept  # what the Builder compiles: the tree found clean before
    assert builder.validate() == []


def _changed_deep(count: int) -> WorkloadItem:
    """The widest tree with the last leaf's gang count ``count``."""
    root = _wide()
    last = root.children[-1].children[-1]
    leaf = dataclasses.replace(
        last.children[-1],
        input=item_module.standard_input(item_module.LEAF, wb.gang(count), None, None),
    )
    group = dataclasses.replace(last, children=(*last.children[:-1], leaf))
    middle = dataclasses.replace(
        root.children[-1], children=(*root.children[-1].children[:-1], group)
    )
    return dataclasses.replace(root, children=(*root.children[:-1], middle))


def test_a_field_changed_deep_in_a_leaf_is_another_tree() -> None:
    options = _options()
    expected = {count: _first(_changed_deep(count), options) for count in (8, 9)}
    assert expected[8] != expected[9]
    for _ in range(2):
        for count in (8, 9, 8):
            got = _release(_changed_deep(count), options)
            assert got == expected[count]
            (template,) = got[1][0]["spec"]["compositePodGroupTemplates"]  # type: ignore[index]
            leaf = template["compositePodGroupTemplates"][-1]["compositePodGroupTemplates"][-1]
            assert leaf["podGroupTemplates"][-1]["schedulingPolicy"] == {
                "gang": {"minCount": count}
            }


def _with_default(count: object) -> WorkloadItem:
    policy = wb.SchedulingPolicy(gang=wb.GangSchedulingPolicy(min_count=count))  # type: ignore[arg-type]
    return wb.composite(
        "root",
        [wb.WorkloadItem("w", default_config=wb.SchedulingConfig(policy=policy))],
        policy=wb.gang(min_group_count=1),
    )


def test_values_that_compare_equal_across_types_are_other_trees() -> None:
    options = _options()
    assert _reuse.tree_value(_with_default(1)) is not None
    assert _reuse.tree_value(_with_default(True)) is None  # 1 == True: no value told
    expected = {repr(c): _first(_with_default(c), options) for c in (1, True)}
    assert expected["1"] != expected["True"]
    for _ in range(2):
        for count in (1, True, 1):
            assert _release(_with_default(count), options) == expected[repr(count)]

    class Name(str):
        __slots__ = ()

    named = wb.composite(
        Name("root"), [wb.leaf("w", policy=wb.gang(1))], policy=wb.gang(min_group_count=1)
    )
    assert _reuse.tree_value(named) is None


def test_trees_with_callbacks_keep_nothing_by_value_and_each_callback_is_asked() -> None:
    def by(count: int) -> wb.SchedulingConfigFunc:
        def callback(config: wb.SchedulingConfig) -> wb.SchedulingConfig:
            gang = wb.SchedulingPolicy(gang=wb.GangSchedulingPolicy(count))
            return dataclasses.replace(config, policy=gang)

        return callback

    def tree(callback: wb.SchedulingConfigFunc) -> WorkloadItem:
        return wb.composite(
            "root",
            [wb.leaf("w", policy=wb.gang(), callbacks=[callback])],
            policy=wb.gang(min_group_count=1),
        )

    options = _options()
    for count in (2, 3, 2, 5):
        root = tree(by(count))
        assert _reuse.tree_value(root) is None
        got = _release(root, options)
        assert got == _first(tree(by(count)), options)
        (template,) = got[1][0]["spec"]["compositePodGroupTemplates"]  # type: ignore[index]
        assert template["podGroupTemplates"][0]["schedulingPolicy"]["gang"]["minCount"] == count


def test_a_topology_constraint_changed_in_place_after_the_tree_was_made_changes_nothing() -> None:
    given = TopologyConstraint(key="rack")
    block = WorkloadPodGroupSchedulingConstraints(topology=[given])

    def tree() -> WorkloadItem:
        return wb.composite(
            "root",
            [
                wb.WorkloadItem(
                    "w",
                    input=item_module.standard_input(item_module.LEAF, wb.gang(2), block, None),
                )
            ],
            policy=wb.gang(min_group_count=1),
        )

    options = _options()
    expected = _first(tree(), options)
    assert _release(tree(), options) == expected
    given.key = "zone"  # the caller's object: the block holds a frozen copy
    assert block.topology is not None and block.topology[0].key == "rack"
    assert _release(tree(), options) == expected
    with pytest.raises(ValueError, match="frozen"):
        block.topology[0].key = "zone"  # type: ignore[misc]
    assert block.topology[0] == TopologyConstraint(key="rack")
    assert TopologyConstraint(key="rack") == block.topology[0]
    assert repr(block.topology[0]) == "TopologyConstraint(key='rack')"


def test_other_options_and_other_owners_get_their_own_answer() -> None:
    owner = job_owner()
    runs: list[dict[str, Any]] = [
        {"owner": owner},
        {"owner": job_owner(name="other")},
        {"owner": owner, "name": "other"},
        {"owner": owner, "allowed_policies": frozenset({wb.SchedulingPolicyOption.BASIC})},
        {"owner": owner, "allowed_disruption_modes": frozenset()},
    ]
    expected = [_first(_release_tree(), _options(**changes)) for changes in runs]
    assert len({repr(e) for e in expected}) == len(runs)
    for _ in range(2):
        for changes, answer in zip(runs, expected, strict=True):
            assert _release(_release_tree(), _options(**changes)) == answer
    options = _options(owner)
    owner.uid = "another-uid"  # the same options object, changed in place
    changed = _release(_release_tree(), options)
    assert changed == _first(_release_tree(), _options(job_owner(uid="another-uid")))
    assert changed[1][0]["metadata"]["ownerReferences"][0]["uid"] == "another-uid"  # type: ignore[index]


def test_what_is_kept_by_value_is_bounded() -> None:
    options = _options()
    for count in range(1, _reuse._MAX_TREES + 20):
        root = wb.composite(
            "root", [wb.leaf("w", policy=wb.gang(count))], policy=wb.gang(min_group_count=1)
        )
        assert wb.Builder(root, options).validate() == []
        assert len(_reuse._TREES) <= _reuse._MAX_TREES
        assert _reuse._tree_items == sum(size for _, size in _reuse._TREES.values())
    for _ in range(_reuse._MAX_TREE_ITEMS // 585 + 2):  # widest trees: bounded by items
        root = _wide(count=1 + len(_reuse._TREES) % 8)
        wb.Builder(root, options).validate()
        assert _reuse._tree_items <= _reuse._MAX_TREE_ITEMS
    assert len(_reuse._NUMBERS) <= _reuse._MAX_NUMBERS
    assert len(item_module._SHARED_INPUTS) <= item_module._MAX_SHARED_INPUTS
    assert len(item_module._SHARED_WORKLOAD_INPUTS) <= item_module._MAX_SHARED_INPUTS
    assert len(item_module._SHARED_BY_BLOCKS) <= item_module._MAX_SHARED_INPUTS
