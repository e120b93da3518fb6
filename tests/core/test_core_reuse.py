"""What a Builder takes from an earlier Builder of the same tree and options of the same value
(``workloadbuilder/_reuse.py``: the verdict of ``validate()``, the compiled Workload's JSON, the
stamps' specs and compiled ``to_dict()`` functions) changes no answer.

The expected answers are the first ones: the same tree with nothing kept (its items' kept
values dropped, or an equal tree made anew), whose objects both oracles check
(``oracles.assert_conforms``). Options that change in place (their owner is a model) and
callbacks that answer differently each time must be seen.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from core_support import job_owner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles import assert_conforms
from test_core_properties import trees

import workloadbuilder as wb
from workloadbuilder import Builder, BuildError, BuildOptions, WorkloadItem


def _forget(root: WorkloadItem) -> None:
    """Drop what every item of ``root`` keeps: the next answer is a first one."""
    for item in root.walk():
        object.__setattr__(item, "_derived", None)


def _options(owner: wb.OwnerReference | None = None, **changes: Any) -> BuildOptions:
    values: dict[str, Any] = {
        "name": "wl",
        "namespace": "ns",
        "owner": owner if owner is not None else job_owner(),
        "allowed_policies": frozenset(wb.SchedulingPolicyOption),
        "allowed_disruption_modes": frozenset(wb.DisruptionModeOption),
    }
    return BuildOptions(**{**values, **changes})


def _release(root: WorkloadItem, options: BuildOptions) -> object:
    """Everything a reconcile reads: the errors, then the Workload and every runtime object as
    JSON and as validated models (or the error the build raises)."""
    builder = Builder(root, options)
    errors = [(e.type, e.field, repr(e.bad_value), e.detail) for e in builder.validate()]
    try:
        workload = builder.build_workload()
        objects = [workload, *wb.instantiate(builder)]
    except (BuildError, ValueError) as exc:
        return errors, (type(exc).__name__, str(exc))
    json = [obj.to_dict() for obj in objects]
    for obj in objects:
        assert_conforms(obj)  # also validates the deferred object
    models = [obj.model_dump() for obj in objects]
    return errors, json, models, [o.to_dict() for o in objects]


@pytest.mark.slow
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)
@given(
    root=trees(sound=True),
    names=st.lists(st.sampled_from(["wl", "other", "Bad_Name", ""]), min_size=1, max_size=3),
    policies=st.frozensets(st.sampled_from(list(wb.SchedulingPolicyOption))),
)
def test_a_tree_released_again_gives_what_it_gave_the_first_time(
    root: WorkloadItem, names: list[str], policies: frozenset[wb.SchedulingPolicyOption]
) -> None:
    runs = [_options(name=n, allowed_policies=policies) for n in names]
    first = []
    for options in runs:
        _forget(root)
        first.append(_release(root, options))
    _forget(root)
    for _ in range(4):  # kept: the verdict, then the Workload, then compiled to_dict()s
        for options, expected in zip(runs, first, strict=True):
            assert _release(root, options) == expected


def _release_tree() -> WorkloadItem:
    return wb.composite(
        "workload-root",
        [wb.leaf("workers", policy=wb.gang(4), topology=["rack"]), wb.leaf("driver")],
        policy=wb.gang(min_group_count=2),
        disruption_mode="all",
    )


def test_an_owner_changed_in_place_is_validated_and_compiled_again() -> None:
    owner = job_owner()
    options = _options(owner)
    root = _release_tree()
    for _ in range(3):
        assert _release(root, options) == _release(_release_tree(), options)
    owner.uid = ""  # the same options object, another value: no longer a valid owner
    again = _release(root, options)
    assert again == _release(_release_tree(), options)
    assert again[0] and all(
        field.startswith("metadata.ownerReferences") for _, field, *_ in again[0]
    )
    owner.uid = "another-uid"  # valid again, with another uid in every object
    released = _release(root, options)
    assert released == _release(_release_tree(), options)
    assert released[1][0]["metadata"]["ownerReferences"][0]["uid"] == "another-uid"


def test_an_owner_changed_between_validate_and_build_is_what_is_built() -> None:
    def answer(root: WorkloadItem) -> list[dict[str, Any]]:
        owner = job_owner()
        builder = Builder(root, _options(owner))
        assert builder.validate() == []
        owner.name = "renamed"
        return [builder.build_workload().to_dict()] + [o.to_dict() for o in wb.instantiate(builder)]

    root = _release_tree()
    for _ in range(3):
        got = answer(root)
        assert got == answer(_release_tree())
        assert got[0]["spec"]["controllerRef"]["name"] == "renamed"
        assert all(o["metadata"]["ownerReferences"][0]["name"] == "renamed" for o in got)


def test_callbacks_that_answer_differently_are_asked_each_time() -> None:
    counts = iter(range(1, 10))

    def next_count(config: wb.SchedulingConfig) -> wb.SchedulingConfig:
        gang = wb.SchedulingPolicy(gang=wb.GangSchedulingPolicy(next(counts)))
        return dataclasses.replace(config, policy=gang)

    root = wb.composite(
        "root",
        [wb.leaf("w", policy=wb.gang(), callbacks=[next_count])],
        policy=wb.gang(min_group_count=1),
    )
    seen = []
    for _ in range(3):
        builder = Builder(root, _options())
        assert builder.validate() == []
        (template,) = builder.build_workload().to_dict()["spec"]["compositePodGroupTemplates"]
        seen.append(template["podGroupTemplates"][0]["schedulingPolicy"]["gang"]["minCount"])
    assert seen == [1, 2, 3]


class _Name(str):
    """A name of a ``str`` subclass: the compiled functions take exact ``str`` only."""

    __slots__ = ()


def test_names_of_any_str_give_the_json_of_the_first_time() -> None:
    def names(workload: str, template: str) -> str:
        return _Name(f"{workload}-{template}")

    def released(root: WorkloadItem) -> list[dict[str, Any]]:
        builder = Builder(root, _options())
        return [o.to_dict() for o in builder.release(name=names).ordered]

    root = _release_tree()
    for _ in range(3):
        got = released(root)
        assert got == released(_release_tree())
        assert [type(o["metadata"]["name"]) for o in got[1:]] == [
            type(o["metadata"]["name"]) for o in released(_release_tree())[1:]
        ]


def test_the_widest_tree_released_again_conforms() -> None:
    width = 8
    root = wb.composite(
        "root",
        [
            wb.composite(
                f"g{i}",
                [
                    wb.composite(
                        f"g{i}-{j}",
                        [wb.leaf(f"g{i}-{j}-w{k}", policy=wb.gang(k + 1)) for k in range(width)],
                        policy=wb.gang(min_group_count=width),
                    )
                    for j in range(width)
                ],
                policy=wb.gang(min_group_count=width),
            )
            for i in range(width)
        ],
        policy=wb.gang(min_group_count=width),
    )
    first = [o.to_dict() for o in Builder(root, _options()).release().ordered]
    for _ in range(3):  # kept, then compiled: some templates' functions, not all
        builder = Builder(root, _options())
        assert builder.validate() == []
        assert [o.to_dict() for o in builder.release().ordered] == first
    assert len(first) == 1 + 73 + 512


def test_each_release_names_its_objects_with_its_own_callable() -> None:
    def released(root: WorkloadItem, prefix: str) -> list[dict[str, Any]]:
        builder = Builder(root, _options())
        objects = builder.release(name=lambda w, t: f"{prefix}-{t}").ordered
        return [o.to_dict() for o in objects]

    root = _release_tree()
    for prefix in ("a", "b", "a", "c", "b"):
        got = released(root, prefix)
        assert got == released(_release_tree(), prefix)
        parents = {o["spec"].get("parentCompositePodGroupName") for o in got[1:]}
        assert parents == {None, f"{prefix}-workload-root"}


def test_options_whose_owner_became_invalid_are_checked_for_every_new_tree() -> None:
    owner = job_owner()
    options = _options(owner)
    for _ in range(2):
        assert Builder(_release_tree(), options).validate() == []
    owner.uid = ""
    for _ in range(2):  # a new tree each time, as a controller's reconcile builds it
        fields = [e.field for e in Builder(_release_tree(), options).validate()]
        assert fields == ["metadata.ownerReferences[0].uid"]
    owner.uid = "job-uid"
    assert Builder(_release_tree(), options).validate() == []
