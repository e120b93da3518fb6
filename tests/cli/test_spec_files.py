"""Spec files: parsed into the tree, checked against their JSON Schema, errors at their lines."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema  # type: ignore[import-untyped, unused-ignore]
import pytest
import yaml
from cli_paths import SPECS
from oracles import assert_schema_valid

import workloadbuilder as wb
from workloadbuilder.spec import SpecError, load_spec, spec_json_schema

EXAMPLES = sorted(SPECS.glob("*.yaml"))

TRAINING = """\
apiVersion: workloadbuilder.dev/v1alpha1
kind: WorkloadSpec
spec:
  namespace: ml-training
  owner:
    apiVersion: kubeflow.org/v1
    kind: PyTorchJob
    name: resnet
    uid: 0c5e7a4e-3f1d-4c1b-9a57-3c2f8f6f2b10
  capabilities:
    policies: [Gang]
    disruptionModes: [Single, All]
  root:
    name: workers
    schedulingPolicy:
      gang:
        minCount: 4
"""


def line_of(text: str, needle: str) -> int:
    """The 1-based line of the only line of ``text`` containing ``needle``."""
    (number,) = [i for i, line in enumerate(text.splitlines(), 1) if needle in line]
    return number


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "spec.yaml"
    path.write_text(text)
    return path


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_example_spec_conforms_to_the_generated_schema(path: Path) -> None:
    jsonschema.Draft202012Validator(spec_json_schema()).validate(yaml.safe_load(path.read_text()))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_example_spec_compiles_to_objects_the_137_schema_accepts(path: Path) -> None:
    objects = load_spec(path).objects()
    assert objects[0].kind == "Workload"
    for obj in objects:
        assert_schema_valid(obj.to_dict())


def test_the_schema_is_json_and_rejects_what_the_loader_rejects(tmp_path: Path) -> None:
    schema = json.loads(json.dumps(spec_json_schema()))
    validator = jsonschema.Draft202012Validator(schema)
    jsonschema.Draft202012Validator.check_schema(schema)
    bad = yaml.safe_load(TRAINING.replace("  namespace: ml-training", "  namespace: ml\n  x: 1"))
    assert not validator.is_valid(bad)
    composite_with_min_count = yaml.safe_load(
        TRAINING.replace("    name: workers\n", "    name: workers\n    children: []\n")
    )
    assert not validator.is_valid(composite_with_min_count)
    with pytest.raises(SpecError):
        load_spec(write(tmp_path, yaml.safe_dump(bad)))


def test_a_spec_is_the_tree_the_shorthands_write() -> None:
    spec = load_spec(SPECS / "release.yaml")
    expected = wb.composite(
        "workload-root",
        [
            wb.leaf(
                "workers",
                path="spec.root.children[0]",
                policy=wb.gang(4),
                topology=["topology.example.com/rack"],
            ),
            wb.leaf("driver", path="spec.root.children[1]", policy=wb.gang(1)),
        ],
        path="spec.root",
        policy=wb.gang(min_group_count=2),
        topology=["topology.kubernetes.io/zone"],
        disruption_mode="all",
    )
    options = spec.options
    assert wb.Builder(expected, options).build_workload() == spec.builder().build_workload()
    assert options.namespace == "ml-training"
    assert options.owner is not None and options.owner.controller is True
    assert options.name == wb.generate_workload_name(
        "resnet", "3f6c1a2e-0d1b-4c55-9e8f-7a6b5c4d3e2f"
    )


def test_validation_errors_are_at_the_specs_own_paths_and_lines(tmp_path: Path) -> None:
    text = TRAINING.replace("minCount: 4", "minCount: 0").replace(
        "  root:\n    name: workers\n",
        "  root:\n    name: workers\n    disruptionMode:\n      all: {}\n",
    )
    spec = load_spec(write(tmp_path, text))
    error = spec.error(spec.validate())
    assert error.located() == [
        f"{tmp_path / 'spec.yaml'}:{line_of(text, 'minCount: 0')}:"
        " spec.root.schedulingPolicy.gang.minCount:"
        " Invalid value: 0: must be greater than or equal to 1"
    ]


def test_capabilities_deny_by_default_at_the_spec_path(tmp_path: Path) -> None:
    text = TRAINING.replace("disruptionModes: [Single, All]", "disruptionModes: [Single]")
    text = text.replace(
        "  root:\n    name: workers\n",
        "  root:\n    name: workers\n    disruptionMode:\n      all: {}\n",
    )
    spec = load_spec(write(tmp_path, text))
    assert [str(e) for e in spec.validate()] == [
        "spec.root.disruptionMode: Forbidden: the disruptionMode `all` is not supported by this"
        " controller"
    ]


def test_malformed_specs_name_the_field_and_line(tmp_path: Path) -> None:
    text = TRAINING.replace("policies: [Gang]", "policies: [Gang, Fifo]").replace(
        "        minCount: 4", "        minCount: 4\n        minGroupCount: 2"
    )
    with pytest.raises(SpecError) as caught:
        load_spec(write(tmp_path, text))
    where = tmp_path / "spec.yaml"
    assert caught.value.located() == [
        f"{where}:{line_of(text, 'policies:')}: spec.capabilities.policies[1]:"
        ' Unsupported value: "Fifo": supported values: "Basic", "Gang"',
        f"{where}:{line_of(text, 'minGroupCount')}:"
        " spec.root.schedulingPolicy.gang.minGroupCount: Forbidden: unknown field",
    ]


def test_missing_fields_point_at_their_parent(tmp_path: Path) -> None:
    text = TRAINING.replace("    uid: 0c5e7a4e-3f1d-4c1b-9a57-3c2f8f6f2b10\n", "")
    with pytest.raises(SpecError) as caught:
        load_spec(write(tmp_path, text))
    assert caught.value.located() == [f"{tmp_path / 'spec.yaml'}:5: spec.owner.uid: Required value"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("apiVersion: v1\nkind: WorkloadSpec\nspec: {}\n", "1: apiVersion: Unsupported value"),
        ("- a\n- b\n", "spec.yaml:1: the document must be an object, not a list"),
        ("", "spec.yaml:1: the document must be an object, not empty"),
        ("true\n", "spec.yaml:1: the document must be an object, not a boolean"),
        ("7\n", "spec.yaml:1: the document must be an object, not a number"),
        ("spec: [\n", "not valid YAML"),
    ],
)
def test_not_a_spec(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(SpecError) as caught:
        load_spec(write(tmp_path, text))
    assert message in str(caught.value)


def test_naming_inputs_are_reported_at_the_spec_fields(tmp_path: Path) -> None:
    text = TRAINING.replace("namespace: ml-training", "namespace: ML_Training").replace(
        "  capabilities:", "  workloadName: Trainer\n  capabilities:"
    )
    spec = load_spec(write(tmp_path, text))
    located = spec.error(spec.validate()).located()
    where = tmp_path / "spec.yaml"
    assert [line.split(": Invalid value: ")[0] for line in located] == [
        f"{where}:{line_of(text, 'workloadName')}: spec.workloadName",
        f"{where}:{line_of(text, 'namespace:')}: spec.namespace",
    ]


def test_an_owner_api_version_that_does_not_parse(tmp_path: Path) -> None:
    text = TRAINING.replace("apiVersion: kubeflow.org/v1", "apiVersion: kubeflow.org/v1/beta")
    spec = load_spec(write(tmp_path, text))
    (error,) = spec.validate()
    assert error.field == "spec.owner.apiVersion"
    # what the API server answers for the owner reference (validateOwnerReference)
    assert error.bad_value == "kubeflow.org/v1/beta"
    assert error.detail == "must be <group>/<version> or <version>"
    with pytest.raises(SpecError):
        spec.objects()


@pytest.mark.parametrize("field", ["apiVersion", "kind", "name", "uid"])
@pytest.mark.parametrize("named", [False, True], ids=["generated-name", "workloadName"])
def test_an_owner_needs_its_api_version_kind_name_and_uid(
    tmp_path: Path, field: str, named: bool
) -> None:
    # The API server rejects an owner reference with an empty field (the test
    # server's metadata rules): the spec reports it at its field, whether or not the Workload's
    # name is generated from the owner's.
    text = TRAINING.replace(
        {
            "apiVersion": "apiVersion: kubeflow.org/v1",
            "kind": "kind: PyTorchJob",
            "name": "name: resnet",
            "uid": "uid: 0c5e",
        }[field],
        f'{field}: ""  #',
    )
    if named:
        text = text.replace("  capabilities:", "  workloadName: trainer\n  capabilities:")
    spec = load_spec(write(tmp_path, text))
    empty = f'{field}: ""'
    assert spec.error(spec.validate()).located() == [
        f"{tmp_path / 'spec.yaml'}:{line_of(text, empty)}:"
        f" spec.owner.{field}: Required value: must not be empty"
    ]
    with pytest.raises(SpecError):
        spec.objects()
