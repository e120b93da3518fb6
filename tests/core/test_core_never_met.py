"""Counts that can never be met, reported by validate(), spec files and ``workloadbuilder
validate`` at the count's own path (the controller's, through ``field_paths``).

Expected from the scheduling semantics (DESIGN.md): the scheduler waits until ``minCount``
member pods exist, so a gang whose ``minCount`` exceeds the pods its controller creates never
forms; a composite gang needs ``minGroupCount`` satisfiable children. The API server accepts
both (they are our rules). Only a count the controller declares bounds them: one child template
may stamp several child groups (one per replica group, as LeaderWorkerSet does), and upstream's
``Validate`` accepts ``minGroupCount: 2`` over one child template (its "composite gang allowed"
case, ``compositeRoot`` with a single child)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from typer.testing import CliRunner

import workloadbuilder as wb
from workloadbuilder.api.scheduling_v1alpha3 import (
    WorkloadPodGroupGangSchedulingPolicy,
    WorkloadPodGroupSchedulingPolicy,
)
from workloadbuilder.cli import app
from workloadbuilder.spec import load_spec

ROOT = Path(__file__).resolve().parents[2]
TRAINING = ROOT / "examples" / "specs" / "training.yaml"
RELEASE = ROOT / "examples" / "specs" / "release.yaml"

OPTIONS = wb.BuildOptions(
    "wl",
    "ns",
    {"apiVersion": "batch/v1", "kind": "Job", "name": "j", "uid": "u", "controller": True},
    allowed_policies=frozenset(wb.SchedulingPolicyOption),
    allowed_disruption_modes=frozenset(wb.DisruptionModeOption),
)
OFF = dataclasses.replace(OPTIONS, check_satisfiable_counts=False)


def rendered(errors: wb.ErrorList) -> list[str]:
    return [str(e) for e in errors]


def test_a_gang_above_its_replicas_is_reported_at_min_count() -> None:
    errors = wb.validate(wb.leaf("workers", policy=wb.gang(5), replicas=4), OPTIONS)
    assert rendered(errors) == [
        "spec.podGroupTemplates[0].schedulingPolicy.gang.minCount: Invalid value: 5: must be no"
        " more than the 4 replicas the controller creates: the gang can never form"
    ]
    assert wb.validate(wb.leaf("workers", policy=wb.gang(4), replicas=4), OPTIONS) == []
    assert wb.validate(wb.leaf("workers", policy=wb.gang(5)), OPTIONS) == []  # replicas unknown


def test_a_composite_above_its_child_templates_is_valid() -> None:
    # LeaderWorkerSet's shape: one template stamps one child group per replica group.
    root = wb.composite(
        "lws",
        [wb.leaf("group", policy=wb.gang(4), replicas=4)],
        path=wb.FieldPath("spec", "run"),
        policy=wb.gang(min_group_count=3),
    )
    assert wb.validate(root, OPTIONS) == []
    workload = wb.build_workload(root, OPTIONS).to_dict()
    (template,) = workload["spec"]["compositePodGroupTemplates"]
    assert template["schedulingPolicy"] == {"gang": {"minGroupCount": 3}}


def test_a_composite_above_its_declared_child_groups_is_reported_at_min_group_count() -> None:
    def root(child_groups: int) -> wb.WorkloadItem:
        return wb.composite(
            "train",
            [wb.leaf("launcher", policy=wb.gang(1)), wb.leaf("workers", policy=wb.gang(4))],
            path=wb.FieldPath("spec", "run"),
            policy=wb.gang(min_group_count=3),
            child_groups=child_groups,
        )

    assert rendered(wb.validate(root(2), OPTIONS)) == [
        "spec.run.schedulingPolicy.gang.minGroupCount: Invalid value: 3: must be no more than"
        " the 2 child groups the controller creates: it can never be met"
    ]
    assert wb.validate(root(3), OPTIONS) == []
    assert wb.validate(root(2), OFF) == []


def test_a_nested_composite_is_checked_against_its_own_declared_count() -> None:
    inner = wb.composite(
        "replica", [wb.leaf("w", policy=wb.gang(2))], policy=wb.gang(min_group_count=2)
    )
    outer = wb.composite("root", [inner], policy=wb.gang(min_group_count=5), child_groups=4)
    (error,) = wb.validate(outer, OPTIONS)
    assert (error.field, error.bad_value) == (
        "spec.compositePodGroupTemplates[0].schedulingPolicy.gang.minGroupCount",
        5,
    )
    declared = dataclasses.replace(inner, child_groups=1)
    outer = wb.composite("root", [declared], policy=wb.gang(min_group_count=4), child_groups=4)
    (error,) = wb.validate(outer, OPTIONS)
    assert error.field == (
        "spec.compositePodGroupTemplates[0].compositePodGroupTemplates[0]"
        ".schedulingPolicy.gang.minGroupCount"
    )


@pytest.mark.parametrize(
    ("child_groups", "raised"), [(True, TypeError), ("2", TypeError), (-1, ValueError)]
)
def test_child_groups_must_be_a_count(child_groups: object, raised: type[Exception]) -> None:
    with pytest.raises(raised, match="child_groups"):
        wb.composite("c", [wb.leaf("w")], child_groups=child_groups)  # type: ignore[arg-type]


def test_child_groups_belong_to_composites() -> None:
    with pytest.raises(ValueError, match="workload item 'w' has no children"):
        wb.WorkloadItem("w", child_groups=2)
    children = [wb.leaf("w")]
    assert wb.composite("c", children, child_groups=2) != wb.composite("c", children)
    assert hash(wb.composite("c", children, child_groups=2)) == hash(
        wb.composite("c", children, child_groups=2)
    )


def test_the_rules_are_switched_off_like_the_api_server_rules() -> None:
    assert OPTIONS.check_satisfiable_counts is True  # on by default
    assert wb.validate(wb.leaf("workers", policy=wb.gang(5), replicas=4), OFF) == []
    assert wb.Builder(wb.leaf("w", policy=wb.gang(5), replicas=4), OFF).build_workload()


def test_a_plugins_min_available_is_reported_at_the_plugins_own_path() -> None:
    policy = wb.FieldPath("spec", "schedulingPolicy")
    item = wb.WorkloadItem(
        "run",
        path=policy,
        input=wb.WorkloadInput(
            policy=wb.PolicyInput(
                pod_group_data=WorkloadPodGroupSchedulingPolicy(
                    gang=WorkloadPodGroupGangSchedulingPolicy(min_count=6)
                ),
                field_paths={"gang.minCount": policy.child("minAvailable")},
            )
        ),
        replicas=5,
    )
    (error,) = wb.validate(item, OPTIONS)
    assert error.field == "spec.schedulingPolicy.minAvailable"
    assert (error.type, error.bad_value) == (wb.ErrorType.INVALID, 6)


def test_a_count_a_callback_resolves_is_checked_too() -> None:
    def job_default(config: wb.SchedulingConfig) -> wb.SchedulingConfig:
        return dataclasses.replace(
            config, policy=wb.SchedulingPolicy(gang=wb.GangSchedulingPolicy(8))
        )

    item = wb.leaf("w", policy=wb.gang(), replicas=4, callbacks=[job_default])
    (error,) = wb.validate(item, OPTIONS)
    assert error.field.endswith("schedulingPolicy.gang.minCount") and error.bad_value == 8


@pytest.mark.parametrize(
    ("replicas", "raised"), [(True, TypeError), ("4", TypeError), (-1, ValueError)]
)
def test_replicas_must_be_a_count(replicas: object, raised: type[Exception]) -> None:
    with pytest.raises(raised, match="replicas"):
        wb.leaf("w", replicas=replicas)  # type: ignore[arg-type]


def test_replicas_belong_to_leaves() -> None:
    with pytest.raises(ValueError, match="composite workload item 'c' has children"):
        wb.WorkloadItem("c", children=(wb.leaf("w"),), replicas=2)
    assert wb.leaf("w", replicas=2) != wb.leaf("w", replicas=3)


def test_spec_files_and_the_validate_command_report_them(tmp_path: Path) -> None:
    short = tmp_path / "short.yaml"
    short.write_text(TRAINING.read_text().replace("replicas: 4", "replicas: 3"))
    errors = load_spec(short).validate()
    assert [e.field for e in errors] == ["spec.root.schedulingPolicy.gang.minCount"]
    result = CliRunner().invoke(app, ["validate", str(short)])
    assert result.exit_code == 1
    assert "valid" not in result.stdout
    assert "spec.root.schedulingPolicy.gang.minCount: Invalid value: 4" in result.output
    assert "can never form" in result.output

    # A spec declares no child group count: minGroupCount above the templates is valid.
    over = tmp_path / "over.yaml"
    over.write_text(RELEASE.read_text().replace("minGroupCount: 2", "minGroupCount: 3"))
    assert load_spec(over).validate() == []
    result = CliRunner().invoke(app, ["validate", str(over)])
    assert (result.exit_code, result.stdout) == (0, f"{over}: valid\n")
    result = CliRunner().invoke(app, ["explain", str(over)])
    assert result.exit_code == 0, result.output
    assert "never" not in result.output
    assert (
        "workload-root (CompositePodGroup): gang over its groups: at least 3 child groups"
        " must fit together (from 2 child templates)"
    ) in result.stdout
    # 4 workers + 1 driver + one more group of the smaller template (the driver's 1 pod)
    assert "6 pod(s) must exist before the scheduler even looks" in result.stdout

    assert CliRunner().invoke(app, ["validate", str(TRAINING)]).stdout.endswith("valid\n")
