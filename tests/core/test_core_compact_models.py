"""A stamped object, once used, holds its models compactly: equal fields sets are one shared
set, and each model's fields are in a key-sharing dict. Nothing else may differ from what
``model_validate`` makes of the same input (the reference), whatever is done to the object or
to its siblings afterwards.
"""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from test_core_properties import PERMISSIVE, trees
from test_core_stamp_differential import fields_set

from workloadbuilder import Builder, WorkloadItem, gang, instantiate, leaf
from workloadbuilder.api import K8sModel


def _models(model: Any) -> list[K8sModel]:
    """``model`` and every model it holds, depth first."""
    if isinstance(model, K8sModel):
        found = [model]
        for value in vars(model).values():
            found.extend(_models(value))
        return found
    if isinstance(model, list | tuple):
        return [m for v in model for m in _models(v)]
    if isinstance(model, dict):
        return [m for v in model.values() for m in _models(v)]
    return []


def _layout(model: K8sModel) -> list[tuple[str, list[str], list[type], list[str]]]:
    """Every model's class, field names in ``__dict__`` order, value types and fields set."""
    return [
        (
            type(m).__name__,
            list(vars(m)),
            [type(v) for v in vars(m).values()],
            sorted(m.model_fields_set),
        )
        for m in _models(model)
    ]


def _sweep(count: int = 12) -> list[Any]:
    builder = Builder(leaf("workers", policy=gang(4), topology=["rack"]), PERMISSIVE)
    builder.build_workload()
    return [builder.new_pod_group(f"pg-{i}", "workers") for i in range(count)]


def _eager(obj: Any) -> Any:
    """What ``model_validate`` makes of the deferred object's input."""
    return type(obj).model_validate(obj._deferred_input)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(root=trees(sound=True))
def test_a_used_stamp_is_the_validated_input_field_for_field(root: WorkloadItem) -> None:
    builder = Builder(root, PERMISSIVE)
    if builder.validate():
        return
    for obj in instantiate(builder):
        expected = _eager(obj)
        obj.spec  # noqa: B018  (the first use)
        assert _layout(obj) == _layout(expected)
        assert obj == expected
        assert obj.model_dump() == expected.model_dump()
        assert list(obj.model_dump()) == list(expected.model_dump())


def test_equal_fields_sets_are_shared_and_dicts_share_keys() -> None:
    first, second = _sweep(2)
    first.spec  # noqa: B018
    second.spec  # noqa: B018
    for a, b in zip(_models(first), _models(second), strict=True):
        assert a.__pydantic_fields_set__ is b.__pydantic_fields_set__
    # A key-sharing dict holds only its values: smaller than an ordinary copy (CPython).
    fields = vars(first.metadata)
    assert len(fields) > 10
    assert fields.__sizeof__() < dict(fields).__sizeof__()


def _assign(obj: Any) -> None:
    obj.metadata.labels = {"team": "ml"}


def _assign_top(obj: Any) -> None:
    obj.status = {"conditions": []}


def _add_to_fields_set(obj: Any) -> None:
    obj.spec.model_fields_set.add("priority_class_name")


CHANGES: dict[str, Callable[[Any], None]] = {
    "nested assignment": _assign,
    "top-level assignment": _assign_top,
    "model_fields_set changed in place": _add_to_fields_set,
}


@pytest.mark.parametrize("change", list(CHANGES))
def test_a_change_to_one_stamp_reaches_no_sibling(change: str) -> None:
    stamps = _sweep()
    references = [_eager(s) for s in stamps]
    for stamp in stamps:
        stamp.spec  # noqa: B018
    CHANGES[change](stamps[3])
    CHANGES[change](references[3])
    for stamp, reference in zip(stamps, references, strict=True):
        assert fields_set(stamp) == fields_set(reference)
        assert vars(stamp.metadata) == vars(reference.metadata)
        assert stamp.model_dump(exclude_unset=True) == reference.model_dump(exclude_unset=True)
    assert stamps[2].model_dump(exclude_unset=True) != stamps[3].model_dump(exclude_unset=True)


COPIES: dict[str, Callable[[Any], Any]] = {
    "copy": copy.copy,
    "deepcopy": copy.deepcopy,
    "model_copy": lambda o: o.model_copy(),
    "model_copy with update": lambda o: o.model_copy(update={"kind": "PodGroup"}),
    "pickle": lambda o: pickle.loads(pickle.dumps(o)),
}


@pytest.mark.parametrize("how", list(COPIES))
def test_copies_have_plain_sets_of_their_own(how: str) -> None:
    stamps = _sweep(3)
    references = [_eager(s) for s in stamps]
    for stamp in stamps:
        stamp.spec  # noqa: B018
    reference = COPIES[how](references[0])
    copied = COPIES[how](stamps[0])
    assert fields_set(copied) == fields_set(reference)
    assert copied == reference
    for obj in (copied, reference):  # a shallow copy shares its nested models, as pydantic's
        obj.metadata.labels = {"copied": "yes"}
        obj.spec.model_fields_set.add("priority_class_name")
    assert fields_set(copied) == fields_set(reference)
    assert fields_set(stamps[0]) == fields_set(references[0])
    assert fields_set(stamps[1]) == fields_set(stamps[2]) == fields_set(references[2])
    assert type(copied.model_fields_set) is set
