"""Tests for workloadbuilder.field: paths, errors and their apimachinery rendering.

Expected strings marked "apimachinery" are the ones asserted by
k8s.io/apimachinery pkg/util/validation/field/errors_test.go (TestErrorRendering / TestMakeFuncs,
commit eed236ce) or produced by pkg/api/errors.NewInvalid.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import json
import pickle
from typing import Annotated, Any, Literal

import pydantic
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from workloadbuilder.field import (
    OMIT_VALUE,
    ErrorList,
    ErrorType,
    FieldError,
    FieldPath,
    render_value,
)

# ----------------------------------------------------------------------------- FieldPath


def test_path_rendering() -> None:
    assert str(FieldPath("spec")) == "spec"
    assert str(FieldPath("spec", "scheduling")) == "spec.scheduling"
    p = FieldPath("spec").child("replicaSpecs").key("Worker").child("scheduling")
    assert str(p) == "spec.replicaSpecs[Worker].scheduling"
    assert str(FieldPath("spec").child("podGroupTemplates").index(0).child("name")) == (
        "spec.podGroupTemplates[0].name"
    )
    assert str(FieldPath("spec").child("a", "b", "c")) == "spec.a.b.c"
    assert str(FieldPath("metadata", "labels").key("app.kubernetes.io/name")) == (
        "metadata.labels[app.kubernetes.io/name]"
    )
    assert str(FieldPath("a").index(1).index(2)) == "a[1][2]"


def test_path_empty_name_is_an_empty_subscript_as_in_go() -> None:
    assert str(FieldPath("")) == "[]"
    assert str(FieldPath("a").child("")) == "a[]"
    assert FieldPath("a").child("") == FieldPath("a").key("")


def test_index_and_key_are_the_same_element() -> None:
    assert FieldPath("a").index(0) == FieldPath("a").key("0")
    assert hash(FieldPath("a").index(0)) == hash(FieldPath("a").key("0"))
    assert FieldPath("a", "b") != FieldPath("a").key("b")


def test_path_value_semantics() -> None:
    a = FieldPath("spec").child("x").index(3)
    b = FieldPath("spec", "x").index(3)
    assert a == b and hash(a) == hash(b)
    assert len({a, b, FieldPath("spec")}) == 2
    assert sorted([FieldPath("b"), FieldPath("a", "z"), FieldPath("a")]) == [
        FieldPath("a"),
        FieldPath("a", "z"),
        FieldPath("b"),
    ]
    assert a != "spec.x[3]"
    with pytest.raises(AttributeError):
        a._str = "x"
    assert pickle.loads(pickle.dumps(a)) == a
    assert str(pickle.loads(pickle.dumps(a))) == "spec.x[3]"
    assert repr(a) == "FieldPath.parse('spec.x[3]')"


def test_path_navigation() -> None:
    p = FieldPath("spec", "items").index(2).child("name")
    assert p.parent == FieldPath("spec", "items").index(2)
    assert FieldPath("spec").parent is None
    assert p.root() == FieldPath("spec")
    assert len(p) == 4
    assert p.elements == ("spec", "items", 2, "name")
    assert FieldPath("m").key("k").elements == ("m", "[k]")


def test_child_does_not_mutate_parent() -> None:
    base = FieldPath("spec")
    base.child("a")
    base.index(1)
    assert str(base) == "spec"


def test_path_rejects_non_str_names() -> None:
    with pytest.raises(TypeError):
        FieldPath("spec").child(3)  # type: ignore[arg-type]


def test_parse() -> None:
    expected = FieldPath("spec", "a").index(0).child("b").key("key")
    assert FieldPath.parse("spec.a[0].b[key]") == expected
    assert str(FieldPath.parse("spec.a[0].b[key]")) == "spec.a[0].b[key]"
    assert FieldPath.parse("[0].a") == FieldPath.parse("[0]").child("a")
    assert str(FieldPath.parse("[0].a")) == "[0].a"
    assert FieldPath.parse("labels[a.b/c]") == FieldPath("labels").key("a.b/c")
    assert FieldPath.parse("x[]") == FieldPath("x").key("")


@pytest.mark.parametrize("bad", ["", "a..b", "a.", "a[0", "a[0]b", ".a", "a.[0]"])
def test_parse_rejects_malformed(bad: str) -> None:
    with pytest.raises(ValueError):
        FieldPath.parse(bad)


_names = st.text(
    alphabet=st.characters(exclude_characters=".[]", exclude_categories=["Cs"]),
    min_size=1,
    max_size=12,
)
_keys = st.text(
    alphabet=st.characters(exclude_characters="]", exclude_categories=["Cs"]), max_size=12
)
_steps = st.lists(
    st.one_of(
        st.tuples(st.just("child"), _names),
        st.tuples(st.just("index"), st.integers(min_value=0, max_value=10_000)),
        st.tuples(st.just("key"), _keys),
    ),
    max_size=8,
)


@given(root=_names, steps=_steps)
def test_parse_round_trips(root: str, steps: list[tuple[str, Any]]) -> None:
    p = FieldPath(root)
    for op, arg in steps:
        p = getattr(p, op)(arg)
    parsed = FieldPath.parse(str(p))
    assert parsed == p
    assert str(parsed) == str(p)
    assert hash(parsed) == hash(p)


# ----------------------------------------------------------------------------- ErrorType


def test_error_type_values_and_text() -> None:
    expected = {
        ErrorType.NOT_FOUND: ("FieldValueNotFound", "Not found"),
        ErrorType.REQUIRED: ("FieldValueRequired", "Required value"),
        ErrorType.DUPLICATE: ("FieldValueDuplicate", "Duplicate value"),
        ErrorType.INVALID: ("FieldValueInvalid", "Invalid value"),
        ErrorType.NOT_SUPPORTED: ("FieldValueNotSupported", "Unsupported value"),
        ErrorType.FORBIDDEN: ("FieldValueForbidden", "Forbidden"),
        ErrorType.TOO_LONG: ("FieldValueTooLong", "Too long"),
        ErrorType.TOO_MANY: ("FieldValueTooMany", "Too many"),
        ErrorType.TOO_FEW: ("FieldValueTooFew", "Too few"),
        ErrorType.TOO_SHORT: ("FieldValueTooShort", "Too short"),
        ErrorType.INTERNAL: ("InternalError", "Internal error"),
        ErrorType.TYPE_INVALID: ("FieldValueTypeInvalid", "Invalid value"),
    }
    assert set(expected) == set(ErrorType)
    for t, (value, text) in expected.items():
        assert t.value == value
        assert t.description == text
        assert str(t) == text
        assert f"{t}" == text
        assert ErrorType(value) is t
    assert json.dumps(ErrorType.INVALID) == '"FieldValueInvalid"'


# ----------------------------------------------------------------------------- FieldError

P = FieldPath.parse("path.to.field")


def _raw(t: ErrorType, bad: Any) -> FieldError:
    return FieldError(t, "path.to.field", bad, "the details", "theOrigin", True)


@pytest.mark.parametrize(
    ("err", "expected"),
    [
        # apimachinery TestErrorRendering vectors
        (_raw(ErrorType.REQUIRED, "the value"), "path.to.field: Required value: the details"),
        (FieldError.required(P, "the details"), "path.to.field: Required value: the details"),
        (_raw(ErrorType.FORBIDDEN, "the value"), "path.to.field: Forbidden: the details"),
        (FieldError.forbidden(P, "the details"), "path.to.field: Forbidden: the details"),
        (_raw(ErrorType.TOO_LONG, "the value"), "path.to.field: Too long: the details"),
        (
            FieldError.too_long(P, "the value", 1),
            "path.to.field: Too long: may not be more than 1 byte",
        ),
        (
            FieldError.too_long(P, "the value", 2),
            "path.to.field: Too long: may not be more than 2 bytes",
        ),
        (FieldError.too_long(P, "the value", -1), "path.to.field: Too long: value is too long"),
        (
            _raw(ErrorType.TOO_MANY, "the value"),
            'path.to.field: Too many: "the value": the details',
        ),
        (FieldError.too_many(P, 2, 1), "path.to.field: Too many: 2: must have at most 1 item"),
        (FieldError.too_many(P, 3, 2), "path.to.field: Too many: 3: must have at most 2 items"),
        (FieldError.too_many(P, 2, -1), "path.to.field: Too many: 2: has too many items"),
        (FieldError.too_many(P, -1, 1), "path.to.field: Too many: must have at most 1 item"),
        (_raw(ErrorType.INTERNAL, "the value"), "path.to.field: Internal error: the details"),
        (
            FieldError.internal(P, RuntimeError("the error")),
            "path.to.field: Internal error: the error",
        ),
        (
            _raw(ErrorType.INVALID, "the value"),
            'path.to.field: Invalid value: "the value": the details',
        ),
        (_raw(ErrorType.INVALID, -42), "path.to.field: Invalid value: -42: the details"),
        (_raw(ErrorType.INVALID, True), "path.to.field: Invalid value: true: the details"),
        (
            _raw(ErrorType.INVALID, {"stringField": "stringval", "intField": 9376}),
            'path.to.field: Invalid value: {"intField":9376,"stringField":"stringval"}: '
            "the details",
        ),
        (
            _raw(ErrorType.INVALID, ["one", "two", "three"]),
            'path.to.field: Invalid value: ["one","two","three"]: the details',
        ),
        (
            _raw(ErrorType.INVALID, {"one": 1, "two": 2, "three": 3}),
            'path.to.field: Invalid value: {"one":1,"three":3,"two":2}: the details',
        ),
        (
            _raw(ErrorType.INVALID, datetime.datetime(1, 1, 1, tzinfo=datetime.UTC)),
            'path.to.field: Invalid value: "0001-01-01T00:00:00Z": the details',
        ),
        (_raw(ErrorType.INVALID, OMIT_VALUE), "path.to.field: Invalid value: the details"),
        (_raw(ErrorType.INVALID, None), "path.to.field: Invalid value: null: the details"),
        (
            FieldError.invalid(P, "the value", "the details"),
            'path.to.field: Invalid value: "the value": the details',
        ),
        (
            _raw(ErrorType.NOT_FOUND, "the value"),
            'path.to.field: Not found: "the value": the details',
        ),
        (
            _raw(ErrorType.NOT_SUPPORTED, "the value"),
            'path.to.field: Unsupported value: "the value": the details',
        ),
        (
            FieldError.not_supported(P, "the value", ["val1", "val2"]),
            'path.to.field: Unsupported value: "the value": supported values: "val1", "val2"',
        ),
        (
            _raw(ErrorType.DUPLICATE, "the value"),
            'path.to.field: Duplicate value: "the value": the details',
        ),
        (FieldError.duplicate(P, "the value"), 'path.to.field: Duplicate value: "the value"'),
        (
            _raw(ErrorType.TYPE_INVALID, "the value"),
            'path.to.field: Invalid value: "the value": the details',
        ),
        (
            FieldError.type_invalid(P, "the value", "the details"),
            'path.to.field: Invalid value: "the value": the details',
        ),
    ],
)
def test_apimachinery_rendering(err: FieldError, expected: str) -> None:
    assert str(err) == expected
    assert err.error_body() == expected.removeprefix("path.to.field: ")


def test_project_messages() -> None:
    err = FieldError.invalid(
        FieldPath("spec", "scheduling", "disruptionMode"),
        "",
        "the disruptionMode `all` is not supported with the Basic scheduling policy",
    )
    assert str(err) == (
        'spec.scheduling.disruptionMode: Invalid value: "": the disruptionMode `all` is not '
        "supported with the Basic scheduling policy"
    )
    assert str(FieldError.required(FieldPath("spec", "x"))) == "spec.x: Required value"
    assert str(FieldError.required(FieldPath("spec", "x"), "detail")) == (
        "spec.x: Required value: detail"
    )
    assert (
        str(
            FieldError.not_supported(
                FieldPath("spec", "x"), "foo", ["Never", "PreemptLowerPriority"]
            )
        )
        == 'spec.x: Unsupported value: "foo": supported values: "Never", "PreemptLowerPriority"'
    )
    assert str(FieldError.forbidden(FieldPath("a"), "detail")) == "a: Forbidden: detail"
    assert str(FieldError.forbidden(FieldPath("a"))) == "a: Forbidden"
    assert str(FieldError.too_many(FieldPath("a"), 9, 8)) == (
        "a: Too many: 9: must have at most 8 items"
    )
    assert str(FieldError.too_long(FieldPath("a"), "x" * 70, 63)) == (
        "a: Too long: may not be more than 63 bytes"
    )
    assert str(FieldError.duplicate(FieldPath("a"), "x")) == 'a: Duplicate value: "x"'
    assert str(FieldError.not_found(FieldPath("a"), "x")) == 'a: Not found: "x"'
    assert str(FieldError.internal(FieldPath("a"), "detail")) == "a: Internal error: detail"
    assert str(FieldError.not_supported(FieldPath("a"), "x", [])) == 'a: Unsupported value: "x"'
    assert str(FieldError.too_short(FieldPath("a"), "ab", 3)) == (
        "a: Too short: must be at least 3 characters"
    )
    assert str(FieldError.too_few(FieldPath("a"), 0, 1)) == (
        "a: Too few: 0: must have at least 1 item"
    )


def test_nil_path_renders_as_go_nil() -> None:
    # field.Path.String() of a nil *Path is "<nil>", and Error() always prefixes the field.
    err = FieldError.internal(
        None, "cannot validate a builder constructed from an existing workload"
    )
    assert err.field == "<nil>"
    assert str(err) == (
        "<nil>: Internal error: cannot validate a builder constructed from an existing workload"
    )
    err2 = FieldError.invalid(None, None, "invalid builder: missing root WorkloadItem")
    assert str(err2) == "<nil>: Invalid value: null: invalid builder: missing root WorkloadItem"


def test_string_paths_are_accepted_as_rendered() -> None:
    assert FieldError.required("spec.x").field == "spec.x"
    with pytest.raises(TypeError):
        FieldError.required(3)  # type: ignore[arg-type]


class _Color(enum.Enum):
    RED = "red"


class _Mode(str, enum.Enum):  # noqa: UP042 (a str-mixin enum on purpose)
    ALL = "All"


@dataclasses.dataclass
class _Point:
    x: int
    label: str


class _WithToDict:
    def to_dict(self) -> dict[str, Any]:
        return {"zeta": 1, "alpha": {"b": 2, "a": 1}}


class _Opaque:
    def __str__(self) -> str:
        return "opaque!"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("", '""'),
        ('say "hi"\\', '"say \\"hi\\"\\\\"'),
        ("tab\tnl\nbell\a\x01\x7f", '"tab\\tnl\\nbell\\a\\x01\\x7f"'),
        ("héllo ✓", '"héllo ✓"'),
        ("zero\u200bwidth", '"zero\\u200bwidth"'),
        ("\U000e0001", '"\\U000e0001"'),
        (0, "0"),
        (-7, "-7"),
        (2**40, "1099511627776"),
        (True, "true"),
        (False, "false"),
        (None, "null"),
        (1.5, "1.5"),
        (100.0, "100"),
        (1e6, "1e+06"),
        (123456.0, "123456"),
        (0.0001, "0.0001"),
        (0.00001, "1e-05"),
        (-0.0, "-0"),
        (float("nan"), "NaN"),
        (float("inf"), "+Inf"),
        (_Color.RED, '"red"'),
        (_Mode.ALL, '"All"'),
        ([1, "a", None, True, 2.0, 1e-7], '[1,"a",null,true,2,1e-7]'),
        ((1, 2), "[1,2]"),
        ({"b": 1, "a": "<&>"}, '{"a":"\\u003c\\u0026\\u003e","b":1}'),
        ({"k": "é\n"}, '{"k":"é\\n"}'),
        (_Point(1, "p"), '{"x":1,"label":"p"}'),
        (_WithToDict(), '{"zeta":1,"alpha":{"b":2,"a":1}}'),
        (frozenset({"b", "a"}), '["a","b"]'),
        (datetime.date(2026, 7, 1), '"2026-07-01"'),
        (_Opaque(), "opaque!"),
    ],
)
def test_render_value(value: Any, expected: str) -> None:
    assert render_value(value) == expected


def test_render_pydantic_model_without_to_dict() -> None:
    class Thing(BaseModel):
        model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)
        min_count: int | None = None
        name: str = "n"

    assert render_value(Thing(min_count=2)) == '{"minCount":2,"name":"n"}'
    assert render_value(Thing()) == '{"name":"n"}'


def test_field_error_is_a_frozen_hashable_value() -> None:
    a = FieldError.invalid(FieldPath("a"), {"x": 1}, "d")
    b = FieldError.invalid(FieldPath("a"), {"x": 1}, "d")
    assert a == b and hash(a) == hash(b)
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.detail = "x"  # type: ignore[misc]
    c = a.with_origin("minimum")
    assert c.origin == "minimum" and a.origin == ""
    assert a.mark_covered_by_declarative().covered_by_declarative
    assert a.with_field(FieldPath("b")).field == "b"
    assert str(c) == str(a)


# ----------------------------------------------------------------------------- ErrorList


def _errs() -> ErrorList:
    return ErrorList(
        [
            FieldError.invalid(FieldPath("spec", "a"), 0, "must be greater than or equal to 1"),
            FieldError.required(FieldPath("spec", "b")),
            FieldError.invalid(FieldPath("spec", "a"), -1, "must be greater than or equal to 1"),
        ]
    )


def test_error_list_is_a_list() -> None:
    errs = _errs()
    assert isinstance(errs, list)
    assert len(errs) == 3 and bool(errs) and not ErrorList()
    combined = errs + [FieldError.forbidden(FieldPath("c"))]  # noqa: RUF005
    assert isinstance(combined, ErrorList) and len(combined) == 4 and len(errs) == 3
    errs += ErrorList([FieldError.forbidden(FieldPath("c"))])
    assert isinstance(errs, ErrorList) and len(errs) == 4
    errs.append(FieldError.forbidden(FieldPath("d")))
    errs.extend([FieldError.forbidden(FieldPath("e"))])
    assert len(errs) == 6
    assert isinstance(errs[1:3], ErrorList) and len(errs[1:3]) == 2
    assert isinstance(errs[0], FieldError)
    assert isinstance(errs.copy(), ErrorList)
    assert [e.field for e in errs][:2] == ["spec.a", "spec.b"]
    assert repr(ErrorList()) == "ErrorList([])"


def test_aggregate_string() -> None:
    assert str(ErrorList()) == ""
    one = ErrorList([FieldError.required(FieldPath("x"))])
    assert str(one) == "x: Required value"
    # duplicates are dropped, as ToAggregate does; a single distinct message has no brackets
    assert str(one + one) == "x: Required value"
    assert str(_errs()) == (
        "[spec.a: Invalid value: 0: must be greater than or equal to 1, "
        "spec.b: Required value, "
        "spec.a: Invalid value: -1: must be greater than or equal to 1]"
    )


def test_error_list_helpers() -> None:
    errs = _errs()
    assert len(errs.of_type(ErrorType.INVALID)) == 2
    assert len(errs.without_type(ErrorType.INVALID)) == 1
    assert len(errs.of_type(ErrorType.INVALID, ErrorType.REQUIRED)) == 3
    grouped = errs.by_field()
    assert list(grouped) == ["spec.a", "spec.b"]
    assert len(grouped["spec.a"]) == 2 and isinstance(grouped["spec.a"], ErrorList)
    assert all(e.origin == "o" for e in errs.with_origin("o"))
    assert all(e.origin == "" for e in errs)
    marked = errs[:1].mark_covered_by_declarative() + errs[1:]
    assert len(marked.extract_covered_by_declarative()) == 1
    assert len(marked.remove_covered_by_declarative()) == 2
    assert errs.prefix_detail("p: ")[0].detail == "p: must be greater than or equal to 1"


def test_to_status_single() -> None:
    errs = ErrorList(
        [
            FieldError.invalid(
                FieldPath("spec", "schedulingPolicy", "gang", "minCount"),
                0,
                "must be greater than or equal to 1",
            )
        ]
    )
    status = errs.to_status(kind="Workload", group="scheduling.k8s.io", name="trainer")
    assert status == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": 'Workload.scheduling.k8s.io "trainer" is invalid: '
        "spec.schedulingPolicy.gang.minCount: Invalid value: 0: "
        "must be greater than or equal to 1",
        "reason": "Invalid",
        "details": {
            "name": "trainer",
            "group": "scheduling.k8s.io",
            "kind": "Workload",
            "causes": [
                {
                    "reason": "FieldValueInvalid",
                    "message": "Invalid value: 0: must be greater than or equal to 1",
                    "field": "spec.schedulingPolicy.gang.minCount",
                }
            ],
        },
        "code": 422,
    }
    # key order is the server's
    assert list(status) == [
        "kind",
        "apiVersion",
        "metadata",
        "status",
        "message",
        "reason",
        "details",
        "code",
    ]


def test_to_status_core_group_several_and_empty() -> None:
    errs = _errs()
    status = errs.to_status(kind="Pod", name="p")
    assert status["message"] == 'Pod "p" is invalid: ' + str(errs)
    assert status["details"] == {
        "name": "p",
        "kind": "Pod",
        "causes": [
            {
                "reason": "FieldValueInvalid",
                "message": "Invalid value: 0: must be greater than or equal to 1",
                "field": "spec.a",
            },
            {"reason": "FieldValueRequired", "message": "Required value", "field": "spec.b"},
            {
                "reason": "FieldValueInvalid",
                "message": "Invalid value: -1: must be greater than or equal to 1",
                "field": "spec.a",
            },
        ],
    }
    empty = ErrorList().to_status(kind="Job", group="batch", name="j")
    assert empty["message"] == 'Job.batch "j" is invalid'
    assert empty["details"] == {"name": "j", "group": "batch", "kind": "Job"}
    bare = ErrorList([FieldError(ErrorType.INVALID, "", "v", "d")]).to_status()
    assert bare["message"] == ' "" is invalid: : Invalid value: "v": d'
    assert bare["details"] == {
        "causes": [{"reason": "FieldValueInvalid", "message": 'Invalid value: "v": d'}]
    }
    assert json.loads(json.dumps(status)) == status


# ----------------------------------------------------------------------------- from_pydantic


class _M(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")


class _Preemption(enum.StrEnum):
    NEVER = "Never"
    PREEMPT_LOWER_PRIORITY = "PreemptLowerPriority"


class _Gang(_M):
    min_count: Annotated[int, Field(ge=1)] | None = None


class _Policy(_M):
    gang: _Gang | None = None
    basic: dict[str, str] | None = None


class _Replica(_M):
    replicas: Annotated[int, Field(le=100)]
    scheduling: _Policy | None = None
    preemption_policy: _Preemption | None = None
    mode: Literal["single", "all"] | None = None
    topology: Annotated[list[str], Field(max_length=1)] = []
    name: Annotated[str, Field(min_length=1, max_length=5)] = "x"
    weight: Annotated[float, Field(gt=0)] = 1.0


class _Spec(_M):
    replica_specs: dict[str, _Replica] = {}
    items: list[_Replica] = []
    either: int | _Gang | None = None


_BAD = {
    "replicaSpecs": {
        "Worker": {
            "replicas": "x",
            "scheduling": {"gang": {"minCount": 0}},
            "preemptionPolicy": "Foo",
            "mode": "none",
            "topology": ["a", "b"],
            "name": "",
            "bogus": 1,
        }
    },
    "items": [{"name": "toolong", "weight": 0}, {"replicas": 101}],
    "either": "q",
}


def _validation_error() -> pydantic.ValidationError:
    with pytest.raises(pydantic.ValidationError) as info:
        _Spec.model_validate(_BAD)
    return info.value


def test_from_pydantic_with_model() -> None:
    errs = ErrorList.from_pydantic(_validation_error(), FieldPath("spec"), model=_Spec)
    assert [str(e) for e in errs] == [
        'spec.replicaSpecs[Worker].replicas: Invalid value: "x": must be of type integer',
        "spec.replicaSpecs[Worker].scheduling.gang.minCount: Invalid value: 0: "
        "must be greater than or equal to 1",
        'spec.replicaSpecs[Worker].preemptionPolicy: Unsupported value: "Foo": '
        'supported values: "Never", "PreemptLowerPriority"',
        'spec.replicaSpecs[Worker].mode: Unsupported value: "none": '
        'supported values: "all", "single"',
        "spec.replicaSpecs[Worker].topology: Too many: 2: must have at most 1 item",
        "spec.replicaSpecs[Worker].name: Required value",
        "spec.replicaSpecs[Worker].bogus: Forbidden: unknown field",
        "spec.items[0].replicas: Required value",
        "spec.items[0].name: Too long: may not be more than 5 bytes",
        "spec.items[0].weight: Invalid value: 0: must be greater than 0",
        "spec.items[1].replicas: Invalid value: 101: must be less than or equal to 100",
        'spec.either: Invalid value: "q": must be of type integer',
        'spec.either: Invalid value: "q": must be of type object',
    ]
    assert errs[0].type is ErrorType.TYPE_INVALID
    assert errs[2].type is ErrorType.NOT_SUPPORTED
    assert errs[6].type is ErrorType.FORBIDDEN


def test_from_pydantic_without_model_uses_loc_as_is() -> None:
    errs = ErrorList.from_pydantic(_validation_error())
    fields = [e.field for e in errs]
    assert fields[0] == "replicaSpecs.Worker.replicas"
    assert fields[1] == "replicaSpecs.Worker.scheduling.gang.minCount"
    assert fields[7] == "items[0].replicas"
    # allowed values still come from pydantic's context
    assert errs[2].detail == 'supported values: "Never", "PreemptLowerPriority"'


def test_from_pydantic_root_and_snake_case_names() -> None:
    class Plain(BaseModel):
        min_count: Annotated[int, Field(ge=1)]
        sub_items: list[int] = []

    with pytest.raises(pydantic.ValidationError) as info:
        Plain.model_validate({"min_count": 0, "sub_items": [1, "z"]})
    errs = ErrorList.from_pydantic(info.value, FieldPath("spec", "gang"), aliases=False)
    assert [e.field for e in errs] == ["spec.gang.minCount", "spec.gang.subItems[1]"]
    errs2 = ErrorList.from_pydantic(info.value, aliases=False, model=Plain)
    assert [e.field for e in errs2] == ["minCount", "subItems[1]"]
    errs3 = ErrorList.from_pydantic(info.value, model=Plain)
    assert [e.field for e in errs3] == ["min_count", "sub_items[1]"]


def test_from_pydantic_model_level_and_value_errors() -> None:
    class Union(BaseModel):
        a: int | None = None
        b: int | None = None

        @pydantic.model_validator(mode="after")
        def one_of(self) -> Union:
            if (self.a is None) == (self.b is None):
                raise ValueError("must specify exactly one of: `a`, `b`")
            return self

    with pytest.raises(pydantic.ValidationError) as info:
        Union.model_validate({})
    [err] = ErrorList.from_pydantic(info.value, FieldPath("spec"))
    assert str(err) == "spec: Invalid value: {}: must specify exactly one of: `a`, `b`"
    [nil_err] = ErrorList.from_pydantic(info.value)
    assert nil_err.field == "<nil>"


def test_from_pydantic_list_too_short_and_top_level_list() -> None:
    class L(BaseModel):
        xs: Annotated[list[int], Field(min_length=1)]
        ys: Annotated[list[int], Field(min_length=2)] = [0, 0]
        code: Annotated[str, Field(min_length=3)] = "abc"

    with pytest.raises(pydantic.ValidationError) as info:
        L.model_validate({"xs": [], "ys": [1], "code": "ab"})
    assert [str(e) for e in ErrorList.from_pydantic(info.value)] == [
        "xs: Required value",
        "ys: Too few: 1: must have at least 2 items",
        "code: Too short: must be at least 3 characters",
    ]
    adapter = pydantic.TypeAdapter(list[int])
    with pytest.raises(pydantic.ValidationError) as info2:
        adapter.validate_python([1, "x"])
    [err] = ErrorList.from_pydantic(info2.value, FieldPath("spec", "counts"))
    assert str(err) == 'spec.counts[1]: Invalid value: "x": must be of type integer'
    [bare] = ErrorList.from_pydantic(info2.value)
    assert bare.field == "[1]"


def test_from_pydantic_map_key_error() -> None:
    class K(BaseModel):
        m: dict[int, str]

    with pytest.raises(pydantic.ValidationError) as info:
        K.model_validate({"m": {"a": "b"}})
    [err] = ErrorList.from_pydantic(info.value, model=K)
    assert err.field == "m[a]"
    assert err.type is ErrorType.TYPE_INVALID
