"""Stamped objects and ``build_workload()``'s copies are deferred: they keep the input they
were stamped from and validate it on first use. Every observable behaviour is that of the
same input given to ``model_validate`` (the previous stamping), whichever use comes first.

The references are independent of the deferral: ``previous_instantiate`` (the previous
stamping, written out in ``test_core_stamp_differential``) and ``Model.model_validate`` of the
object's input, which is what pydantic itself makes of it.
"""

from __future__ import annotations

import copy
import json
import pickle
import threading
from collections.abc import Callable
from typing import Any

import pytest
from core_support import job_owner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from property_bound import bounded
from pydantic import TypeAdapter, ValidationError
from test_core_properties import PERMISSIVE, trees
from test_core_stamp_differential import fields_set, previous_instantiate

from workloadbuilder import (
    Builder,
    BuildOptions,
    CompositePodGroup,
    PodGroup,
    Workload,
    WorkloadItem,
    composite,
    gang,
    instantiate,
    leaf,
)
from workloadbuilder.api import K8sModel
from workloadbuilder.api.scheduling_v1alpha3 import CompositePodGroupList
from workloadbuilder.api.scheduling_v1beta1 import PodGroupList, WorkloadList


def _ordered(doc: Any) -> str:
    """The JSON text with keys in the dict's own order: equal only if the order is equal."""
    return json.dumps(doc)


def _release() -> Builder:
    builder = Builder(
        composite(
            "root",
            [
                leaf("workers", policy=gang(4), topology=["rack"], priority_class_name="high"),
                leaf("driver", policy=gang(1), priority_class_name="high"),
            ],
            policy=gang(min_group_count=2),
            topology=["zone"],
            disruption_mode="all",
            priority_class_name="high",
        ),
        PERMISSIVE,
    )
    assert not builder.validate()
    return builder


def _eager(obj: K8sModel) -> K8sModel:
    """What ``model_validate`` makes of the deferred object's input."""
    return type(obj).model_validate(obj._deferred_input)  # type: ignore[attr-defined]


_OPTIONS = st.sampled_from(
    [
        PERMISSIVE,
        BuildOptions(
            name="wl",
            owner=job_owner(),
            allowed_policies=PERMISSIVE.allowed_policies,
            allowed_disruption_modes=PERMISSIVE.allowed_disruption_modes,
        ),
    ]
)


@settings(
    max_examples=bounded(60),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    database=None,
)
@given(root=trees(sound=True), options=_OPTIONS)
def test_to_dict_first_is_the_previous_json_in_the_same_key_order(
    root: WorkloadItem, options: BuildOptions
) -> None:
    builder = Builder(root, options)
    if builder.validate():
        return
    reference = Builder(root, options)
    previous = previous_instantiate(reference)
    ours = instantiate(builder)
    assert [_ordered(o.to_dict()) for o in ours] == [_ordered(p.to_dict()) for p in previous]
    # Then every other use validates the same input: same objects, same fields set.
    assert ours == previous
    assert [fields_set(o) for o in ours] == [fields_set(p) for p in previous]
    # build_workload(): a copy of the compiled Workload, as model_validate(to_dict()) was.
    workload = builder.build_workload()
    expected = Workload.model_validate(reference.workload().to_dict())
    assert _ordered(workload.to_dict()) == _ordered(expected.to_dict())
    assert workload == expected
    assert fields_set(builder.build_workload()) == fields_set(expected)


# Every way of using an object, each on a fresh deferred object and on the eager reference.
def _set_labels(obj: Any) -> Any:
    obj.metadata.labels = {"team": "ml"}
    return obj.to_dict()


def _assign_metadata(obj: Any) -> Any:
    obj.metadata = {"name": "renamed"}
    return obj.to_dict()


def _bad_assignment(obj: Any) -> Any:
    try:
        obj.kind = "Pod"
    except ValidationError as exc:
        return exc.errors(include_url=False)
    return "accepted"


def _in_a_list(obj: Any) -> Any:
    lists: dict[type, type[K8sModel]] = {
        PodGroup: PodGroupList,
        CompositePodGroup: CompositePodGroupList,
        Workload: WorkloadList,
    }
    return lists[type(obj)](items=[obj]).to_dict()


def _unknown_attribute(obj: Any) -> Any:
    try:
        obj.no_such_field  # noqa: B018
    except AttributeError as exc:
        return str(exc)
    return "found"


