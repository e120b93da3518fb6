"""Migration from 1.36 v1alpha2: the 1.36 schemas check the input, the 1.37 ones the output."""

from __future__ import annotations

import copy
import json
from functools import cache
from importlib.resources import files
from typing import Any

import jsonschema  # type: ignore[import-untyped, unused-ignore]
import kubernetes_validate
import pytest
import yaml
from cli_paths import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import assert_schema_valid
from referencing import Registry, Resource
from typer.testing import CliRunner

import workloadbuilder as wb
from workloadbuilder.cli import app

EXAMPLE = ROOT / "examples" / "migration" / "training-1.36.yaml"
V1ALPHA2 = "scheduling.k8s.io/v1alpha2"


@cache
def _validator_136(kind_file: str) -> jsonschema.Validator:
    """The strict 1.36 schema of kubernetes-validate (the same files its validate() reads)."""
    base = files(kubernetes_validate) / "kubernetes-json-schema" / "v1.36.0-local-strict"
    definitions = json.loads((base / "_definitions.json").read_text())
    registry = Resource.from_contents(definitions) @ Registry()
    schema = json.loads((base / kind_file).read_text())
    return jsonschema.Draft202012Validator(schema, registry=registry)


def valid_136(doc: dict[str, Any]) -> None:
    kind_file = f"{doc['kind'].lower()}-{doc['apiVersion'].replace('.k8s.io/', '-')}.json"
    errors = [e.message for e in _validator_136(kind_file).iter_errors(doc)]
    assert not errors, errors


def test_the_136_oracle_is_the_packages_own() -> None:
    doc = pod_group(disruptionMode="Pod")
    kubernetes_validate.validate(doc, "1.36.0", strict=True)
    valid_136(doc)
    doc["spec"]["workloadRef"] = {"workloadName": "w", "templateName": "t"}  # 1.37 only
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(doc, "1.36.0", strict=True)
    with pytest.raises(AssertionError):
        valid_136(doc)


def workload(*templates: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": V1ALPHA2,
        "kind": "Workload",
        "metadata": {"name": "trainer", "namespace": "ml"},
        "spec": {"podGroupTemplates": list(templates)},
    }


def pod_group(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": V1ALPHA2,
        "kind": "PodGroup",
        "metadata": {"name": "trainer-workers", "namespace": "ml"},
        "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}, **spec},
    }


def test_the_bundled_136_manifests_become_valid_137_objects() -> None:
    docs = list(yaml.safe_load_all(EXAMPLE.read_text()))
    for doc in docs:
        valid_136(doc)
    result = wb.migrate(docs)
    assert result.ok and result.findings == []
    workload_doc, group, config_map = result.documents
    assert_schema_valid(workload_doc)
    assert_schema_valid(group)
    assert config_map == docs[2]
    assert workload_doc["spec"]["podGroupTemplates"][0]["disruptionMode"] == {"all": {}}
    assert group["spec"]["workloadRef"] == {"workloadName": "trainer", "templateName": "workers"}
    assert "podGroupTemplateRef" not in group["spec"]


def test_disruption_modes_map_to_the_union_and_nothing_is_defaulted() -> None:
    docs = [pod_group(disruptionMode="Pod"), pod_group(disruptionMode="PodGroup"), pod_group()]
    for doc in docs:
        valid_136(doc)
    migrated = wb.migrate(docs).documents
    assert [d["spec"].get("disruptionMode") for d in migrated] == [
        {"single": {}},
        {"all": {}},
        None,
    ]
    for doc in migrated:
        assert_schema_valid(doc)
        assert "preemptionPolicy" not in doc["spec"] and "priority" not in doc["spec"]


def test_other_documents_and_versions_pass_through_unchanged() -> None:
    docs = [
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "value": 10,
            "metadata": {"name": "hi"},
        },
        {**pod_group(), "apiVersion": "scheduling.k8s.io/v1beta1"},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}},
    ]
    before = copy.deepcopy(docs)
    result = wb.migrate(docs)
    assert result.documents == before and result.findings == []
    assert docs == before


def test_v1alpha3_on_request() -> None:
    result = wb.migrate([pod_group(disruptionMode="Pod")], target="v1alpha3")
    (doc,) = result.documents
    assert doc["apiVersion"] == "scheduling.k8s.io/v1alpha3"
    assert_schema_valid(doc)


def test_what_137_rejects_that_136_accepted_is_reported_at_its_field() -> None:
    topology = {"topology": [{"key": "topology.kubernetes.io/zone"}, {"key": "rack"}]}
    doc = workload(
        {"name": "a", "schedulingPolicy": {"basic": {}}, "priorityClassName": "high"},
        {"name": "b", "schedulingPolicy": {"basic": {}}, "schedulingConstraints": topology},
    )
    valid_136(doc)
    result = wb.migrate([doc])
    assert not result.ok
    # upstream 1.37: topology holds at most one constraint; all templates share one priority
    assert [str(f.error) for f in result.findings] == [
        "spec.podGroupTemplates[1].schedulingConstraints.topology: Too many: 2:"
        " must have at most 1 item",
        "spec.podGroupTemplates[1].priorityClassName: Invalid value: null: detected multiple"
        ' priority configurations: spec.podGroupTemplates[0].priorityClassName is "high"',
    ]
    assert [f.document for f in result.findings] == [0, 0]


