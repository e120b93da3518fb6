"""A Workload of several independent groups: ``Builder([launcher, workers], options)``.

Expected from the 1.37 v1beta1 API (upstream-1.37.md 3a): ``spec.podGroupTemplates`` XOR
``spec.compositePodGroupTemplates``, at most 8 each, template names unique, one priority
across the Workload. Every built object is checked against the upstream schema and the
official client's models by this directory's conftest."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

import workloadbuilder as wb
from workloadbuilder.spec import load_spec

OPTIONS = wb.BuildOptions(
    "train",
    "ml",
    {
        "apiVersion": "kubeflow.org/v2beta1",
        "kind": "MPIJob",
        "name": "r",
        "uid": "u",
        "controller": True,
    },
    allowed_policies=frozenset(wb.SchedulingPolicyOption),
    allowed_disruption_modes=frozenset(wb.DisruptionModeOption),
)
LAUNCHER = wb.leaf("launcher", policy=wb.gang(1), replicas=1)
WORKERS = wb.leaf("workers", policy=wb.gang(4), disruption_mode="all", replicas=4)
BETA_SPEC = Path(__file__).resolve().parents[2] / "examples" / "specs" / "training-beta.yaml"


def test_several_leaves_compile_to_the_workloads_own_pod_group_templates() -> None:
    builder = wb.Builder([LAUNCHER, WORKERS], OPTIONS)
    assert builder.validate() == []
    assert builder.roots == (LAUNCHER, WORKERS)
    spec = builder.build_workload().to_dict()["spec"]
    assert [t["name"] for t in spec["podGroupTemplates"]] == ["launcher", "workers"]
    assert "compositePodGroupTemplates" not in spec
    groups = wb.instantiate(builder)
    assert [(g.kind, g.spec.workload_ref.template_name) for g in groups] == [
        ("PodGroup", "launcher"),
        ("PodGroup", "workers"),
    ]
    assert all(g.spec.parent_composite_pod_group_name is None for g in groups)


def test_one_root_in_a_list_is_the_single_root() -> None:
    assert (
        wb.Builder([WORKERS], OPTIONS).build_workload().to_dict()
        == wb.Builder(WORKERS, OPTIONS).build_workload().to_dict()
    )


def test_each_root_is_reported_at_its_own_path() -> None:
    bad = wb.leaf("workers", policy=wb.gang(0))
    placed = wb.leaf("launcher", path=wb.FieldPath("spec", "launcher"), policy=wb.gang(-1))
    errors = wb.validate([placed, bad], OPTIONS)
    assert [e.field for e in errors] == [
        "spec.launcher.schedulingPolicy.gang.minCount",
        "spec.podGroupTemplates[1].schedulingPolicy.gang.minCount",
    ]


def test_the_rules_across_templates() -> None:
    mixed = wb.validate([LAUNCHER, wb.composite("c", [wb.leaf("w")])], OPTIONS)
    assert [(e.type, e.field) for e in mixed] == [
        (wb.ErrorType.INVALID, "spec.compositePodGroupTemplates[1]")
    ]
    many = wb.validate([wb.leaf(f"g{i}") for i in range(9)], OPTIONS)
    assert [(e.type, e.field) for e in many] == [(wb.ErrorType.TOO_MANY, "spec.podGroupTemplates")]
    twice = wb.validate([LAUNCHER, wb.leaf("launcher")], OPTIONS)
    assert [str(e) for e in twice] == [
        'spec.podGroupTemplates[1]: Internal error: duplicate workload item name "launcher":'
        " template names must be unique across the Workload"
    ]
    priorities = wb.validate([LAUNCHER, wb.leaf("w", priority_class_name="high")], OPTIONS)
    assert [e.detail for e in priorities] == [
        "all priority and priorityClassName values must be identical, detected multiple values"
    ]
    off = dataclasses.replace(OPTIONS, check_api_server_rules=False)
    assert wb.validate([LAUNCHER, wb.leaf("w", priority_class_name="high")], off) == []
    with pytest.raises(wb.BuildError, match="either podGroupTemplates or"):
        wb.build_workload([LAUNCHER, wb.composite("c", [wb.leaf("w")])], OPTIONS)


def test_workload_fields_are_checked_once() -> None:
    bad_name = dataclasses.replace(OPTIONS, name="Bad_Name")
    errors = wb.validate([LAUNCHER, WORKERS], bad_name)
    assert [e.field for e in errors] == ["metadata.name"]


def test_anything_but_items_is_refused() -> None:
    with pytest.raises(TypeError, match=r"root \[1\] must be a WorkloadItem"):
        wb.Builder([LAUNCHER, "workers"], OPTIONS)  # type: ignore[list-item]
    with pytest.raises(TypeError, match="sequence of them"):
        wb.Builder("workers", OPTIONS)  # type: ignore[arg-type]


def test_a_spec_file_with_roots(tmp_path: Path) -> None:
    loaded = load_spec(BETA_SPEC)
    assert loaded.validate() == []
    names = [t.name for t in loaded.builder().build_workload().spec.pod_group_templates or ()]
    assert names == ["launcher", "workers"]
    both = tmp_path / "both.yaml"
    both.write_text(BETA_SPEC.read_text().replace("  roots:", "  root: {name: x}\n  roots:"))
    with pytest.raises(wb.spec.SpecError, match=r"spec\.root: Required value"):
        load_spec(both)
    short = tmp_path / "short.yaml"
    short.write_text(BETA_SPEC.read_text().replace("replicas: 4", "replicas: 3"))
    (error,) = load_spec(short).validate()
    assert error.field == "spec.roots[1].schedulingPolicy.gang.minCount"
