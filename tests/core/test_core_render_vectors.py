"""Bad values rendered as apimachinery renders them, pinned to apimachinery's own vectors.

Both renderings are pinned independently (never against each other): the SDK's
(``workloadbuilder.field.render_value``) and the test server's (its module-level
``render_value``, an independent implementation).

Sources (kubernetes/apimachinery eed236ce):

- ``pkg/util/validation/field/errors.go`` ``ErrorBody``: ``int64, int32, float64, float32,
  bool`` print with ``%v``, strings with ``%q``, anything else as ``json.Marshal``;
- ``pkg/util/validation/field/errors_test.go`` ``TestErrorFormatting`` (the rendered cases);
- Go's ``src/strconv/quote_test.go`` (``quotetests``, ``quoterunetests``: what ``%q`` escapes
  and what it prints as is, U+FFFD among the latter);
- Go's ``encoding/json`` documentation: decoding replaces an invalid UTF-16 surrogate with
  U+FFFD, so a lone surrogate a client sends is U+FFFD to the API server;
- ``pkg/util/json/json_test.go`` (how ``json.Marshal`` writes the floats a decoded JSON
  number becomes, e.g. ``1e3`` -> ``1000``, ``-0.0`` -> ``-0``).

A JSON number decoded by the API server is a Go ``float64``; ``%v`` of a float64 is
``strconv.FormatFloat(f, 'g', -1, 64)``: ``1.0`` -> ``1``, ``1e8`` -> ``1e+08``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from workloadbuilder.field import render_value as sdk_render
from workloadbuilder.testing.rules.errors import render_value as server_render

RENDERERS = pytest.mark.parametrize(
    "render", [sdk_render, server_render], ids=["sdk", "test-server"]
)

# TestErrorFormatting: (BadValue, the rendered value between "Invalid value: " and ": the details").
ERRORS_TEST_VECTORS: list[tuple[Any, str]] = [
    ("the value", '"the value"'),
    (-42, "-42"),
    (True, "true"),
    (["one", "two", "three"], '["one","two","three"]'),
    (None, "null"),
]

# Top-level float64 with %v (strconv 'g', shortest).
TOP_LEVEL_FLOATS: list[tuple[float, str]] = [
    (1.0, "1"),
    (1e8, "1e+08"),
    (0.5, "0.5"),
    (123456.0, "123456"),
    (1234567.0, "1.234567e+06"),
    (1e-5, "1e-05"),
]

# json_test.go: (Data, Out) of json.Marshal, as floats inside a rendered list.
JSON_FLOATS: list[tuple[float, str]] = [
    (0.0, "0"),
    (-0.0, "-0"),
    (0.5, "0.5"),
    (1e3, "1000"),
    (1.5, "1.5"),
    (-0.3, "-0.3"),
    (9223372036854775808.0, "9223372036854776000"),
    (1.175494351e-38, "1.175494351e-38"),
    (2.2250738585072014e-308, "2.2250738585072014e-308"),
]


@RENDERERS
@pytest.mark.parametrize(("value", "expected"), ERRORS_TEST_VECTORS)
def test_error_formatting_vectors(render: Callable[[Any], str], value: Any, expected: str) -> None:
    assert render(value) == expected


@RENDERERS
@pytest.mark.parametrize(("value", "expected"), TOP_LEVEL_FLOATS)
def test_top_level_floats_print_as_go_v(
    render: Callable[[Any], str], value: float, expected: str
) -> None:
    assert render(value) == expected


@RENDERERS
@pytest.mark.parametrize(("value", "expected"), JSON_FLOATS)
def test_nested_floats_print_as_json_marshal(
    render: Callable[[Any], str], value: float, expected: str
) -> None:
    assert render([value]) == f"[{expected}]"


def test_sdk_map_keys_are_sorted() -> None:
    # TestErrorFormatting: map[string]int{"one": 1, "two": 2, "three": 3} -> sorted keys (a Go
    # map). A plain dict is a map to the SDK; a model keeps its fields' order (a Go struct).
    assert sdk_render({"one": 1, "two": 2, "three": 3}) == '{"one":1,"three":3,"two":2}'
    assert sdk_render([{"b": 1, "a": {"d": 2, "c": 1.0}}]) == '[{"a":{"c":1,"d":2},"b":1}]'


def test_server_objects_are_go_structs() -> None:
    # The test server holds decoded objects, which the API server decodes into Go structs:
    # json.Marshal writes a struct's fields in declaration order (the order the object has).
    assert server_render([{"name": "c", "schedulingPolicy": {"gang": {"minGroupCount": 1.0}}}]) == (
        '[{"name":"c","schedulingPolicy":{"gang":{"minGroupCount":1}}}]'
    )


# strconv's quotetests / quoterunetests (Quote column), as strings.
QUOTE_VECTORS: list[tuple[str, str]] = [
    ("\a\b\f\r\n\t\v", '"\\a\\b\\f\\r\\n\\t\\v"'),
    ("\\", '"\\\\"'),
    ("\u263a", '"\u263a"'),
    ("\U0010ffff", '"\\U0010ffff"'),
    ("\x04", '"\\x04"'),
    ("!\u00a0!\u2000!\u3000!", '"!\\u00a0!\\u2000!\\u3000!"'),
    ("\ufffd", '"\ufffd"'),
    ("a", '"a"'),
]


@RENDERERS
@pytest.mark.parametrize(("value", "expected"), QUOTE_VECTORS)
def test_strings_quote_as_go_strconv(
    render: Callable[[Any], str], value: str, expected: str
) -> None:
    assert render(value) == expected


@RENDERERS
@pytest.mark.parametrize("surrogate", ["\ud800", "\udfff", "x\udc00y"])
def test_a_lone_surrogate_renders_as_the_replacement_character(
    render: Callable[[Any], str], surrogate: str
) -> None:
    # Go's JSON decoder turns it into U+FFFD, which %q prints as is (quoterunetests: 0xfffd).
    expected = surrogate.replace("\ud800", "\ufffd").replace("\udfff", "\ufffd")
    expected = expected.replace("\udc00", "\ufffd")
    assert render(surrogate) == '"' + expected + '"'
    assert render([surrogate]) == '["' + expected + '"]'