def test_status_is_not_carried_over_but_noted() -> None:
    doc = pod_group()
    doc["status"] = {
        "conditions": [
            {
                "type": "PodGroupScheduled",
                "status": "True",
                "reason": "Scheduled",
                "message": "",
                "lastTransitionTime": "2026-05-01T10:00:00Z",
            }
        ]
    }
    valid_136(doc)
    result = wb.migrate([doc])
    assert result.ok
    ((finding),) = result.findings
    assert not finding.blocking and finding.error.field == "status"
    assert "status" not in result.documents[0]


def test_unknown_fields_and_values_are_reported_not_dropped() -> None:
    doc = pod_group(
        disruptionMode="Gang",
        podGroupTemplateRef={
            "workload": {"workloadName": "w", "podGroupTemplateName": "t", "uid": "x"}
        },
    )
    result = wb.migrate([doc])
    assert [str(f.error) for f in result.findings] == [
        "spec.podGroupTemplateRef.workload.uid: Forbidden: unknown field",
        'spec.disruptionMode: Unsupported value: "Gang": supported values: "Pod", "PodGroup"',
    ]
    assert result.documents[0]["spec"]["disruptionMode"] == "Gang"


names = st.from_regex(r"[a-z]([a-z0-9-]{0,10}[a-z0-9])?", fullmatch=True)
modes = st.sampled_from(["Pod", "PodGroup", None])
policies = st.one_of(
    st.just({"basic": {}}), st.integers(1, 64).map(lambda n: {"gang": {"minCount": n}})
)
claims = st.lists(
    st.tuples(names, st.booleans(), names).map(
        lambda t: {
            "name": t[0],
            ("resourceClaimName" if t[1] else "resourceClaimTemplateName"): t[2],
        }
    ),
    max_size=2,
    unique_by=lambda c: c["name"],
)


@st.composite
def spec_136(draw: st.DrawFn) -> dict[str, Any]:
    spec: dict[str, Any] = {"schedulingPolicy": draw(policies)}
    mode = draw(modes)
    if mode:
        spec["disruptionMode"] = mode
    if draw(st.booleans()):
        spec["schedulingConstraints"] = {"topology": [{"key": "topology.kubernetes.io/zone"}]}
    spec["resourceClaims"] = draw(claims) or None
    if draw(st.booleans()):
        spec["priorityClassName"] = "batch"
    return {k: v for k, v in spec.items() if v is not None}


@settings(max_examples=40, deadline=None)
@given(st.lists(spec_136(), min_size=1, max_size=3), names, st.booleans())
def test_any_valid_136_pair_becomes_valid_137(
    templates: list[dict[str, Any]], template_name: str, with_ref: bool
) -> None:
    named = [{"name": f"{template_name[:50]}-{i}", **t} for i, t in enumerate(templates)]
    for t in named:
        t["priorityClassName"] = "batch"  # one priority: what 1.37 requires of a Workload
    group_spec = dict(templates[0])
    if with_ref:
        group_spec["podGroupTemplateRef"] = {
            "workload": {"workloadName": "trainer", "podGroupTemplateName": named[0]["name"]}
        }
    docs = [workload(*named), pod_group(**group_spec)]
    for doc in docs:
        valid_136(doc)
    result = wb.migrate(docs)
    assert result.ok, [str(f) for f in result.findings]
    for doc in result.documents:
        assert_schema_valid(doc)


def test_the_command_reports_findings_on_stderr(runner: CliRunner, tmp_path: Any) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(pod_group(disruptionMode="Gang")))
    result = runner.invoke(app, ["migrate", str(EXAMPLE), str(bad)])
    assert result.exit_code == 1
    assert result.stdout == ""  # `migrate old.yaml > new.yaml` never leaves a half-migrated file
    assert result.stderr == (
        f"{bad}: document 3 (PodGroup trainer-workers): error: spec.disruptionMode: Unsupported"
        ' value: "Gang": supported values: "Pod", "PodGroup"\n'
    )


def test_the_command_reads_f_and_standard_input_as_kubectl(runner: CliRunner) -> None:
    by_argument = runner.invoke(app, ["migrate", str(EXAMPLE)])
    assert by_argument.exit_code == 0, by_argument.output
    by_option = runner.invoke(app, ["migrate", "-f", str(EXAMPLE), "--to", "v1beta1"])
    piped = runner.invoke(app, ["migrate", "-f", "-"], input=EXAMPLE.read_bytes())
    assert by_option.stdout == piped.stdout == by_argument.stdout
    documents = list(yaml.safe_load_all(EXAMPLE.read_text()))
    assert len(list(yaml.safe_load_all(by_argument.stdout))) == len(documents)
    assert runner.invoke(app, ["migrate"]).exit_code == 2


def test_lists_from_kubectl_get_are_migrated_item_by_item() -> None:
    listed = {
        "apiVersion": "v1",
        "kind": "List",
        "metadata": {"resourceVersion": ""},
        "items": [pod_group(disruptionMode="Pod"), pod_group(disruptionMode="Bogus")],
    }
    result = wb.migrate([listed])
    (migrated,) = result.documents
    assert migrated["items"][0]["apiVersion"] == "scheduling.k8s.io/v1beta1"
    assert migrated["items"][0]["spec"]["disruptionMode"] == {"single": {}}
    assert [f.error.field for f in result.findings] == ["items[1].spec.disruptionMode"]
    assert_schema_valid(migrated["items"][0])
