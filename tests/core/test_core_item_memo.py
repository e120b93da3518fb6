"""What validation keeps with an item (``WorkloadItem.derived()``: its resolution when it has
no callbacks, whether its blocks and its resolved config passed their rules) changes no
answer: a tree validated and built many times, by Builders of any options and old trees, in
any order, gives what the same tree gives the first time; callbacks still run once per item
per Builder (docs/builder.md)."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from property_bound import bounded
from test_core_properties import OPTIONS, trees

import workloadbuilder as wb
from workloadbuilder import Builder, BuildOptions, WorkloadItem


def _forget(root: WorkloadItem | None) -> None:
    """Drop what every item of ``root`` keeps: the next answer is a first one."""
    for item in root.walk() if root is not None else ():
        object.__setattr__(item, "_derived", None)


def _answer(root: WorkloadItem, options: BuildOptions, old: WorkloadItem | None) -> object:
    builder = Builder(root, options)
    errors = [(e.type, e.field, repr(e.bad_value), e.detail) for e in builder.validate(old)]
    try:
        built: object = builder.build_workload().to_dict()
    except Exception as exc:
        built = (type(exc).__name__, str(exc))
    return errors, built


@pytest.mark.slow
@settings(
    max_examples=bounded(60),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    database=None,
)
@given(
    root=trees(),
    old=st.none() | trees(),
    runs=st.lists(st.tuples(OPTIONS, st.booleans()), min_size=2, max_size=4),
)
def test_a_tree_answers_as_the_first_time_whatever_ran_before(
    root: WorkloadItem, old: WorkloadItem | None, runs: list[tuple[BuildOptions, bool]]
) -> None:
    first = []
    for options, with_old in runs:
        _forget(root)
        _forget(old)
        first.append(_answer(root, options, old if with_old else None))
    _forget(root)
    _forget(old)
    for _ in range(2):  # every run after others, twice: the items keep what they found
        for (options, with_old), expected in zip(runs, first, strict=True):
            assert _answer(root, options, old if with_old else None) == expected


def test_callbacks_still_run_once_per_item_per_builder() -> None:
    calls: list[str] = []

    def counted(config: wb.SchedulingConfig) -> wb.SchedulingConfig:
        calls.append("called")
        return dataclasses.replace(
            config, policy=wb.SchedulingPolicy(gang=wb.GangSchedulingPolicy(2))
        )

    root = wb.composite(
        "root",
        [wb.leaf("w", policy=wb.gang(), callbacks=[counted])],
        policy=wb.gang(min_group_count=1),
    )
    options = BuildOptions(
        "wl",
        "ns",
        {"apiVersion": "batch/v1", "kind": "Job", "name": "j", "uid": "u", "controller": True},
        allowed_policies=frozenset(wb.SchedulingPolicyOption),
    )
    for builders in (1, 2, 3):
        builder = Builder(root, options)
        assert builder.validate() == []
        builder.build_workload()
        assert len(calls) == builders


def test_an_item_keeps_nothing_it_did_not_find() -> None:
    bad = wb.leaf("w", policy=wb.gang(0))
    options = BuildOptions("wl", "ns", None, allowed_policies=frozenset(wb.SchedulingPolicyOption))
    for _ in range(2):
        (error,) = Builder(bad, options).validate()
        assert error.field == "spec.podGroupTemplates[0].schedulingPolicy.gang.minCount"