USES: dict[str, Callable[[Any], Any]] = {
    "to_dict": lambda o: _ordered(o.to_dict()),
    "to_yaml": lambda o: o.to_yaml(),
    "attribute": lambda o: repr(o.spec),
    "repr": repr,
    "str": str,
    "model_dump": lambda o: o.model_dump(),
    "model_dump unset": lambda o: o.model_dump(exclude_unset=True, by_alias=True),
    "model_dump_json": lambda o: o.model_dump_json(),
    "fields set": lambda o: fields_set(o),
    "model_fields_set": lambda o: sorted(o.model_fields_set),
    "copy": lambda o: copy.copy(o).to_dict(),
    "deepcopy": lambda o: copy.deepcopy(o).to_dict(),
    "model_copy": lambda o: o.model_copy(update={"kind": o.kind}).model_dump(),
    "pickle": lambda o: pickle.loads(pickle.dumps(o)).to_dict(),
    "iteration": lambda o: [name for name, _ in o],
    "vars": lambda o: sorted(vars(o)),
    "nested in a list model": _in_a_list,
    "type adapter": lambda o: TypeAdapter(list[type(o)]).dump_python([o], by_alias=True),
    "nested assignment": _set_labels,
    "model assignment": _assign_metadata,
    "refused assignment": _bad_assignment,
    "unknown attribute": _unknown_attribute,
}


def _fresh_objects() -> list[K8sModel]:
    builder = _release()
    return [builder.build_workload(), *instantiate(builder)]


@pytest.mark.parametrize("use", list(USES))
def test_any_first_use_behaves_as_the_validated_input(use: str) -> None:
    for index in range(4):
        deferred = _fresh_objects()[index]
        eager = _eager(_fresh_objects()[index])
        assert USES[use](deferred) == USES[use](eager)
        # ... and the object goes on behaving as the eager one afterwards.
        assert _ordered(deferred.to_dict()) == _ordered(eager.to_dict())
        assert deferred == eager


def test_equality_first_in_either_direction() -> None:
    for index in range(4):
        eager = _eager(_fresh_objects()[index])
        assert _fresh_objects()[index] == eager
        assert eager == _fresh_objects()[index]
        assert _fresh_objects()[index] == _fresh_objects()[index]
        other = _fresh_objects()[(index + 1) % 4]
        assert _fresh_objects()[index] != other


def test_the_deferred_objects_are_the_public_classes() -> None:
    objects = _fresh_objects()
    assert [type(o) for o in objects] == [Workload, CompositePodGroup, PodGroup, PodGroup]


def test_changes_never_reach_other_objects_or_later_stamps() -> None:
    builder = _release()
    first, second = builder.new_pod_group("a", "workers"), builder.new_pod_group("b", "workers")
    expected = second.to_dict()
    # A returned JSON is the caller's own.
    doc = first.to_dict()
    doc["spec"]["schedulingConstraints"]["topology"].append({"key": "changed"})
    doc["metadata"]["ownerReferences"][0]["name"] = "changed"
    assert first.to_dict()["spec"] == expected["spec"]
    # A validated object's nested values are its own.
    assert first.spec.scheduling_constraints is not None
    first.spec.scheduling_constraints.topology.append(first.spec.scheduling_constraints.topology[0])
    first.metadata.owner_references[0].name = "changed"  # type: ignore[index]
    assert second.to_dict() == expected
    assert builder.new_pod_group("b", "workers").to_dict() == expected
    # build_workload() copies are independent of each other and of the stamps.
    copy_one, copy_two = builder.build_workload(), builder.build_workload()
    untouched = copy_two.to_dict()
    template = copy_one.spec.composite_pod_group_templates[0]  # type: ignore[index]
    template.pod_group_templates[0].scheduling_policy.gang.min_count = 99  # type: ignore[index,union-attr]
    assert copy_two.to_dict() == untouched
    assert builder.build_workload().to_dict() == untouched
    assert builder.new_pod_group("b", "workers").to_dict() == expected


def _first_used_from_threads(obj: PodGroup, expected: K8sModel, count: int = 8) -> list[Any]:
    seen: list[Any] = []
    start = threading.Barrier(count)

    def use() -> None:
        start.wait()
        seen.append((obj.spec, obj.metadata, obj == expected))

    threads = [threading.Thread(target=use) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return seen


def test_threads_validating_one_object_all_see_it_whole() -> None:
    for _ in range(20):
        obj = _release().new_pod_group("a", "workers")
        expected = _eager(obj)
        seen = _first_used_from_threads(obj, expected)
        assert len(seen) == 8
        assert all(flag for _, _, flag in seen)
        assert {id(spec) for spec, _, _ in seen} == {id(obj.spec)}
        assert obj == expected
