"""The building blocks of the API server's rules: formats, rendering, defaults, dispatch."""

from __future__ import annotations

from typing import Any

import pytest

from workloadbuilder.testing.rules import apply_defaults, has_status_subresource, validate_object
from workloadbuilder.testing.rules.errors import render_value
from workloadbuilder.testing.rules.formats import (
    dns_label,
    dns_subdomain,
    path_segment_name,
    qualified_name,
)

GROUP = "scheduling.k8s.io"


@pytest.mark.parametrize(
    ("value", "rendered"),
    [
        (None, "null"),
        ('a\tb"c', '"a\\tb\\"c"'),
        ("\x01é", '"\\x01é"'),
        (7, "7"),
        (True, "true"),
        ({"name": "x"}, '{"name":"x"}'),
        # Composite values go through json.Marshal, which escapes HTML's special characters
        # (encoding/json's documented HTMLEscape) where %q keeps them.
        (["<a&b>"], '["\\u003ca\\u0026b\\u003e"]'),
        ("<a&b>", '"<a&b>"'),
    ],
)
def test_values_render_like_apimachinery(value: Any, rendered: str) -> None:
    assert render_value(value) == rendered


def test_dns_formats() -> None:
    assert dns_label("my-name") == []
    assert dns_label("a" * 64) == ["must be no more than 63 bytes"]
    assert dns_label("a.b") == ["must not contain dots"]
    assert dns_subdomain("example.com") == []
    assert dns_subdomain("x" * 254) == ["must be no more than 253 bytes"]
    assert dns_subdomain("trailing\n") != []


def test_qualified_names() -> None:
    assert qualified_name("topology.kubernetes.io/zone") == []
    assert qualified_name("Zone_1") == []
    assert qualified_name("/zone") == ["prefix part must be non-empty"]
    assert qualified_name("a/b/c")[0].startswith("a qualified name must consist of")
    assert qualified_name("a/b/c")[0].endswith(
        "with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
    )
    assert qualified_name("x/")[0] == "name part must be non-empty"
    assert qualified_name("a" * 64) == ["name part must be no more than 63 bytes"]


def test_path_segment_names() -> None:
    assert path_segment_name("..") == ["may not be '..'"]
    assert path_segment_name("a/b%c") == ["may not contain '/'", "may not contain '%'"]
    assert path_segment_name("Job") == []


def test_defaults_fill_group_disruption_mode_only() -> None:
    pod_group: dict[str, Any] = {"spec": {}}
    apply_defaults(GROUP, "CompositePodGroup", pod_group)
    assert pod_group["spec"]["disruptionMode"] == {"single": {}}
    kept: dict[str, Any] = {"spec": {"disruptionMode": {"all": {}}}}
    apply_defaults(GROUP, "PodGroup", kept)
    assert kept["spec"]["disruptionMode"] == {"all": {}}
    workload: dict[str, Any] = {"spec": {"podGroupTemplates": [{"name": "a"}]}}
    apply_defaults(GROUP, "Workload", workload)
    assert workload == {"spec": {"podGroupTemplates": [{"name": "a"}]}}


def test_status_subresources() -> None:
    assert has_status_subresource(GROUP, "PodGroup")
    assert has_status_subresource(GROUP, "CompositePodGroup")
    assert not has_status_subresource(GROUP, "Workload")
    assert has_status_subresource("", "Pod")


def test_other_groups_get_only_the_metadata_rules() -> None:
    meta = {"metadata": {"name": "d", "namespace": "ml"}}
    assert validate_object("apps", "v1", "Deployment", meta, None, frozenset()) == []
    assert [
        c["field"] for c in validate_object("apps", "v1", "Deployment", {}, None, frozenset())
    ] == [
        "metadata.name",
        "metadata.namespace",
    ]


def test_metadata_name_is_immutable() -> None:
    old = {"metadata": {"name": "a", "namespace": "ml"}, "spec": {"podGroupTemplates": []}}
    new = {**old, "metadata": {"name": "b", "namespace": "ml"}}
    causes = validate_object(GROUP, "v1beta1", "Workload", new, old, frozenset())
    assert {
        "reason": "FieldValueInvalid",
        "field": "metadata.name",
        "message": 'Invalid value: "b": field is immutable',
    } in causes


def test_missing_name_and_namespace() -> None:
    causes = validate_object(GROUP, "v1beta1", "PodGroup", {"spec": {}}, None, frozenset())
    assert causes[:2] == [
        {
            "reason": "FieldValueRequired",
            "field": "metadata.name",
            "message": "Required value: name or generateName is required",
        },
        {
            "reason": "FieldValueRequired",
            "field": "metadata.namespace",
            "message": "Required value",
        },
    ]


def test_wrong_types_do_not_crash() -> None:
    obj = {
        "metadata": {"name": "w", "namespace": "ml"},
        "spec": {
            "podGroupTemplates": [{"name": 3, "schedulingPolicy": {"gang": {"minCount": "4"}}}]
        },
    }
    causes = validate_object(GROUP, "v1beta1", "Workload", obj, None, frozenset())
    assert [c["field"] for c in causes] == [
        "spec.podGroupTemplates[0].name",
        "spec.podGroupTemplates[0].schedulingPolicy.gang.minCount",
    ]
